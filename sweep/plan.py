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
import dataclasses
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


@dataclass(frozen=True)
class Template:
    """What every cell of one option set shares: the options but the seed, validated once.

    A grid of 10⁶ cells is mostly a few option sets swept over many seeds; their cells
    differ only in the seed, which enters the cell's id and its streams but no option of
    the family (:func:`cell_of` makes a cell from a template and a seed).

    The family validates the option set as a whole, not each distinct value of each key
    once: the costliest check, the overflow check of colme, network and decentralized,
    reads ε with the run's agents × steps, so over a grid of ε × M (the grids of many
    option sets) it would run once per option set however it were declared; the checks
    it leaves are a few microseconds of an option set's composition, preparation,
    identity and records (``benchmarks/bench_million.py --sets``).
    """

    family: str
    prepared: Any
    replicates: int
    target: Target | None
    #: The configuration's execution keys as given (one command: they must agree).
    execution: dict[str, Any]
    #: The family's options as the id hashes them, and their version.
    identity: dict[str, Any]
    version: int
    #: The estimated CPU-seconds of a cell (all its replicates).
    cost: float
    #: Its cell and stream records but the seed (:func:`_records`).
    records: tuple[tuple[str, str], ...]
    #: The work a process does once for the cells that need it (sweep.family.shared_work).
    shared: Mapping[Any, float]

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> Template:
        """The template of a resolved configuration (its seed aside);
        :class:`ConfigError` if anything is invalid."""
        options = {k: v for k, v in config.items() if k not in EXECUTION_KEYS}
        spec = options.pop("family", "colme")
        asked = options.pop("replicates", 1)
        options.pop("seed", None)
        target = _target(asked, options.pop("target", None))
        replicates = target.pilot if target else _integer("replicates", asked, 0)
        family: Family = get_family(spec)
        if target and target.metric not in family.schema.metrics:
            raise ConfigError(f"target.metric: must be a metric of family {spec} ("
                              f"{', '.join(family.schema.metrics)}); got {target.metric!r}")
        prepared = family.prepare(options, replicates)
        identity = family.identity(prepared)
        template = cls(spec, prepared, replicates, target,
                       {k: config.get(k) for k in EXECUTION_KEYS}, identity,
                       family.version, 0.0,
                       _records(spec, json.dumps(identity, sort_keys=True), family.version),
                       shared_work(family, prepared))
        # The cost of a cell is its pieces' (Cell.cost), the same for every seed.
        return dataclasses.replace(template, cost=cell_of(template, 0).cost)


def cell_of(template: Template, seed: int) -> Cell:
    """The cell of ``template`` with root seed ``seed``."""
    cell_id, stream = (_digest(record, seed) for record in template.records)
    settings = {"family": template.family, "seed": seed, "options": template.identity,
                "version": template.version, "replicates": template.replicates}
    return Cell(cell_id, template.family, template.prepared, template.replicates, seed,
                settings, (int(stream[:8], 16), int(stream[8:16], 16)),
                target=template.target)


def make_cell(config: Mapping[str, Any]) -> Cell:
    """The cell of one resolved configuration; :class:`ConfigError` if anything is invalid."""
    return cell_of(Template.of(config), _integer("seed", config.get("seed", 0), 0))


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


def _records(family: str, options: str, version: int) -> tuple[tuple[str, str], ...]:
    """The canonical JSON (``json.dumps(record, sort_keys=True)``) of a cell's two records,
    each as the text before and after its seed: the cell record ``{"family": ...,
    "format": FORMAT_VERSION, "options": ..., "seed": ..., "version": version}``, whose
    hash is the cell's id, and the stream record ``{"family": ..., "format":
    STREAM_VERSION, "options": ..., "seed": ...}``, whose hash keys its random streams.
    Neither holds the replicate count. ``options`` is the family's options as canonical
    JSON; an option set's records are written once (:class:`Template`), so that a cell
    costs a hash of a short text (:func:`_digest`)."""
    head = f'{{"family": {json.dumps(family)}, "format": '
    tail = f', "options": {options}, "seed": '
    return ((f"{head}{FORMAT_VERSION}{tail}", f', "version": {int(version)}}}'),
            (f"{head}{STREAM_VERSION}{tail}", "}"))


