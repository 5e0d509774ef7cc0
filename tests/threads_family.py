"""A family that reports the threads of its process's numerical libraries.

It is the minimal family (tests/minimal_family.py), except that before each block of
replicates it writes, to a new file in the directory named by the environment variable
``THREADS_FAMILY_REPORTS``, the threads of each library loaded in its process
(threadpoolctl's ``threadpool_info``, by library file): what the executor's worker saw
while computing.

It loads SciPy's linear algebra, whose BLAS is a library of its own beside NumPy's, as
the paper's families load it: the limits must reach every library a worker has loaded,
not only NumPy's.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy.linalg  # noqa: F401 (loads SciPy's BLAS: see the module docstring)
from threadpoolctl import threadpool_info

from .hooked_family import HookedFamily
from .minimal_family import MinimalOptions

REPORTS = "THREADS_FAMILY_REPORTS"  # the environment variable naming the directory


def threads_by_library() -> dict[str, int]:
    """The threads of each numerical library loaded in this process, by its file's name."""
    return {os.path.basename(info["filepath"]): info["num_threads"]
            for info in threadpool_info()}


class ThreadsFamily(HookedFamily):
    name = "threads"

    def before(self, prepared: MinimalOptions, seeds: Sequence[np.random.SeedSequence]
               ) -> None:
        report = Path(os.environ[REPORTS]) / f"{uuid.uuid4().hex}.json"
        report.write_text(json.dumps(threads_by_library()))


FAMILY = ThreadsFamily()
