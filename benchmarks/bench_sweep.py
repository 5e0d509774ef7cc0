"""Overhead, startup, scaling and peak memory of the sweep platform (``python -m sweep``).

Run: ``python benchmarks/bench_sweep.py [--quick]`` (about 15 minutes in full, 3 with
``--quick``). Every command runs as a subprocess launched from a fresh helper process, with
its working directory and ``results_dir`` in temporary directories that are deleted
afterwards; every figure comes from one run. A warm-up command runs first so that numba's
on-disk cache is warm for everything measured. Printed figures:

* planning: milliseconds per cell to expand a grid of tiny cells (``seed=range(0,N)``) and
  compose and validate every cell, in this process (target <= 0.1);
* overhead and memory at scale: wall time of grids of N tiny cells (``-m
  seed=range(0,N) n_agents=2 t_max=2 replicates=1 checkpoints=1 baselines=[]``, N = 10⁴
  and 10⁵, or 10³ and 10⁴ with ``--quick``) through the command line, on a local Ray
  (all cores), on the pool of worker processes (one per core) and with
  ``executor=serial``, against the same N cells (``make_cell`` + ``Family.run``) in one
  plain loop in one warm process; overhead per cell = (command − loop) / N, targets
  <= 5 ms (Ray) and <= 3 ms (serial; the pool, which shares the work out, below serial's
  wall time). Next to it,
  the driver's peak resident memory (``VmHWM``, polled every 0.1 s; target < 500 MiB),
  the same at both N when the driver's memory is flat, and the number of files written;
* startup: seconds from launching the command to the first piece starting on a worker, i.e.
  min(``started`` in the files' metadata) − the launch time, for the grid and for a
  single tiny cell (no ``-m``), on each executor;
* scaling: a grid of heavier cells run with ``ray.num_cpus=1`` and ``ray.num_cpus=2``;
  compute span = wall − startup, speed-up = span(1 core) / span(2 cores), target ≥ 1.8;
  also from the first piece's start to the last piece's end (``busy``, which leaves out
  Ray's shutdown), split into the scheduler's efficiency (compute / (2 × busy)) and the
  slowdown of each core when both are busy (compute at 2 cores / compute at 1), which no
  scheduler can remove; and, for reference, the speed-up two warm plain processes get
  over one on the same cells (what this machine's cores allow).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

#: The smallest cell there is: its simulation takes a few milliseconds.
TINY: dict[str, Any] = {
    "n_agents": 2, "t_max": 2, "replicates": 1, "checkpoints": 1, "baselines": [],
}
#: About 4.5 s of compute per cell on one core (8 cells: ~40 s on one core).
# The paper's δ = 1e-6 exceeds 1/(M t_max) at this scale: acknowledged (a timing).
HEAVY: dict[str, Any] = {"n_agents": 200, "t_max": 200_000, "replicates": 4, "baselines": [],
                         "allow_large_delta": True}
HEAVY_QUICK: dict[str, Any] = {**HEAVY, "t_max": 50_000}
#: The executors the tiny grids run on.
EXECUTORS = ("ray", "processes", "serial")

T = TypeVar("T")


@dataclass(frozen=True)
class CliRun:
    """What one command did, as seen from outside and from its results files."""

    wall: float  # launch to exit
    startup: float  # launch to the first piece starting
    busy: float  # first piece starting to last piece ending
    compute: float  # the cells' compute seconds, summed
    cells: int
    driver_mib: float  # the driver's own VmHWM
    files: int  # results files written

    @property
    def span(self) -> float:
        """Seconds from the first piece starting to the command's exit."""
        return self.wall - self.startup


def overrides(options: dict[str, Any]) -> list[str]:
    """``key=value`` arguments of the command line (lists in Hydra's ``[a,b]`` syntax)."""
    def text(value: Any) -> str:
        if isinstance(value, list | tuple):
            return "[" + ",".join(map(str, value)) + "]"
        return str(value)

    return [f"{key}={text(value)}" for key, value in options.items()]