def _digest(record: tuple[str, str], seed: int) -> str:
    """The first 16 hex digits of the SHA-256 of ``record`` with ``seed`` put in."""
    return hashlib.sha256(f"{record[0]}{int(seed)}{record[1]}".encode()).hexdigest()[:16]


@dataclass
class Layout:
    """A sweep's configurations as a grid: its distinct option sets (``configs``: every
    key but the seed, each with a seed of its own) and, per configuration in order, its
    option set (``sets``) and its seed as given (``seeds``).

    The platform's sweeper lays out its grid without composing a configuration per cell
    (:meth:`hydra_plugins.dpsweep._core.Grid.layout`); :meth:`of` lays out any list.
    """

    configs: list[Mapping[str, Any]]
    sets: np.ndarray
    seeds: np.ndarray

    @classmethod
    def of(cls, configs: Iterable[Mapping[str, Any]]) -> Layout:
        """The layout of resolved configurations, grouped by all their keys but the seed."""
        found: dict[str, int] = {}
        sets, seeds, distinct = array.array("Q"), [], []
        for config in configs:
            key = json.dumps({k: v for k, v in config.items() if k != "seed"},
                             sort_keys=True, default=repr)
            if key not in found:
                found[key] = len(distinct)
                distinct.append(config)
            sets.append(found[key])
            seeds.append(config.get("seed", 0))
        return cls(distinct, np.frombuffer(sets, np.uint64).astype(np.intp),
                   np.array(seeds, dtype=object))

    def __len__(self) -> int:
        return len(self.sets)


class Plan:
    """The distinct, validated cells of a sweep, in order.

    It holds its option sets (:class:`Template`, validated once each) and a few bytes per
    cell: its id, option set, seed, replicate count, estimated cost, whether it is to be
    recomputed, and per configuration whether it is a new cell. Iterating it builds the
    cells from those, so the driver's memory does not grow with per-cell objects.
    """

    def __init__(self, templates: list[Template], sets: np.ndarray, seeds: np.ndarray,
                 ids: np.ndarray, new: np.ndarray, replace: np.ndarray, swept: list[str],
                 shared: Mapping[Any, tuple[float, np.ndarray]] | None = None) -> None:
        self.templates = templates
        self.sets = sets  # per cell: its option set
        self.seeds = seeds  # per cell: its root seed
        self.numbers = ids  # the cells' ids as integers (16 hex digits = 64 bits)
        self.new = new  # per configuration: 1 if its cell is not an earlier one's
        self.replace = replace  # per cell: 1 if ``recompute`` names it
        self.swept = swept  # the columns that vary over the cells (dry runs only)
        # Work a process does once for the cells that need it (sweep.family.shared_work):
        # its seconds and the positions of those cells.
        self.shared = dict(shared or {})
        # CPU-seconds of each cell, and its replicate count (a pilot's, replicates=auto).
        self.costs = np.array([t.cost for t in templates], float)[sets]
        self.replicates = np.array([t.replicates for t in templates], np.int64)[sets]
        # The cells of replicates=auto: by id, their family and target.
        auto = np.array([t.target is not None for t in templates], bool)
        chosen = np.flatnonzero(auto[sets]) if auto.any() else []
        self.targets = {f"{int(ids[k]):016x}": (templates[sets[k]].family,
                                                 templates[sets[k]].target) for k in chosen}
        self.families = {templates[i].family for i in np.unique(sets).tolist()}
        self._listed: dict[int, dict[str, Any]] = {}

    def listed(self, i: int) -> dict[str, Any]:
        """What a dry run lists of the cells of option set ``i`` (:meth:`Cell.listed`,
        seed 0), derived once per set."""
        if i not in self._listed:
            self._listed[i] = cell_of(self.templates[i], 0).listed()
        return self._listed[i]

    def __len__(self) -> int:
        return len(self.numbers)

    @property
    def ids(self) -> list[str]:
        """The cells' ids, in order."""
        return [f"{number:016x}" for number in self.numbers.tolist()]

    def __iter__(self) -> Iterator[Cell]:
        for i, seed in zip(self.sets.tolist(), self.seeds.tolist(), strict=True):
            yield cell_of(self.templates[i], seed)


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


