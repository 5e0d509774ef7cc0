"""How a sweep reaches Ray (:mod:`sweep.cluster`): addresses, the environment it gives
Ray before Ray is imported, and the one-line errors of an address nobody answers at.
The same failures end to end, against real clusters, are in tests/test_cluster.py."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from sweep.cluster import (
    ONE_MACHINE,
    RETRIES,
    check_reachable,
    environment,
    host_and_port,
    is_loopback,
)
from sweep.errors import ClusterError


def test_addresses_are_read_as_ray_reads_them() -> None:
    assert host_and_port("127.0.0.1:6380") == ("127.0.0.1", 6380)
    assert host_and_port("ray://head.lan:10001") == ("head.lan", 10001)
    assert host_and_port("[::1]:6380") == ("::1", 6380)
    assert host_and_port("auto") is None and host_and_port("head:port") is None
    assert all(map(is_loopback, ["localhost", "127.0.0.1", "127.0.0.2", "::1"]))
    assert not any(map(is_loopback, ["10.0.0.1", "192.0.2.2", "head.lan", "::"]))


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name in (ONE_MACHINE, RETRIES, "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return monkeypatch


def test_a_ray_of_its_own_stays_on_loopback_and_writes_no_token(clean, tmp_path) -> None:
    """Set while the Ray is in use, and gone after: nothing leaks into the processes
    this one starts later."""
    with environment(None, 5.0) as added:
        assert os.environ[ONE_MACHINE] == "0" and RETRIES not in os.environ
        assert len(os.environ["RAY_AUTH_TOKEN"]) == 64  # in memory: nothing in ~/.ray
        assert set(added) == {ONE_MACHINE, "RAY_AUTH_TOKEN"}
    assert not {ONE_MACHINE, "RAY_AUTH_TOKEN"} & set(os.environ)
    assert not (tmp_path / ".ray").exists()


def test_what_the_user_set_is_kept(clean, tmp_path) -> None:
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text("x" * 64)
    clean.setenv(ONE_MACHINE, "1")
    with environment(None, 5.0) as added:
        assert added == {} and os.environ[ONE_MACHINE] == "1"
        assert "RAY_AUTH_TOKEN" not in os.environ  # the user's token file
    assert os.environ[ONE_MACHINE] == "1"


def test_a_cluster_elsewhere_is_joined_on_its_address(clean) -> None:
    """Only a loopback cluster puts this process in one-machine mode (a node elsewhere
    must reach the driver); Ray's retries follow ray.connect_seconds, whole seconds."""
    with environment("10.0.0.1:6380", 2.5):
        assert ONE_MACHINE not in os.environ and os.environ[RETRIES] == "3"
    with environment("127.0.0.1:6380", 2.5):
        assert os.environ[ONE_MACHINE] == "0"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_nobody_at_the_address_is_one_line_naming_it() -> None:
    port = _free_port()
    with pytest.raises(ClusterError, match=rf"^ray\.address=127\.0\.0\.1:{port}: nothing "
                       "listens there \\(connection refused\\); start the cluster"):
        check_reachable(f"127.0.0.1:{port}", 5.0)
    with pytest.raises(ClusterError, match=r"unknown host 'no-such-host\.invalid'"):
        check_reachable("no-such-host.invalid:6380", 5.0)
    check_reachable("auto", 5.0)  # Ray's own word: Ray finds it
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_reachable(f"127.0.0.1:{server.getsockname()[1]}", 5.0)  # accepted


def test_silence_is_one_line_after_connect_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host that drops the connection (made for real in tests/test_cluster.py)."""
    asked = []

    def dropped(address: tuple[str, int], timeout: float) -> None:
        asked.append(timeout)
        raise TimeoutError("timed out")

    monkeypatch.setattr(socket, "create_connection", dropped)
    with pytest.raises(ClusterError, match=r"^ray\.address=10\.9\.0\.2:6380: no answer within "
                       r"2\.5 s .*raise ray\.connect_seconds$"):
        check_reachable("10.9.0.2:6380", 2.5)
    assert asked == [2.5]
