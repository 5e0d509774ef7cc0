"""Reading sweep results and aggregating them over replicates.

The results directory is a plain Parquet dataset (see ``sweep.store``); this module reads
it with pyarrow's dataset API, so that filters and column selections are applied while
reading and a large directory never has to fit in memory whole.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds

#: Columns that vary within a cell in every family; the family's metrics vary too.
ROW_KEYS = ("method", "source", "replicate", "t")
#: Metrics of files written before the files marked their metric columns (Private-ColME).
LEGACY_METRICS = ("mse", "false_exclusion", "false_inclusion")
#: Columns that identify a series (one curve) within a cell.
SERIES = ("cell_id", "method", "source")
Z95 = 1.959963984540054
#: Parquet reading that verifies the page checksums the sweep writes: damaged data raises
#: instead of being read.
CHECKED = ds.ParquetFileFormat(
    default_fragment_scan_options=ds.ParquetFragmentScanOptions(page_checksum_verification=True)
)


class DamagedResults(OSError):
    """A results file is unreadable or fails its checksums."""


@contextlib.contextmanager
def _checked(path: object) -> Iterator[None]:
    try:
        yield
    except (OSError, pa.ArrowException) as error:
        raise DamagedResults(f"damaged results file under {path} ({error}); rerun the sweep "
                             "command: it sets damaged files aside and recomputes them") from None


def _expression(filters: Mapping[str, Any]) -> ds.Expression | None:
    expression = None
    for column, value in filters.items():
        if isinstance(value, str) or not isinstance(value, Iterable):
            term = ds.field(column) == value
        else:
            term = ds.field(column).isin(list(value))
        expression = term if expression is None else expression & term
    return expression


def metrics_of(schema: pa.Schema) -> list[str]:
    """The metric columns of a results schema: the fields the sweep marks as metrics."""
    marked = [f.name for f in schema if (f.metadata or {}).get(b"dpsweep") == b"metric"]
    return marked or [name for name in LEGACY_METRICS if name in schema.names]


def row_columns(schema: pa.Schema) -> list[str]:
    """The columns of a results schema that vary within a cell."""
    return [c for c in (*ROW_KEYS, *metrics_of(schema)) if c in schema.names]


def _datasets(
    results: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    filters: Mapping[str, Any],
) -> Iterator[tuple[ds.Dataset, dict[str, pa.Schema]]]:
    """The results directories as datasets, with each file's own schema by path.

    ``KeyError`` if a filter names no column.
    """
    paths = [results] if isinstance(results, str | os.PathLike) else list(results)
    for path in paths:
        with _checked(path):
            dataset = ds.dataset(path, format=CHECKED)
            # Families write different columns: read every file against the union.
            schemas = {f.path: f.physical_schema for f in dataset.get_fragments()}
            first = next(iter(schemas.values()), None)
            if any(not schema.equals(first) for schema in schemas.values()):
                dataset = ds.dataset(path, format=CHECKED, schema=pa.unify_schemas(
                    list(schemas.values()), promote_options="permissive"))
        missing = set(filters) - set(dataset.schema.names)
        if missing:
            raise KeyError(f"no column {sorted(missing)[0]!r} in {path}")
        yield dataset, schemas


def load(
    results: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    columns: Sequence[str] | None = None,
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
    **filters
        ``column=value`` or ``column=[values]``, applied while reading, e.g.
        ``load("results", mechanism="pm1", n_agents=[30, 200])``.
    """
    wanted = None if columns is None else list(dict.fromkeys([*columns, "cell_id"]))
    frames, seen, metrics = [], set(), {}
    for dataset, _ in _datasets(results, filters):
        with _checked(dataset.files[:1]):
            frame = dataset.to_table(columns=wanted, filter=_expression(filters)).to_pandas()
        frames.append(frame[~frame.cell_id.isin(seen)])
        seen.update(frame.cell_id.unique())
        metrics.update(dict.fromkeys(m for m in metrics_of(dataset.schema) if m in frame))
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    frame.attrs["metrics"] = list(metrics)
    return frame


