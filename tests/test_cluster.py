"""Sweeps on Ray clusters on this machine, with faults, and a sweep beside them unharmed.

Every Ray of this module is started by it, with its files in a temporary directory
(tests/conftest.py), and stopped by process id, never by name:

- an in-process cluster (``ray.cluster_utils.Cluster``): a head node without CPUs and two
  one-CPU worker nodes. Sweeps of the engine's own test family (tests/minimal_family.py,
  shipped to the nodes as docs/cluster.md tells users to ship theirs) are submitted with
  ``ray.address=`` as a user would; faults are injected while their tasks run. Every run
  must end with the dataset of a fault-free run: nothing lost, nothing duplicated.
- the cluster of docs/cluster.md, started by its commands as written, on a free port and
  with a home directory of its own.
- the bystander: a sweep on a local Ray of its own, started before the first test, whose
  cells wait (tests/gated_family.py) until the last test opens their gate. The cluster
  tests and the document's commands run beside it; it must end as if alone.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import psutil
import pytest
from ray._private import ray_constants
from ray.cluster_utils import Cluster

from .gated_family import GATE
from .sweep_reference import ROOT, run_cli, start_cli

pytestmark = pytest.mark.slow
DOC = ROOT / "docs" / "cluster.md"

TESTS = Path(__file__).resolve().parent
SEARCHPATH = f"hydra.searchpath=[file://{TESTS / 'conf'}]"
#: Six cells of the engine's own test family whose replicates take a second each, a
#: task each: faults land while tasks run. Its module goes to a cluster's nodes with
#: the tests' package.
GRID = ["-m", SEARCHPATH, "family=minimal", "seed=range(0,6)", "replicates=2", "pause=1",
        "ray.task_seconds=0.5", f"+ray.runtime_env.py_modules=[{TESTS}]"]
#: Three small cells.
SMALL = ["-m", SEARCHPATH, "seed=1,2,3", "replicates=2", "results_dir=results"]
#: Of the engine's own test family, and of its variant whose replicates wait at a gate.
MINIMAL, GATED = ([*SMALL, f"family={name}"] for name in ("minimal", "gated"))


@dataclass(frozen=True)
class Bystander:
    """A sweep started in ``cwd`` (output in ``out``, ``err``), waiting at ``gate``."""

    driver: subprocess.Popen
    cwd: Path
    gate: Path

    def waiting(self) -> list[int]:
        """The processes that waited at the gate."""
        return [int(path.suffix[1:]) for path in self.cwd.glob(f"{self.gate.name}.waiting.*")]

    def output(self) -> tuple[str, str]:
        return (self.cwd / "out").read_text(), (self.cwd / "err").read_text()


@pytest.fixture(scope="module", autouse=True)
def bystander(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bystander]:
    """A sweep on a local Ray of its own, in flight from before the module's first test
    until its last one opens the gate (tests.leftovers ends what it leaves behind)."""
    cwd = tmp_path_factory.mktemp("bystander")
    gate = cwd / "gate"
    with open(cwd / "out", "w") as out, open(cwd / "err", "w") as err:
        driver = start_cli([sys.executable, "-m", "sweep", *GATED, "executor=ray",
                            "ray.num_cpus=1"], cwd, module="tests.leftovers",
                           env={**os.environ, GATE: str(gate)}, stdout=out, stderr=err)
    sweep = Bystander(driver, cwd, gate)
    deadline = time.monotonic() + 300
    while not sweep.waiting():
        assert driver.poll() is None and time.monotonic() < deadline, sweep.output()
        time.sleep(0.1)
    yield sweep
    gate.touch()  # let it finish, whatever the tests did
    try:
        driver.wait(timeout=300)
    except subprocess.TimeoutExpired:
        driver.terminate()
        driver.wait()


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


def _running_tasks(cluster: Cluster) -> list[psutil.Process]:
    """The worker processes of the cluster's worker nodes that are running a task (Ray
    titles a worker after the task it runs): the descendants of those nodes' raylets."""
    running = []
    for node in cluster.worker_nodes:
        for raylet in node.all_processes[ray_constants.PROCESS_TYPE_RAYLET]:
            for process in psutil.Process(raylet.process.pid).children(recursive=True):
                with suppress(psutil.NoSuchProcess):
                    if "run_task" in " ".join(process.cmdline()):
                        running.append(process)
    return running


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
    while not (running := _running_tasks(cluster)):
        assert time.monotonic() < deadline, "no worker was running a task"
        time.sleep(0.05)
    running[0].kill()  # psutil checks that the process id still names this process
    _finish(driver, tmp_path, reference)


