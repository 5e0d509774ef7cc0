"""What every test shares: Ray's state kept private to the test run, and the order of
the files."""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Iterator

import pytest

#: Files whose tests are few and long (reports rendered, sweeps through the command line,
#: literal transcriptions run): run first, so that the suite on several workers, a file
#: per worker at a time, does not end with one worker on one of them alone.
#: The first two are of different families, so that the two workers do not both compile
#: the same kernels at the start (numba's cache serves the second to need them).
FIRST = ("test_figures.py", "test_continual_analysis.py", "test_analysis.py",
         "test_executors.py", "test_reference.py", "test_sweep.py", "test_kernels.py",
         "test_variance.py", "test_external_family.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order the tests so that the files of :data:`FIRST` come first (in its order),
    each file's tests in their own order."""
    rank = {name: place for place, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(FIRST)))


@pytest.fixture(scope="session", autouse=True)
def private_ray_state() -> Iterator[None]:
    """Ray's files under a temporary directory of the run's own, and a token of its own.

    Ray keeps its sessions, and the address of the cluster that a plain ``ray.init()``
    joins (``ray_current_cluster``, written by ``ray start`` and by test clusters), under
    ``$RAY_TMPDIR/ray`` (``/tmp/ray`` by default). A new local instance saves a token in
    ``~/.ray/auth_token`` when none is found, after which Ray turns token authentication
    on whenever it joins a cluster it found by itself. With ``RAY_TMPDIR`` and
    ``RAY_AUTH_TOKEN`` set here, inherited by every command the tests start, the tests
    neither read nor write the user's; without ``RAY_ADDRESS`` no sweep under test is sent
    to the user's cluster.
    """
    # Short, in the system's temporary directory: Ray's socket paths under it must stay
    # within 107 bytes, which a pytest tmp_path can exceed.
    directory = tempfile.mkdtemp(prefix="ray-")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_TMPDIR", directory)
        patch.setenv("RAY_AUTH_TOKEN", secrets.token_hex(32))
        patch.delenv("RAY_ADDRESS", raising=False)
        yield
    shutil.rmtree(directory, ignore_errors=True)
