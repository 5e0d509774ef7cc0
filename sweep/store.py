"""The results directory: one Parquet dataset, changed only by whole-file transactions.

Layout of ``results_dir``::

    <family>/<name>.parquet       the rows of one or more cells of one family version
    _failures/<cell id>.parquet   one row per cell that raised, with its error
    _corrupt/                     damaged files found on resume, set aside
    _journal/<id>.json            a transaction under way (replacing or merging files)
    .lock                         held while the files change
    _index.json                   the cells each file holds, by the file's size and times
    .<name>.<host>.<pid>.tmp      a file being written; renamed when complete

Each family has its own subdirectory, so ``pandas.read_parquet("results/colme")`` reads
every column of that family (a plain reader of a directory takes one file's columns for
all). Readers (pandas, pyarrow, polars, duckdb) skip names that start with ``_`` or ``.``,
so they see finished cells only. A file's footer lists its cells and their provenance
(:func:`cell_records`); its name is its cell's id, or a digest of its cells' ids
(:func:`file_name`), so a file whose footer does not match its name is damaged. A file
only ever appears complete (``os.replace`` of a written, fsynced temporary), and a cell is
present once a file holding it exists.

Files are replaced or merged (``recompute``, :meth:`ResultsStore.compact`) by a
transaction: the new files are written as temporaries, a journal names them and the files
they replace, the replaced files are removed and the new ones renamed into place. A
transaction interrupted after its journal is written is completed by the next command
that opens the directory; one interrupted before leaves the directory as it was. No cell
is ever in two visible files; during a transaction's few milliseconds, or after a kill
until the next command, the cells being moved are missing, never doubled.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import functools
import hashlib
import importlib.metadata
import json
import os
import socket
import time
import traceback
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from .errors import StoreError
from .plan import FORMAT_VERSION, Cell
from .results import NEEDED, cell_rows

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

#: Key of the provenance record in each file's key-value metadata.
METADATA_KEY = b"dpsweep"
FAILURES = "_failures"
CORRUPT = "_corrupt"
JOURNAL = "_journal"
LOCK = ".lock"
SUFFIX = ".parquet"
#: The footers' cells and counts, by file (:meth:`ResultsStore.save_index`).
INDEX = "_index.json"
#: A merged file holds at most this many rows and cells (its footer lists every cell).
COMPACT_ROWS = 1 << 20
COMPACT_CELLS = 4096


def file_name(cell_ids: Sequence[str]) -> str:
    """The name (without suffix) of the file holding ``cell_ids``: the id of a single
    cell, else the first 16 hex digits of the SHA-256 of the sorted ids."""
    if len(cell_ids) == 1:
        return cell_ids[0]
    return hashlib.sha256("\n".join(sorted(cell_ids)).encode()).hexdigest()[:16]


def cell_records(metadata: Mapping[bytes, bytes] | None) -> dict[str, dict[str, Any]]:
    """The provenance of each cell a file's key-value metadata lists, by cell id.

    Files written one cell each before cells were batched hold that cell's record
    itself (with its ``cell_id``). ``KeyError`` or ``ValueError`` if there is none.
    """
    record = json.loads((metadata or {})[METADATA_KEY])
    if "cells" in record:
        return record["cells"]
    return {record["cell_id"]: record}


#: The replicates held of a cell whose record does not say: as many as any sweep asks.
UNCOUNTED = 2**62


def _counts(records: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    """The replicates each cell of ``records`` holds; a record without its count (not
    written by a sweep) holds :data:`UNCOUNTED`, so it is never extended."""
    return {cell: int(record.get("config", {}).get("replicates", UNCOUNTED))
            for cell, record in records.items()}


def _footer_cells(path: Path) -> dict[str, int] | None:
    """The cells a file's footer lists and the replicates it holds of each, if it reads
    and matches the file's name."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        held = _counts(cell_records(pq.read_schema(path).metadata))
    except (OSError, pa.ArrowException, KeyError, ValueError, TypeError, AttributeError):
        return None
    return held if held and file_name(list(held)) == path.stem else None


