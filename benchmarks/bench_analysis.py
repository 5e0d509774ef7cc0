"""Time and peak memory of reading results: ``analysis.summaries`` and the report, against
a plain pyarrow scan with a pandas groupby, on two shapes of results directory.

Run: ``python benchmarks/bench_analysis.py [--results DIR] [--cells N] [--rows N]
[--repeat K]`` (each measurement the fastest of K runs; 1 by default).

* **Many tiny cells**: the sweep ``seed=range(0,N) n_agents=4 t_max=50 replicates=1
  checkpoints=5`` (10⁴ cells of 25 rows by default), run by the real command line
  (serially, about 10 ms a cell), so that the files are exactly what a sweep writes.
  ``--results DIR`` keeps them in DIR (created if missing) for the next run: the sweep
  computes only the cells missing there.
* **Few large cells**: 10⁷ synthetic rows (``--rows``) in 100 cells of Algorithm 1 and
  local rows (about 500 replicates × 100 checkpoints each, ε and the mechanism swept).

For each, three measurements, each in its own process so that its peak resident memory
(``ru_maxrss`` of that child, from ``os.wait4``) is its own: the baseline
(``pyarrow.dataset`` scan of the directory, ``to_pandas`` and a pandas groupby of the
metrics over the cell and the index, giving mean, standard deviation and count),
``analysis.summaries``, and ``python -m analysis report``. The first two time their own
work (imports excluded); the report is timed whole. Targets: summaries within 2× of the
baseline's time; peak memory under 500 MiB (tiny cells) and 2 GiB (10⁷ rows).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
#: The sweep of the tiny cells, but for its seeds and results directory.
TINY = ["n_agents=4", "t_max=50", "replicates=1", "checkpoints=5", "executor=serial"]
METRICS = ["mse", "false_exclusion", "false_inclusion"]
KEYS = ["cell_id", "method", "source", "t"]

CHECKPOINTS = np.unique(np.rint(np.geomspace(1, 30_000, 100)).astype(np.int64))
OPTIONS = {"n_agents": 200, "t_max": 30_000, "n_classes": 3, "class_means": "0.2,0.4,0.8",
           "class_assignment": "random", "sigma": 0.5, "distribution": "uniform",
           "delta": 1e-6, "noise": "gaussian", "pm2_split": True, "weights": "last",
           "schedule": "rr", "class_estimator": "test", "variance": "known",
           "prior": "paper", "inferred_form": "eq16", "decision.theta0": 0.05,
           "decision.refresh": "on_query", "baselines": "local", "family": "colme"}


def write_cell(directory: Path, index: int, replicates: int, rng: np.random.Generator) -> int:
    """One synthetic cell file (seed ``index``); returns its number of rows."""
    t = np.tile(CHECKPOINTS, 2 * replicates)
    n = len(t)
    replicate = np.repeat(np.tile(np.arange(replicates), 2), len(CHECKPOINTS))
    method = np.repeat(["colme", "local"], replicates * len(CHECKPOINTS))
    columns = {
        "method": method, "source": np.full(n, "simulated"), "replicate": replicate,
        "t": t, "mse": rng.exponential(0.25, n) / t,
        "false_exclusion": rng.random(n) * 0.1, "false_inclusion": rng.random(n),
        **{k: np.full(n, v) for k, v in OPTIONS.items()},
        # Distinct seeds: the cells must not collapse into one cell id.
        "seed": np.full(n, index),
        "epsilon": np.full(n, (0.25, 0.5, 0.75, 1.0)[index % 4]),
        "mechanism": np.full(n, ("pm1", "pm2")[index // 4 % 2]),
        "replicates": np.full(n, replicates),
        "cell_id": np.full(n, f"{index:016x}"),
    }
    # With page checksums, as the sweep writes them: reading verifies them.
    pq.write_table(pa.table(columns), directory / f"{index:016x}.parquet",
                   write_page_checksum=True)
    return n


def large_cells(directory: Path, rows: int, cells: int = 100) -> None:
    """At least ``rows`` synthetic rows in ``cells`` files."""
    directory.mkdir(parents=True, exist_ok=True)
    replicates = -(-rows // (cells * 2 * len(CHECKPOINTS)))
    rng = np.random.default_rng(0)
    for index in range(cells):
        write_cell(directory, index, replicates, rng)


def tiny_cells(directory: Path, cells: int) -> float:
    """The tiny cells' sweep into ``directory`` (only the missing cells are computed);
    its wall time in seconds."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_analysis_") as scratch:
        # Run elsewhere: Hydra writes its own outputs into the working directory.
        done = subprocess.run([sys.executable, "-m", "sweep", "-m", f"seed=range(0,{cells})",
                               *TINY, f"results_dir={directory}"], cwd=scratch, env=_env(),
                              capture_output=True, text=True)
    if done.returncode:
        sys.exit(done.stderr)
    return time.perf_counter() - start


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}


