"""Peak memory and time of ``python -m analysis report`` on a large results directory.

Run: ``python benchmarks/bench_analysis.py [--rows N]`` (default 10⁷ rows). It writes a
synthetic results directory in the platform's format (100 cells of Algorithm 1 and local
rows: 500 replicates × 100 checkpoints each, ε and the mechanism swept), runs the report
on it in a subprocess and prints the rows, the report's wall time and its peak resident
memory (``ru_maxrss`` of the child; target < 2 GiB).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

CHECKPOINTS = np.unique(np.rint(np.geomspace(1, 30_000, 100)).astype(np.int64))
OPTIONS = {"n_agents": 200, "t_max": 30_000, "n_classes": 3, "class_means": "0.2,0.4,0.8",
           "class_assignment": "random", "sigma": 0.5, "distribution": "uniform",
           "delta": 1e-6, "noise": "gaussian", "pm2_split": True, "weights": "last",
           "schedule": "rr", "class_estimator": "test", "variance": "known",
           "prior": "paper", "inferred_form": "eq16", "decision.theta0": 0.05,
           "decision.refresh": "on_query", "baselines": "local", "family": "colme",
           "seed": 0}


def write_cell(directory: Path, index: int, replicates: int, rng: np.random.Generator) -> int:
    """One synthetic cell file; returns its number of rows."""
    t = np.tile(CHECKPOINTS, 2 * replicates)
    n = len(t)
    replicate = np.repeat(np.tile(np.arange(replicates), 2), len(CHECKPOINTS))
    method = np.repeat(["colme", "local"], replicates * len(CHECKPOINTS))
    columns = {
        "method": method, "source": np.full(n, "simulated"), "replicate": replicate,
        "t": t, "mse": rng.exponential(0.25, n) / t,
        "false_exclusion": rng.random(n) * 0.1, "false_inclusion": rng.random(n),
        **{k: np.full(n, v) for k, v in OPTIONS.items()},
        "epsilon": np.full(n, (0.25, 0.5, 0.75, 1.0)[index % 4]),
        "mechanism": np.full(n, ("pm1", "pm2")[index // 4 % 2]),
        "replicates": np.full(n, replicates),
        "cell_id": np.full(n, f"{index:016x}"),
    }
    pq.write_table(pa.table(columns), directory / f"{index:016x}.parquet")
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**7, help="rows in the directory")
    args = parser.parse_args()
    cells = 100
    replicates = -(-args.rows // (cells * 2 * len(CHECKPOINTS)))  # at least --rows rows
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory(prefix="bench_analysis_") as scratch:
        results = Path(scratch) / "results"
        results.mkdir()
        # Distinct seeds per cell: the cells must not collapse into one cell id.
        rows = 0
        for index in range(cells):
            OPTIONS["seed"] = index
            rows += write_cell(results, index, replicates, rng)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "analysis", "report", str(results),
                               "--out", str(Path(scratch) / "report")],
                              capture_output=True, text=True)
        seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(done.stderr)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"rows {rows:,} in {cells} cells; report {seconds:.1f} s; peak RSS {peak:.0f} MiB "
          f"(target < 2048)")


if __name__ == "__main__":
    main()
