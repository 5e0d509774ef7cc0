"""Throughput and peak memory of the network family.

Run: ``python benchmarks/bench_network.py``. One core (``OMP``/BLAS threads pinned to 1),
each method in a fresh process so that its peak resident memory (ru_maxrss) is its own.
The case is the issue's target: 4,941 nodes (the US power grid stand-in of the fig7
preset) × 100 rounds × 10 replicates, simulated rows only; best of three runs. Printed:
seconds per method (target < 2 s), node-rounds per second (n · T · R / s), peak memory,
and the cost of the reference rows (bounds and exact cost of privacy) and of building
the graph with its spectrum. Then Appendix C's options (no reference rows): time-varying
graphs (``edge_keep``: a block-diagonal CSR of the R replicates' weights (C.3) built every
round) and heterogeneous budgets (``budgets``: an allocation per round).
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
        "signal_mean": 10.0, "signal_sigma": 1.0, "rounds": 100, "checkpoints": 100,
        "allow_large_delta": True}  # the paper's δ = 0.01 > 1/4941, acknowledged
REPLICATES = 10
METHODS = [("mvue", "signal"), ("mvue", "network"), ("ol", "signal"), ("ol", "network"),
           ("mvue_fresh_noise", "network"), ("ol_alg4", "network"), ("rizk", "signal"),
           ("rizk_ol", "network")]
APPENDIX_C = [("mvue", "network", {"edge_keep": 0.5}), ("ol", "network", {"edge_keep": 0.5}),
              ("ol", "network", {"budgets": "centralized"}),
              ("ol", "network", {"budgets": "waterfilling"})]


def _case(method: str, privacy: str, references: bool, queue: multiprocessing.Queue,
          options: dict | None = None) -> None:
    from sweep.network.family import FAMILY
    from sweep.plan import make_cell

    start = time.perf_counter()
    cell = make_cell({"family": "network", "replicates": REPLICATES, "method": method,
                      "privacy": privacy, **CASE, **(options or {})})
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
    for method, privacy, options in [(m, p, None) for m, p in METHODS] + APPENDIX_C:
        queue = context.Queue()
        process = context.Process(target=_case,
                                  args=(method, privacy, options is None, queue, options))
        process.start()
        build, best, analytic, peak = queue.get()
        process.join()
        extra = " ".join(f"{k}={v}" for k, v in (options or {}).items())
        references = f"references {analytic:5.2f} s" if options is None else "no references"
        print(f"  {method:>17} {privacy:>8} {extra:>24}: {best:5.2f} s  "
              f"{work / best:10.3g} node-rounds/s  peak {peak:6.0f} MiB | {references} | "
              f"graph and spectrum {build:4.1f} s")


if __name__ == "__main__":
    main()
