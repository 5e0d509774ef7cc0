"""From resolved configurations to cells, and from cells to tasks.

A *cell* is one grid point: a family, its options and a root seed, run for a number of
replicates. Its id is a hash of the family, options and seed, of the family's ``version``
and of :data:`FORMAT_VERSION`, not of the replicate count: identical cells in any two
sweeps share an id, and so its results file, while a new version of one family makes only
that family's cells missing. A *piece* is part of a cell: a block of replicates, or the
cell's analytic rows; a *task* is the pieces one worker runs in one go. How cells are cut
into pieces and packed into tasks never changes a result: replicate r of a cell always
draws from ``SeedSequence(seed, spawn_key=(*stream key, r))``, where the stream key hashes
what the experiment is (family, options, seed) but neither the replicate count nor the
code's versions. So replicate r is the same whatever the count (a stored cell of R
replicates is extended to R' > R by computing replicates R to R' − 1 only, :attr:`Cell.start`),
and a version bump reruns a cell on the same random numbers.
"""

from __future__ import annotations

import array
import hashlib
import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ConfigError
from .family import Family, get_family, shared_work
from .results import EXECUTION_KEYS, option_columns
from .target import AUTO, Target
from .threads import THREADS

#: Version of the results format and of the cell-id recipe; part of every cell id. 3: the
#: replicate count left the id (a cell's stored replicates are extended, not recomputed).
FORMAT_VERSION = 3
#: Version of the recipe of the random streams; changing it moves every result. 2: the
#: replicate count left the stream key (replicate r draws the same at any count).
STREAM_VERSION = 2

EXECUTORS = ("auto", "processes", "ray", "serial")


@dataclass(frozen=True)
class RaySettings:
    """How to reach Ray. ``address`` None starts a local Ray inside the process.

    ``task_seconds`` sizes the tasks of every executor, not only Ray's.
    """

    address: str | None = None
    num_cpus: int | None = None
    max_in_flight: int | None = None
    task_seconds: float = 2.0
    runtime_env: dict[str, Any] = field(default_factory=dict)
    dashboard: bool = False  # a local Ray's dashboard, bound to 127.0.0.1
    #: Seconds to wait for the cluster ``address`` names to accept this driver before the
    #: sweep ends with one line saying why (:func:`sweep.cluster.connect`).
    connect_seconds: float = 5.0


@dataclass(frozen=True)
class ProcessSettings:
    """The worker processes of ``executor=processes``, on this machine."""

    #: How many (None: one per CPU this process may run on).
    workers: int | None = None


@dataclass(frozen=True)
class Execution:
    """Settings shared by every cell of one command."""

    results_dir: str = "results"
    #: ``processes`` (a pool of worker processes on this machine), ``serial`` (in this
    #: process), ``ray`` (a private local Ray, or the cluster ``ray.address`` names), or
    #: ``auto``: Ray when a cluster address is set (``ray.address`` or ``RAY_ADDRESS``);
    #: otherwise ``processes``, unless the missing cells are too few CPU-seconds for a
    #: pool to gain back its start-up, then ``serial`` (:func:`sweep.estimate.choose_executor`).
    executor: str = "auto"
    dry_run: bool = False  # plan and list the cells, run nothing
    #: Recompute stored cells: ``true`` (all of the sweep's), or the cells matching
    #: ``{key: value or [values], ...}`` over the cell's columns; each replaces its
    #: stored rows in one transaction.
    recompute: bool | dict[str, Any] = False
    #: The numerical libraries' threads in each task: ``one`` (one thread each: an
    #: executor already runs a task per core) or ``default`` (theirs, one per core);
    #: :mod:`sweep.threads`. Not part of any cell's identity, as the tasks' cut is not.
    threads: str = "one"
    processes: ProcessSettings = field(default_factory=ProcessSettings)
    ray: RaySettings = field(default_factory=RaySettings)


