"""Reading sweep results and aggregating them over replicates.

The results directory is a plain Parquet dataset: files of one or more cells of one
family version (see ``sweep.store``). This module reads them with pyarrow, file by file,
so that filters and column selections are applied while reading and a large directory
never has to fit in memory whole.

Each file says what its rows vary by and which columns are metrics of which kind (the
roles marked by :mod:`sweep.results`), so a family's own index columns (``node``,
``hypothesis``, ...) survive aggregation and its proportions get Wilson intervals,
without this module knowing the family. Files written before the roles were marked take
them from the declaration of the built-in family that wrote them.

Which cells are read is said, never silent: of each family only its newest version, and
of cells that differ only in ``replicates`` the one with most (``keep="all"``: every
cell); what was left out is warned about and listed in the result's ``attrs["kept"]``.
A file of an older version is read under its family's newest column names (the
family's ``renamed``, :func:`sweep.family.current_names`).

A directory may hold several families (each writes to ``results/<family>/`` by
default), and two families may give a column of the same name different types (colme's
``prior`` is text, continual's a number). Each group of files is read against its own
types, and the groups are joined by :func:`_frame`: such a column takes the types'
common type where every value converts exactly, and is otherwise an object column of
each family's own values. Only a file whose footer or page checksums fail is damaged
(:class:`DamagedResults`): the types of the columns are never a reason.

How it stays fast and small at 10⁵ cells or 10⁷ rows
----------------------------------------------------
Reading a directory costs, per file, its Parquet footer (0.1 ms for a file of one tiny
cell; 2 to 3 ms for a compacted file of 663 cells, whose footer holds each cell's
provenance, 1.5 MiB) and, per row, the decoding of its columns
(``benchmarks/bench_analysis.py`` measures summaries against a plain pyarrow scan and
DuckDB on both layouts). So:

* Every footer is read once by one loop (:func:`_survey`), which keeps from it only the
  row count, the family and version (a compacted file states them before its cells'
  records: those are not parsed) and the schema with its role marks; files with the same
  columns and roles share one schema object (a parsed footer weighs 0.07 to 2 MiB: too
  much to keep for every file). The rows cannot be read before the loop ends: which
  files to read (the newest version), how to group them (their roles) and what the
  filters mean (the columns' types) are in the footers.
* The rows are read file by file (:func:`_file_table`), in chunks of about
  :data:`CHUNK_ROWS` rows of the files of one family declaration (the same roles and
  column types), so that memory stays bounded whatever the directory holds; a cell is in
  one file, its rows together. Each read verifies the page checksums the sweep writes
  (a damaged page raises, never reads). A few threads read the footers and the files,
  in order (:func:`_threaded`): for many small files, that costs less than a
  ``pyarrow.dataset`` scan, and keeps less memory (a scan decodes footers on many
  threads, each of which keeps the memory of the footers it decoded).
* The statistics are Arrow's own hash aggregation (``Table.group_by``: mean, standard
  deviation with ``ddof=1``, counts) of pieces of at most :data:`CHUNK_ROWS` rows cut
  between cells, each in one batch and single-threaded, so that every bit of a result
  depends on the cell's rows only (see :func:`_aggregate`), and sorted; each piece's
  cells are its own, so a stable sort by cell orders them all (:func:`_in_order`, which
  moves whole runs of rows, a cell's). The bands are computed from those on the
  aggregated table, and the summary shares its columns (no copy). :func:`summarize`
  (rows in memory) converts its frame to Arrow and goes through the same code, so that
  the two agree bit for bit.
* A cell's constant columns (its options, seed, replicates, ...) are taken from the
  first row of each run of a cell id in a file, and joined to the summary by position;
  in a file of many rows, their text is read as dictionaries (:data:`DICTIONARY_ROWS`),
  not decoded on every row.
* A query engine such as DuckDB would be a new dependency, would read the pages
  unverified, and computes its sums in its own order: the figures' numbers would move
  in their last bits.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import functools
import json
import operator
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from sweep.family import current_names, families, get_family
from sweep.results import CONTINUOUS, METRIC, PROPORTION, ROLE_KEY, STANDARD_INDEX, roles
from sweep.store import ResultsStore, listing, provenance_of, why_empty

#: Columns that vary within a cell in every family.
ROW_KEYS = tuple(STANDARD_INDEX)
Z95 = 1.959963984540054
#: Rows read and aggregated together (more if one file or one cell holds more): a
#: chunk's rows (about 100 bytes a row in the columns summaries read) and Arrow's
#: grouping of them (about 600 bytes a group while it runs) are in memory together. It
#: is also the batch of Arrow's grouping, which takes its input 2¹⁵ rows at a time and
#: merges the statistics of the batches, rounding otherwise than in one pass: cells are
#: aggregated in pieces of at most this many rows (see :func:`_statistics`).
CHUNK_ROWS = 2**15
#: Files of at least this many rows read the text of their cells' constants as
#: dictionaries: above a few hundred rows, that costs less than decoding every row's.
DICTIONARY_ROWS = 1024
#: Where the tables that last until a summary is made are allocated (the rows of a
#: chunk, the statistics; the summary shares their columns): the C library's allocator,
#: which reuses the memory others free. Arrow's default (mimalloc) gives freed memory
#: back to the system, and takes it again in pages the kernel clears: measured on 10⁵
#: cells, the kernel's time fell from 2.1–2.7 s to 0.6–0.9 s of a 3.5 s summary.
LASTING = pa.system_memory_pool()
#: Threads that read files (:func:`_threaded`).
READ_THREADS = min(os.cpu_count() or 1, 4)
#: The choices of ``keep``.
KEEP = ("newest", "all")

PathLike = str | os.PathLike[str]
T = TypeVar("T")
R = TypeVar("R")


#: What a figure that is not drawn needs (:attr:`MissingData.need`): results of a family
#: the results do not hold, the paper's sizes (``paper=False`` or ``--any-size`` waive
#: them), or the cells of another sweep.
OTHER_FAMILY, PAPER_SIZES, OTHER_SWEEP = "family", "sizes", "sweep"


class MissingData(LookupError):
    """The results hold nothing to draw for a figure, or to state in a document; the
    message says what is needed.

    ``need`` is :data:`OTHER_FAMILY`, :data:`PAPER_SIZES` or :data:`OTHER_SWEEP` (the
    default); ``command_line`` is the message in a command-line user's words (flags
    rather than keyword arguments) where they differ (:func:`hint`).
    """

    def __init__(self, message: str, need: str = OTHER_SWEEP, command_line: str | None = None
                 ) -> None:
        super().__init__(message)
        self.need = need
        self.command_line = command_line or message


class ResultsError(OSError):
    """Results that cannot be read; ``exit_code`` is the command line's exit code."""

    exit_code: ClassVar[int]


