"""Soak run: the fig2_left preset on a 3-node Ray cluster losing a worker node 3 times.

Run: ``python benchmarks/soak_cluster.py [--t-max 3000]``. A head node without CPUs and
two one-CPU worker nodes run on this machine (``ray.cluster_utils.Cluster``). The preset
(8 cells, 20 runs each, M = 200, at a reduced t_max) runs once without faults and once
while, three times, a worker node is removed mid-task and a new one added. It prints both
wall times, the cells lost or duplicated, and whether the two datasets are identical.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from ray.cluster_utils import Cluster

ROOT = Path(__file__).resolve().parent.parent


def sweep(cluster: Cluster, results: Path, t_max: int, faults: int) -> float:
    """Run the preset into ``results``; remove and re-add a worker ``faults`` times."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    driver = subprocess.Popen(
        [sys.executable, "-m", "sweep", "-m", "+experiment=fig2_left", f"t_max={t_max}",
         f"results_dir={results}", f"ray.address={cluster.address}", "ray.task_seconds=1"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for fault in range(faults):
        # Each fault once one more file is stored: tasks are running on both workers.
        while len(list(results.glob("*/*.parquet"))) <= fault and driver.poll() is None:
            time.sleep(0.05)
        cluster.remove_node(next(iter(cluster.worker_nodes)))
        cluster.add_node(num_cpus=1)
    out, err = driver.communicate()
    if driver.returncode:
        sys.exit(err)
    print(out.strip().splitlines()[-1])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-max", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="soak_", ignore_cleanup_errors=True) as scratch:
        # The cluster's files, and the record of its address that a plain ray.init()
        # would join (ray_current_cluster), apart from the user's /tmp/ray; the sweeps
        # inherit it.
        os.environ["RAY_TMPDIR"] = scratch
        cluster = Cluster(initialize_head=True,
                          head_node_args={"num_cpus": 0, "include_dashboard": False})
        for _ in range(2):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        try:
            clean, faulty = Path(scratch) / "clean", Path(scratch) / "faulty"
            seconds_clean = sweep(cluster, clean, args.t_max, faults=0)
            seconds_faulty = sweep(cluster, faulty, args.t_max, faults=3)
            # Cell by cell: which cells share a file depends on where tasks ran.
            a, b = (pd.read_parquet(path).sort_values("cell_id", kind="stable")
                    .reset_index(drop=True) for path in (clean, faulty))
            ids_a, ids_b = set(a.cell_id), set(b.cell_id)
            lost = len(ids_a - ids_b)
            duplicated = int(b.duplicated(["cell_id", "method", "source", "replicate",
                                           "t"]).sum())
            identical = a.equals(b)
        finally:
            cluster.shutdown()
    print(f"fault-free: {seconds_clean:.1f} s; 3 node losses: {seconds_faulty:.1f} s "
          f"(x{seconds_faulty / seconds_clean:.2f}); cells lost {lost}, rows duplicated "
          f"{duplicated}; datasets identical: {identical}")


if __name__ == "__main__":
    main()
