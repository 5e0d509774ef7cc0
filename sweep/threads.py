"""The threads of the numerical libraries (OpenBLAS, MKL, OpenMP) and of the families'
parallel kernels while cells compute.

An executor runs one task per core, so a library that starts a thread per core on top
(OpenBLAS does, in every process) oversubscribes the machine: on 2 shared cores the
runtime preset's inference cell at n = 96 centres took 2.6 to 7 times as long with the
default threads as with one in this process, and about 5 times on a pool of 2 workers;
a Private-ColME cell, whose kernels are numba's, took as long
(``benchmarks/bench_threads.py``). So every task runs with each library loaded in its
process limited to one thread, by ``threadpoolctl``, which sets the limit through each
library's own call and restores it afterwards; unlike the environment variables
(``OMP_NUM_THREADS``, ...), it reaches the libraries already loaded, as those a forked
worker inherits from the driver are. It is applied per task (about 2 ms), not once per
worker, after the task's families are imported, so that it reaches the libraries their
modules load, and from the next task on one a family loads while it computes. The
rows do not depend on it: the benchmark's cells give the same rows, bit for bit, either
way.

A family's parallel kernels (numba's ``parallel=True``: the decentralized family's, for a
graph too large for one core) are the exception: a task gets the cores its executor
leaves it (:func:`kernel_threads`). The serial executor runs one task at a time, so a
cell of a million agents runs on every core of the machine; a pool of one worker per
core leaves each task one, and the kernels then run their serial form. Their results do
not depend on the number of threads. A process that has started numba's threads (as
loading a parallel kernel does) cannot use them in a child it forks (GNU OpenMP's layer,
numba's default on Linux, is not fork-safe): a forked worker whose parent had started
them runs the serial kernels, which never enter the layer.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

#: The values of the execution key ``threads``: ``one`` limits every numerical library
#: to one thread per task (a family's parallel kernels to the cores its executor leaves
#: the task); ``default`` leaves their threads as each process has them (the libraries'
#: own default, one per core; on Ray, what Ray sets: it gives a task's worker
#: ``OMP_NUM_THREADS`` = its CPUs, 1, unless the environment sets it).
THREADS = ("one", "default")

#: The cores the running task may give a parallel kernel (None: every core of this
#: process).
_granted: int | None = None
#: Whether this process is a fork of one that had started numba's threads.
_inherited = False


def _note_fork() -> None:
    global _inherited
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    _inherited = _inherited or bool(parallel and parallel._is_initialized)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_note_fork)


def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS has no CPU affinity
        return os.cpu_count() or 1


@contextlib.contextmanager
def _granting(count: int | None) -> Iterator[None]:
    global _granted
    before, _granted = _granted, count
    try:
        yield
    finally:
        _granted = before


def limit_threads(threads: str, granted: int | None = None
                  ) -> contextlib.AbstractContextManager[Any]:
    """A context in which the numerical libraries loaded in this process run as
    ``threads`` (one of :data:`THREADS`) asks, and a family's parallel kernels on at most
    ``granted`` cores (None: all of this process's); the limits are restored on exit."""
    if threads == "default":
        return _granting(None)
    from threadpoolctl import threadpool_limits  # a few milliseconds, once per process

    stack = contextlib.ExitStack()
    stack.enter_context(threadpool_limits(limits=1))
    stack.enter_context(_granting(granted))
    return stack


def kernel_threads() -> int:
    """The threads a parallel kernel may run on here and now (1: run its serial form),
    numba's thread count set to them (which starts its threads)."""
    count = _granted if _granted is not None else cores()
    if count <= 1 or _inherited:
        return 1
    import numba

    count = min(count, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(count)
    return count
