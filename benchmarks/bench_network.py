"""Throughput and peak memory of the network family.

Run: ``python benchmarks/bench_network.py``. One core (``OMP``/BLAS threads pinned to 1),
each method in a fresh process so that its peak resident memory (ru_maxrss) is its own.
The case is the issue's target: 4,941 nodes (the US power grid stand-in of the fig7
preset) × 100 rounds × 10 replicates, simulated rows only; best of three runs. Printed:
seconds per method (target < 2 s), node-rounds per second (n · T · R / s), peak memory,
and the cost of the reference rows (bounds and exact cost of privacy) and of building
the graph with its spectrum.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import time

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"

CASE = {"graph": {"kind": "newman_watts_strogatz", "n_nodes": 4941, "neighbors": 2,
                  "rewire_probability": 0.3345},
        "signal_mean": 10.0, "signal_sigma": 1.0, "rounds": 100, "checkpoints": 100}
REPLICATES = 10
METHODS = [("mvue", "signal"), ("mvue", "network"), ("ol", "signal"), ("ol", "network"),
           ("mvue_fresh_noise", "network"), ("ol_alg4", "network"), ("rizk", "signal"),
           ("rizk_ol", "network")]


def _case(method: str, privacy: str, references: bool, queue: multiprocessing.Queue) -> None:
    from sweep.network.family import FAMILY
    from sweep.plan import make_cell

    start = time.perf_counter()
    cell = make_cell({"family": "network", "replicates": REPLICATES, "method": method,
                      "privacy": privacy, **CASE})
    build = time.perf_counter() - start
    seeds = cell.seeds(0, REPLICATES)
    best = min(_timed(lambda: FAMILY.run(cell.prepared, seeds, range(REPLICATES), False))
               for _ in range(3))
    analytic = _timed(lambda: FAMILY.run(cell.prepared, [], [], True)) if references else None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put((build, best, analytic, peak))


def _timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main() -> None:
    context = multiprocessing.get_context("spawn")
    nodes = CASE["graph"]["n_nodes"]
    work = nodes * CASE["rounds"] * REPLICATES
    print(f"{nodes} nodes × {CASE['rounds']} rounds × {REPLICATES} replicates, "
          "one core, best of 3 (simulated rows)")
    for method, privacy in METHODS:
        queue = context.Queue()
        process = context.Process(target=_case, args=(method, privacy, True, queue))
        process.start()
        build, best, analytic, peak = queue.get()
        process.join()
        print(f"  {method:>17} {privacy:>8}: {best:5.2f} s  {work / best:10.3g} node-rounds/s"
              f"  peak {peak:6.0f} MiB | references {analytic:5.2f} s | graph and "
              f"spectrum {build:4.1f} s")


if __name__ == "__main__":
    main()