def _stamp(path: Path) -> list[int] | None:
    """What tells a file from any other that held its name: its size and modification
    time in nanoseconds (a copy that keeps the time, ``cp -p``, keeps the index valid)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def _family_of(records: Mapping[str, Mapping[str, Any]]) -> tuple[str, int]:
    """(family, family version) of the cells of one file (all of one family version)."""
    record = next(iter(records.values()))
    # Files of before family versions name the family in their configuration only.
    family = record.get("family") or yaml.safe_load(record["config"])["family"]
    return family, int(record.get("family_version", 0))


def _header(metadata: Mapping[bytes, bytes] | None) -> dict[str, Any] | None:
    """The family and version a file of several cells states before its cells' records
    (:meth:`ResultsStore.commit` writes them first); None if it does not.

    A compacted file's provenance is some 1 kB a cell: parsing all of it would take
    longer than reading the file's rows, and only the family and version are needed.
    """
    text = (metadata or {}).get(METADATA_KEY, b"")
    # A key in the text of a JSON string has its quotes escaped: this is the record's own.
    head, cut, _ = text.partition(b', "cells": ')
    try:
        header = json.loads(head + b"}") if cut else None
    except ValueError:
        return None
    if not isinstance(header, dict) or not {"family", "family_version"} <= header.keys():
        return None
    return header


def provenance_of(path: str | Path, metadata: Mapping[bytes, bytes] | None, cells: bool
                  ) -> tuple[tuple[str, int] | None, dict[str, int] | None]:
    """(family, version) of the results file at ``path`` from its footer's ``metadata``
    (None if it has no provenance), and the cells it holds with the replicates of each
    (:data:`UNCOUNTED` where the record does not say): a file without provenance is named
    by its one cell's id; None if not ``cells`` and the file's header says its family and
    version without them."""
    if not cells and (header := _header(metadata)) is not None:
        return (header["family"], int(header["family_version"])), None
    try:
        records = cell_records(metadata)
        return _family_of(records), _counts(records)
    except (KeyError, ValueError, TypeError, StopIteration, yaml.YAMLError):
        return None, {Path(path).name.removesuffix(SUFFIX): UNCOUNTED}


def listing(root: str | Path) -> list[Path]:
    """The results files of a directory, in order: each family's subdirectory's, and the
    cell files of before family subdirectories at the top. Names that start with ``_``
    or ``.`` are the store's own (failures, a journal, temporaries), never results."""
    return [Path(root, name) for name in _names(root)]


def _names(root: str | Path) -> list[str]:
    """:func:`listing` as paths relative to ``root`` (``colme/<name>.parquet``), in its
    order: strings, as a commit lists a store of thousands of files to see what other
    sweeps stored meanwhile, and builds no path for a file it knows."""
    if not os.path.isdir(root):
        return []
    found = []
    with os.scandir(root) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.name.startswith(("_", ".")):
                continue
            if entry.is_dir():
                with os.scandir(entry.path) as inner:
                    found += sorted(f"{entry.name}/{e.name}" for e in inner
                                    if e.name.endswith(SUFFIX)
                                    and not e.name.startswith(("_", ".")))
            elif entry.name.endswith(SUFFIX):  # a cell file of before family directories
                found.append(entry.name)
    return found


def why_empty(root: str | Path) -> str:
    """Why a directory holds no results files, in words."""
    names = sorted(os.listdir(root))
    if not names:
        return "the directory is empty"
    held = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    failed = f" (the cells recorded in {FAILURES} failed)" if FAILURES in names else ""
    return f"it holds no results files (<family>/*{SUFFIX}), only {held}{failed}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def family_directory(family: str) -> str:
    """The subdirectory of a family's files (its name, or ``module:attribute`` spec)."""
    return family.replace(os.sep, "_")


@dataclass
class _Staged:
    """A file written under a temporary name, to be renamed to ``final``, and the
    replicates it holds of each of its cells."""

    temporary: Path
    final: Path
    held: dict[str, int]


@dataclass(frozen=True)
class Failure:
    """A cell that raised, as ``_failures/<cell id>.parquet`` records it (its last
    failure: a cell that fails again replaces its record)."""

    cell_id: str
    family: str
    time: datetime.datetime  # when it was recorded (UTC)
    #: What the cell id hashes: family, replicates, seed and the options, as the
    #: family's ``identity`` gives them.
    settings: dict[str, Any]
    error: str  # the exception, the traceback's last line
    traceback: str


@dataclass
class CompactSummary:
    """What :meth:`ResultsStore.compact` did."""

    merged: int = 0  # files merged
    written: int = 0  # files they became
    cells: int = 0

    def __str__(self) -> str:
        if not self.merged:
            return "nothing to compact"
        files = "1 file" if self.written == 1 else f"{self.written} files"
        return f"compacted {self.merged} files holding {self.cells} cells into {files}"


