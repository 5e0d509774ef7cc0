"""The results directory: one Parquet dataset, one file per cell, written atomically.

Layout of ``results_dir``::

    <cell id>.parquet             every row of one cell (readable as one dataset)
    _failures/<cell id>.parquet   one row per cell that raised, with its error
    .<cell id>.<host>.<pid>.tmp   a file being written; renamed when complete

Readers (pandas, pyarrow, polars, duckdb) skip names that start with ``_`` or ``.``, so
``pandas.read_parquet(results_dir)`` returns exactly the finished cells, whatever state a
killed sweep left. A cell is present once its file exists, and the file only ever appears
complete (``os.replace`` of a fully written, fsynced temporary).
"""

from __future__ import annotations

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

from .plan import FORMAT_VERSION, Cell

#: Key of the provenance record in each file's key-value metadata.
METADATA_KEY = b"dpsweep"
FAILURES = "_failures"
SUFFIX = ".parquet"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ResultsStore:
    """A results directory shared by any number of sweeps."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.host = socket.gethostname()

    def present(self) -> set[str]:
        """Ids of the cells whose results file exists."""
        if not self.root.is_dir():
            return set()
        return {p.name[: -len(SUFFIX)] for p in self.root.glob("[!._]*" + SUFFIX)}

    def path(self, cell_id: str) -> Path:
        return self.root / f"{cell_id}{SUFFIX}"

    def prepare(self) -> None:
        """Create the directory and remove temporaries left by dead writers on this host."""
        (self.root / FAILURES).mkdir(parents=True, exist_ok=True)
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
                pq.write_table(table, sink)
                sink.flush()
                os.fsync(sink.fileno())
            os.replace(temporary, path)
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


def provenance(
    cell: Cell, version: str, commit: str | None, started: float, finished: float,
    seconds: float,
) -> dict[str, Any]:
    """What travels inside a cell's file: its resolved configuration and how it was made.

    ``started`` and ``finished`` are the UNIX times its first piece started and its last
    piece ended; ``seconds`` is the compute time of its pieces, summed.
    """
    import yaml

    return {
        "format": FORMAT_VERSION,
        # libyaml's dumper where available: the pure-Python one costs milliseconds a cell.
        "config": yaml.dump(cell.settings, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                            sort_keys=False),
        "version": version,
        "git_commit": commit,
        "started": started,
        "finished": finished,
        "wall_seconds": seconds,
    }


def format_error(error: BaseException) -> str:
    return "".join(traceback.format_exception(error))