def _high_water_mib(pid: int) -> float | None:
    """Peak RSS (VmHWM) of a live process, in MiB; None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _launch(arguments: list[str], cwd: str) -> tuple[float, float, float]:
    """Run ``python -m sweep arguments`` from this (fresh) process.

    Returns the launch and exit UNIX times and the driver's last polled VmHWM in MiB
    (its own: ``ru_maxrss`` of the children would also count Ray's processes).
    """
    log_path = os.path.join(cwd, "command.log")
    with open(log_path, "wb") as log:
        launch = time.time()
        child = subprocess.Popen([sys.executable, "-m", "sweep", *arguments], cwd=cwd,
                                 stdout=log, stderr=subprocess.STDOUT)
        peaks = [0.0]
        done = threading.Event()

        def poll() -> None:
            # VmHWM never decreases, so the last read before exit misses at most 0.1 s of
            # growth; ru_maxrss alone would also count any Ray process larger than the driver.
            while not done.wait(0.1):
                peaks.append(_high_water_mib(child.pid) or 0.0)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        child.wait()  # the exit time is exact, whatever the polling period
        end = time.time()
        done.set()
        poller.join()
        driver = max(peaks)
    if child.returncode != 0:
        tail = Path(log_path).read_text(errors="replace").splitlines()[-20:]
        # A failed cell's traceback is only in its failure record, deleted with the directory.
        for failure in Path(cwd).glob("results/_failures/*.parquet"):
            import pandas as pd

            tail.append(str(pd.read_parquet(failure)["traceback"].iloc[0]))
            break
        raise RuntimeError(f"exit code {child.returncode}: {' '.join(arguments)}\n"
                           + "\n".join(tail))
    return launch, end, driver


def _plain_loop(options: dict[str, Any], seeds: int) -> float:
    """Seconds to build and simulate ``seeds`` cells in a loop, in this (fresh) process."""
    from sweep.family import get_family
    from sweep.plan import make_cell

    def one(seed: int) -> None:
        cell = make_cell({**options, "seed": seed})
        get_family(cell.family).run(cell.prepared, cell.seeds(0, cell.replicates),
                                    range(cell.replicates), True)

    one(10**6)  # loads the numba kernels from the cache and imports everything lazily used
    start = time.perf_counter()
    for seed in range(seeds):
        one(seed)
    return time.perf_counter() - start


def _fresh(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a new spawned process, so its rusage figures are its own."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(function, args)


def _metadata(results_dir: Path) -> tuple[float, float, float, int, int]:
    """Earliest ``started``, latest ``finished``, summed ``wall_seconds``, the number of
    cells and of files."""
    from sweep.store import ResultsStore

    store = ResultsStore(results_dir)
    store.scan()
    started, finished, compute, count = float("inf"), 0.0, 0.0, 0
    for record in store.records().values():
        started = min(started, record["started"])
        finished = max(finished, record["finished"])
        compute += record["wall_seconds"]
        count += 1
    return started, finished, compute, count, len(store.files)


def planning(cells: int) -> float:
    """Milliseconds per cell to expand ``seed=range(0,cells)`` over the tiny cell and to
    compose and validate every cell (:func:`sweep.plan.plan`), as the sweeper does."""
    from hydra import initialize_config_module
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import HydraContext, RunMode

    from hydra_plugins.dpsweep._compose import CellComposer
    from hydra_plugins.dpsweep._core import Grid
    from sweep.cli import CONFIG_MODULE
    from sweep.plan import plan

    with initialize_config_module(CONFIG_MODULE, version_base="1.3"):
        hydra = GlobalHydra.instance().hydra
        context = HydraContext(config_loader=hydra.config_loader, callbacks=None)
        config = hydra.compose_config("config", overrides=[], run_mode=RunMode.MULTIRUN)
        grid = Grid(CellComposer(context, config), [f"seed=range(0,{cells})",
                                                    *overrides(TINY)])
        plan(list(grid)[:10])  # imports the family
        start = time.perf_counter()
        plan(grid)
        return (time.perf_counter() - start) / cells * 1000


def cli(arguments: list[str], expected: int) -> CliRun:
    """Run one command into a fresh results directory and measure it."""
    with tempfile.TemporaryDirectory(prefix="bench_sweep_") as scratch:
        results = Path(scratch) / "results"
        launch, end, driver = _fresh(
            _launch, [*arguments, f"results_dir={results}"], scratch
        )
        started, finished, compute, count, files = _metadata(results)
    if count != expected:
        raise RuntimeError(f"{count} cells stored instead of {expected}: {' '.join(arguments)}")
    return CliRun(end - launch, started - launch, finished - started, compute, count, driver,
                  files)


def hardware_speedup(options: dict[str, Any], cells: int, rounds: int = 4) -> float:
    """Median speed-up of two warm plain processes over one on the same cells.

    Alone and paired runs alternate in the same two warm processes, so the drift of this
    machine's core speed (up to 30% between runs) hits both alike. This is what the cores
    allow any scheduler, Ray included.
    """
    ratios = []
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.starmap(_plain_loop, [(options, 1)] * 2)  # imports and kernels, in both
        for _ in range(rounds):
            alone = pool.apply(_plain_loop, (options, cells))
            paired = max(pool.starmap(_plain_loop, [(options, cells)] * 2))
            ratios.append(2 * alone / paired)
    return statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer tiny cells, lighter grid")
    args = parser.parse_args()
    sizes = (1000, 10_000) if args.quick else (10_000, 100_000)
    heavy, heavy_cells = (HEAVY_QUICK, 4) if args.quick else (HEAVY, 8)
    tiny = overrides(TINY)

    # Fills numba's on-disk cache (and the OS page cache of Ray and the libraries), so that
    # neither the command nor the plain loop below pays for compilation.
    cli(tiny, expected=1)

    print(f"planning (expand, compose, validate), {sizes[-1]} tiny cells: "
          f"{_fresh(planning, sizes[-1]):.3f} ms/cell (target <= 0.1)")

    runs: dict[tuple[str, int], CliRun] = {}
    loops: dict[int, float] = {}
    for n in sizes:
        loops[n] = _fresh(_plain_loop, TINY, n)
        grid = ["-m", f"seed=range(0,{n})", *tiny]
        for name in EXECUTORS:
            runs[name, n] = cli([*grid, f"executor={name}"], expected=n)
    print(f"\n{'tiny cells':<22}{'cells':>8}{'command s':>11}{'compute s':>11}{'loop s':>8}"
          f"{'ms/cell':>9}{'driver MiB':>12}{'files':>7}")
    for (name, n), run in runs.items():
        label = {"ray": "ray, all cores", "processes": "processes, all cores"}.get(
            name, f"executor={name}")
        overhead = (run.wall - loops[n]) / n * 1000
        print(f"{label:<22}{n:>8}{run.wall:>11.2f}{run.compute:>11.2f}{loops[n]:>8.2f}"
              f"{overhead:>9.2f}{run.driver_mib:>12.0f}{run.files:>7}")
    print("targets: ms/cell <= 5 (ray), <= 3 (serial), processes below serial; driver "
          "< 500 MiB at any size")

    n = sizes[0]
    print(f"\n{'startup: launch to first task':<36}{'seconds':>10}")
    for name in EXECUTORS:
        single = cli([*tiny, f"executor={name}"], expected=1)
        print(f"{f'{name}, {n}-cell grid':<36}{runs[name, n].startup:>10.2f}")
        print(f"{f'{name}, single cell':<36}{single.startup:>10.2f}")

    shape = ", ".join(f"{k}={v}" for k, v in heavy.items() if k != "baselines")
    scaling = {}
    for cpus in (1, 2):
        scaling[cpus] = cli(
            ["-m", f"seed=range(0,{heavy_cells})", *overrides(heavy), "executor=ray",
             f"ray.num_cpus={cpus}"],
            expected=heavy_cells,
        )
    print(f"\n{f'scaling, {heavy_cells} cells ({shape})':<60}{'wall s':>8}{'startup s':>10}"
          f"{'span s':>8}{'busy s':>8}{'compute s':>10}")
    for cpus, run in scaling.items():
        print(f"{f'ray.num_cpus={cpus}':<60}{run.wall:>8.2f}{run.startup:>10.2f}{run.span:>8.2f}"
              f"{run.busy:>8.2f}{run.compute:>10.2f}")
    print(f"speed-up 1 -> 2 cores (span): {scaling[1].span / scaling[2].span:.2f} (target >= 1.8)")
    print(f"speed-up 1 -> 2 cores (busy, first piece start to last piece end): "
          f"{scaling[1].busy / scaling[2].busy:.2f}")
    # busy(1)/busy(2) = 2 × efficiency / slowdown: the scheduler's share and the cores'.
    slowdown = scaling[2].compute / scaling[1].compute
    efficiency = scaling[2].compute / (2 * scaling[2].busy)
    print(f"  = 2 x scheduling efficiency {efficiency:.2f} (compute / (2 x busy) at 2 cores)"
          f" / per-core slowdown {slowdown:.2f} (compute at 2 cores / at 1)")
    print(f"hardware reference, two warm plain processes vs one (median of 4): "
          f"{hardware_speedup({**heavy, 'replicates': 1}, 2):.2f}")


if __name__ == "__main__":
    main()
