"""From resolved configurations to cells, and from cells to tasks.

A *cell* is one grid point: a family, its options, a replicate count and a root seed. Its
id is a hash of exactly those, of the family's ``version`` and of :data:`FORMAT_VERSION`,
so identical cells in any two sweeps share an id, and so its results file, while a new
version of one family makes only that family's cells missing. A *piece* is part of a
cell: a block of replicates, or the cell's analytic rows; a *task* is the pieces one
worker runs in one go. How cells are cut into pieces and packed into tasks never changes
a result: replicate r of a cell always draws from
``SeedSequence(seed, spawn_key=(*stream key, r))``, where the stream key hashes what the
experiment is (family, options, replicates, seed) but not the code's versions, so a
version bump reruns a cell on the same random numbers.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ConfigError
from .family import Family, get_family

#: Version of the results format and of the cell-id recipe; part of every cell id.
FORMAT_VERSION = 2
#: Version of the recipe of the random streams; changing it moves every result.
STREAM_VERSION = 1

#: Keys of a configuration that say how to run, not what: they are not part of a cell.
EXECUTION_KEYS = ("results_dir", "executor", "dry_run", "ray")
EXECUTORS = ("ray", "serial")


@dataclass(frozen=True)
class RaySettings:
    """How to reach Ray. ``address`` None starts a local Ray inside the process."""

    address: str | None = None
    num_cpus: int | None = None
    max_in_flight: int | None = None
    task_seconds: float = 2.0
    runtime_env: dict[str, Any] = field(default_factory=dict)
    dashboard: bool = False  # a local Ray's dashboard, bound to 127.0.0.1


@dataclass(frozen=True)
class Execution:
    """Settings shared by every cell of one command."""

    results_dir: str = "results"
    executor: str = "ray"
    dry_run: bool = False  # plan and count, run nothing
    ray: RaySettings = field(default_factory=RaySettings)


@dataclass(frozen=True)
class Cell:
    """One grid point, validated."""

    cell_id: str
    family: str
    prepared: Any
    replicates: int
    seed: int
    settings: dict[str, Any]  # what the id hashes: family, version, replicates, seed, options
    stream: tuple[int, int]  # the key of the cell's random streams

    def seeds(self, start: int, stop: int) -> list[np.random.SeedSequence]:
        """Seed sequences of replicates ``start`` to ``stop - 1``."""
        return [np.random.SeedSequence(self.seed, spawn_key=(*self.stream, r))
                for r in range(start, stop)]

    @property
    def version(self) -> int:
        return self.settings["version"]


@dataclass(frozen=True)
class Piece:
    """Replicates ``start`` to ``stop - 1`` of a cell, or (``analytic``) its analytic rows."""

    cell: Cell
    start: int
    stop: int
    analytic: bool
    cost: float


def _integer(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{name}: must be an integer >= {low}; got {value!r}")
    return value


def execution_of(config: Mapping[str, Any]) -> Execution:
    """The execution settings of a resolved configuration, validated."""
    ray = dict(config.get("ray") or {})
    unknown = set(ray) - {f for f in RaySettings.__dataclass_fields__}
    if unknown:
        raise ConfigError(f"ray.{sorted(unknown)[0]}: unknown option")
    settings = Execution(
        results_dir=config.get("results_dir", "results"),
        executor=config.get("executor", "ray"),
        dry_run=config.get("dry_run", False),
        ray=RaySettings(**ray),
    )
    if not isinstance(settings.results_dir, str | os.PathLike) or not str(settings.results_dir):
        raise ConfigError(f"results_dir: must be a directory path; got {settings.results_dir!r}")
    if ".." in Path(settings.results_dir).parts:
        # Relative paths stay below the working directory; absolute ones are taken as given.
        raise ConfigError(f"results_dir: must not contain '..'; got {settings.results_dir!r}")
    if settings.executor not in EXECUTORS:
        raise ConfigError(
            f"executor: must be one of {', '.join(EXECUTORS)}; got {settings.executor!r}"
        )
    if not isinstance(settings.ray.dashboard, bool):
        raise ConfigError(f"ray.dashboard: must be true or false; got {settings.ray.dashboard!r}")
    if not isinstance(settings.dry_run, bool):
        raise ConfigError(f"dry_run: must be true or false; got {settings.dry_run!r}")
    for name in ("num_cpus", "max_in_flight"):
        if getattr(settings.ray, name) is not None:
            _integer(f"ray.{name}", getattr(settings.ray, name), 1)
    seconds = settings.ray.task_seconds
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds > 0:
        raise ConfigError(f"ray.task_seconds: must be a number > 0; got {seconds!r}")
    return settings


def make_cell(config: Mapping[str, Any]) -> Cell:
    """The cell of one resolved configuration; :class:`ConfigError` if anything is invalid."""
    options = {k: v for k, v in config.items() if k not in EXECUTION_KEYS}
    spec = options.pop("family", "colme")
    replicates = _integer("replicates", options.pop("replicates", 1), 0)
    seed = _integer("seed", options.pop("seed", 0), 0)
    family: Family = get_family(spec)
    prepared = family.prepare(options, replicates)
    experiment = {
        "family": spec,
        "replicates": replicates,
        "seed": seed,
        "options": family.identity(prepared),
    }
    stream = _digest({"format": STREAM_VERSION, **experiment})
    settings = {**experiment, "version": family.version}
    cell_id = _digest({"format": FORMAT_VERSION, **settings})
    return Cell(cell_id, spec, prepared, replicates, seed, settings,
                (int(stream[:8], 16), int(stream[8:16], 16)))


def _digest(record: Mapping[str, Any]) -> str:
    """The first 16 hex digits of the SHA-256 of ``record`` as canonical JSON."""
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:16]


def plan(configs: Iterable[Mapping[str, Any]]) -> tuple[list[Cell], Execution]:
    """Validate every configuration, then return the distinct cells in order.

    All configurations must agree on the execution settings (they describe one command).
    Nothing is run or written here, so one bad value aborts before any work.
    """
    cells: dict[str, Cell] = {}
    execution: Execution | None = None
    for config in configs:
        current = execution_of(config)
        if execution is None:
            execution = current
        elif current != execution:
            key = next(k for k in EXECUTION_KEYS if getattr(current, k) != getattr(execution, k))
            raise ConfigError(f"{key}: must be the same for every cell of a sweep")
        cell = make_cell(config)
        cells.setdefault(cell.cell_id, cell)
    return list(cells.values()), execution or Execution()


def pieces(cell: Cell, task_seconds: float) -> list[Piece]:
    """Cut a cell into blocks of replicates of about ``task_seconds`` each."""
    family = get_family(cell.family)
    per_replicate = family.cost(cell.prepared)
    result = []
    if cell.replicates:
        blocks = max(1, min(cell.replicates, round(cell.replicates * per_replicate / task_seconds)))
        size = math.ceil(cell.replicates / blocks)
        for start in range(0, cell.replicates, size):
            stop = min(start + size, cell.replicates)
            result.append(Piece(cell, start, stop, False, (stop - start) * per_replicate))
    if family.has_analytic(cell.prepared):
        result.append(Piece(cell, 0, 0, True, per_replicate / 10))
    return result


def tasks(cells: Iterable[Cell], task_seconds: float, workers: int) -> list[list[Piece]]:
    """Pack the cells' pieces, in order, into tasks of about ``task_seconds``.

    Small pieces are batched; the target shrinks so that every worker gets several tasks,
    which keeps the load balanced on small sweeps.
    """
    all_pieces = [p for cell in cells for p in pieces(cell, task_seconds)]
    total = sum(p.cost for p in all_pieces)
    target = min(task_seconds, total / (4 * workers)) if all_pieces else task_seconds
    result: list[list[Piece]] = []
    current: list[Piece] = []
    load = 0.0
    for piece in all_pieces:
        current.append(piece)
        load += piece.cost
        if load >= target:
            result.append(current)
            current, load = [], 0.0
    if current:
        result.append(current)
    return result