class ResultsNotFound(ResultsError):
    """A results path does not exist, or is not a directory."""

    exit_code = 3


class NoResults(ResultsError):
    """A results directory holds no results files."""

    exit_code = 4


class DamagedResults(ResultsError):
    """A results file fails its integrity checks: its footer does not parse, or a page
    fails its checksum. Nothing else: results that read are never called damaged."""

    exit_code = 5


@contextlib.contextmanager
def _checked(path: object) -> Iterator[None]:
    """Reading files under ``path``: an error of Arrow or of the file system is a damaged
    file. Only reading goes in here (footers, pages), never the work on the schemas: what
    fails there is no damage."""
    try:
        yield
    except ResultsError:
        raise
    except (OSError, pa.ArrowException) as error:
        reason = " ".join(str(error).split())  # one line, whatever Arrow's message holds
        raise DamagedResults(f"damaged results file under {path} ({reason}); rerun the sweep "
                             "command: it sets damaged files aside and recomputes them") from None


def _listed(value: Any) -> list[Any] | None:
    """The values of a filter that gives a list of them; None if it gives one value."""
    return None if isinstance(value, str) or not isinstance(value, Iterable) else list(value)


def _compares(column: str, value: Any, schema: pa.Schema) -> bool:
    """Whether ``value`` compares with ``column`` of ``schema`` (a number does not with
    text): Arrow binds the comparison to the types of an empty table."""
    try:
        schema.empty_table().filter(ds.field(column) == value)
    except (pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowInvalid):
        return False
    return True


#: The filter of a group whose columns hold none of a filter's values.
NOTHING = ds.scalar(False)


@dataclass(frozen=True)
class Roles:
    """What a file's rows vary by (``index``) and its metrics with their kinds."""

    index: tuple[str, ...]
    metrics: dict[str, str]

    @property
    def series(self) -> list[str]:
        """The columns that identify one curve: the cell and the index but for replicate
        and t."""
        return ["cell_id", *(c for c in self.index if c not in ("replicate", "t"))]

    @property
    def keys(self) -> list[str]:
        """The columns a summary has one row per value of: the series and t."""
        return [*self.series, "t"]

    def merged(self, other: Roles) -> Roles:
        return Roles(tuple(dict.fromkeys((*self.index, *other.index))),
                     {**self.metrics, **other.metrics})


@functools.cache
def _legacy_metrics() -> dict[str, str]:
    """Metrics of the built-in families, by name (for files without role marks)."""
    return {name: metric.kind for family in families()
            for name, metric in get_family(family).schema.metrics.items()}


def roles_of(schema: pa.Schema) -> Roles:
    """The roles a results file's schema marks (:func:`sweep.results.roles`).

    Older files marked only their metrics (``dpsweep: metric``), or nothing: their index
    is the standard one, and their metrics those the built-in families declare.
    """
    marked = roles(schema)
    if marked is not None:
        return Roles(tuple(marked[0]), marked[1])
    metrics = {f.name: CONTINUOUS for f in schema if (f.metadata or {}).get(ROLE_KEY) == METRIC}
    if not metrics:
        metrics = {n: k for n, k in _legacy_metrics().items() if n in schema.names}
    return Roles(tuple(c for c in ROW_KEYS if c in schema.names), metrics)


def _cells(count: int) -> str:
    return f"{count} cell" if count == 1 else f"{count} cells"


@dataclass(frozen=True)
class _File:
    """What a results file's footer says: its rows, schema (shared by the files of the
    same columns and roles, without the file's own metadata) and (family, version)."""

    path: str
    rows: int
    schema: pa.Schema
    version: tuple[str, int] | None
    #: The cells it holds; None if not read (they are only needed to read a cell once
    #: over several directories, and to count the cells left out).
    cells: tuple[str, ...] | None
    #: Cells of the file already read from an earlier one (another directory's file
    #: that holds them): its rows of these are left out.
    skip: frozenset[str] = frozenset()
    #: Its columns that a later version of its family renamed: their names in
    #: :attr:`schema` (the newest) and in the file.
    renamed: Mapping[str, str] = field(default_factory=dict)


@dataclass
class _Group:
    """The files of one family declaration (the same roles) that agree on the types of
    their columns, their columns, the schema they are read against (their own types, and
    every other column of the files read as missing), and the filters' expression for
    them (None: no filters)."""

    roles: Roles
    files: list[_File] = field(default_factory=list)
    columns: dict[str, None] = field(default_factory=dict)  # ordered set
    schema: pa.Schema = field(default_factory=lambda: pa.schema([]))
    expression: ds.Expression | None = None
    filtered: tuple[str, ...] = ()  # the columns of the expression

    @property
    def varying(self) -> list[str]:
        """The columns that vary within a cell, and ``cell_id``."""
        return list(dict.fromkeys([*self.roles.index, *self.roles.metrics, "cell_id"]))

    @property
    def constants(self) -> list[str]:
        """The columns constant over a cell (``cell_id`` first)."""
        varying = set(self.varying)
        return ["cell_id", *(c for c in self.columns if c not in varying)]

    def chunks(self) -> Iterator[list[_File]]:
        """The files in runs of at most :data:`CHUNK_ROWS` rows (a larger file alone)."""
        chunk, rows = [], 0
        for file in self.files:
            if chunk and rows + file.rows > CHUNK_ROWS:
                yield chunk
                chunk, rows = [], 0
            chunk.append(file)
            rows += file.rows
        if chunk:
            yield chunk


@dataclass
class _Survey:
    """The results files to read, from their footers: in groups, the pandas metadata of
    their rows, and what was left out, in words."""

    groups: list[_Group]
    metadata: dict[bytes, bytes] | None
    kept: list[str]