def summarize(frame: pd.DataFrame, interval: str = "se",
              cells: pd.DataFrame | None = None,
              metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Mean of each metric over replicates, per cell, method, source and checkpoint.

    Adds, for each metric, ``<metric>_low`` and ``<metric>_high``: mean ± one standard
    error (``interval="se"``) or the normal 95% interval (``"ci95"``), and the number of
    replicates ``n``. Reference rows (one per checkpoint) pass through with a zero-width
    band. ``metrics`` default to those :func:`load` found (``frame.attrs["metrics"]``).
    The cell-constant columns come from ``cells`` (one row per ``cell_id``) if given, and
    from ``frame`` otherwise.
    """
    if interval not in ("se", "ci95"):
        raise ValueError(f"interval: must be 'se' or 'ci95'; got {interval!r}")
    width = 1.0 if interval == "se" else Z95
    if metrics is None:
        metrics = frame.attrs.get("metrics") or [m for m in LEGACY_METRICS if m in frame]
    metrics = list(metrics)
    keys = [*SERIES, "t"]
    grouped = frame.groupby(keys, sort=True, observed=True)[metrics]
    summary = grouped.mean()
    count = grouped.size()
    deviation = grouped.std(ddof=1).fillna(0.0)  # one replicate (or analytic): no spread
    summary["n"] = count
    for metric in metrics:
        spread = deviation[metric] / np.sqrt(count)
        summary[f"{metric}_low"] = summary[metric] - width * spread
        summary[f"{metric}_high"] = summary[metric] + width * spread
    summary = summary.reset_index()
    if cells is None:
        constant = [c for c in frame.columns
                    if c not in (*ROW_KEYS, *metrics) and c != "cell_id"]
        cells = frame.drop_duplicates("cell_id")[["cell_id", *constant]]
    return summary.merge(cells, on="cell_id", how="left")


def summaries(
    results: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    interval: str = "se",
    **filters: Any,
) -> pd.DataFrame:
    """:func:`summarize` of the results directories, one file (cell) at a time.

    A cell's rows are all in its own file, so summarizing file by file gives the same
    table as summarizing everything at once, with the memory of one cell; of the columns
    constant over a cell, only the first row is read. This is how large directories are
    read (see :func:`load` for ``results`` and ``filters``).
    """
    parts, seen = [], set()
    for dataset, schemas in _datasets(results, filters):
        expression = _expression(filters)
        for fragment in dataset.get_fragments(filter=expression):
            # The rows' own columns in full, the cell's constants from its first row; a
            # file's metrics are those of its own family.
            own = schemas[fragment.path]
            metrics = metrics_of(own)
            varying = [*row_columns(own), "cell_id"]
            constant = [c for c in own.names if c not in varying or c == "cell_id"]
            with _checked(fragment.path):
                frame = fragment.to_table(columns=varying, filter=expression,
                                          schema=dataset.schema).to_pandas()
            frame = frame[~frame.cell_id.isin(seen)]
            if len(frame):
                seen.update(frame.cell_id.unique())
                with _checked(fragment.path):
                    cells = fragment.scanner(schema=dataset.schema, columns=constant,
                                             filter=expression).head(1).to_pandas()
                parts.append(summarize(frame, interval, cells, metrics))
    if not parts:
        return pd.DataFrame(columns=[*SERIES, "t"])
    return pd.concat(parts, ignore_index=True)


def summary_metrics(summary: pd.DataFrame) -> list[str]:
    """The metrics of a summary: the columns :func:`summarize` gave a band."""
    return [c for c in summary.columns if f"{c}_low" in summary.columns]


def swept(frame: pd.DataFrame) -> list[str]:
    """The cell-constant columns that take more than one value: what the sweep varied."""
    skip = {*ROW_KEYS, "cell_id", "seed", "n"}
    skip.update(c for c in frame.columns if c.endswith(("_low", "_high")))
    skip.update(summary_metrics(frame))
    # None and NaN both mean "does not apply" (families share one table): count once.
    return [c for c in frame.columns if c not in skip
            and frame[c].nunique() + frame[c].isna().any() > 1]