@dataclass(frozen=True)
class Cell:
    """One grid point, validated."""

    cell_id: str
    family: str
    prepared: Any
    replicates: int
    seed: int
    #: What the id hashes (family, version, seed, options), and the replicate count.
    settings: dict[str, Any]
    stream: tuple[int, int]  # the key of the cell's random streams
    #: Replicates already stored (an extension computes ``start`` to ``replicates - 1``,
    #: and no analytic rows: they are stored).
    start: int = 0
    #: The precision of ``replicates=auto`` (:mod:`sweep.target`): ``replicates`` is then
    #: its pilot's, until the pilot says how many it needs.
    target: Target | None = None

    def seeds(self, start: int, stop: int) -> list[np.random.SeedSequence]:
        """Seed sequences of replicates ``start`` to ``stop - 1``."""
        return [np.random.SeedSequence(self.seed, spawn_key=(*self.stream, r))
                for r in range(start, stop)]

    @property
    def version(self) -> int:
        return self.settings["version"]

    def columns(self) -> dict[str, Any]:
        """The cell's constant columns: the engine's keys and the family's options."""
        return {"family": self.family, "replicates": self.replicates, "seed": self.seed,
                **get_family(self.family).columns(self.prepared)}

    def listed(self) -> dict[str, Any]:
        """What a dry run lists of the cell: the engine's keys and the family's options,
        those that name a row column (``method``) included; not the columns a family
        derives from them."""
        family = get_family(self.family)
        options = self.settings["options"]
        rows = {k: options[k] for k in family.schema.index_names if k in options}
        kept = option_columns(family.options)
        return {**rows, **{k: v for k, v in self.columns().items()
                           if k in kept or k in ("family", "replicates", "seed")}}

    @property
    def cost(self) -> float:
        """Estimated CPU-seconds of the whole cell, the engine's share included."""
        return sum(p.cost + PIECE_SECONDS for p in pieces(self, math.inf))


@dataclass(frozen=True)
class Piece:
    """Replicates ``start`` to ``stop - 1`` of a cell and, if ``analytic``, its analytic
    rows (after the replicates' rows, as the family lays out a whole cell)."""

    cell: Cell
    start: int
    stop: int
    analytic: bool
    cost: float