def _listing(paths: Sequence[PathLike]) -> list[str]:
    """The results files of the directories (:func:`sweep.store.listing`)."""
    files = []
    for path in paths:
        if not os.path.isdir(path):
            state = "is not a directory" if os.path.exists(path) else "does not exist"
            raise ResultsNotFound(f"results path {path} {state}; check the path (the "
                                  "sweep's results_dir)")
        found = [str(file) for file in listing(path)]
        if not found:
            raise NoResults(f"no results in {path}: {why_empty(path)}")
        if ResultsStore(Path(path)).pending():
            warnings.warn(f"{path}: a compaction or recompute was interrupted, and the cells "
                          f"it was moving are missing until any sweep or `python -m sweep "
                          f"compact {path}` completes it", stacklevel=3)
        files += found
    return files


def _footers(files: list[str], listed: bool) -> Iterator[_File]:
    """Each file's footer, read once; files of the same columns and roles share one
    schema object. If ``listed`` (several directories), each cell is read once: from the
    file that holds most of its replicates, the first of those as the directories are
    given (cells are content-addressed, and a cell of more replicates holds those of
    fewer; in one directory, no cell is in two files)."""
    shared: dict[bytes, pa.Schema] = {}
    footers: Iterable[tuple[str, tuple[pa.Schema, int]]] = zip(
        files, _threaded(_footer, files), strict=True)
    chosen: dict[str, tuple[int, str]] = {}  # cell: (replicates, path)
    found: dict[str, Any] = {}  # path: its provenance, when read in the first pass
    if listed:  # two passes, over footers kept: which copy of each cell to read
        footers = list(footers)
        for path, (schema, _) in footers:
            found[path] = provenance_of(path, schema.metadata, True)
            for cell, count in (found[path][1] or {}).items():
                if cell not in chosen or count > chosen[cell][0]:
                    chosen[cell] = (count, path)
    for path, (schema, rows) in footers:
        version, cells = found.pop(path, None) or provenance_of(path, schema.metadata, False)
        skip: set[str] = set()
        if listed:
            skip = {cell for cell in cells if chosen[cell][1] != path}
            if len(skip) == len(cells):
                continue
        # The field marks and the pandas dtypes stay; the file's own provenance goes.
        bare = schema.with_metadata({k: v for k, v in (schema.metadata or {}).items()
                                     if k == b"pandas"})
        names = current_names(*version) if version else {}
        if names := {old: new for old, new in names.items() if old in schema.names}:
            bare = _renamed(bare, names)
        bare = shared.setdefault(bare.serialize().to_pybytes(), bare)
        yield _File(path, rows, bare, version, None if cells is None else tuple(cells),
                    frozenset(skip),
                    {new: old for old, new in names.items()})


def _renamed(schema: pa.Schema, names: Mapping[str, str]) -> pa.Schema:
    """``schema`` with its columns ``names`` (old: new) renamed, in its pandas metadata
    too (which names the columns whose dtypes it restores)."""
    metadata = dict(schema.metadata or {})
    if b"pandas" in metadata:
        pandas = json.loads(metadata[b"pandas"])
        for column in pandas.get("columns", []):
            for key in ("name", "field_name"):
                if column.get(key) in names:
                    column[key] = names[column[key]]
        metadata[b"pandas"] = json.dumps(pandas).encode()
    return pa.schema([f.with_name(names.get(f.name, f.name)) for f in schema], metadata)


def _footer(path: str) -> tuple[pa.Schema, int]:
    """The Arrow schema (with the file's metadata) and row count of a results file."""
    with _checked(path), _opened(path) as handle:
        return handle.schema_arrow, handle.metadata.num_rows


@contextlib.contextmanager
def _opened(path: str, **options: Any) -> Iterator[pq.ParquetFile]:
    """The Parquet file at ``path``, read as a whole file of this machine: opened here
    (a path would be resolved to a file system each time), without reading ahead (its
    column chunks are read once each)."""
    with pa.OSFile(path) as source, pq.ParquetFile(source, pre_buffer=False,
                                                   **options) as handle:
        yield handle


