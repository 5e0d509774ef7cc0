"""Each executor's wall time on this machine, next to a plain process pool and joblib.

Run: ``python benchmarks/bench_executors.py [--runs N] [--workloads NAME ...]`` (about
25 minutes on 2 cores with the default 3 runs). Workloads, each the command
``python -m sweep -m ...`` into a fresh ``results_dir``:

* ``quickstart``: ``+experiment=quickstart`` (8 cells);
* ``fig2_left``: ``+experiment=fig2_left`` (8 cells of 20 replicates; the Fig. 2 preset
  as the paper runs it);
* ``medium``: 40 cells of about 0.25 s each (:data:`MEDIUM`);
* ``tiny``: 10⁴ of the smallest cells, a few milliseconds each (:data:`TINY`).

Variants: the command with ``executor=serial``, ``processes``, ``ray`` (``ray.num_cpus``
as many as the pool's workers) and ``auto`` (what it chose is printed next to it); and
two plain baselines that map the same cells, one cell per call, from a fresh Python
process that has imported the platform: a :class:`concurrent.futures.ProcessPoolExecutor`
(fork, Linux's default) and joblib's ``Parallel`` (loky; left out if joblib is not
installed). A baseline computes a cell with :func:`sweep.execute.simulate` (the rows a
sweep cell stores, as a DataFrame) and writes all rows to one Parquet file at the end.
The cells are those the first command stored, read back from its files, so every variant
computes the same cells; that first run (serial) also fills numba's cache, so no variant
compiles.

Printed, per workload: each variant's wall time (launch to exit) for every run, the
median, the median over the plain pool's, and, for the commands, the medians of the time
from launch to the first cell starting (Python, Hydra, planning and the executor's
start-up) and from the last cell ending to the exit (storing the last cells, stopping the
executor, Python's own exit). Runs are interleaved (run 1 of every variant, then run 2,
...) so that the machine's drift hits every variant alike.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_sweep import TINY, overrides

#: About 0.25 s of compute per cell on one core of the 2-core machine.
MEDIUM: dict[str, Any] = {"n_agents": 100, "t_max": 50_000, "replicates": 4,
                          "checkpoints": 10, "baselines": [],
                          "allow_large_delta": True}  # δ = 1e-6 > 1/(M t_max)
WORKLOADS: dict[str, list[str]] = {
    "quickstart": ["+experiment=quickstart"],
    "fig2_left": ["+experiment=fig2_left"],
    "medium": ["seed=range(0,40)", *overrides(MEDIUM)],
    "tiny": ["seed=range(0,10000)", *overrides(TINY)],
}
EXECUTORS = ("serial", "processes", "ray", "auto")
BASELINES = ("pool", "joblib") if importlib.util.find_spec("joblib") else ("pool",)


def _simulate(cell: dict[str, Any]) -> Any:
    from sweep.execute import simulate

    return simulate(**cell)


def baseline(kind: str, cells_file: str, workers: int, out: str) -> None:
    """Map :func:`sweep.execute.simulate` over the cells of ``cells_file`` with a plain
    process pool (``kind`` ``pool``) or joblib, and write all rows to ``out``."""
    import pandas as pd

    import sweep.execute  # noqa: F401 (imported once here, as a script would, not per worker)

    cells = json.loads(Path(cells_file).read_text())
    if kind == "pool":
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as pool:
            frames = list(pool.map(_simulate, cells))
    else:
        import joblib

        frames = joblib.Parallel(n_jobs=workers)(joblib.delayed(_simulate)(c) for c in cells)
    pd.concat(frames, ignore_index=True).to_parquet(out)


def _run(command: list[str], cwd: str) -> tuple[float, str]:
    """Wall seconds and output of ``command`` (an error if it fails)."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"exit code {done.returncode}: {' '.join(command)}\n"
                           + "\n".join(done.stderr.splitlines()[-20:]))
    return wall, done.stdout


def _stored(results: Path) -> tuple[list[dict[str, Any]], float, float, float]:
    """The cells stored in ``results`` as :func:`sweep.execute.simulate`'s arguments, the
    UNIX times the first of them started and the last ended, and their compute seconds,
    summed."""
    from sweep.store import ResultsStore

    store = ResultsStore(results)
    store.scan()
    records = list(store.records().values())
    cells = [{"family": r["config"]["family"], "replicates": r["config"]["replicates"],
              "seed": r["config"]["seed"], **r["config"]["options"]} for r in records]
    return (cells, min(r["started"] for r in records), max(r["finished"] for r in records),
            sum(r["wall_seconds"] for r in records))