def _integer(name: str, value: Any, low: int) -> int:
    """``value`` as an int >= ``low``; an integral float (``replicates=1e2``) is that int,
    so that both spellings give one cell id."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{name}: must be an integer >= {low}; got {value!r}")
    return value


def _group(config: Mapping[str, Any], name: str, settings: type, counts: Iterable[str]
           ) -> Any:
    """The settings of the group ``name`` (``ray``, ``processes``), its counts ints >= 1."""
    values = dict(config.get(name) or {})
    unknown = set(values) - set(settings.__dataclass_fields__)
    if unknown:
        raise ConfigError(f"{name}.{sorted(unknown)[0]}: unknown option")
    for key in counts:
        if values.get(key) is not None:
            values[key] = _integer(f"{name}.{key}", values[key], 1)
    return settings(**values)


def execution_of(config: Mapping[str, Any]) -> Execution:
    """The execution settings of a resolved configuration, validated."""
    settings = Execution(
        results_dir=config.get("results_dir", "results"),
        executor=config.get("executor", "auto"),
        dry_run=config.get("dry_run", False),
        recompute=config.get("recompute", False),
        threads=config.get("threads", "one"),
        processes=_group(config, "processes", ProcessSettings, ["workers"]),
        ray=_group(config, "ray", RaySettings, ["num_cpus", "max_in_flight"]),
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
    if settings.threads not in THREADS:
        raise ConfigError(f"threads: must be one of {', '.join(THREADS)}; got {settings.threads!r}")
    if not isinstance(settings.ray.dashboard, bool):
        raise ConfigError(f"ray.dashboard: must be true or false; got {settings.ray.dashboard!r}")
    if not isinstance(settings.dry_run, bool):
        raise ConfigError(f"dry_run: must be true or false; got {settings.dry_run!r}")
    for key in ("task_seconds", "connect_seconds"):
        seconds = getattr(settings.ray, key)
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds > 0:
            raise ConfigError(f"ray.{key}: must be a number > 0; got {seconds!r}")
    if not isinstance(settings.recompute, bool | Mapping):
        raise ConfigError("recompute: must be true, false or {key: value or [values], ...}; "
                          f"got {settings.recompute!r}")
    return settings


def make_cell(config: Mapping[str, Any]) -> Cell:
    """The cell of one resolved configuration; :class:`ConfigError` if anything is invalid."""
    options = {k: v for k, v in config.items() if k not in EXECUTION_KEYS}
    spec = options.pop("family", "colme")
    asked = options.pop("replicates", 1)
    target = _target(asked, options.pop("target", None))
    replicates = target.pilot if target else _integer("replicates", asked, 0)
    seed = _integer("seed", options.pop("seed", 0), 0)
    family: Family = get_family(spec)
    if target and target.metric not in family.schema.metrics:
        raise ConfigError(f"target.metric: must be a metric of family {spec} ("
                          f"{', '.join(family.schema.metrics)}); got {target.metric!r}")
    prepared = family.prepare(options, replicates)
    experiment = {"family": spec, "seed": seed, "options": family.identity(prepared)}
    stream, cell_id = _digests(experiment, family.version)
    settings = {**experiment, "version": family.version, "replicates": replicates}
    return Cell(cell_id, spec, prepared, replicates, seed, settings,
                (int(stream[:8], 16), int(stream[8:16], 16)), target=target)


def _target(replicates: Any, options: Mapping[str, Any] | None) -> Target | None:
    """The precision target of ``replicates=auto`` (None for a count); a target's keys
    set with a count are refused, as they would do nothing."""
    if replicates == AUTO:
        return Target.of(options)
    default = Target()
    changed = [k for k, v in (options or {}).items() if v != getattr(default, k, None)]
    if changed:
        raise ConfigError(f"target.{changed[0]}: applies to replicates=auto only; got "
                          f"replicates={replicates!r}")
    return None


def _digests(experiment: Mapping[str, Any], version: int) -> tuple[str, str]:
    """The first 16 hex digits of the SHA-256 of the canonical JSON
    (``json.dumps(record, sort_keys=True)``) of the stream record ``{"format":
    STREAM_VERSION, **experiment}`` and of the cell record ``{"format": FORMAT_VERSION,
    **experiment, "version": version}``; ``experiment`` is the family, seed and options
    (not the replicate count).

    Both are spelled from one serialization of the options (the longest part: a tenth
    of the cost of planning a cell), with the keys in sorted order.
    """
    options = json.dumps(experiment["options"], sort_keys=True)
    head = f'{{"family": {json.dumps(experiment["family"])}, "format": '
    tail = f', "options": {options}, "seed": {int(experiment["seed"])}'
    stream = f"{head}{STREAM_VERSION}{tail}}}"
    cell = f'{head}{FORMAT_VERSION}{tail}, "version": {int(version)}}}'
    return (hashlib.sha256(stream.encode()).hexdigest()[:16],
            hashlib.sha256(cell.encode()).hexdigest()[:16])


class Plan:
    """The distinct, validated cells of a sweep, in order.

    It holds a few bytes per cell (its id, estimated cost, whether it is to be
    recomputed, and per configuration whether it is a new cell): iterating it builds the
    cells again from the configurations, so the driver's memory does not grow with the
    sweep. ``configs`` must be iterable more than once, in the same order.
    """

    def __init__(self, configs: Iterable[Mapping[str, Any]], new: bytearray,
                 ids: array.array, costs: array.array, replace: bytearray,
                 swept: list[str], families: set[str],
                 shared: Mapping[Any, tuple[float, array.array]] | None = None,
                 replicates: array.array | None = None,
                 targets: Mapping[str, tuple[str, Target]] | None = None) -> None:
        self.configs = configs
        self.new = new  # per configuration: 1 if its cell is not an earlier one's
        self.numbers = ids  # the cells' ids as integers (16 hex digits = 64 bits)
        self.costs = costs  # estimated CPU-seconds of each cell (all its replicates)
        # Each cell's replicate count (a pilot's, for replicates=auto).
        self.replicates = replicates if replicates is not None else array.array("Q")
        # The cells of replicates=auto: by id, their family and target.
        self.targets = dict(targets or {})
        self.replace = replace  # per cell: 1 if ``recompute`` names it
        self.swept = swept  # the columns that vary over the cells (dry runs only)
        self.families = families
        # Work a process does once for the cells that need it (sweep.family.shared_work):
        # its seconds and the positions of those cells.
        self.shared = dict(shared or {})

    def __len__(self) -> int:
        return len(self.numbers)

    @property
    def ids(self) -> list[str]:
        """The cells' ids, in order."""
        return [f"{number:016x}" for number in self.numbers]

    def __iter__(self) -> Iterator[Cell]:
        for config, new in zip(self.configs, self.new, strict=True):
            if new:
                yield make_cell(config)


def _recompute(rule: bool | Mapping[str, Any], cell: Cell) -> bool:
    """Whether ``cell`` is one ``recompute`` names; :class:`ConfigError` for a key that
    is not one of the cell's columns."""
    if isinstance(rule, bool):
        return rule
    columns = cell.columns()
    for key, wanted in rule.items():
        if key not in columns:
            raise ConfigError(f"recompute.{key}: not a key of family {cell.family}; keys: "
                              + ", ".join(sorted(columns)))
        values = wanted if isinstance(wanted, list | tuple) else [wanted]
        if columns[key] not in values:
            return False
    return True