def _threaded(function: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
    """``function`` of each item, in order, computed by :data:`READ_THREADS` threads at most
    twice as many items ahead (their results wait in memory). Reading a file in pyarrow
    lets other threads run most of the time: a directory of many small files is read
    about 1.6 times as fast on two cores."""
    with concurrent.futures.ThreadPoolExecutor(READ_THREADS) as pool:
        waiting: collections.deque[concurrent.futures.Future[R]] = collections.deque()
        for item in items:
            waiting.append(pool.submit(function, item))
            if len(waiting) > 2 * READ_THREADS:
                yield waiting.popleft().result()
        while waiting:
            yield waiting.popleft().result()


def _count(file: _File) -> int:
    """The cells of ``file`` that are read (its footer's list, read again if needed)."""
    if file.cells is None:
        with _checked(file.path):
            metadata = pq.read_schema(file.path).metadata
        return len(provenance_of(file.path, metadata, cells=True)[1] or ()) - len(file.skip)
    return len(file.cells) - len(file.skip)


def _newest(files: list[_File], keep: str) -> tuple[list[_File], list[str]]:
    """The files of the newest version of each family, over all the directories read,
    and what was left out, in words."""
    if keep == "all":
        return files, []
    newest: dict[str, int] = {}
    for family, version in filter(None, (f.version for f in files)):
        newest[family] = max(newest.get(family, version), version)
    old = [f for f in files if f.version and f.version[1] < newest[f.version[0]]]
    kept = []
    for family in sorted({f.version[0] for f in old}):
        versions = sorted({f.version[1] for f in old if f.version[0] == family})
        count = sum(_count(f) for f in old if f.version[0] == family)
        kept.append(f"left out {_cells(count)} of family {family} made by older "
                    f"version{'s' if len(versions) > 1 else ''} "
                    f"{', '.join(map(str, versions))} (newest: {newest[family]}; "
                    f"keep='all' reads {'it' if count == 1 else 'them'})")
    left = {f.path for f in old}
    return [f for f in files if f.path not in left], kept


def _survey(results: PathLike | Sequence[PathLike], keep: str, filters: Mapping[str, Any],
            columns: Sequence[str] = ()) -> _Survey:
    """The results files to read (``keep`` of :func:`load`). ``KeyError`` if a filter or
    one of ``columns`` names a column no file has."""
    if keep not in KEEP:
        raise ValueError(f"keep: must be 'newest' or 'all'; got {keep!r}")
    paths = [results] if isinstance(results, str | os.PathLike) else list(results)
    files, kept = _newest(list(_footers(_listing(paths), len(paths) > 1)), keep)
    schemas = list({id(f.schema): f.schema for f in files}.values())
    names = list(dict.fromkeys(name for schema in schemas for name in schema.names))
    missing = [c for c in (*filters, *columns) if c not in names]
    if missing:
        raise KeyError(f"no column {missing[0]!r} in {results}")
    # Families may give a column of the same name different types (an option that is
    # text in one and a number in another): the files are grouped by those columns'
    # types too, and each group is read against its own (:func:`_frame` joins them).
    differing = _differing(schemas)
    keys = {id(s): (roles_of(s), tuple(_type(s, c) for c in differing)) for s in schemas}
    groups: dict[tuple[Any, ...], _Group] = {}
    for file in files:
        own, types = keys[id(file.schema)]
        group = groups.setdefault((own.index, tuple(own.metrics.items()), types), _Group(own))
        group.files.append(file)
        group.columns.update(dict.fromkeys(file.schema.names))
    for group in groups.values():
        # One type per column in a group: the null type of a column without values
        # promotes to it, and nothing else needs promoting.
        own = pa.unify_schemas(list({id(f.schema): f.schema for f in group.files}.values()),
                               promote_options="permissive")
        group.schema = pa.schema([*own, *(pa.field(n, pa.null()) for n in names
                                          if n not in group.columns)])
    _filter(list(groups.values()), filters)
    return _Survey(list(groups.values()), schemas[0].metadata, kept)


def _type(schema: pa.Schema, column: str) -> pa.DataType | None:
    """The type of ``column`` in ``schema``; None if it has none or only missing values."""
    index = schema.get_field_index(column)
    return None if index < 0 or pa.types.is_null(schema.types[index]) else schema.types[index]


def _differing(schemas: Iterable[pa.Schema]) -> list[str]:
    """The columns of several types (but the null type) among ``schemas``."""
    types: dict[str, set[pa.DataType]] = {}
    for schema in schemas:
        for name in schema.names:
            if (kind := _type(schema, name)) is not None:
                types.setdefault(name, set()).add(kind)
    return [name for name, kinds in types.items() if len(kinds) > 1]


def _filter(groups: list[_Group], filters: Mapping[str, Any]) -> None:
    """Each group's expression of ``filters`` (``column=value``, or ``column=[values]``:
    any of them), with the values that compare with the group's column: a number matches
    no row of a family whose column of that name is text (:data:`NOTHING` if no value
    does), and only a None among the values matches a group without values of it.

    ``TypeError`` if a value compares with the column in no group that has values of
    it: a filter of the wrong type is a mistake, not one that matches nothing.
    """
    terms: dict[int, list[ds.Expression]] = {id(g): [] for g in groups}
    for column, value in filters.items():
        values = _listed(value)
        candidates = [value] if values is None else values
        # A value of each type stands for its type.
        kinds = {type(v): v for v in candidates}
        held = [g for g in groups if _type(g.schema, column) is not None]
        fits = {id(g): {k for k, v in kinds.items() if _compares(column, v, g.schema)}
                for g in held}
        for kind, example in kinds.items():
            if held and not any(kind in fits[id(g)] for g in held):
                types = " or ".join(sorted({str(g.schema.field(column).type) for g in held}))
                raise TypeError(f"filter {column}={value!r}: {example!r} does not compare "
                                f"with the column's {types} values")
        for group in groups:
            if id(group) not in fits:
                term = (ds.field(column).is_null() if values is not None and None in values
                        else NOTHING)
            elif fitting := [v for v in candidates if type(v) in fits[id(group)]]:
                term = ds.field(column) == value if values is None else ds.field(
                    column).isin(fitting)
            else:
                term = NOTHING
            terms[id(group)].append(term)
    for group in groups:
        if terms[id(group)]:
            group.expression = functools.reduce(operator.and_, terms[id(group)])
            group.filtered = tuple(filters)


def _read(files: list[_File], schema: pa.Schema, columns: list[str],
          constants: list[str], expression: ds.Expression | None,
          filtered: Sequence[str] = ()) -> tuple[pa.Table, pa.Table]:
    """``columns`` of the rows of ``files`` that pass ``expression`` (of the columns
    ``filtered``) and are of cells not read before (:attr:`_File.skip`), and
    ``constants`` (``cell_id`` first) once per cell, read against ``schema``."""
    reading = list(dict.fromkeys([*columns, *constants, *filtered]))
    # A cell's constants are repeated on each of its rows, and only one is kept: in a
    # file of many rows, text constants are read as dictionaries, not decoded row by row.
    text = [c for c in constants if c not in columns and pa.types.is_string(schema.field(c).type)]
    kept = pa.schema([schema.field(c) for c in constants])
    # What each schema of the files holds of the columns (files share schema objects):
    # which, and whether all in the group's types.
    shapes: dict[int, tuple[list[str], bool]] = {}
    for file in files:
        if id(file.schema) not in shapes:
            held = [c for c in reading if c in file.schema.names]
            shapes[id(file.schema)] = held, len(held) == len(reading) and not any(
                pa.types.is_null(file.schema.field(c).type) for c in held)
    # Each file, what it holds, and the columns it reads as dictionaries.
    reads = [(file, *shapes[id(file.schema)],
              [c for c in text if c in shapes[id(file.schema)][0]]
              if file.rows >= DICTIONARY_ROWS else []) for file in files]
    tables = _threaded(lambda read: _file_table(read[0], read[1], read[3]), reads)
    rows, cells, small = [], [], []
    for (file, _, whole, coded), table in zip(reads, tables, strict=True):
        if not whole:
            table = _conformed(table, schema, reading, coded)
        if file.skip:
            table = table.filter(pc.invert(pc.is_in(table.column("cell_id"),
                                                    pa.array(sorted(file.skip)))))
        if expression is not None:
            table = table.filter(expression)
        rows.append(table.select(columns))
        # The constants of a small file are taken with those of the other small files.
        if coded:
            cells.append(_firsts(table.select(constants)).cast(kept))
        else:
            small.append(table.select(constants))
    if small:
        cells.append(_firsts(pa.concat_tables(small)))
    return (pa.concat_tables([pa.schema([schema.field(c) for c in columns]).empty_table(),
                              *rows]),
            # One copy: the cells' rows no longer hold the files' buffers.
            pa.concat_tables([kept.empty_table(), *cells]).combine_chunks())


def _firsts(table: pa.Table) -> pa.Table:
    """The first row of each run of a cell id in ``table`` (whose rows of each cell are
    together, as a file's are): each cell's constants."""
    return table.take(_runs(table.column("cell_id")))


def _file_table(file: _File, columns: list[str], dictionaries: list[str]) -> pa.Table:
    """``columns`` of the rows of ``file`` (which has them), the text columns
    ``dictionaries`` as dictionaries.

    An error of reading the file is a damaged file: its footer, or a page whose checksum
    (which the sweep writes) fails.
    """
    stored = [file.renamed.get(c, c) for c in columns]
    with _checked(file.path), _opened(file.path, read_dictionary=[
            file.renamed.get(c, c) for c in dictionaries],
            page_checksum_verification=True) as handle:
        table = handle.read(columns=stored, use_threads=False)
    return table.rename_columns(columns) if file.renamed else table


def _conformed(table: pa.Table, schema: pa.Schema, columns: list[str],
               dictionaries: list[str]) -> pa.Table:
    """``columns`` of ``table`` as ``schema`` types them (the text columns
    ``dictionaries`` as dictionaries), missing where ``table`` has none."""
    types = {c: (pa.dictionary(pa.int32(), schema.field(c).type) if c in dictionaries
                 else schema.field(c).type) for c in columns}
    return pa.table([table.column(c).cast(types[c]) if c in table.column_names
                     else pa.nulls(table.num_rows, types[c]) for c in columns], names=columns)


def _runs(values: pa.ChunkedArray) -> np.ndarray:
    """Where each run of equal values starts (0 first; none if there are no values)."""
    if not len(values):
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.concatenate(
        [[True], pc.not_equal(values[1:], values[:-1]).to_numpy(zero_copy_only=False)]))