def measure(variant: str, arguments: Sequence[str], cells_file: str, workers: int
            ) -> tuple[float, tuple[float, float] | None, str]:
    """One run of ``variant`` in fresh directories: its wall time, the times from launch
    to the first cell starting and from the last cell ending to the exit (commands only),
    and the executor it ran on."""
    with tempfile.TemporaryDirectory(prefix="bench_executors_") as scratch:
        if variant in BASELINES:
            wall, _ = _run([sys.executable, __file__, "--baseline", variant, cells_file,
                            str(workers), str(Path(scratch) / "rows.parquet")], scratch)
            return wall, None, variant
        results = Path(scratch) / "results"
        launch = time.time()
        wall, output = _run([sys.executable, "-m", "sweep", "-m", *arguments,
                             f"executor={variant}", f"ray.num_cpus={workers}",
                             f"processes.workers={workers}", f"results_dir={results}"],
                            scratch)
        chosen = re.search(r"^executor: (\w+) ", output, re.MULTILINE)
        _, started, finished, _ = _stored(results)
        return wall, (started - launch, launch + wall - finished), chosen[1] if chosen else "?"


def workload(name: str, runs: int, workers: int) -> None:
    """Measure and print every variant on the workload ``name``."""
    arguments = WORKLOADS[name]
    with tempfile.TemporaryDirectory(prefix="bench_executors_") as scratch:
        first = Path(scratch) / "results"
        _run([sys.executable, "-m", "sweep", "-m", *arguments, "executor=serial",
              f"results_dir={first}"], scratch)
        cells, _, _, compute = _stored(first)
        cells_file = Path(scratch) / "cells.json"
        cells_file.write_text(json.dumps(cells))
        variants = [*EXECUTORS, *BASELINES]
        walls: dict[str, list[float]] = {v: [] for v in variants}
        ends: dict[str, list[tuple[float, float]]] = {v: [] for v in variants}
        chosen: dict[str, str] = {}
        for _ in range(runs):
            for variant in variants:
                wall, edges, chosen[variant] = measure(variant, arguments, str(cells_file),
                                                       workers)
                walls[variant].append(wall)
                if edges is not None:
                    ends[variant].append(edges)
    pool = statistics.median(walls["pool"])
    print(f"\n{name}: {len(cells)} cells, {compute:.1f} CPU-seconds of cells (serial run); "
          f"{' '.join(arguments)}")
    print(f"{'variant':<22}" + "".join(f"{f'run {i + 1}':>8}" for i in range(runs))
          + f"{'median':>8}{'/ pool':>8}{'to first cell':>15}{'after last':>12}")
    labels = {"auto": f"auto ({chosen['auto']})", "pool": "plain ProcessPool",
              "joblib": "joblib"}
    for variant in variants:
        median = statistics.median(walls[variant])
        edges = ""
        if ends[variant]:
            first, last = (statistics.median(e) for e in zip(*ends[variant], strict=True))
            edges = f"{first:>15.2f}{last:>12.2f}"
        print(f"{labels.get(variant, variant):<22}"
              + "".join(f"{wall:>8.2f}" for wall in walls[variant])
              + f"{median:>8.2f}{median / pool:>8.2f}{edges}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each variant (3)")
    parser.add_argument("--workloads", nargs="+", choices=list(WORKLOADS),
                        default=list(WORKLOADS), help="workloads to run (all)")
    parser.add_argument("--baseline", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline:
        kind, cells_file, workers, out = args.baseline
        baseline(kind, cells_file, int(workers), out)
        return
    from sweep.estimate import pool_size
    from sweep.plan import ProcessSettings

    workers = pool_size(ProcessSettings())
    imports = statistics.median(_run([sys.executable, "-c", "import sweep.execute"], ".")[0]
                                for _ in range(3))
    print(f"{os.cpu_count()} CPUs, {workers} workers; baselines: {', '.join(BASELINES)}; "
          f"a baseline's start (Python importing sweep.execute): {imports:.2f} s; "
          f"load average at start {os.getloadavg()[0]:.1f}")
    for name in args.workloads:
        workload(name, args.runs, workers)
    print(f"\nload average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
