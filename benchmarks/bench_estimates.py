"""The planner's estimates against the measured times of the presets.

Run: ``python benchmarks/bench_estimates.py [PRESET ...] [--cold] [--executor NAME]``
(every preset by default: about an hour on 2 cores, more with ``--cold``). Each preset
runs as ``python -m sweep -m +experiment=PRESET`` in a fresh results directory, as a user
runs it. With ``--cold``, each run also gets an empty numba cache (``NUMBA_CACHE_DIR``),
as on a fresh install, so that its estimate and its time include compiling.

Printed per preset:

* the cells and the executor the planner chose;
* its estimate of the whole command: the line ``executor: ... about N s in all``;
* the measured wall time, from launch to exit, and the ratio measured / estimate;
* the cells' compute time (the seconds their pieces took, from the files' provenance)
  against the planner's estimate of it, in CPU-seconds.

The planner's target is a ratio within [0.5, 2] for every preset. Other work on the
machine slows every run, and the estimate does not know about it: measure on a quiet
machine (the load average is printed at the end).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

from sweep.cli import CONFIG_MODULE
from sweep.store import ResultsStore

#: The planner's line and the figures it gives.
EXECUTOR = re.compile(r"^executor: (\w+) \((.*)\)$", re.M)
IN_ALL = re.compile(r"about ([0-9.e+]+) s in all")
CPU = re.compile(r"about ([0-9.e+]+) CPU-seconds")


def presets() -> list[str]:
    """Every preset of the package (``conf/experiment``)."""
    folder = resources.files(CONFIG_MODULE) / "experiment"
    return sorted(p.name.removesuffix(".yaml") for p in folder.iterdir()
                  if p.name.endswith(".yaml"))


def compute_seconds(results: Path) -> float:
    """The compute seconds of every cell stored under ``results`` (its provenance)."""
    store = ResultsStore(results)
    store.scan()
    return sum(record["wall_seconds"] for record in store.records().values())


def measure(preset: str, cold: bool, arguments: list[str]) -> dict[str, object]:
    """One run of ``preset`` in fresh directories: the planner's line, the wall time."""
    with tempfile.TemporaryDirectory(prefix="estimates-") as work:
        env = dict(os.environ)
        if cold:
            env["NUMBA_CACHE_DIR"] = str(Path(work) / "numba")
        command = [sys.executable, "-m", "sweep", "-m", f"+experiment={preset}",
                   f"results_dir={work}/results", *arguments]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if done.returncode:
            raise RuntimeError(f"{preset}: exit code {done.returncode}\n{done.stderr[-2000:]}")
        line = EXECUTOR.search(done.stdout)
        if line is None:
            raise RuntimeError(f"{preset}: no executor line in\n{done.stdout}")
        estimate = IN_ALL.search(line[2])
        cpu = CPU.search(line[2])
        return {"preset": preset, "executor": line[1],
                "cells": int(re.search(r"(\d+) cells:", done.stdout)[1]),
                "estimate": float(estimate[1]) if estimate else float("nan"),
                "measured": seconds,
                "cpu_estimate": float(cpu[1]) if cpu else float("nan"),
                "cpu_measured": compute_seconds(Path(work) / "results"),
                "reason": line[2]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("presets", nargs="*", help="presets to run (default: all)")
    parser.add_argument("--cold", action="store_true",
                        help="an empty numba cache for each run, as on a fresh install")
    parser.add_argument("--executor", help="force an executor (default: the planner's)")
    parser.add_argument("--json", help="also write the rows to this file (JSON lines)")
    args = parser.parse_args()
    extra = [f"executor={args.executor}"] if args.executor else []
    print(f"{'preset':<26}{'cells':>6} {'executor':<10}{'estimate s':>11}{'measured s':>11}"
          f"{'ratio':>7}{'CPU est':>9}{'CPU meas':>9}", flush=True)
    rows = []
    for preset in args.presets or presets():
        row = measure(preset, args.cold, extra)
        rows.append(row)
        ratio = row["measured"] / row["estimate"]
        print(f"{preset:<26}{row['cells']:>6} {row['executor']:<10}{row['estimate']:>11.3g}"
              f"{row['measured']:>11.3g}{ratio:>7.2f}{row['cpu_estimate']:>9.3g}"
              f"{row['cpu_measured']:>9.3g}", flush=True)
        if args.json:
            with open(args.json, "a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
    ratios = [r["measured"] / r["estimate"] for r in rows]
    print(f"\nratio measured / estimate: {min(ratios):.2f} to {max(ratios):.2f} over "
          f"{len(rows)} presets ({'cold' if args.cold else 'warm'} numba cache); "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