def _statistics(rows: pa.Table, roles: Roles) -> list[pa.Table]:
    """The statistics of :func:`_aggregate` of ``rows`` (each cell's together), in
    pieces of at most :data:`CHUNK_ROWS` rows cut between cells (a larger cell alone):
    each piece is one batch of Arrow's grouping, or else a cell whose batches start at
    its first row, so that every bit of a cell's statistics depends on its rows only,
    however the rows are chunked, filtered or held."""
    if rows.num_rows <= CHUNK_ROWS:
        return [_aggregate(rows, roles)]
    cuts = np.append(_runs(rows.column("cell_id")), rows.num_rows)
    parts, start = [], 0
    while start < rows.num_rows:
        # The last cut within CHUNK_ROWS of start, or else the next one (a larger cell).
        within = cuts[np.searchsorted(cuts, start + CHUNK_ROWS, side="right") - 1]
        stop = within if within > start else cuts[np.searchsorted(cuts, start, side="right")]
        parts.append(_aggregate(rows.slice(start, stop - start), roles))
        start = stop
    return parts


def _aggregate(rows: pa.Table, roles: Roles) -> pa.Table:
    """Per cell, index value and t (:attr:`Roles.keys`): each metric's mean, standard
    deviation over rows (``ddof=1``) and, of a proportion, number of values; the number
    of rows (``count_all``) and of rows with a replicate (``replicate_count``).

    The one implementation of the statistics, for rows read and rows in memory alike.
    Missing group keys form their own group: a family's own index column is missing on
    another family's rows. Arrow computes a group's statistics in one pass over each
    batch it is given and merges those of several batches, which rounds differently:
    so the rows are made one batch (Arrow's grouping then cuts them in batches of 2¹⁵
    rows: :func:`_statistics` gives it pieces of at most that), and aggregated
    single-threaded, so that every group's sums are taken in its rows' order whatever
    chunks the rows came in. Sorted by the keys, missing keys last.
    """
    sample = pc.VarianceOptions(ddof=1)
    # The number of values only makes a proportion's interval (a continuous metric's
    # band is of the rows).
    statistics = [spec for m, kind in roles.metrics.items()
                  for spec in ((m, "mean"), (m, "stddev", sample),
                               *([(m, "count")] if kind == PROPORTION else []))]
    # Grouping and sorting by text is several times slower than by integers: text keys
    # are replaced by their ranks among the key's values, which group the rows alike
    # and sort alike (a group's statistics do not depend on how its key is written).
    table, values = rows.combine_chunks(memory_pool=LASTING), {}
    for key in roles.keys:
        column = table.column(key)
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            ranks, values[key] = _ranked(column)
            table = table.set_column(table.schema.get_field_index(key), key, ranks)
    grouped = table.group_by(roles.keys, use_threads=False).aggregate(
        [*statistics, ([], "count_all"), ("replicate", "count")]
    )
    grouped = pc.take(grouped, pc.sort_indices(grouped, [(k, "ascending") for k in roles.keys]),
                      memory_pool=LASTING)
    for key, sorted_values in values.items():
        grouped = grouped.set_column(grouped.schema.get_field_index(key), key,
                                     sorted_values.take(grouped.column(key)))
    return grouped