def plan(configs: Iterable[Mapping[str, Any]]) -> tuple[Plan, Execution]:
    """Validate every configuration; the plan of the distinct cells and the settings.

    All configurations must agree on the execution settings (they describe one command).
    Nothing is run or written here, so one bad value aborts before any work.
    """
    if iter(configs) is configs:  # a one-shot iterator: the plan iterates it again
        configs = list(configs)
    new, replace = bytearray(), bytearray()
    ids, costs, counts = array.array("Q"), array.array("d"), array.array("Q")
    targets: dict[str, tuple[str, Target]] = {}
    seen: dict[int, int] = {}  # id: replicates
    families: set[str] = set()
    shared: dict[Any, tuple[float, array.array]] = {}
    values: dict[str, set[Any]] = {}
    execution: Execution | None = None
    first: dict[str, Any] = {}
    for config in configs:
        raw = {k: config.get(k) for k in EXECUTION_KEYS}
        if execution is None:
            execution, first = execution_of(config), raw
        elif raw != first:
            key = next(k for k in EXECUTION_KEYS if raw[k] != first[k])
            raise ConfigError(f"{key}: must be the same for every cell of a sweep")
        cell = make_cell(config)
        number = int(cell.cell_id, 16)
        new.append(number not in seen)
        if not new[-1]:
            if seen[number] != cell.replicates:
                raise ConfigError(
                    f"replicates: must be one count per cell; got {seen[number]} and "
                    f"{cell.replicates} for cells that differ in nothing else (the larger "
                    "count holds the smaller: replicate r is the same in both)")
            continue
        seen[number] = cell.replicates
        ids.append(number)
        costs.append(cell.cost)
        counts.append(cell.replicates)
        if cell.target is not None:
            targets[cell.cell_id] = (cell.family, cell.target)
        families.add(cell.family)
        for key, seconds in shared_work(get_family(cell.family), cell.prepared).items():
            shared.setdefault(key, (seconds, array.array("Q")))[1].append(len(ids) - 1)
        replace.append(_recompute(execution.recompute, cell))
        if execution.dry_run:
            for key, value in cell.listed().items():
                values.setdefault(key, set()).add(_hashable(value))
    swept = [key for key, seen_values in values.items() if len(seen_values) > 1]
    plan = Plan(configs, new, ids, costs, replace, swept, families, shared, counts,
                targets)
    return plan, execution or Execution()


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def pieces(cell: Cell, task_seconds: float) -> list[Piece]:
    """Cut a cell (its replicates from :attr:`Cell.start` on) into blocks of replicates
    of about ``task_seconds`` each.

    A cell of one block is one piece, analytic rows included: the family then builds
    one table, not two (half a tiny cell's cost).
    """
    family = get_family(cell.family)
    per_replicate = family.cost(cell.prepared)
    # An extension's analytic rows are stored already.
    analytic = cell.start == 0 and family.has_analytic(cell.prepared)
    first, stop = cell.start, cell.replicates
    count = stop - first
    blocks = max(1, min(count, round(count * per_replicate / task_seconds)))
    if blocks == 1:
        cost = count * per_replicate + (per_replicate / 10 if analytic else 0.0)
        return [Piece(cell, first, stop, analytic, cost)]
    size = math.ceil(count / blocks)
    result = [Piece(cell, start, min(start + size, stop), False,
                    (min(start + size, stop) - start) * per_replicate)
              for start in range(first, stop, size)]
    if analytic:
        result.append(Piece(cell, 0, 0, True, per_replicate / 10))
    return result


#: Seconds the engine spends on a piece besides the family's work (building and
#: storing its table), so that tasks of tiny cells are not planned far too large: the
#: smallest cells of every family take 8 to 15 ms (benchmarks/bench_estimates.py).
PIECE_SECONDS = 1e-2


def tasks(cells: Iterable[Cell], task_seconds: float, workers: int,
          total: float | None = None) -> Iterator[list[Piece]]:
    """Pack the cells' pieces, in order, into tasks of about ``task_seconds``.

    Small pieces are batched; the target shrinks so that every worker gets several tasks,
    which keeps the load balanced on small sweeps. ``total`` is the cells' estimated
    cost (:attr:`Plan.costs`); without it the cells are read twice.
    """
    if total is None:
        cells = list(cells)
        total = sum(cell.cost for cell in cells)
    target = min(task_seconds, total / (4 * workers)) if total else task_seconds
    current: list[Piece] = []
    load = 0.0
    for cell in cells:
        for piece in pieces(cell, task_seconds):
            current.append(piece)
            load += piece.cost + PIECE_SECONDS
            if load >= target:
                yield current
                current, load = [], 0.0
    if current:
        yield current