@dataclass
class ResultsStore:
    """A results directory shared by any number of sweeps.

    ``files`` maps each visible results file to the cells its footer lists;
    :meth:`scan` keeps it current, reading only the footers of files it has not seen.
    """

    root: Path
    host: str = field(default_factory=socket.gethostname)
    files: dict[Path, tuple[str, ...]] = field(default_factory=dict)
    damaged: list[Path] = field(default_factory=list)
    #: The replicates each cell of :attr:`files` holds (0 to n − 1), by cell id.
    held: dict[str, int] = field(default_factory=dict)
    #: The file of :attr:`files` that holds each cell, by cell id: a commit looks up its
    #: batch's cells, not every stored one.
    where: dict[str, Path] = field(default_factory=dict)
    #: Each file's size and time when its cells were read (:meth:`save_index`).
    stamps: dict[Path, list[int]] = field(default_factory=dict)
    #: The files of :attr:`files` by their path relative to :attr:`root`, as
    #: :func:`_names` lists them.
    known: dict[str, Path] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.root = Path(self.root)

    # -- reading ---------------------------------------------------------------------

    def scan(self) -> set[str]:
        """Ids of the cells held by intact files; damaged files go to :attr:`damaged`.

        A file is intact when its Parquet footer reads and lists the cells its name
        says. A damaged file (truncated, overwritten, not a results file) is never
        taken as a result.
        """
        self._refresh()
        return self.present()

    def _refresh(self) -> None:
        """Bring :attr:`files`, :attr:`held` and :attr:`where` up to the directory: read
        the footers of the files not seen yet, drop the files gone (:meth:`scan`). A
        commit refreshes before it writes, to see what other sweeps stored meanwhile:
        that costs one listing of the directory and a footer per new file, not a set of
        every stored cell."""
        names = _names(self.root)
        current = set(names)
        self._forget([path for name, path in self.known.items() if name not in current])
        self.damaged = []
        unseen = [name for name in names if name not in self.known]
        index = self._index() if unseen else {}
        for name in unseen:
            path = self.root / name
            entry = index.get(name)
            stamp = _stamp(path)  # before the footer: a file replaced meanwhile reads again
            held = entry[1] if entry is not None and entry[0] == stamp else _footer_cells(path)
            if held is None:
                self.damaged.append(path)
            else:
                self._add(path, held, stamp)

    def _add(self, path: Path, held: Mapping[str, int], stamp: list[int] | None) -> None:
        """Know the file ``path`` and the replicates it holds of each of its cells."""
        self.known[self._name(path)] = path
        self.files[path] = tuple(held)
        self.held.update(held)
        self.where.update(dict.fromkeys(held, path))
        if stamp is not None:
            self.stamps[path] = stamp

    def _name(self, path: Path) -> str:
        """``path`` relative to the root, as :func:`_names` lists it and the index keys it."""
        return path.relative_to(self.root).as_posix()

    def _forget(self, paths: Iterable[Path]) -> None:
        """Drop what :meth:`scan` knew of ``paths``: the next scan reads them again (a file
        rewritten under its name, an extension's, holds other counts)."""
        for path in paths:
            for cell in self.files.pop(path, ()):
                self.held.pop(cell, None)
                self.where.pop(cell, None)
            self.stamps.pop(path, None)
            self.known.pop(self._name(path), None)

    def _index(self) -> dict[str, Any]:
        """The index :meth:`save_index` left, or an empty one."""
        try:
            with open(self.root / INDEX, encoding="utf-8") as handle:
                index = json.load(handle)
        except (OSError, ValueError):
            return {}
        return index if isinstance(index, dict) else {}

    def save_index(self) -> None:
        """Write the cells and counts of every file :meth:`scan` found, each under the
        size and modification time it had when they were read, so that the next scan
        reads a file's footer only if the file is new or changed: knowing what a
        directory of 10⁵ cells holds then costs one small read, not 10⁵ provenance
        records. A cache, never the truth:
        a file whose stamp differs is read again, and an index that cannot be written
        is skipped. Only a command that writes results writes it (:meth:`prepare`, and
        after its commits)."""
        index = {self._name(path):
                 [self.stamps[path], {cell: self.held[cell] for cell in cells}]
                 for path, cells in self.files.items() if path in self.stamps}
        temporary = self.root / f".index.{self.host}.{os.getpid()}.tmp"
        try:
            with open(temporary, "w", encoding="utf-8") as handle:
                json.dump(index, handle, separators=(",", ":"))
            os.replace(temporary, self.root / INDEX)
        except OSError:
            temporary.unlink(missing_ok=True)

    def present(self) -> set[str]:
        return set(self.where)

    def records(self) -> dict[str, dict[str, Any]]:
        """The provenance record of every cell the intact files hold, by cell id
        (:func:`cell_records`; after :meth:`scan`)."""
        import pyarrow.parquet as pq

        return {cell: record for path in self.files
                for cell, record in cell_records(pq.read_schema(path).metadata).items()}

    def pending(self) -> bool:
        """Whether a transaction awaits completion (see the module's notes)."""
        return any((self.root / JOURNAL).glob("*.json"))

    # -- preparing ------------------------------------------------------------------

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the directory's lock: one writer changes its files at a time."""
        with open(self.root / LOCK, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def prepare(self) -> set[str]:
        """Create the directory, complete interrupted transactions, remove temporaries of
        dead writers on this host, set damaged files aside; the cells present."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"results_dir: cannot create {self.root} ({error.strerror})") from None
        if not os.access(self.root, os.W_OK):
            raise StoreError(f"results_dir: {self.root} is not writable")
        with self.locked():
            self._recover()
            for stale in self.root.glob("**/.*.tmp"):
                _, _, rest = stale.name[1:].partition(".")
                host, _, pid = rest.removesuffix(".tmp").rpartition(".")
                if host == self.host and pid.isdigit() and not _alive(int(pid)):
                    stale.unlink(missing_ok=True)
            present = self.scan()
            self._set_aside()
            self.save_index()
        return present

    def _set_aside(self) -> None:
        """Move damaged files to ``_corrupt/`` (kept for inspection, hidden from readers);
        :attr:`damaged` still lists them, until the next scan."""
        if self.damaged:
            (self.root / CORRUPT).mkdir(exist_ok=True)
        for path in self.damaged:
            os.replace(path, self.root / CORRUPT / f"{path.stem}.{time.time_ns()}{SUFFIX}")

    # -- writing --------------------------------------------------------------------

    def _stage(self, directory: Path, table: pa.Table,
               records: Mapping[str, Mapping[str, Any]]) -> _Staged:
        """Write a file of the cells ``records`` lists under a temporary name."""
        import pyarrow.parquet as pq

        family, version = _family_of(records)
        record = {"format": FORMAT_VERSION, "family": family, "family_version": version,
                  "cells": records}
        metadata = {**(table.schema.metadata or {}), METADATA_KEY: json.dumps(record)}
        table = table.replace_schema_metadata(metadata)
        final = directory / f"{file_name(list(records))}{SUFFIX}"
        temporary = directory / f".{final.stem}.{self.host}.{os.getpid()}.tmp"
        try:
            directory.mkdir(exist_ok=True)
            with open(temporary, "wb") as sink:
                # Page checksums let readers detect damaged data, not only a damaged footer.
                pq.write_table(table, sink, write_page_checksum=True)
                sink.flush()
                os.fsync(sink.fileno())
        except OSError as error:
            temporary.unlink(missing_ok=True)
            raise StoreError(f"results_dir: cannot write {final} ({error.strerror}); the "
                             "cells stored so far are kept, rerun to resume") from None
        return _Staged(temporary, final, _counts(records))

    def _transaction(self, staged: Sequence[_Staged], replaced: Sequence[Path]) -> None:
        """Put ``staged`` in place of ``replaced`` (see the module's notes)."""
        if replaced:
            journal = self.root / JOURNAL / f"{uuid.uuid4().hex}.json"
            journal.parent.mkdir(exist_ok=True)
            temporary = journal.with_name(f".{journal.stem}.{self.host}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps({
                "remove": [str(p.relative_to(self.root)) for p in replaced],
                "publish": [[str(s.temporary.relative_to(self.root)),
                             str(s.final.relative_to(self.root))] for s in staged],
            }))
            os.replace(temporary, journal)
            self._complete(journal)
        else:
            for item in staged:
                os.replace(item.temporary, item.final)
        finals = [item.final for item in staged]
        self._forget([*replaced, *finals])
        self.damaged = [path for path in self.damaged if path not in finals]
        for item in staged:  # known from their writing: no footer to read again
            self._add(item.final, item.held, _stamp(item.final))

    def _complete(self, journal: Path) -> None:
        """Carry out a journaled transaction from wherever it stopped.

        Removals come before renames, so while every temporary is still there no
        rename has happened and the removals are (re)done; once one is gone, they were.
        """
        entry = json.loads(journal.read_text())
        publish = [(self.root / a, self.root / b) for a, b in entry["publish"]]
        if all(a.exists() for a, _ in publish):
            for name in entry["remove"]:
                (self.root / name).unlink(missing_ok=True)
        for temporary, final in publish:
            with contextlib.suppress(FileNotFoundError):
                os.replace(temporary, final)
        journal.unlink()
        with contextlib.suppress(OSError):  # left only while a transaction is under way
            journal.parent.rmdir()

    def _recover(self) -> None:
        for journal in sorted((self.root / JOURNAL).glob("*.json")):
            self._complete(journal)

    def commit(self, batch: Sequence[tuple[Cell, pa.Table, dict[str, Any]]],
               replace: frozenset[str] | set[str] = frozenset()) -> int:
        """Store finished cells (cell, rows, provenance), one file per family version;
        the number stored.

        A cell another sweep stored meanwhile is left as it is, unless its id is in
        ``replace``: then the file holding it is rewritten without it, in the same
        transaction. An extension (a cell whose :attr:`~sweep.plan.Cell.start` is not 0)
        is merged with the replicates stored (:meth:`_extended`) and replaces them in the
        same way; it is dropped if the store holds as many replicates already, or no
        longer holds the cell. A failure recorded earlier for a stored cell is removed.
        """
        import pyarrow as pa

        with self.locked():
            self._refresh()
            wanted = {cell.cell_id for cell, _, _ in batch}
            # A file another sweep rewrote under its name (it extended or recomputed all
            # its cells) is listed as known: its stamp tells, and it is read again.
            touched = {self.where[cell] for cell in wanted if cell in self.where}
            changed = [path for path in touched if _stamp(path) != self.stamps.get(path)]
            if changed:
                self._forget(changed)
                self._refresh()
            held = {cell: self.where[cell] for cell in wanted if cell in self.where}
            extending = {cell.cell_id for cell, _, _ in batch if cell.start and (
                cell.cell_id in held and self.held[cell.cell_id] < cell.replicates)}
            merged = self._extended(held, [item for item in batch
                                           if item[0].cell_id in extending])
            batch = [merged.get(item[0].cell_id, item) for item in batch
                     if item[0].cell_id in extending or (not item[0].start and (
                         item[0].cell_id not in held or item[0].cell_id in replace))]
            groups: dict[tuple[str, int], list[tuple[Cell, pa.Table, dict[str, Any]]]] = {}
            for item in batch:
                groups.setdefault((item[0].family, item[0].version), []).append(item)
            staged = [
                self._stage(self.root / family_directory(family),
                            pa.concat_tables([t for _, t, _ in items], promote_options="default"),
                            {c.cell_id: {**r, "cell_id": c.cell_id} for c, _, r in items})
                for (family, _), items in groups.items()
            ]
            leaving = {item[0].cell_id for item in batch} & set(held)
            replaced = sorted({held[cell] for cell in leaving})
            staged += [s for path in replaced
                       if (s := self._without(path, leaving)) is not None]
            self._transaction(staged, replaced)
            for cell, _, _ in batch:
                (self.root / FAILURES / f"{cell.cell_id}{SUFFIX}").unlink(missing_ok=True)
        return len(batch)

    def _extended(self, held: Mapping[str, Path],
                  items: Sequence[tuple[Cell, pa.Table, dict[str, Any]]]
                  ) -> dict[str, tuple[Cell, pa.Table, dict[str, Any]]]:
        """Extensions (a cell's replicates from :attr:`Cell.start` on), by cell id, each
        merged with the cell's rows stored in the file ``held`` names
        (:func:`~sweep.results.cell_rows`): the stored replicates and analytic rows, and
        the new replicates the store does not hold yet (another sweep may have extended
        the cell meanwhile); its record keeps the stored one's (``extends``). Each file
        is read once, whatever number of its cells are extended."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        by_file: dict[Path, list[tuple[Cell, pa.Table, dict[str, Any]]]] = {}
        for item in items:
            by_file.setdefault(held[item[0].cell_id], []).append(item)
        merged = {}
        for path, extended in by_file.items():
            table = pq.read_table(path)
            records = cell_records(table.schema.metadata)
            # A file holds each cell's rows in one run.
            runs: dict[str, list[int]] = {}
            for row, cell_id in enumerate(table.column("cell_id").to_pylist()):
                runs.setdefault(cell_id, [row, row])[1] = row
            for cell, rows, record in extended:
                first, last = runs[cell.cell_id]
                stored = table.slice(first, last - first + 1)
                added = rows.filter(pc.greater_equal(rows.column("replicate"),
                                                     self.held[cell.cell_id]))
                cell_table = cell_rows([stored.replace_schema_metadata(rows.schema.metadata),
                                        added])
                # The cell's constants that an extension changes, on every row.
                for name in ("replicates", NEEDED):
                    if name in rows.column_names:
                        where = cell_table.schema.get_field_index(name)
                        field = rows.schema.field(name)
                        cell_table = cell_table.set_column(where, field, pa.array(
                            [rows.column(name)[0].as_py()] * cell_table.num_rows,
                            field.type))
                merged[cell.cell_id] = (cell, cell_table.replace_schema_metadata(
                    rows.schema.metadata), {**record, "extends": records[cell.cell_id]})
        return merged

    def _without(self, path: Path, cells: set[str]) -> _Staged | None:
        """The file at ``path`` without the rows of ``cells``, staged (None if empty)."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        records = {k: v for k, v in cell_records(pq.read_schema(path).metadata).items()
                   if k not in cells}
        if not records:  # every cell leaves: nothing to read
            return None
        table = pq.read_table(path)
        rows = table.filter(pc.is_in(table.column("cell_id"), pa.array(sorted(records))))
        return self._stage(path.parent, rows, records)

    def compact(self, rows: int = COMPACT_ROWS, cells: int = COMPACT_CELLS) -> CompactSummary:
        """Merge the small files (under half of ``rows`` rows and of ``cells`` cells) of
        each family version into files of up to ``rows`` rows and ``cells`` cells, each
        merge its own transaction.

        Only files with the same columns merge; cell files of before family
        directories move into their family's directory.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        summary = CompactSummary()
        with self.locked():
            self._recover()
            self._refresh()
            for sources in self._merges(rows, cells):
                tables = [pq.read_table(p) for p in sources]
                records = {k: v for t in tables for k, v in cell_records(t.schema.metadata).items()}
                family, _ = _family_of(records)
                table = pa.concat_tables([t.replace_schema_metadata(tables[0].schema.metadata)
                                          for t in tables], promote_options="default")
                staged = self._stage(self.root / family_directory(family), table, records)
                self._transaction([staged], sources)
                summary.merged += len(sources)
                summary.written += 1
                summary.cells += len(records)
        return summary

    def _merges(self, rows: int, cells: int) -> Iterator[list[Path]]:
        """Runs of files to merge: same directory-to-be, family version and columns."""
        import pyarrow.parquet as pq

        groups: dict[tuple[Any, ...], list[tuple[Path, int, int]]] = {}
        for path, ids in sorted(self.files.items()):
            metadata = pq.read_metadata(path)
            schema = metadata.schema.to_arrow_schema()
            key = (*_family_of(cell_records(metadata.metadata)), tuple(schema.names),
                   tuple(str(t) for t in schema.types))
            # Files at least half full stay as they are; old top-level files always move.
            small = 2 * metadata.num_rows < rows and 2 * len(ids) < cells
            if small or path.parent == self.root:
                groups.setdefault(key, []).append((path, metadata.num_rows, len(ids)))
        for (family, *_), files in groups.items():
            run: list[Path] = []
            load = [0, 0]
            for path, count, held in files:
                if run and (load[0] + count > rows or load[1] + held > cells):
                    yield from self._worth(run, family)
                    run, load = [], [0, 0]
                run.append(path)
                load = [load[0] + count, load[1] + held]
            yield from self._worth(run, family)

    def _worth(self, run: list[Path], family: str) -> Iterator[list[Path]]:
        """``run``, unless it is one file already in its family's directory."""
        if len(run) > 1 or (run and run[0].parent != self.root / family_directory(family)):
            yield run

    # -- failures -------------------------------------------------------------------

    def record_failure(
        self, cell: Cell, columns: dict[str, Any], error: str, provenance: dict[str, Any]
    ) -> None:
        """Record that a cell raised (``error`` is its formatted traceback)."""
        import pandas as pd
        import pyarrow as pa

        lines = error.strip().splitlines() or ["unknown error"]
        frame = pd.DataFrame([{
            "cell_id": cell.cell_id,
            "family": cell.family,
            "seed": cell.seed,
            "replicates": cell.replicates,
            **columns,
            "error": lines[-1],
            "traceback": error,
            "time": pd.Timestamp(time.time(), unit="s", tz="UTC"),
        }])
        table = pa.Table.from_pandas(frame, preserve_index=False)
        staged = self._stage(self.root / FAILURES, table,
                             {cell.cell_id: {**provenance, "cell_id": cell.cell_id}})
        os.replace(staged.temporary, staged.final)

    def failures(self) -> pd.DataFrame:
        """The failures table (empty if no cell has failed)."""
        import pandas as pd

        files = sorted((self.root / FAILURES).glob("[!._]*" + SUFFIX))
        return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True) if files else (
            pd.DataFrame()
        )

    def failed(self) -> list[Failure]:
        """Every recorded failure, oldest first; :class:`StoreError` naming a record that
        does not read. Reads Arrow only (no pandas): the command line lists them."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        failures = []
        for path in (self.root / FAILURES).glob("[!._]*" + SUFFIX):
            try:
                table = pq.read_table(path, columns=["family", "error", "traceback", "time"])
                settings = cell_records(table.schema.metadata)[path.stem]["config"]
                # Nanoseconds since the epoch: a timestamp's as_py() would need pandas.
                nanoseconds = table.column("time").cast(pa.int64())[0].as_py()
            except (OSError, pa.ArrowException, KeyError, ValueError, TypeError) as error:
                raise StoreError(f"results_dir: cannot read the failure record {path} "
                                 f"({' '.join(str(error).split())})") from None
            row = table.select(["family", "error", "traceback"]).slice(0, 1).to_pylist()[0]
            when = datetime.datetime.fromtimestamp(nanoseconds / 1e9, datetime.UTC)
            failures.append(Failure(
                path.stem, row["family"], when,
                # Records of before batching hold the settings as YAML.
                yaml.safe_load(settings) if isinstance(settings, str) else settings,
                row["error"], row["traceback"]))
        return sorted(failures, key=lambda failure: (failure.time, failure.cell_id))


#: The libraries whose versions can change a result bit for bit (recorded per cell).
LIBRARIES = ("numpy", "scipy", "numba", "pandas", "pyarrow", "ray", "networkx")


@functools.cache
def worker() -> dict[str, Any]:
    """What, on the worker that computes a cell, can change its results bit for bit: the
    versions of :data:`LIBRARIES` (``None`` for one not installed) and the worker's
    arithmetic (:func:`sweep.arithmetic.fingerprint`). Cells computed by workers with
    equal records are bit-identical for the same settings."""
    from .arithmetic import fingerprint

    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return {"libraries": versions, "arithmetic": fingerprint()}


def provenance(
    cell: Cell, version: str, commit: str | None, started: float, finished: float,
    seconds: float, machine: dict[str, Any],
) -> dict[str, Any]:
    """What travels inside a cell's file: its settings (family, version, replicates,
    seed and options, as its id hashes them) and how it was made.

    ``version`` is the package's, ``cell.version`` the family's; ``machine`` is
    :func:`worker` on the worker that computed it. ``started`` and ``finished`` are the
    UNIX times its first piece started and its last piece ended; ``seconds`` is the
    compute time of its pieces, summed.
    """
    return {
        # The settings the cell id hashes, as they are (files of before batching hold them
        # as a YAML string).
        "config": cell.settings,
        "version": version,
        "family": cell.family,
        "family_version": cell.version,
        **machine,
        "git_commit": commit,
        "started": started,
        "finished": finished,
        "wall_seconds": seconds,
    }


def format_error(error: BaseException) -> str:
    return "".join(traceback.format_exception(error))


#: What other modules use. The layout's names (its folders, suffix and metadata key) are
#: the store's own: readers go through :func:`listing`, :func:`provenance_of`,
#: :func:`why_empty` and :meth:`ResultsStore.records`.
__all__ = ["COMPACT_CELLS", "COMPACT_ROWS", "CompactSummary", "Failure", "ResultsStore",
           "cell_records", "family_directory", "file_name", "format_error", "listing",
           "provenance", "provenance_of", "why_empty", "worker"]