def measure(what: str, results: Path) -> None:
    """Run in a child: one measurement; prints its own seconds and its summary's rows."""
    if what == "baseline":
        import pyarrow.dataset as ds

        start = time.perf_counter()
        frame = ds.dataset(results).to_table().to_pandas()
        summary = frame.groupby(KEYS, dropna=False)[METRICS].agg(["mean", "std", "count"])
    else:
        from analysis import summaries

        start = time.perf_counter()
        summary = summaries(results)
    print(time.perf_counter() - start, len(summary))


def child(command: list[str]) -> tuple[float, float, str]:
    """Run ``command``: its wall time in seconds, peak memory in MiB and output."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, env=_env(), stdout=out, stderr=err, text=True)
        # wait4 gives this child's own resource usage (RUSAGE_CHILDREN: the largest of all).
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode:
            sys.exit(f"{' '.join(command)} failed:\n{err.read()}")
        return seconds, usage.ru_maxrss / 1024, out.read()


def bench(title: str, results: Path, memory_target: int, repeat: int) -> None:
    """Print the three measurements on ``results``, each the fastest of ``repeat`` runs
    (with that run's peak memory)."""
    files = [p for p in results.iterdir() if p.suffix == ".parquet"]
    rows = sum(pq.read_metadata(p).num_rows for p in files)
    print(f"{title}: {len(files):,} cells, {rows:,} rows")
    timed = {}
    for what, label in (("baseline", "pyarrow scan + pandas groupby"),
                        ("summaries", "analysis.summaries")):
        runs = []
        for _ in range(repeat):
            _, peak, stdout = child([sys.executable, __file__, "--measure", what,
                                     str(results)])
            seconds, count = stdout.split()
            runs.append((float(seconds), peak, int(count)))
        timed[what], peak, count = min(runs)
        print(f"  {label:<32} {timed[what]:7.1f} s {peak:7.0f} MiB   ({count:,} summary rows)")
    with tempfile.TemporaryDirectory(prefix="bench_analysis_report_") as out:
        seconds, peak, _ = min(child([sys.executable, "-m", "analysis", "report",
                                      str(results), "--out", out]) for _ in range(repeat))
    print(f"  {'python -m analysis report':<32} {seconds:7.1f} s {peak:7.0f} MiB")
    print(f"  summaries / baseline: {timed['summaries'] / timed['baseline']:.2f} × time "
          f"(target ≤ 2); memory target < {memory_target} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path,
                        help="directory of the tiny cells, kept for the next run")
    parser.add_argument("--cells", type=int, default=10_000, help="tiny cells")
    parser.add_argument("--rows", type=int, default=10**7, help="rows of the large cells")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each measurement; the fastest is printed")
    parser.add_argument("--measure", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure[0], Path(args.measure[1]))
        return
    with tempfile.TemporaryDirectory(prefix="bench_analysis_") as scratch:
        tiny = (args.results or Path(scratch) / "tiny").resolve()
        seconds = tiny_cells(tiny, args.cells)
        print(f"(the tiny cells' sweep, of the cells missing in {tiny}: {seconds:.0f} s)")
        bench(f"Tiny cells (seed=range(0,{args.cells}) {' '.join(TINY[:4])})", tiny, 500,
              args.repeat)
        large = Path(scratch) / "large"
        large_cells(large, args.rows)
        bench("Large cells (synthetic)", large, 2048, args.repeat)


if __name__ == "__main__":
    main()
