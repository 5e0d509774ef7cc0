"""How long a command will take, and which executor takes it.

The planner knows each cell's CPU-seconds (the families' :meth:`~sweep.family.Family.cost`)
and which families' numba kernels are not cached yet (:func:`uncached`). To those it adds
what every command pays: the seconds already spent starting and planning
(:func:`process_age` on the command line), and the start of the executor.
:class:`Estimate` is that sum. The command prints it before any work, with the executor it
chose and why (``about 27 s in all``); ``benchmarks/bench_estimates.py`` holds it against
the measured time of every preset.

The constants are measured on 2 cores with nothing else running, with numba's cache cold
and warm (the benchmark's ``--cold``). Other work on the machine slows every part, and
the estimate does not know about it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .family import get_family
from .plan import Execution, ProcessSettings, RaySettings
from .threads import cores

#: Seconds a pool of worker processes adds to a command: forking the workers and their
#: shutdown (each worker's loading of the kernels is :data:`LOAD_SECONDS`).
POOL_SECONDS = 0.5
#: Seconds a local Ray adds to a command: its start and its shutdown.
RAY_SECONDS = 10.0
#: Seconds joining a cluster adds to a command: connecting, and shipping this package.
CLUSTER_SECONDS = 5.0
#: Seconds of numba compilation the first run of a family pays on an install whose cache
#: holds none of its kernels.
COMPILE_SECONDS = 8.0
#: Seconds the first cell of a family takes beyond its work when its kernels are cached:
#: importing them and loading them from numba's cache (0.7 to 1.8 s, on 2 cores). Each
#: worker of a pool pays it, all at once.
LOAD_SECONDS = 1.2
#: How much longer the workers of a pool take to compile the same kernels than one
#: process does: each worker compiles those of the cells it meets, all at once, on cores
#: the driver shares.
POOL_COMPILING = 1.5
#: The factor within which the estimates hold (benchmarks/bench_estimates.py). A pool is
#: chosen over this process only for a gain that this error cannot undo.
ERROR = 2.0


def two_digits(value: float) -> str:
    """Two significant digits, in plain notation up to 10⁶ (``470``, ``16``, ``0.82``)."""
    return f"{float(f'{value:.2g}'):g}"


def pool_size(settings: ProcessSettings) -> int:
    """The worker processes of ``executor=processes``: ``processes.workers``, or one per
    CPU this process may run on."""
    return settings.workers or cores()


def ray_address(settings: RaySettings) -> str | None:
    """The cluster to connect to: ``ray.address`` or ``RAY_ADDRESS`` (None: start one)."""
    return settings.address or os.environ.get("RAY_ADDRESS") or None


def process_age() -> float:
    """Seconds since this process started (the CPU time it has used where the system
    does not say): a command line's start-up and planning, before it executes."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            started = int(stat.read().rpartition(")")[2].split()[19])
        with open("/proc/uptime", encoding="ascii") as uptime:
            now = float(uptime.read().split()[0])
        return max(0.0, now - started / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return time.process_time()


@dataclass(frozen=True)
class Estimate:
    """The seconds of a command, by part: already spent (``spent``), starting the
    executor, compiling the kernels not yet cached (those of ``cold``), loading those
    cached, the work the cells share (``shared``: each process that needs it does it
    once, the workers at once), and the cells' ``cost`` CPU-seconds shared out over
    ``workers``."""

    executor: str
    workers: int
    cost: float
    spent: float
    starting: float
    compiling: float
    loading: float
    shared: float
    cold: tuple[str, ...]

    @property
    def computing(self) -> float:
        return self.cost / self.workers

    @property
    def total(self) -> float:
        return (self.spent + self.starting + self.compiling + self.loading + self.shared
                + self.computing)

    def parts(self) -> str:
        """What the estimate adds to the cells' time, and its total."""
        extra = []
        if self.compiling:
            extra.append(f"{two_digits(self.compiling)} s compiling the numba kernels of "
                         f"{', '.join(self.cold)} (not yet in numba's cache)")
        if self.loading:
            extra.append(f"{two_digits(self.loading)} s loading cached kernels")
        if self.shared:
            extra.append(f"{two_digits(self.shared)} s of work the cells share")
        if self.starting:
            extra.append(f"{two_digits(self.starting)} s starting the "
                         + ("workers" if self.executor == "processes" else "Ray"))
        added = f"; with about {' and '.join(extra)}" if extra else ""
        return f"{added}; about {two_digits(self.total)} s in all"


def estimate(executor: str, workers: int, cost: float, cold: Iterable[str], spent: float,
             cluster: bool = False, warm: int = 0, shared: float = 0.0) -> Estimate:
    """The :class:`Estimate` of computing ``cost`` CPU-seconds of cells on ``executor``
    with ``workers`` (a cluster's CPUs, once known), the families of ``cold`` compiling
    their kernels first and ``warm`` others loading them, after ``shared`` seconds of
    work the cells share, ``spent`` seconds after the command started."""
    cold = tuple(cold)
    workers = 1 if executor == "serial" else workers
    starting = {"serial": 0.0, "processes": POOL_SECONDS}.get(
        executor, CLUSTER_SECONDS if cluster else RAY_SECONDS)
    compiling = COMPILE_SECONDS * len(cold) * (1.0 if workers == 1 else POOL_COMPILING)
    return Estimate(executor, workers, cost, spent, starting, compiling, LOAD_SECONDS * warm,
                    shared, cold)


def uncached(families: Iterable[str]) -> list[str]:
    """The families, of ``families``, none of whose numba kernels is in numba's on-disk
    cache: their first run on this install compiles them.

    A family's kernels are the functions compiled with ``cache=True`` in the modules of
    the packages of its class and its base classes. It has run here since its source last
    changed if numba's cache holds an index (``.nbi``) of one of them at least as recent
    as the module's source. Read from the file system alone, without importing numba or
    the family's kernels, so that a dry run stays light (a few milliseconds).
    """
    cold = []
    for name in sorted(set(families)):
        packages = {cls.__module__.rpartition(".")[0] or cls.__module__
                    for cls in type(get_family(name)).__mro__ if cls is not object}
        sources = [source for package in packages
                   for directory in _package_directories(importlib.util.find_spec(package))
                   for source in sorted(Path(directory).glob("*.py"))
                   if "cache=True" in source.read_text(encoding="utf-8")]
        if sources and not any(index.stat().st_mtime >= source.stat().st_mtime
                               for source in sources
                               for cache in _numba_cache_directories(source)
                               for index in cache.glob(f"{source.stem}.*.nbi")):
            cold.append(name)
    return cold


def _package_directories(spec: Any) -> list[str]:
    """The directories of a package's modules (none for a plain module or nothing)."""
    return list(spec.submodule_search_locations or []) if spec is not None else []


def _numba_cache_directories(source: Path) -> list[Path]:
    """Where numba keeps the cache of ``source``'s kernels: ``NUMBA_CACHE_DIR``, laid out
    as numba's ``_UserProvidedCacheLocator`` lays it out (the source's directory name and
    the SHA-1 of its absolute path), when it is set; otherwise ``__pycache__`` beside the
    source (``_InTreeCacheLocator``). numba falls back to a per-user directory where
    ``__pycache__`` cannot be written; such an install is always seen as cold."""
    directory = os.path.dirname(os.path.abspath(source))
    if root := os.environ.get("NUMBA_CACHE_DIR"):
        digest = hashlib.sha1(directory.encode()).hexdigest()
        return [Path(os.path.abspath(root)) / f"{os.path.basename(directory)}_{digest}"]
    return [Path(directory) / "__pycache__"]


def choose_executor(execution: Execution, cost: float, families: Iterable[str] = (),
                    spent: float = 0.0, shared: float = 0.0) -> tuple[str, Estimate, str]:
    """The executor ``execution`` asks for, its :class:`Estimate`, and why, in words
    that end with the estimate; ``cost`` is the CPU-seconds of the cells to compute,
    ``families`` theirs, ``spent`` the seconds since the command started, ``shared``
    the seconds of the work they share (the same on every executor: the workers of a
    pool each do it, at once).

    ``auto`` takes Ray when a cluster address is set (``ray.address`` or
    ``RAY_ADDRESS``). Otherwise it takes the pool of worker processes only if the pool
    gains time even when the cells take :data:`ERROR` times less than estimated and the
    pool's start and compilation :data:`ERROR` times more; else this process. It never
    starts a local Ray: that runs the same tasks on the same cores as the pool, after a
    longer start.
    """
    cluster = ray_address(execution.ray)
    families = set(families)
    cold = [] if cluster else uncached(families)
    warm = len(families) - len(cold)
    workers = pool_size(execution.processes)
    cells = f"about {two_digits(cost)} CPU-seconds of cells"
    if execution.executor != "auto":
        name = execution.executor
        chosen = estimate(name, workers, cost, cold, spent, bool(cluster), warm, shared)
        size = (f" on {workers} worker processes" if name == "processes" else
                " on the cluster's CPUs" if name == "ray" else "")
        return name, chosen, f"executor={name}: {cells}{size}{chosen.parts()}"
    if cluster:
        chosen = estimate("ray", 1, cost, cold, spent, True, warm, shared)
        return "ray", chosen, f"a Ray cluster address is set: {cells}"
    serial, pool = (estimate(name, workers, cost, cold, spent, False, warm, shared)
                    for name in ("serial", "processes"))
    low = cost / ERROR
    gain = low - low / workers - ERROR * (pool.starting + pool.compiling - serial.compiling)
    if workers == 1:
        return "serial", serial, f"{cells}, on the one CPU this process may use{serial.parts()}"
    if gain > 0:
        return "processes", pool, (f"{cells}: {two_digits(pool.computing)} s on {workers} worker "
                                   f"processes against {two_digits(cost)} s in this process"
                                   f"{pool.parts()}")
    return "serial", serial, (f"{cells}: too few for {workers} worker processes to gain "
                              f"back their start-up{serial.parts()}; executor=processes to "
                              "use them anyway")
