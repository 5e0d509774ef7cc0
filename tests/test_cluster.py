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

import contextlib
import ipaddress
import os
import re
import secrets
import shutil
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

from sweep.cluster import ONE_MACHINE

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


def _commands() -> list[list[str]]:
    """The shell commands of the document's ``sh`` blocks, block by block, comments left
    out."""
    blocks = []
    for block in re.findall(r"```sh\n(.*?)```", DOC.read_text(), re.S):
        lines = [line.split(" # ")[0].strip()
                 for line in block.replace("\\\n", " ").splitlines()
                 if line.strip() and not line.lstrip().startswith("#")]
        blocks.append(lines)
    return blocks


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _listening(processes: list[psutil.Process]) -> set[tuple[str, int]]:
    """The addresses the processes listen on (TCP)."""
    pids = {p.pid for p in processes}
    return {(c.laddr.ip, c.laddr.port) for c in psutil.net_connections("tcp")
            if c.status == psutil.CONN_LISTEN and c.pid in pids}


def _loopback(host: str) -> bool:
    return ipaddress.ip_address(host.removeprefix("::ffff:")).is_loopback


def _tree(pid: int) -> list[psutil.Process]:
    with suppress(psutil.NoSuchProcess):
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    return []


def test_the_documented_cluster_is_private_and_stops_alone(tmp_path: Path) -> None:
    """The document's commands as written, in one shell: the cluster and the driver of
    the sweep listen on loopback only, the token is readable by its owner only, the sweep
    runs on the cluster, and the document's stop ends exactly that cluster."""
    start, sweep, stop = _commands()
    assert [c.split()[0] for c in start] == [
        "export", "export", "(umask", "chmod", "CLUSTER=$(mktemp", "nohup", "echo", "until"]
    assert [c.split()[0] for c in sweep] == [".venv/bin/python"]
    assert stop == ['kill "$(cat "$CLUSTER/pid")"']
    # Pauses where the test looks at the cluster: after the start, during and after the
    # sweep (the driver's process id), before the stop.
    here = tmp_path / "pause"
    script = "\n".join([
        "set -e", *start, f'echo "$(cat "$CLUSTER/pid")" > {here}.cluster',
        f"until [ -e {here}.go ]; do sleep 0.2; done",
        f"{sweep[0]} &", f"echo $! > {here}.driver", "wait $!",
        f"touch {here}.swept", f"until [ -e {here}.stop ]; do sleep 0.2; done",
        *stop, 'while kill -0 "$(cat "$CLUSTER/pid")" 2>/dev/null; do sleep 0.2; done'])
    port = _free_port()
    script = script.replace("6380", str(port)).replace(
        ".venv/bin/", f"{Path(sys.executable).parent}/")
    home = tmp_path / "home"
    with (tempfile.TemporaryDirectory(prefix="ray-", ignore_cleanup_errors=True) as ray_tmp,
          contextlib.ExitStack() as stack):
        # A home of its own, where the document saves the token, and Ray's files in a
        # directory of their own; the test's own Ray settings left out.
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAY_")},
               "HOME": str(home), "RAY_TMPDIR": ray_tmp, "TMPDIR": ray_tmp}
        shell = start_cli(["bash", "-c", script], tmp_path, module="tests.leftovers", env=env)
        # Whatever happens below, the shell ends and takes the cluster with it
        # (tests.leftovers ends its descendants when terminated).
        stack.callback(shell.wait, timeout=300)
        stack.callback(shell.terminate)
        seen: set[tuple[str, int]] = set()

        def wait_for(path: Path) -> None:
            deadline = time.monotonic() + 600
            while not path.exists():
                assert shell.poll() is None, shell.communicate()
                assert time.monotonic() < deadline, f"no {path.name}"
                time.sleep(0.2)

        wait_for(Path(f"{here}.cluster"))
        cluster = int(Path(f"{here}.cluster").read_text())
        seen |= _listening(_tree(cluster))
        assert ("127.0.0.1", port) in {(h.removeprefix("::ffff:"), p) for h, p in seen}
        assert (home / ".ray" / "auth_token").stat().st_mode & 0o777 == 0o600
        Path(f"{here}.go").touch()
        wait_for(Path(f"{here}.driver"))
        driver = int(Path(f"{here}.driver").read_text())
        while not Path(f"{here}.swept").exists():
            seen |= _listening(_tree(driver) + _tree(cluster))  # its workers too
            assert shell.poll() is None, shell.communicate()
            time.sleep(0.5)
        seen |= _listening(_tree(cluster))
        Path(f"{here}.stop").touch()
        out, err = shell.communicate(timeout=300)
        assert shell.returncode == 0, f"{out}\n{err}"
        assert len(seen) > 5 and all(_loopback(host) for host, _ in seen), seen
        assert not psutil.pid_exists(cluster)
        left = [p.pid for p in psutil.process_iter(["cmdline"])
                if ray_tmp in " ".join(p.info["cmdline"] or [])]
        assert not left, "processes of the documented cluster outlived its stop"
    assert "ray: 2 CPUs" in out
    frame = pd.read_parquet(tmp_path / "results")
    assert frame.cell_id.nunique() == 8  # the quickstart grid, computed on the cluster


