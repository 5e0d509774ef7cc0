"""The results directory: one Parquet dataset, one file per cell, written atomically.

Layout of ``results_dir``::

    <cell id>.parquet             every row of one cell (readable as one dataset)
    _failures/<cell id>.parquet   one row per cell that raised, with its error
    _corrupt/                     damaged files found on resume, set aside
    .<cell id>.<host>.<pid>.tmp   a file being written; renamed when complete

Readers (pandas, pyarrow, polars, duckdb) skip names that start with ``_`` or ``.``, so
``pandas.read_parquet(results_dir)`` returns exactly the finished cells, whatever state a
killed sweep left. A cell is present once its file exists, and the file only ever appears
complete (``os.replace`` of a fully written, fsynced temporary). A file damaged later
(truncated, overwritten) fails the check of :meth:`ResultsStore.scan` and is recomputed.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import socket
import time
import traceback
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from .errors import StoreError
from .plan import FORMAT_VERSION, Cell

#: Key of the provenance record in each file's key-value metadata.
METADATA_KEY = b"dpsweep"
FAILURES = "_failures"
CORRUPT = "_corrupt"
SUFFIX = ".parquet"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _names_its_cell(path: Path) -> bool:
    try:
        record = pq.read_metadata(path).metadata or {}
        return json.loads(record[METADATA_KEY])["cell_id"] == path.stem
    except (OSError, pa.ArrowException, KeyError, ValueError, TypeError):
        return False


class ResultsStore:
    """A results directory shared by any number of sweeps."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.host = socket.gethostname()

    def scan(self) -> tuple[set[str], list[Path]]:
        """Ids of the cells whose results file is intact, and the damaged files.

        A file is intact when its Parquet footer reads and names its own cell. A damaged
        file (truncated, overwritten, or not a results file) is never taken as a result.
        """
        if not self.root.is_dir():
            return set(), []
        intact, damaged = set(), []
        for path in self.root.glob("[!._]*" + SUFFIX):
            if _names_its_cell(path):
                intact.add(path.stem)
            else:
                damaged.append(path)
        return intact, damaged

    def set_aside(self, damaged: list[Path]) -> None:
        """Move damaged files to ``_corrupt/`` (kept for inspection, hidden from readers)."""
        if damaged:
            (self.root / CORRUPT).mkdir(exist_ok=True)
        for path in damaged:
            os.replace(path, self.root / CORRUPT / f"{path.stem}.{time.time_ns()}{SUFFIX}")

    def path(self, cell_id: str) -> Path:
        return self.root / f"{cell_id}{SUFFIX}"

    def prepare(self) -> None:
        """Create the directory and remove temporaries left by dead writers on this host."""
        try:
            (self.root / FAILURES).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"results_dir: cannot create {self.root} ({error.strerror})") from None
        if not os.access(self.root, os.W_OK):
            raise StoreError(f"results_dir: {self.root} is not writable")
        for directory in (self.root, self.root / FAILURES):
            for stale in directory.glob(".*.tmp"):
                _, _, rest = stale.name[1:].partition(".")
                host, _, pid = rest.removesuffix(".tmp").rpartition(".")
                if host == self.host and pid.isdigit() and not _alive(int(pid)):
                    stale.unlink(missing_ok=True)

    def _write(self, path: Path, table: pa.Table, provenance: dict[str, Any]) -> None:
        metadata = {**(table.schema.metadata or {}), METADATA_KEY: json.dumps(provenance)}
        table = table.replace_schema_metadata(metadata)
        temporary = path.with_name(f".{path.stem}.{self.host}.{os.getpid()}.tmp")
        try:
            with open(temporary, "wb") as sink:
                # Page checksums let readers detect damaged data, not only a damaged footer.
                pq.write_table(table, sink, write_page_checksum=True)
                sink.flush()
                os.fsync(sink.fileno())
            os.replace(temporary, path)
        except OSError as error:
            raise StoreError(f"results_dir: cannot write {path} ({error.strerror}); the cells "
                             "stored so far are kept, rerun to resume") from None
        finally:
            temporary.unlink(missing_ok=True)

    def write(self, cell: Cell, table: pa.Table, provenance: dict[str, Any]) -> None:
        """Store a cell's rows, replacing any failure recorded for it earlier."""
        self._write(self.path(cell.cell_id), table, {**provenance, "cell_id": cell.cell_id})
        (self.root / FAILURES / f"{cell.cell_id}{SUFFIX}").unlink(missing_ok=True)

    def record_failure(
        self, cell: Cell, columns: dict[str, Any], error: str, provenance: dict[str, Any]
    ) -> None:
        """Record that a cell raised (``error`` is its formatted traceback)."""
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
        path = self.root / FAILURES / f"{cell.cell_id}{SUFFIX}"
        table = pa.Table.from_pandas(frame, preserve_index=False)
        self._write(path, table, {**provenance, "cell_id": cell.cell_id})

    def failures(self) -> pd.DataFrame:
        """The failures table (empty if no cell has failed)."""
        files = sorted((self.root / FAILURES).glob("[!._]*" + SUFFIX))
        return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True) if files else (
            pd.DataFrame()
        )


#: The libraries whose versions can change a result bit for bit (recorded per cell).
LIBRARIES = ("numpy", "scipy", "numba", "pandas", "pyarrow", "ray", "networkx")


@functools.cache
def library_versions() -> dict[str, str | None]:
    """Versions of :data:`LIBRARIES` in this process (``None`` if one is not installed)."""
    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def provenance(
    cell: Cell, version: str, commit: str | None, started: float, finished: float,
    seconds: float, libraries: dict[str, str | None],
) -> dict[str, Any]:
    """What travels inside a cell's file: its resolved configuration and how it was made.

    ``version`` is the package's, ``cell.version`` the family's; ``libraries`` the
    versions of :data:`LIBRARIES` on the worker that computed it. ``started`` and
    ``finished`` are the UNIX times its first piece started and its last piece ended;
    ``seconds`` is the compute time of its pieces, summed.
    """
    return {
        "format": FORMAT_VERSION,
        # libyaml's dumper where available: the pure-Python one costs milliseconds a cell.
        "config": yaml.dump(cell.settings, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                            sort_keys=False),
        "version": version,
        "family": cell.family,
        "family_version": cell.version,
        "libraries": libraries,
        "git_commit": commit,
        "started": started,
        "finished": finished,
        "wall_seconds": seconds,
    }


def format_error(error: BaseException) -> str:
    return "".join(traceback.format_exception(error))