def _ranked(column: pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
    """Each value's rank among the distinct values of ``column`` (missing: missing),
    and those values in order: ``values.take(ranks)`` is ``column``."""
    coded = pc.dictionary_encode(column).combine_chunks()
    order = pc.sort_indices(coded.dictionary)
    ranks = np.empty(len(order), np.int32)
    ranks[order.to_numpy()] = np.arange(len(order), dtype=np.int32)
    return pa.array(ranks).take(coded.indices), coded.dictionary.take(order)


def _in_order(parts: list[pa.Table]) -> pd.DataFrame:
    """The statistics of :func:`_aggregate` of several parts (of cells of their own), as
    one frame sorted as each part is.

    Each part is sorted and its cells are its own, so a stable sort by cell orders
    them all: parts of different families need not have one type per key column.
    """
    return _frame(parts, by="cell_id")


def _width(interval: str) -> float:
    """The half-width of a band in standard errors (or the z of a Wilson interval)."""
    if interval not in ("se", "ci95"):
        raise ValueError(f"interval: must be 'se' or 'ci95'; got {interval!r}")
    return 1.0 if interval == "se" else Z95


def _describe(frame: pd.DataFrame, roles: Roles) -> pd.DataFrame:
    frame.attrs.update(index=list(roles.index), metrics=list(roles.metrics),
                       kinds=dict(roles.metrics))
    return frame


def _bands(statistics: pd.DataFrame, roles: Roles, interval: str) -> dict[str, Any]:
    """The statistics of :func:`_in_order` as the columns of a summary: the keys, each
    metric's mean, ``n``, and each metric's band."""
    width = _width(interval)
    count = statistics["count_all"]
    columns: dict[str, Any] = {k: statistics[k] for k in roles.keys}
    columns.update({m: statistics[f"{m}_mean"] for m in roles.metrics})
    columns["n"] = count
    # Reference rows (no replicate) are exact: no band.
    replicated = statistics["replicate_count"] > 0
    for metric, kind in roles.metrics.items():
        mean = statistics[f"{metric}_mean"]
        if kind == PROPORTION:
            low, high = wilson(mean, statistics[f"{metric}_count"], width)
            columns[f"{metric}_low"] = low.where(replicated, mean)
            columns[f"{metric}_high"] = high.where(replicated, mean)
        else:
            # One replicate (or an analytic row): no spread.
            spread = statistics[f"{metric}_stddev"].fillna(0.0) / np.sqrt(count)
            columns[f"{metric}_low"] = mean - width * spread
            columns[f"{metric}_high"] = mean + width * spread
    return columns


def _summary(statistics: pd.DataFrame, roles: Roles, interval: str,
             cells: pd.DataFrame) -> pd.DataFrame:
    """The summary of the statistics of :func:`_in_order`, with the cells' constants (one
    row per ``cell_id`` in ``cells``; missing for a cell it does not have)."""
    # A summary repeats each cell's constants on every one of its rows: as categories
    # they weigh a byte or two a row, not a string (half of a large summary's memory).
    # Values of several types (families that name an option alike) stay objects: as
    # categories, values that compare equal (1 and True) would become one.
    text = [c for c in cells.columns if c != "cell_id" and (
        pd.api.types.is_string_dtype(cells[c]) or cells[c].dtype == object)
        and (pd.api.types.infer_dtype(cells[c]) == "string"  # all text: one type, fast
             or cells[c].dropna().map(type).nunique() <= 1)]
    cells = cells.astype(dict.fromkeys(text, "category"))
    bands = _bands(statistics, roles, interval)
    # Each row takes its cell's constants by position (a merge would hash and copy every
    # column of both); a column of both names is suffixed, as a merge would.
    # The statistics hold each cell's rows together: each run of a cell id is looked up
    # once, and its constants repeated over the run.
    ids = statistics["cell_id"].to_numpy()
    starts = np.flatnonzero(np.append(True, ids[1:] != ids[:-1])) if len(ids) else \
        np.zeros(0, np.int64)
    lengths = np.diff(np.append(starts, len(ids)))
    at = pd.Index(cells["cell_id"]).get_indexer(ids[starts])
    constants = {c: _repeated(cells[c], at, lengths) for c in cells.columns if c != "cell_id"}
    both = bands.keys() & constants.keys()
    # The columns as they are: the summary shares those of the statistics, no copy.
    summary = pd.DataFrame({**{f"{k}_x" if k in both else k: v for k, v in bands.items()},
                            **{f"{c}_y" if c in both else c: v for c, v in constants.items()}},
                           copy=False)
    summary = _describe(summary, roles)
    summary.attrs["interval"] = interval  # what the bands are, for the figures' captions
    return summary


def _repeated(column: pd.Series, at: np.ndarray, lengths: np.ndarray) -> Any:
    """The values of ``column`` at the positions ``at``, each repeated ``lengths`` times;
    -1 is missing, and the column's type is widened to hold it, as a merge does."""
    if (at < 0).any():
        values = column.array if isinstance(column.dtype, pd.api.extensions.ExtensionDtype) \
            else column.to_numpy()
        return pd.api.extensions.take(values, np.repeat(at, lengths), allow_fill=True)
    if isinstance(column.dtype, pd.CategoricalDtype):
        return pd.Categorical.from_codes(np.repeat(column.cat.codes.to_numpy()[at], lengths),
                                         dtype=column.dtype)
    if isinstance(column.dtype, pd.api.extensions.ExtensionDtype):
        return column.array.take(np.repeat(at, lengths))
    return np.repeat(column.to_numpy()[at], lengths)


def _most_replicates(tables: list[pa.Table], cells: pd.DataFrame
                     ) -> tuple[list[pa.Table], pd.DataFrame, list[str]]:
    """``tables`` (rows or statistics) and ``cells`` (one row per cell) without the cells
    that differ from another only in having fewer replicates (the same family, options
    and seed), and what was left out, in words."""
    if "replicates" not in cells or cells.replicates.nunique() < 2:
        return tables, cells, []  # no cell has fewer replicates than another
    same = [c for c in cells.columns if c not in ("replicates", "cell_id", "family_version")]
    # A family may give an option as a list (a tuple option), which does not hash: such
    # columns are compared by their text.
    identity = cells[same].apply(lambda c: c.astype(str) if c.dtype == object else c)
    most = cells.replicates.groupby([identity[c] for c in same], dropna=False,
                                    sort=False).transform("max")
    fewer = cells.replicates < most
    kept = []
    for top, left in cells.replicates[fewer].groupby(most[fewer]):
        values = sorted(left.unique())
        kept.append(f"kept replicates = {top} over {', '.join(map(str, values))} for "
                    f"{_cells(len(left))} that differ{'s' if len(left) == 1 else ''} only "
                    f"in replicates (keep='all' shows {'both' if len(values) == 1 else 'all'})")
    if kept:
        cells = cells[~fewer]
        ids = pa.array(cells.cell_id, pa.string())
        tables = [t.filter(pc.is_in(t["cell_id"], value_set=ids)) for t in tables]
    return tables, cells, kept


def _say(frame: pd.DataFrame, kept: list[str]) -> pd.DataFrame:
    """``frame`` with what was left out in its ``attrs["kept"]``, and warned about."""
    frame.attrs["kept"] = kept
    if kept:
        warnings.warn("; ".join(kept), stacklevel=3)
    return frame


def _frame(tables: list[pa.Table], metadata: Mapping[bytes, bytes] | None = None,
           by: str | None = None) -> pd.DataFrame:
    """The tables that hold rows (the first if none does) as one frame: the union of
    their columns, missing where a table has none, converted with the pandas
    ``metadata`` of the files (e.g. ``replicate`` as a nullable integer); the rows of
    several tables in a stable sort by the column ``by`` if given (of one type).

    A column the tables give different types (families that name an option alike: text
    in one, a number in another) takes their common type if every value converts to it
    exactly (integers to floats below 2⁵³), and is otherwise an object column of each
    table's own values: nothing is dropped, cast or called damaged.
    """
    held = [t for t in tables if t.num_rows] or tables[:1]
    apart = []
    for column in _differing(t.schema for t in held):
        values = [t.column(column) if column in t.column_names else None for t in held]
        try:
            common = pa.unify_schemas([pa.schema([pa.field(column, v.type)])
                                       for v in values if v is not None],
                                      promote_options="permissive").field(0).type
            # A safe cast: a value it would change raises.
            held = [t if v is None else t.set_column(t.schema.get_field_index(column),
                                                     column, v.cast(common))
                    for t, v in zip(held, values, strict=True)]
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            apart.append(column)
    table = pa.concat_tables([t.drop_columns([c for c in apart if c in t.column_names])
                              for t in held], promote_options="permissive")
    rows = _stable_order(table[by]) if by and len(held) > 1 else None
    if rows is not None:
        table = pc.take(table, rows, memory_pool=LASTING)
    # Sorted statistics are taken apart column by column (:func:`_summary`): each column
    # is its own block, which the summary shares, and the table is freed as it converts.
    frame = table.replace_schema_metadata(metadata).to_pandas(
        split_blocks=by is not None, self_destruct=by is not None)
    names = list(dict.fromkeys(name for t in held for name in t.column_names))
    for column in sorted(apart, key=names.index):  # each at its place in the union
        values = np.concatenate([
            t.column(column).to_pandas(integer_object_nulls=True).to_numpy(dtype=object)
            if column in t.column_names else np.full(t.num_rows, None) for t in held])
        frame.insert(names.index(column), column,
                     values if rows is None else values[rows])
    return frame


def _stable_order(values: pa.ChunkedArray) -> np.ndarray:
    """The indices that sort ``values`` stably, by sorting its runs of equal values (a
    stable sort moves runs whole): the rows of a cell are one run, so this sorts as many
    values as there are cells."""
    starts = _runs(values)
    lengths = np.diff(np.append(starts, len(values)))
    order = pc.sort_indices(values.take(starts)).to_numpy()
    # Each run's rows, runs in order: their starts, each repeated over its run, plus
    # the place of each row in its run.
    placed = np.cumsum(lengths[order]) - lengths[order]
    return np.repeat(starts[order] - placed, lengths[order]) + np.arange(len(values))


def _one_row_per_cell(tables: list[pa.Table]) -> pd.DataFrame:
    """The cells' constants :func:`_read` gave (a cell read in several batches once)."""
    return _frame(tables).drop_duplicates("cell_id", ignore_index=True)


def load(
    results: PathLike | Sequence[PathLike],
    columns: Sequence[str] | None = None,
    keep: str = "newest",
    **filters: Any,
) -> pd.DataFrame:
    """The rows of one or several results directories.

    Parameters
    ----------
    results : path or list of paths
        Results directories. A cell present in several of them is read once (from the
        first that holds it): cells are content-addressed, so the copies are identical.
    columns : list of str, optional
        Columns to read (``cell_id`` is always added); all by default.
    keep : {"newest", "all"}
        ``"newest"``: of each family only the cells of its newest version, and of cells
        that differ only in ``replicates`` the one with most; what is left out is warned
        about and listed in ``attrs["kept"]`` (one sentence each). ``"all"``: every cell.
    **filters
        ``column=value`` or ``column=[values]``, applied while reading, e.g.
        ``load("results", mechanism="pm1", n_agents=[30, 200])``. A filter that matches
        nothing gives an empty frame; a filter compares with the rows of the families
        whose column holds values of its type (``prior=0.5`` reads no row of a family
        whose ``prior`` is text).

    The frame's ``attrs`` hold the rows' ``index`` and ``metrics`` and the metrics'
    ``kinds``, which :func:`summarize` uses, and ``kept``.

    The results may mix families, and families may give a column of the same name
    different types: such a column takes the types' common type if every value converts
    to it exactly (an integer to a float), and is otherwise an object column of each
    family's own values (text and numbers). A selection of one family (a filter, or a
    directory of one family) has that family's types.

    Raises :class:`ResultsNotFound` if a path is not a directory, :class:`NoResults` if a
    directory holds no results, :class:`DamagedResults` if a file is damaged,
    ``KeyError`` if a filter or a column names no column of the results, and
    ``TypeError`` if a filter's value has a type that no family's column holds.
    """
    wanted = None if columns is None else list(dict.fromkeys([*columns, "cell_id"]))
    survey = _survey(results, keep, filters, wanted or ())
    tables, cells, found = [], [], Roles((), {})
    for group in survey.groups:
        for chunk in group.chunks():
            rows, constants = _read(chunk, group.schema, wanted or list(group.columns),
                                    group.constants, group.expression, group.filtered)
            tables.append(rows)
            cells.append(constants)
        found = found.merged(group.roles)
    kept: list[str] = []
    if keep == "newest":
        tables, _, kept = _most_replicates(tables, _one_row_per_cell(cells))
    # The files' pandas metadata restores the dtypes the rows were written with.
    return _say(present(_frame(tables, survey.metadata), found), survey.kept + kept)


def present(frame: pd.DataFrame, roles: Roles | None = None) -> pd.DataFrame:
    """``frame`` with the roles (default: its own ``attrs``) of the columns that hold
    values in it: a family's index or metrics do not apply to another family's rows,
    e.g. after selecting one family of a mixed directory."""
    roles = roles or _given_roles(frame)
    held = {c for c in frame.columns if frame[c].notna().any()}
    index = (c for c in roles.index if c in held or (c in ROW_KEYS and c in frame))
    return _describe(frame, Roles(tuple(index),
                                  {m: k for m, k in roles.metrics.items() if m in held}))


def _given_roles(frame: pd.DataFrame) -> Roles:
    """The roles a frame's ``attrs`` hold, or those of the standard index and the
    columns the built-in families declare as metrics."""
    if frame.attrs.get("metrics"):
        kinds = frame.attrs.get("kinds") or {}
        return Roles(tuple(frame.attrs.get("index") or (c for c in ROW_KEYS if c in frame)),
                     {m: kinds.get(m, CONTINUOUS) for m in frame.attrs["metrics"]})
    return Roles(tuple(c for c in ROW_KEYS if c in frame),
                 {n: k for n, k in _legacy_metrics().items() if n in frame})


def wilson(mean: pd.Series, count: pd.Series, z: float) -> tuple[pd.Series, pd.Series]:
    """Wilson score interval of a proportion ``mean`` of ``count`` trials at ``z``."""
    z2n = z * z / count
    centre = (mean + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * np.sqrt(mean * (1 - mean) / count + z2n / (4 * count))
    # In [0, 1] exactly; rounding would put the bound at a rate of 1 a hair above it.
    return (centre - half).clip(0.0, 1.0), (centre + half).clip(0.0, 1.0)


def summarize(frame: pd.DataFrame, interval: str = "se",
              cells: pd.DataFrame | None = None,
              metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Mean of each metric over replicates, per cell, index value and checkpoint.

    Groups by the cell and every index column of the rows but ``replicate`` (``method``,
    ``source``, ``t`` and a family's own, e.g. ``node``); rows without a value of a
    family's own index column (another family's) form their own group. Adds, for each
    metric, ``<metric>_low`` and ``<metric>_high`` and the number of rows ``n``: for a
    continuous metric, mean ± one standard error (``interval="se"``) or the normal 95%
    interval (``"ci95"``); for a proportion, the Wilson score interval at z = 1 or 1.96.
    Reference rows (no replicate) pass through with a zero-width band. Rows are sorted
    by cell, index value and t. The roles come from ``frame.attrs``, as :func:`load` and
    :func:`sweep.execute.simulate` leave them (a frame without them gets the standard
    index and the built-in families' metrics); ``metrics`` selects some. The
    cell-constant columns come from ``cells`` (one row per ``cell_id``) if given, and
    from ``frame`` otherwise; ``attrs["kept"]`` is the frame's.
    """
    _width(interval)
    given = _given_roles(frame)
    roles = given if metrics is None else Roles(
        given.index, {m: given.metrics.get(m, CONTINUOUS) for m in metrics})
    varying = list(dict.fromkeys([*roles.keys, "replicate", *roles.metrics]))
    if cells is None:
        # The metrics left out are not constants of a cell either.
        constant = [c for c in frame.columns if c not in (*given.index, *given.metrics,
                                                          *roles.metrics)]
        cells = frame.drop_duplicates("cell_id")[constant]
    rows = frame[varying]
    try:
        parts = _by_cell(pa.Table.from_pandas(rows, preserve_index=False), roles)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        if "family" not in frame:
            raise
        # An index column that families give different types (:func:`load`): each
        # family's rows apart, as they were read.
        parts = [part for _, rows_of in rows.groupby(
            [frame[c] for c in ("family", "family_version") if c in frame], observed=True,
            sort=False, dropna=False)
            for part in _by_cell(pa.Table.from_pandas(rows_of, preserve_index=False), roles)]
    summary = _summary(_in_order(parts), roles, interval, cells)
    summary.attrs["kept"] = list(frame.attrs.get("kept", []))
    return summary


def _by_cell(rows: pa.Table, roles: Roles) -> list[pa.Table]:
    """:func:`_statistics` of ``rows`` in memory, each cell's rows brought together in
    their order (as reading gives them), so that both agree bit for bit."""
    return _statistics(rows.take(_stable_order(rows.column("cell_id"))), roles)


def summaries(
    results: PathLike | Sequence[PathLike],
    interval: str = "se",
    keep: str = "newest",
    **filters: Any,
) -> pd.DataFrame:
    """:func:`summarize` of the results directories, read in bounded chunks.

    The same table as ``summarize(load(results, keep=keep, **filters), interval)``,
    without holding the rows: each chunk of files is aggregated as it is read, and a
    cell's constant columns are kept once (see the module's notes and :func:`load` for
    ``results``, ``keep``, ``filters``, ``attrs["kept"]`` and the exceptions raised).
    """
    _width(interval)
    survey = _survey(results, keep, filters)
    parts, cells, found = [], [], Roles((), {})
    for group in survey.groups:
        for chunk in group.chunks():
            rows, constants = _read(chunk, group.schema, group.varying, group.constants,
                                    group.expression, group.filtered)
            parts += _statistics(rows, group.roles)
            cells.append(constants)
            if rows.num_rows:
                found = found.merged(group.roles)
    found = found if found.index else survey.groups[0].roles
    cells_read, kept = _one_row_per_cell(cells), []
    if keep == "newest":
        parts, cells_read, kept = _most_replicates(parts, cells_read)
    statistics = _in_order(parts)
    del parts  # freed before the summary is made: with it, the largest tables
    return _say(_summary(statistics, found, interval, cells_read), survey.kept + kept)


def summary_metrics(summary: pd.DataFrame) -> list[str]:
    """The metrics of a summary: the columns :func:`summarize` gave a band."""
    return [c for c in summary.columns if f"{c}_low" in summary.columns]


def swept(frame: pd.DataFrame) -> list[str]:
    """The cell-constant columns that take more than one value: what the sweep varied."""
    skip = {*ROW_KEYS, *frame.attrs.get("index", ()), *frame.attrs.get("metrics", ()),
            "cell_id", "seed", "n", "family_version"}
    skip.update(c for c in frame.columns if c.endswith(("_low", "_high")))
    skip.update(summary_metrics(frame))
    # None and NaN both mean "does not apply" (families share one table): count once.
    return [c for c in frame.columns if c not in skip
            and frame[c].nunique() + frame[c].isna().any() > 1]
