"""Reaching Ray: a private instance on this machine, or the cluster ``ray.address`` names.

Ray offers no setting for the interface it listens on: a node listens on every interface
unless its address is the loopback one, and on Linux it replaces a loopback address it is
given with the machine's external one. Its switch for one-machine use
(``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, the mode it runs in on macOS and Windows) keeps
the loopback address, so that every port of the node, and of a driver joining it, is
bound to 127.0.0.1. :func:`environment` sets it for a Ray of this process's own and for a
cluster on a loopback address (docs/cluster.md starts such a cluster with it), and never
for a cluster on another machine, whose nodes must be reachable.

Ray also waits long and says little when it cannot join a cluster: 320 s and more for an
address where nothing listens, 20 s of repeated warnings and then a traceback for a
missing or wrong token. :func:`connect` gives each failure one line, within
``ray.connect_seconds``: it tries the address itself before Ray does, bounds Ray's
retries, and reads the cause from what Ray logs.
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import os
import secrets
import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import ClusterError

#: Ray's one-machine switch (read when ray is first imported): ``0`` keeps a node's
#: loopback address, and binds its ports to it.
ONE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
#: How many times, a second apart, a driver asks a cluster's GCS before it gives up (read
#: when ray is first imported; Ray's default is 20).
RETRIES = "RAY_NUM_REDIS_GET_RETRIES"
#: What Ray logs when the cluster refuses the driver's token, or the lack of one.
REFUSED_TOKEN = ("InvalidAuthToken", "Unauthenticated")
#: What Ray logs when what answers at the address is not a cluster's GCS.
NOT_RAY = "Failed to get cluster ID from GCS server"
#: The fix of a refused token, as docs/cluster.md sets it up.
TOKEN_FIX = ("set RAY_AUTH_MODE=token, with the cluster's token in ~/.ray/auth_token or "
             "RAY_AUTH_TOKEN (docs/cluster.md)")


def host_and_port(address: str) -> tuple[str, int] | None:
    """The host and port of ``HOST:PORT`` (or ``ray://HOST:PORT``, ``[IPv6]:PORT``);
    None for Ray's own words (``auto``, ``local``)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback interface (``localhost``,
    127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@contextlib.contextmanager
def environment(address: str | None, connect_seconds: float) -> Iterator[dict[str, str]]:
    """Ray's environment while this process uses Ray (set before ray is imported, and
    inherited by the processes a local Ray starts), as it was again afterwards: the
    variables it set, by name.

    One-machine mode for a Ray of its own (``address`` None) or a cluster on a loopback
    address; Ray's retries bounded by ``connect_seconds``; for a Ray of its own, a token
    that is not written to disk (Ray would save a new one in ``~/.ray/auth_token``,
    readable by every user of the machine, and turn token authentication on for any
    cluster this user later joins). A variable the user set is left as it is.
    """
    target = host_and_port(address) if address else None
    wanted = {}
    if address is None or (target is not None and is_loopback(target[0])):
        wanted[ONE_MACHINE] = "0"
    if address is not None:
        wanted[RETRIES] = str(max(1, math.ceil(connect_seconds)))
    elif not (os.environ.get("RAY_AUTH_TOKEN_PATH")
              or (Path.home() / ".ray" / "auth_token").exists()):
        wanted["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    added = {name: value for name, value in wanted.items() if name not in os.environ}
    os.environ.update(added)
    try:
        yield added
    finally:
        for name in added:
            os.environ.pop(name, None)


def check_reachable(address: str, seconds: float) -> None:
    """:class:`ClusterError` unless something accepts a connection at ``address`` within
    ``seconds`` (an address Ray reads itself, such as ``auto``, is not tried)."""
    target = host_and_port(address)
    if target is None:
        return
    where = f"ray.address={address}"
    try:
        with socket.create_connection(target, timeout=seconds):
            return
    except socket.gaierror:
        raise ClusterError(f"{where}: unknown host {target[0]!r}; correct the address"
                           ) from None
    except TimeoutError:
        raise ClusterError(
            f"{where}: no answer within {seconds:g} s (the host is unreachable or a "
            "firewall drops the connection); check the address and the network, or "
            "raise ray.connect_seconds") from None
    except ConnectionRefusedError:
        raise ClusterError(
            f"{where}: nothing listens there (connection refused); start the cluster "
            "(docs/cluster.md) or correct the port") from None
    except OSError as error:
        raise ClusterError(f"{where}: cannot connect ({error.strerror or error}); check "
                           "the address and the network") from None


@contextlib.contextmanager
def _stderr_captured() -> Iterator[Path]:
    """The process's standard error (Ray's C++ logs write to it directly) into a file
    while the block runs."""
    with tempfile.NamedTemporaryFile("w+b", prefix="ray-connect-", suffix=".log") as log:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        try:
            yield Path(log.name)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def connect(address: str, seconds: float, **options: Any) -> None:
    """``ray.init(address, **options)``, or :class:`ClusterError` in one line naming the
    cause and its fix: nothing listens at the address, no answer within ``seconds``, a
    refused token, or what else Ray says. Ray's own messages are kept for a failure it
    does not explain (they follow the line) and echoed after a success."""
    import ray

    check_reachable(address, seconds)
    with _stderr_captured() as log:
        try:
            ray.init(address=address, **options)
        except Exception as error:
            failure: Exception | None = error
        else:
            failure = None
        said = log.read_text(encoding="utf-8", errors="replace")
    if failure is None:
        sys.stderr.write(said)
        return
    where = f"ray.address={address}"
    text = f"{failure} {said}"
    if any(word in text for word in REFUSED_TOKEN):
        raise ClusterError(f"{where}: the cluster refused this driver's token (it requires "
                           f"token authentication); {TOKEN_FIX}") from None
    if "token" in str(failure).lower():
        raise ClusterError(f"{where}: {' '.join(str(failure).split())}; {TOKEN_FIX}"
                           ) from None
    if NOT_RAY in said:
        raise ClusterError(f"{where}: something answers there, but not a Ray cluster's GCS; "
                           "give the head's address and the port of its `ray start --port`"
                           ) from None
    last = " ".join(str(failure).split()) or type(failure).__name__
    sys.stderr.write(said)
    raise ClusterError(f"{where}: Ray could not join the cluster ({last}); Ray's messages "
                       "are above") from None
