"""Throughput and peak memory of the Private-ColME simulator.

Run: ``python benchmarks/bench_colme.py [--quick]``. Every case runs in a fresh process,
so its peak resident memory (ru_maxrss) is its own; compilation is excluded (a warm-up
run fills numba's cache first, and the best of three runs is kept) except for the paper
cell, which starts from an empty cache and runs once. Printed figures:

* ``every_step``: pair-steps per second, M² · t_max · R / s;
* ``on_query``: agent-steps per second, M · t_max · R / s;
* both for every variance scheme (known, shared, inferred, inferred_bayes), with the
  slowdown against ``known``;
* one full paper cell (M = 200, t_max = 3·10⁴, R = 20, PM-I, last, RR, on_query) with
  compilation included;
* peak memory at two horizons t_max, to show it does not grow with t_max;
* the analytic oracle curve (Prop. 3) of 100 checkpoints at M = 200, t_max = 3·10⁴.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import resource
import tempfile
import time
from typing import Any

PAPER = {"n_agents": 200, "t_max": 30_000}


def _case(kind: str, options: dict[str, Any], replicates: int, warm: bool) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of one case, in this (fresh) process."""
    from sweep.colme.baselines import oracle_mse
    from sweep.colme.config import ColmeConfig
    from sweep.execute import simulate

    def work(**changes: Any) -> None:
        # The paper's δ = 1e-6 exceeds 1/(M t_max) at its scale: acknowledged (a timing).
        settings = {"allow_large_delta": True, **options, **changes}
        if kind == "oracle":
            config = ColmeConfig.from_options(**settings)
            oracle_mse(config, config.checkpoint_times())
        else:
            simulate("colme", replicates=replicates if not changes else 1, seed=1, **settings)

    if warm:
        work(n_agents=3, t_max=50)  # fills numba's cache
    elapsed = math.inf
    for _ in range(3 if warm else 1):
        start = time.perf_counter()
        work()
        elapsed = min(elapsed, time.perf_counter() - start)
    return elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(kind: str, options: dict[str, Any], replicates: int = 1, warm: bool = True,
        env: dict[str, str] | None = None) -> tuple[float, float]:
    """Run one case in a fresh spawned process with the given extra environment."""
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            return pool.apply(_case, (kind, options, replicates, warm))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller horizons")
    args = parser.parse_args()
    t_max = 3_000 if args.quick else PAPER["t_max"]
    m = PAPER["n_agents"]

    print(f"{'case':<44}{'seconds':>9}{'throughput':>26}{'peak MiB':>10}")
    for mechanism in ("pm1", "pm2"):
        for refresh in ("every_step", "on_query"):
            options = {"n_agents": m, "t_max": t_max, "mechanism": mechanism,
                       "decision": {"refresh": refresh}}
            seconds, peak = run("simulate", options, replicates=2)
            if refresh == "every_step":
                rate = f"{m * m * t_max * 2 / seconds:.2e} pair-steps/s"
            else:
                rate = f"{m * t_max * 2 / seconds:.2e} agent-steps/s"
            print(f"{mechanism + ', last, rr, ' + refresh:<44}{seconds:>9.2f}{rate:>26}"
                  f"{peak:>10.0f}")

    for refresh in ("on_query", "every_step"):
        baseline = None
        for variance in ("known", "shared", "inferred", "inferred_bayes"):
            options = {"n_agents": m, "t_max": t_max, "variance": variance,
                       "decision": {"refresh": refresh}}
            seconds, peak = run("simulate", options, replicates=4)
            baseline = baseline or seconds
            rate = f"{m * t_max * 4 / seconds:.2e} agent-steps/s"
            label = f"pm1, {variance}, {refresh} (x{seconds / baseline:.2f})"
            print(f"{label:<44}{seconds:>9.2f}{rate:>26}{peak:>10.0f}")

    with tempfile.TemporaryDirectory() as cache:
        options = {"n_agents": m, "t_max": t_max, "mechanism": "pm1", "weights": "last",
                   "schedule": "rr", "decision": {"refresh": "on_query"}}
        seconds, peak = run("simulate", options, replicates=20, warm=False,
                            env={"NUMBA_CACHE_DIR": cache})
        rate = f"{m * t_max * 20 / seconds:.2e} agent-steps/s"
        print(f"{'paper cell R=20, compilation included':<44}{seconds:>9.2f}{rate:>26}"
              f"{peak:>10.0f}")

    for horizon in (t_max, 10 * t_max):
        options = {"n_agents": m, "t_max": horizon, "checkpoints": 100}
        seconds, peak = run("simulate", options)
        print(f"{f'memory, on_query, t_max = {horizon}':<44}{seconds:>9.2f}{'':>26}"
              f"{peak:>10.0f}")

    for mechanism, weights in (("pm1", "last"), ("pm2", "wmom")):
        options = {"n_agents": m, "t_max": t_max, "mechanism": mechanism, "weights": weights,
                   "checkpoints": 100}
        seconds, peak = run("oracle", options)
        print(f"{f'oracle curve (Prop. 3), {mechanism}, {weights}, 100 points':<44}"
              f"{seconds:>9.2f}{'':>26}{peak:>10.0f}")


if __name__ == "__main__":
    main()