def plan(configs: Iterable[Mapping[str, Any]] | Layout) -> tuple[Plan, Execution]:
    """Validate every configuration; the plan of the distinct cells and the settings.

    All configurations must agree on the execution settings (they describe one command).
    Each option set is validated once (:class:`Template`) and each distinct seed once;
    a cell then costs two hashes. Nothing is run or written here, so one bad value aborts
    before any work.
    """
    layout = configs if isinstance(configs, Layout) else getattr(
        configs, "layout", lambda: Layout.of(configs))()
    templates = [Template.of(config) for config in layout.configs]
    execution = execution_of(layout.configs[0]) if templates else Execution()
    for template in templates[1:]:
        if template.execution != templates[0].execution:
            key = next(k for k in EXECUTION_KEYS
                       if template.execution[k] != templates[0].execution[k])
            raise ConfigError(f"{key}: must be the same for every cell of a sweep")
    seeds = _seeds(layout)
    records = [t.records[0] for t in templates]
    ids = np.fromiter((int(_digest(records[i], seed), 16)
                       for i, seed in zip(layout.sets.tolist(), seeds.tolist(), strict=True)),
                      np.uint64, len(layout))
    # The first configuration of each id is its cell; the others repeat it.
    _, first = np.unique(ids, return_index=True)
    new = np.zeros(len(ids), bool)
    new[np.sort(first)] = True
    _one_count(ids, np.array([t.replicates for t in templates], np.int64)[layout.sets])
    sets, seeds, ids = layout.sets[new], seeds[new], ids[new]
    cells = Plan(templates, sets, seeds, ids, new, np.zeros(len(ids), bool), [],
                 _shared(templates, sets))
    if execution.recompute is not False:
        cells.replace = np.fromiter((_recompute(execution.recompute, cell) for cell in cells),
                                    bool, len(ids))
    if execution.dry_run:
        cells.swept = _swept(cells)
    return cells, execution


def _seeds(layout: Layout) -> np.ndarray:
    """Each configuration's seed, an int >= 0; other values are checked one distinct
    value at a time, for the error that names the first bad one."""
    if layout.seeds.size and all(type(v) is int for v in layout.seeds.tolist()):
        try:
            seeds = layout.seeds.astype(np.int64)
        except OverflowError:
            seeds = None
        if seeds is not None and seeds.min() >= 0:
            return seeds.astype(np.uint64)
    given = layout.seeds.tolist()
    values = {v: _integer("seed", v, 0) for v in dict.fromkeys(given)}
    return np.fromiter((values[v] for v in given), np.uint64, len(given))


def _one_count(ids: np.ndarray, counts: np.ndarray) -> None:
    """:class:`ConfigError` if two configurations of one cell ask different counts."""
    order = np.lexsort((counts, ids))
    same = ids[order][1:] == ids[order][:-1]
    differ = same & (counts[order][1:] != counts[order][:-1])
    if differ.any():
        i = int(np.argmax(differ))
        raise ConfigError(
            f"replicates: must be one count per cell; got {counts[order][i]} and "
            f"{counts[order][i + 1]} for cells that differ in nothing else (the larger "
            "count holds the smaller: replicate r is the same in both)")


def _shared(templates: list[Template], sets: np.ndarray
            ) -> dict[Any, tuple[float, np.ndarray]]:
    """The work shared by cells, by key: its seconds and the positions of its cells."""
    shared: dict[Any, tuple[float, list[np.ndarray]]] = {}
    for i, template in enumerate(templates):
        for key, seconds in template.shared.items():
            shared.setdefault(key, (seconds, []))[1].append(np.flatnonzero(sets == i))
    return {key: (seconds, np.sort(np.concatenate(parts)))
            for key, (seconds, parts) in shared.items()}


def _swept(cells: Plan) -> list[str]:
    """The columns a dry run lists: those that take more than one value over the cells."""
    values: dict[str, set[Any]] = {}
    for i in np.unique(cells.sets).tolist():
        for key, value in cells.listed(i).items():
            values.setdefault(key, set()).add(_hashable(value))
    if len(np.unique(cells.seeds)) > 1:  # a template's cell lists seed 0
        values["seed"] = {0, 1}
    return [key for key, taken in values.items() if len(taken) > 1]


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
