"""The threads of the numerical libraries (OpenBLAS, MKL, OpenMP) while cells compute.

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

numba's threads are left alone: they serve only ``parallel=True`` kernels, and no family
has one (a forked worker could not use numba's threading layer anyway).
"""

from __future__ import annotations

import contextlib
from typing import Any

#: The values of the execution key ``threads``: ``one`` limits every numerical library
#: to one thread per task; ``default`` leaves their threads as each process has them
#: (the libraries' own default, one per core; on Ray, what Ray sets: it gives a task's
#: worker ``OMP_NUM_THREADS`` = its CPUs, 1, unless the environment sets it).
THREADS = ("one", "default")


def limit_threads(threads: str) -> contextlib.AbstractContextManager[Any]:
    """A context in which the numerical libraries loaded in this process run as
    ``threads`` (one of :data:`THREADS`) asks; their limits are restored on exit."""
    if threads == "default":
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits  # a few milliseconds, once per process

    return threadpool_limits(limits=1)
