"""The cost of more replicates: extending stored cells against computing them afresh, and a
precision target's pilot-then-rest against a fixed count.

Run: ``python benchmarks/bench_replicates.py [--cells N] [--repeats K]`` (N = 10⁴ tiny
cells by default: about two minutes). Each measurement runs in a fresh process (the
engine's Python entry: :func:`sweep.cli.run_configs`, serial executor, so that the figures
are the engine's own work and not a pool's start-up) into a temporary ``results_dir``,
after a warm-up that fills numba's cache; the median of K repeats is printed, with the
process's peak resident memory. Printed:

* ``fresh 4``: N tiny Private-ColME cells (``seed=range(N)``) at 4 replicates into an
  empty directory;
* ``2, then 4``: the same cells at 2 replicates, then extended to 4: the second command's
  time alone (what the extension costs), against ``fresh 4`` (goal: the new replicates'
  share of ``fresh 4`` plus a small constant per cell);
* ``fixed 12`` against ``auto``: the same cells at 12 replicates, and with
  ``replicates=auto`` (a pilot of 10, a half-width that asks for about 12), both stages
  (the pilot-then-rest overhead).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The smallest cell there is: its simulation takes a few milliseconds.
TINY = {"family": "colme", "n_agents": 2, "t_max": 2, "checkpoints": 1, "baselines": [],
        "executor": "serial"}

#: One measurement, in a fresh process: runs the commands (lists of configurations) in
#: order, prints the seconds of each and the peak resident memory (kB) as JSON.
CHILD = textwrap.dedent("""
    import json, resource, sys, time
    from sweep.cli import run_configs
    times = []
    for configs in json.loads(sys.stdin.read()):
        start = time.perf_counter()
        run_configs(configs, progress=False)
        times.append(time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": times, "peak_kib": peak}))
""")


def measure(commands: list[list[dict]]) -> dict:
    """Run ``commands`` (each a list of configurations) in one fresh process."""
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(commands),
                          capture_output=True, text=True, check=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(done.stdout.strip().splitlines()[-1])


def grid(cells: int, directory: str, **options: object) -> list[dict]:
    return [{**TINY, "seed": seed, "results_dir": directory, **options}
            for seed in range(cells)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n = args.cells
    with tempfile.TemporaryDirectory() as scratch:
        measure([grid(2, f"{scratch}/warm", replicates=2)])
        rows: dict[str, list[tuple[float, int]]] = {}
        for repeat in range(args.repeats):
            where = f"{scratch}/{repeat}"
            fresh = measure([grid(n, f"{where}/fresh", replicates=4)])
            both = measure([grid(n, f"{where}/extend", replicates=2),
                            grid(n, f"{where}/extend", replicates=4)])
            fixed = measure([grid(n, f"{where}/fixed", replicates=12)])
            # A half-width that asks for about 12 replicates of these cells' MSE.
            auto = measure([grid(n, f"{where}/auto", replicates="auto",
                                 target={"half_width": 0.067, "pilot": 10, "max": 40})])
            for name, result, part in (("fresh 4", fresh, 0), ("2", both, 0),
                                       ("then 4 (extension)", both, 1),
                                       ("fixed 12", fixed, 0), ("auto (pilot 10)", auto, 0)):
                rows.setdefault(name, []).append((result["seconds"][part],
                                                  result["peak_kib"]))
    print(f"{n} tiny cells, serial, median of {args.repeats} (load average "
          f"{os.getloadavg()[0]:.2f}):")
    print(f"{'command':<22}{'seconds':>10}{'ms/cell':>10}{'peak MiB':>10}")
    for name, values in rows.items():
        seconds = statistics.median(v[0] for v in values)
        peak = max(v[1] for v in values) / 1024
        print(f"{name:<22}{seconds:>10.2f}{1e3 * seconds / n:>10.3f}{peak:>10.0f}")
    fresh = statistics.median(v[0] for v in rows["fresh 4"])
    extension = statistics.median(v[0] for v in rows["then 4 (extension)"])
    print(f"extension / fresh: {extension / fresh:.2f} (the new replicates are half of "
          "fresh 4's)")
    fixed = statistics.median(v[0] for v in rows["fixed 12"])
    auto = statistics.median(v[0] for v in rows["auto (pilot 10)"])
    print(f"auto / fixed 12: {auto / fixed:.2f}")


if __name__ == "__main__":
    main()