@pytest.fixture(scope="module")
def private() -> Iterator[str]:
    """A head with token authentication on loopback, as docs/cluster.md starts one; its
    address."""
    # A short directory: Ray's socket paths below it must fit AF_UNIX's 107 bytes, which
    # pytest's base directory (pytest-NN/popen-gwN/...) can exceed.
    cwd = Path(tempfile.mkdtemp(prefix="ray-"))
    port = _free_port()
    # The head's token is its own (no one's ~/.ray/auth_token): the drivers below hold
    # none or another.
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
           ONE_MACHINE: "0"}
    log = cwd / "ray.log"
    with log.open("wb") as sink:
        head = subprocess.Popen(
            [str(Path(sys.executable).parent / "ray"), "start", "--head", "--block",
             f"--port={port}", "--num-cpus=1", "--include-dashboard=false",
             "--disable-usage-stats", f"--temp-dir={cwd}"],
            cwd=cwd, env=env, stdout=sink, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while True:
        assert head.poll() is None and time.monotonic() < deadline, (
            f"the head did not start:\n{log.read_text(errors='replace')[-3000:]}")
        with suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            break
        time.sleep(0.2)
    yield f"127.0.0.1:{port}"
    head.terminate()  # it drains and stops its processes
    head.wait(timeout=120)
    shutil.rmtree(cwd, ignore_errors=True)


#: Each way a driver fails to join, and the environment that makes it fail.
REFUSED = {
    "missing token": ({"RAY_AUTH_MODE": None, "RAY_AUTH_TOKEN": None},
                      "the cluster refused this driver's token"),
    "wrong token": ({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64},
                    "the cluster refused this driver's token"),
}


def _failing_sweep(address: str, cwd: Path, env: dict[str, str | None],
                   prefix: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess, float]:
    """A small sweep pointed at ``address``, its output and how long it took."""
    environment = {k: v for k, v in {**os.environ, "HOME": str(cwd), **env}.items()
                   if v is not None}
    environment["PYTHONPATH"] = str(ROOT)
    started = time.monotonic()
    done = subprocess.run([*prefix, sys.executable, "-m", "sweep", *SMALL, "family=minimal",
                           f"ray.address={address}"], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=120)
    return done, time.monotonic() - started


def _one_line(done: subprocess.CompletedProcess, seconds: float, says: str) -> None:
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [done.stderr.strip()], done.stderr
    assert says in done.stderr, done.stderr
    # Ray's own wait is 20 retries a second apart (and far more for an address where
    # nothing listens), after the seconds a sweep takes to start; ray.connect_seconds
    # (5 s) bounds this one.
    assert seconds < 20, seconds


@pytest.mark.parametrize("case", REFUSED)
def test_a_refused_token_ends_the_sweep_in_one_line(private: str, tmp_path: Path,
                                                    case: str) -> None:
    env, says = REFUSED[case]
    done, seconds = _failing_sweep(private, tmp_path, env)
    _one_line(done, seconds, f"ray.address={private}: {says}")
    assert "RAY_AUTH_MODE=token" in done.stderr  # the fix
    assert not list(tmp_path.glob("results/**/*.parquet"))  # nothing computed


def test_nothing_listening_ends_the_sweep_in_one_line(tmp_path: Path) -> None:
    address = f"127.0.0.1:{_free_port()}"
    done, seconds = _failing_sweep(address, tmp_path, {})
    _one_line(done, seconds, f"ray.address={address}: nothing listens there")


def test_an_unreachable_head_ends_the_sweep_in_one_line(tmp_path: Path) -> None:
    """In a network namespace of its own whose one route leads to a link where nobody
    answers: the connection is neither refused nor accepted (a host that drops packets)."""
    namespace = f"dpsweep-{os.getpid()}"
    setup = ["ip link set lo up", "ip link add v0 type veth peer name v1",
             "ip addr add 10.9.0.1/24 dev v0", "ip link set v0 up", "ip link set v1 up",
             "ip neigh add 10.9.0.2 lladdr 02:00:00:00:00:02 dev v0"]
    try:
        made = subprocess.run(["ip", "netns", "add", namespace], capture_output=True)
    except FileNotFoundError:
        pytest.skip("needs iproute2 (ip netns) to make an unreachable host")
    if made.returncode:
        pytest.skip(f"cannot make a network namespace: {made.stderr.decode().strip()}")
    try:
        for command in setup:
            subprocess.run(["ip", "netns", "exec", namespace, *command.split()], check=True)
        done, seconds = _failing_sweep("10.9.0.2:6380", tmp_path, {},
                                       ("ip", "netns", "exec", namespace))
    finally:
        subprocess.run(["ip", "netns", "del", namespace], check=False)
    _one_line(done, seconds, "ray.address=10.9.0.2:6380: no answer within 5 s")


def test_a_sweep_beside_the_cluster_tests_is_unharmed(
    bystander: Bystander, tmp_path: Path
) -> None:
    # Still in flight, and the one worker that waited at the gate from the start is still
    # there: nothing stopped its Ray, and no worker of it was killed and replaced.
    assert bystander.driver.poll() is None, bystander.output()
    waiting = bystander.waiting()
    assert len(waiting) == 1 and psutil.pid_exists(waiting[0]), f"waited: {waiting}"
    # Its Ray of its own (and its driver) listen on loopback only.
    listening = _listening(_tree(bystander.driver.pid))
    assert len(listening) > 3 and all(_loopback(host) for host, _ in listening), listening
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
