"""Start-up of the command line: the seconds a command takes when it computes nothing.

Run: ``python benchmarks/bench_startup.py [--repeat N]`` (about a minute). Every command
runs N times (default 5) as a fresh ``python -m sweep`` process in an empty temporary
directory, after one unmeasured run of each (Python's bytecode caches, the OS's file
cache). Printed per command: the best and the median wall time (the best is the least
disturbed by other work on the machine; compare it with the targets on a quiet one), and
the process's peak resident memory. Commands and targets (issue 25, on 2 cores):

* ``--help`` and a bad key's one-line error (``epsilonn=1``): under 1 s;
* ``failures DIR`` on a directory with no failures, and ``failures --help``;
* a dry run of 100 cells of each family (``-m family=F seed=range(0,100)
  dry_run=true``, the family's defaults otherwise): under 2 s. The network family's
  default graph (969 nodes) has its spectrum computed once, as a real sweep's would.

Which libraries each path imports is asserted by tests/test_startup.py; ``python -X
importtime -m sweep ...`` shows where a command's time goes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

#: (label, arguments, expected exit code, target seconds or None).
COMMANDS: list[tuple[str, list[str], int, float | None]] = [
    ("--help", ["--help"], 0, 1.0),
    ("bad key (epsilonn=1)", ["epsilonn=1"], 2, 1.0),
    ("failures DIR (none)", ["failures", "."], 0, None),
    ("failures --help", ["failures", "--help"], 0, None),
    # The papers' δ at colme's and network's defaults need their acknowledgement.
    *((f"dry run, 100 {family} cells",
       ["-m", f"family={family}", "seed=range(0,100)", "dry_run=true",
        *(["allow_large_delta=true"] if family in ("colme", "network") else [])], 0, 2.0)
      for family in ("colme", "network", "continual", "inference")),
]


def run(arguments: list[str], cwd: str, expected: int) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of ``python -m sweep arguments`` in ``cwd``."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "sweep", *arguments], cwd=cwd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # wait4 gives this child's own resource usage (ru_maxrss in KiB on Linux).
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    error = child.stderr.read().decode(errors="replace") if child.stderr else ""
    if child.stderr:
        child.stderr.close()
    if child.returncode != expected:
        raise RuntimeError(f"exit code {child.returncode}, not {expected}: python -m sweep "
                           f"{' '.join(arguments)}\n{error}")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command")
    args = parser.parse_args()
    print(f"{'command':<32}{'best s':>8}{'median s':>10}{'target s':>10}{'peak MiB':>10}")
    for label, arguments, expected, target in COMMANDS:
        times, peaks = [], []
        for attempt in range(args.repeat + 1):
            with tempfile.TemporaryDirectory() as cwd:
                seconds, peak = run(arguments, cwd, expected)
            if attempt:  # the first run warms the caches
                times.append(seconds)
                peaks.append(peak)
        goal = f"{target:.1f}" if target else "-"
        print(f"{label:<32}{min(times):>8.2f}{statistics.median(times):>10.2f}{goal:>10}"
              f"{max(peaks):>10.0f}", flush=True)
    print(f"\n{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the end "
          "(other work on the machine slows every figure)")


if __name__ == "__main__":
    main()