def test_a_sweep_without_an_address_starts_a_ray_of_its_own(
    cluster: Cluster, tmp_path: Path
) -> None:
    # The cluster is recorded as the latest one, where `ray start` records its cluster:
    # a plain ray.init() would join it.
    recorded = Path(os.environ["RAY_TMPDIR"], "ray", "ray_current_cluster")
    assert recorded.read_text() == cluster.address
    sessions = set(recorded.parent.glob("session_2*"))
    jobs = len(cluster.global_state.job_table())
    done = run_cli([*MINIMAL, "executor=ray"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "3 cells: 3 done" in done.stdout
    assert len(set(recorded.parent.glob("session_2*")) - sessions) == 1  # a Ray of its own
    assert len(cluster.global_state.job_table()) == jobs  # no driver joined the cluster
    assert recorded.read_text() == cluster.address  # and the record is left as it was


def _commands() -> list[str]:
    """The shell commands of the document's ``sh`` blocks, in order, comments left out."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", DOC.read_text(), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                lines.append(line.split(" # ")[0].strip())
    return lines


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_documented_cluster_commands_work(tmp_path: Path) -> None:
    *started, stop = _commands()
    assert [c.split()[0] for c in started] == [
        ".venv/bin/ray", "export", ".venv/bin/ray", ".venv/bin/ray", ".venv/bin/python"]
    # The cluster is stopped by process id (tests.leftovers), not by `ray stop`, which
    # stops every Ray of the user on this machine.
    assert stop == ".venv/bin/ray stop"
    script = "set -e\n" + "\n".join(started)
    assert "6380" in script
    script = script.replace("6380", str(_free_port()))
    script = script.replace(".venv/bin/", f"{Path(sys.executable).parent}/")
    home = tmp_path / "home"
    with tempfile.TemporaryDirectory(prefix="ray-", ignore_cleanup_errors=True) as ray_tmp:
        # A home of its own, where the document saves the token, and Ray's files
        # (ray_current_cluster above all) in a directory of its own.
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")},
               "HOME": str(home), "RAY_TMPDIR": ray_tmp}
        done = run_cli(["bash", "-c", script], tmp_path, module="tests.leftovers", env=env,
                       timeout=900)
        assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
        left = [p.pid for p in psutil.process_iter(["cmdline"])
                if ray_tmp in " ".join(p.info["cmdline"] or [])]
        assert not left, "processes of the documented cluster outlived it"
    assert (home / ".ray" / "auth_token").stat().st_size > 0
    frame = pd.read_parquet(tmp_path / "results")
    assert frame.cell_id.nunique() == 8  # the quickstart grid, computed on the cluster


def test_a_sweep_beside_the_cluster_tests_is_unharmed(
    bystander: Bystander, tmp_path: Path
) -> None:
    # Still in flight, and the one worker that waited at the gate from the start is still
    # there: nothing stopped its Ray, and no worker of it was killed and replaced.
    assert bystander.driver.poll() is None, bystander.output()
    waiting = bystander.waiting()
    assert len(waiting) == 1 and psutil.pid_exists(waiting[0]), f"waited: {waiting}"
    bystander.gate.touch()
    bystander.driver.wait(timeout=300)
    out, err = bystander.output()
    assert bystander.driver.returncode == 0, err
    assert "3 cells: 3 done" in out
    env = {**os.environ, GATE: str(bystander.gate)}
    serial = run_cli([*GATED, "executor=serial"], tmp_path, env=env)
    assert serial.returncode == 0, serial.stderr
    pd.testing.assert_frame_equal(_rows(bystander.cwd / "results"),
                                  _rows(tmp_path / "results"), check_exact=True)
