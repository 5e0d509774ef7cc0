"""Sweeps on a multi-node Ray cluster (``ray.cluster_utils.Cluster``), with faults.

A head node without CPUs and two one-CPU worker nodes run on this machine. The sweep is
submitted with ``ray.address=`` as a user would; faults are injected while its tasks run.
Every run must end with the dataset of a fault-free run: nothing lost, nothing duplicated.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import psutil
import pytest
from ray.cluster_utils import Cluster

from .sweep_reference import run_cli, start_cli

pytestmark = pytest.mark.slow

#: Six cells of about a second per replicate: faults land while tasks run.
GRID = ["-m", "seed=range(0,6)", "n_agents=100", "t_max=50000", "replicates=2",
        "checkpoints=10", "baselines=[local]", "ray.task_seconds=0.5"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": 0, "include_dashboard": False})
    for _ in range(2):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    yield cluster
    cluster.shutdown()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    """The grid on the default local Ray, without faults."""
    cwd = tmp_path_factory.mktemp("reference")
    done = run_cli([*GRID, "results_dir=results"], cwd)
    assert done.returncode == 0, done.stderr
    return _rows(cwd / "results")


def _rows(directory: Path) -> pd.DataFrame:
    """The rows cell by cell (which cells share a file depends on the workers)."""
    frame = pd.read_parquet(directory)
    return frame.sort_values("cell_id", kind="stable").reset_index(drop=True)


def _start(cluster: Cluster, cwd: Path) -> subprocess.Popen:
    return start_cli([*GRID, "results_dir=results", f"ray.address={cluster.address}"], cwd)


def _wait_for_tasks(cwd: Path, driver: subprocess.Popen) -> None:
    """Until the first cell is stored: tasks are then running on the worker nodes."""
    deadline = time.monotonic() + 300
    while not list((cwd / "results").glob("*/*.parquet")):
        assert driver.poll() is None and time.monotonic() < deadline, driver.communicate()
        time.sleep(0.05)


def _finish(driver: subprocess.Popen, cwd: Path, reference: pd.DataFrame) -> str:
    out, err = driver.communicate(timeout=600)
    assert driver.returncode == 0, err
    assert "6 cells: 6 done" in out
    assert not list((cwd / "results").glob("**/.*.tmp"))  # no temporaries left
    pd.testing.assert_frame_equal(_rows(cwd / "results"), reference, check_exact=True)
    return out


def test_sweep_on_a_cluster_matches_a_local_run(
    cluster: Cluster, reference: pd.DataFrame, tmp_path: Path
) -> None:
    _finish(_start(cluster, tmp_path), tmp_path, reference)


def test_worker_node_removed_mid_sweep(
    cluster: Cluster, reference: pd.DataFrame, tmp_path: Path
) -> None:
    driver = _start(cluster, tmp_path)
    _wait_for_tasks(tmp_path, driver)
    cluster.remove_node(next(iter(cluster.worker_nodes)))  # its running task is lost
    cluster.add_node(num_cpus=1)  # capacity comes back, as on an autoscaled cluster
    _finish(driver, tmp_path, reference)


def test_worker_process_killed_mid_task(
    cluster: Cluster, reference: pd.DataFrame, tmp_path: Path
) -> None:
    driver = _start(cluster, tmp_path)
    _wait_for_tasks(tmp_path, driver)
    deadline = time.monotonic() + 60
    killed = []
    while not killed and time.monotonic() < deadline:
        for process in psutil.process_iter(["cmdline"]):
            if any("run_task" in part for part in process.info["cmdline"] or []):
                os.kill(process.pid, signal.SIGKILL)
                killed.append(process.pid)
                break
        time.sleep(0.05)
    assert killed, "no worker was running a task"
    _finish(driver, tmp_path, reference)
