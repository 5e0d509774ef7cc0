"""The numerical libraries' threads in a task: ``threads=default`` against ``threads=one``.

Run: ``python benchmarks/bench_threads.py [--repeats N] [--runs N]`` (about two minutes
on 2 cores). Two cells, each the engine's whole task (:func:`sweep.execute.run_task`: the
family's runs and the rows as the store takes them):

* ``inference n=96``: the largest cell of the runtime preset
  (``experiment/inference_runtime.yaml``): 96 centres of a complete graph, AM, 4,096
  time points, its 10 runs;
* ``colme fig4``: the Fig. 4 preset's PM-II, Gaussian-noise cell (M = 15, t_max = 3·10⁴),
  20 replicates instead of 1,000.

Each is timed as the serial executor runs it, in this process, with each setting of
``threads``; then as the pool runs it: ``10 × CPUs`` copies of the cell (other seeds) in
one ``executor=processes`` sweep into a fresh directory, its wall time from the pool's
start to the last cell stored. ``default`` is how every executor ran before ``threads`` existed
(Ray aside: Ray gives its workers ``OMP_NUM_THREADS=1``). Printed: the median of
``--repeats`` tasks and of ``--runs`` sweeps, after a warm-up that compiles and checks
that both settings give the same rows bit for bit, each setting's runs interleaved so
that the machine's drift hits both alike, and the ratio default / one.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import statistics
import tempfile
import time
from typing import Any

#: The cells timed, as a sweep's configurations.
CELLS: dict[str, dict[str, Any]] = {
    "inference n=96": {"family": "inference", "graph": {"kind": "complete", "n_nodes": 96},
                       "dataset": {"patients": 4096}, "method": "am", "epsilon": 0.1, "alpha": 0.1,
                       "beta": 0.9, "rho_am": 0.1, "rho_gm": 0.1, "replicates": 10,
                       "seed": 14},
    "colme fig4": {"family": "colme", "replicates": 20, "n_agents": 15, "t_max": 30_000,
                   "n_classes": 3, "class_means": [0.2, 0.4, 0.8],
                   "class_assignment": "random", "sigma": 0.5, "distribution": "uniform",
                   "epsilon": 1.0, "delta": 1e-6, "weights": "last", "schedule": "rr",
                   "baselines": ["local", "ideal", "oracle"], "noise": "gaussian",
                   "mechanism": "pm2"},
}
SETTINGS = ("default", "one")


def serial(config: dict[str, Any], repeats: int) -> dict[str, float]:
    """Median seconds of the cell's task in this process, per setting of ``threads``."""
    from sweep.execute import run_task
    from sweep.plan import make_cell, pieces

    task = pieces(make_cell(config), math.inf)
    # The warm-up compiles and loads every library the cell uses; its rows are the same,
    # bit for bit, whatever the threads.
    first, again = ([r.table for r in run_task(task, threads)] for threads in SETTINGS)
    assert all(a.equals(b) for a, b in zip(first, again, strict=True))
    times: dict[str, list[float]] = {threads: [] for threads in SETTINGS}
    for _ in range(repeats):
        for threads in SETTINGS:
            start = time.perf_counter()
            results = run_task(task, threads)
            times[threads].append(time.perf_counter() - start)
            assert all(r.error is None for r in results), results[0].error
    return {threads: statistics.median(found) for threads, found in times.items()}


def pooled(config: dict[str, Any], runs: int) -> dict[str, float]:
    """Median seconds of a pool's sweep of ``10 × CPUs`` copies of the cell, per setting."""
    from sweep.estimate import pool_size
    from sweep.execute import execute
    from sweep.plan import Execution, ProcessSettings, plan

    workers = pool_size(ProcessSettings())
    configs = [{**config, "seed": seed} for seed in range(10 * workers)]
    times: dict[str, list[float]] = {threads: [] for threads in SETTINGS}
    for _ in range(runs):
        for threads in SETTINGS:
            cells, _ = plan(configs)
            with tempfile.TemporaryDirectory() as directory:
                start = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):  # the executor it chose
                    summary = execute(cells, Execution(results_dir=directory,
                                                       executor="processes", threads=threads),
                                      progress=False)
                times[threads].append(time.perf_counter() - start)
            assert not summary.failed
    return {threads: statistics.median(found) for threads, found in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timings per cell, in process")
    parser.add_argument("--runs", type=int, default=3, help="sweeps per cell, on the pool")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}")
    print(f"{'cell':<16}{'executor':<28}{'default':>10}{'one':>10}{'default/one':>13}")
    for name, config in CELLS.items():
        for where, found in (("serial (median task)", serial(config, args.repeats)),
                             ("processes (median sweep)", pooled(config, args.runs))):
            print(f"{name:<16}{where:<28}{found['default']:>9.4f}s{found['one']:>9.4f}s"
                  f"{found['default'] / found['one']:>13.2f}")
    from threadpoolctl import threadpool_info

    libraries = ", ".join(f"{i['internal_api']} {i['num_threads']}" for i in threadpool_info())
    print(f"load average at the end {os.getloadavg()[0]:.2f}; the libraries' threads by "
          f"default: {libraries}")


if __name__ == "__main__":
    main()
