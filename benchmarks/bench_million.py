"""Sweeps of up to a million cells from the command line: planning, running, resuming,
the driver's memory and the start-up, each measured as a whole process.

Run: ``python benchmarks/bench_million.py [--sizes 10000 100000 1000000] [--run 10000
100000] [--sets 10000] [--repeat 5]`` (about 50 minutes with the defaults on 2 cores).
Every command is a fresh ``python -m sweep`` process in a temporary directory; its wall
time and peak resident memory (``ru_maxrss`` of that child alone, from ``os.wait4``) are
printed with the one-minute load average when it started, since other work on the machine
slows it. The cells are the smallest there are (Private-ColME, ``n_agents=2 t_max=2 replicates=1
checkpoints=1 baselines=[]``) swept over ``seed=range(0,N)``. Printed rows and goals:

* ``plan``: a dry run of N cells (its listing to /dev/null): ≤ 2 s at 10⁵, ≤ 20 s at 10⁶;
  with ``--sets K``, also a dry run of N cells that are K option sets (``epsilon`` × ``n_agents``,
  each composed and validated) × N/K seeds, as a paper's grid is;
* ``sweep``: the N cells computed and stored, ``executor=serial`` and ``processes``, each
  run next to a plain loop calling :func:`sweep.execute.simulate` on the same cells in one
  process (which stores nothing): goal within 1.2× the loop;
* ``resume``: the finished sweep run again (nothing to compute): ≤ 3 s at 10⁵; with
  ``--resume N``, N cells are stored by one sweep (``executor=processes``, the longest
  case: about ten minutes for 10⁶ on 2 cores; not compared with a loop) and that sweep
  is then resumed;
* peak memory of the driver: < 600 MiB at 10⁶;
* ``start-up``: ``--help``, a bad key and a dry run of 100 cells against a minimal Hydra
  app's ``--help`` in the same environment (best of ``--repeat``): within 1.5×.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TINY = ["n_agents=2", "t_max=2", "replicates=1", "checkpoints=1", "baselines=[]"]
MINIMAL_HYDRA_APP = """\
import hydra


@hydra.main(version_base=None, config_path=None, config_name=None)
def main(cfg):
    print(cfg)


if __name__ == "__main__":
    main()
"""
PLAIN_LOOP = """\
from sweep.execute import simulate

for seed in range({n}):
    simulate("colme", seed=seed, n_agents=2, t_max=2, replicates=1, checkpoints=1,
             baselines=[])
"""


def run(arguments: list[str], cwd: Path, expected: int = 0) -> tuple[float, float, float]:
    """Wall seconds, peak MiB and the load average at the start of one process."""
    load = os.getloadavg()[0]
    start = time.perf_counter()
    child = subprocess.Popen(arguments, cwd=cwd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    error = child.stderr.read().decode() if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != expected:
        raise RuntimeError(f"{' '.join(arguments)}: exit {status}\n{error[-2000:]}")
    return seconds, usage.ru_maxrss / 1024, load


def sweep(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "sweep", *arguments]


def grid(n: int, results: Path, *extra: str) -> list[str]:
    return sweep("-m", f"seed=range(0,{n})", *TINY, f"results_dir={results}", *extra)


def row(case: str, n: int | str, measured: tuple[float, float, float], goal: str = "") -> None:
    seconds, peak, load = measured
    print(f"{case:<34} {n!s:>9} {seconds:>9.2f} {peak:>9.0f} {load:>6.2f}  {goal}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10**4, 10**5, 10**6],
                        help="cells of the dry runs")
    parser.add_argument("--run", type=int, nargs="*", default=[10**4, 10**5],
                        help="cells of the sweeps run, and resumed")
    parser.add_argument("--resume", type=int, nargs="*", default=[],
                        help="cells stored by one sweep, then resumed (no loop)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each start-up")
    parser.add_argument("--sets", type=int, nargs="*", default=[10**4],
                        help="option sets of a further dry run at each --sizes N "
                             "(a square number: epsilon × n_agents)")
    args = parser.parse_args()
    for k in args.sets:
        wrong = [n for n in args.sizes if n % k]
        if math.isqrt(k) ** 2 != k or wrong:
            parser.error(f"--sets {k}: must be a square that divides every --sizes N")
    with tempfile.TemporaryDirectory() as scratch:
        cwd = Path(scratch)
        (cwd / "app.py").write_text(MINIMAL_HYDRA_APP)
        print(f"{'case':<34} {'cells':>9} {'wall s':>9} {'peak MiB':>9} {'load':>6}  goal")
        within = "within 1.5× the minimal app"
        for case, arguments, expected, goal in (
                ("start-up: minimal Hydra app --help", [sys.executable, "app.py", "--help"],
                 0, ""),
                ("start-up: --help", sweep("--help"), 0, within),
                ("start-up: bad key (epsilonn=1)", sweep("epsilonn=1"), 2, within),
                ("start-up: dry run of 100 cells", grid(100, cwd / "r", "dry_run=true"), 0,
                 within)):
            run(arguments, cwd, expected)  # the OS's and Python's caches
            best = min((run(arguments, cwd, expected) for _ in range(args.repeat)),
                       key=lambda m: m[0])
            row(case, "", best, goal)
        for n in args.sizes:
            row("plan (dry run)", n, run(grid(n, cwd / f"plan{n}", "dry_run=true"), cwd),
                {10**5: "≤ 2 s", 10**6: "≤ 20 s, < 600 MiB"}.get(n, ""))
            for k in args.sets:
                side = math.isqrt(k)
                row(f"plan, {k} option sets", n, run(sweep(
                    "-m", "epsilon=" + ",".join(f"{(i + 1) / side:.6g}" for i in range(side)),
                    f"n_agents=range(2,{side + 2})", f"seed=range(0,{n // k})",
                    *(o for o in TINY if not o.startswith("n_agents=")),
                    f"results_dir={cwd / f'sets{n}'}", "dry_run=true"), cwd),
                    {10**6: "≤ 20 s, < 600 MiB"}.get(n, ""))
        for n in args.run:
            loop = [sys.executable, "-c", PLAIN_LOOP.format(n=n)]
            for executor in ("serial", "processes"):
                row("plain loop over simulate()", n, run(loop, cwd))
                row(f"sweep, executor={executor}", n,
                    run(grid(n, cwd / f"{executor}{n}", f"executor={executor}"), cwd),
                    "within 1.2× the loop")
            row("resume (all stored)", n, run(grid(n, cwd / f"serial{n}"), cwd),
                "≤ 3 s" if n == 10**5 else "")
        for n in args.resume:
            stored = cwd / f"stored{n}"
            row("sweep, executor=processes", n,
                run(grid(n, stored, "executor=processes"), cwd))
            row("resume (all stored)", n, run(grid(n, stored), cwd),
                "≤ 3 s" if n == 10**5 else "< 600 MiB" if n == 10**6 else "")


if __name__ == "__main__":
    main()
