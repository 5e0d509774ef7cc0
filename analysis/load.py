"""Reading sweep results and aggregating them over replicates.

The results directory is a plain Parquet dataset (see ``sweep.store``); this module reads
it with pyarrow's dataset API, so that filters and column selections are applied while
reading and a large directory never has to fit in memory whole.

Each file says what its rows vary by and which columns are metrics of which kind (the
roles marked by :mod:`sweep.results`), so a family's own index columns (``node``,
``hypothesis``, ...) survive aggregation and its proportions get Wilson intervals,
without this module knowing the family. Files written before the roles were marked take
them from the declaration of the built-in family that wrote them.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import yaml

from sweep.family import FAMILIES, get_family
from sweep.results import CONTINUOUS, METRIC, PROPORTION, ROLE_KEY, STANDARD_INDEX, roles

#: Columns that vary within a cell in every family.
ROW_KEYS = tuple(STANDARD_INDEX)
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

    def merged(self, other: Roles) -> Roles:
        return Roles(tuple(dict.fromkeys((*self.index, *other.index))),
                     {**self.metrics, **other.metrics})


@functools.cache
def _legacy_metrics() -> dict[str, str]:
    """Metrics of the built-in families, by name (for files without role marks)."""
    return {name: metric.kind for family in FAMILIES
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


def _version(schema: pa.Schema) -> tuple[str, int] | None:
    """(family, version) of a results file, from its provenance (None if it has none)."""
    try:
        record = json.loads((schema.metadata or {})[b"dpsweep"])
        # Files of before family versions name the family in their configuration only.
        family = record.get("family") or yaml.safe_load(record["config"])["family"]
    except (KeyError, ValueError, TypeError, yaml.YAMLError):
        return None
    return family, int(record.get("family_version", 0))


def _newest(schemas: dict[str, pa.Schema], versions: str) -> dict[str, pa.Schema]:
    """The files of the newest version of each family, over all the directories read;
    warns about those left out."""
    if versions == "all":
        return schemas
    if versions != "newest":
        raise ValueError(f"versions: must be 'newest' or 'all'; got {versions!r}")
    of = {file: _version(schema) for file, schema in schemas.items()}
    newest: dict[str, int] = {}
    for key in filter(None, of.values()):
        newest[key[0]] = max(newest.get(key[0], key[1]), key[1])
    old = [file for file, key in of.items() if key and key[1] < newest[key[0]]]
    if old:
        families = sorted({of[file][0] for file in old})
        warnings.warn(f"{len(old)} cells of family {', '.join(families)} were made by an "
                      "older version of the family and are left out (versions='all' keeps "
                      "them)", stacklevel=4)
    return {file: schema for file, schema in schemas.items() if file not in old}


def _datasets(
    results: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    filters: Mapping[str, Any],
    versions: str = "newest",
) -> Iterator[tuple[ds.Dataset, dict[str, pa.Schema]]]:
    """The results directories as datasets, with each file's own schema by path.

    Only cells of each family's newest version are kept (``versions="all"``: every cell).
    ``KeyError`` if a filter names no column.
    """
    paths = [results] if isinstance(results, str | os.PathLike) else list(results)
    found = {}
    for path in paths:
        with _checked(path):
            found[path] = {f.path: f.physical_schema
                           for f in ds.dataset(path, format=CHECKED).get_fragments()}
    kept = _newest({f: s for schemas in found.values() for f, s in schemas.items()}, versions)
    for path, schemas in found.items():
        schemas = {f: s for f, s in schemas.items() if f in kept}
        if not schemas:
            continue
        with _checked(path):
            # Families write different columns: read every file against the union.
            dataset = ds.dataset(list(schemas), format=CHECKED, schema=pa.unify_schemas(
                list(schemas.values()), promote_options="permissive"))
        missing = set(filters) - set(dataset.schema.names)
        if missing:
            raise KeyError(f"no column {sorted(missing)[0]!r} in {path}")
        yield dataset, schemas


def load(
    results: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    columns: Sequence[str] | None = None,
    versions: str = "newest",
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
    versions : {"newest", "all"}
        Which cells of a family to read when the directory holds several versions of
        it: the newest version's (with a warning that counts the others), or all.
    **filters
        ``column=value`` or ``column=[values]``, applied while reading, e.g.
        ``load("results", mechanism="pm1", n_agents=[30, 200])``.

    The frame's ``attrs`` hold the rows' ``index`` and ``metrics`` and the metrics'
    ``kinds``, which :func:`summarize` uses.
    """
    wanted = None if columns is None else list(dict.fromkeys([*columns, "cell_id"]))
    frames, seen, found = [], set(), Roles((), {})
    for dataset, schemas in _datasets(results, filters, versions):
        with _checked(dataset.files[:1]):
            frame = dataset.to_table(columns=wanted, filter=_expression(filters)).to_pandas()
        frames.append(frame[~frame.cell_id.isin(seen)])
        seen.update(frame.cell_id.unique())
        for schema in schemas.values():
            found = found.merged(roles_of(schema))
    if not frames:
        return pd.DataFrame(columns=wanted or ["cell_id", *ROW_KEYS])
    return present(pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0],
                   found)


def _describe(frame: pd.DataFrame, roles: Roles) -> pd.DataFrame:
    frame.attrs.update(index=list(roles.index), metrics=list(roles.metrics),
                       kinds=dict(roles.metrics))
    return frame


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
    ``source``, ``t`` and a family's own, e.g. ``node``). Adds, for each metric,
    ``<metric>_low`` and ``<metric>_high`` and the number of rows ``n``: for a
    continuous metric, mean ± one standard error (``interval="se"``) or the normal 95%
    interval (``"ci95"``); for a proportion, the Wilson score interval at z = 1 or 1.96.
    Reference rows (no replicate) pass through with a zero-width band. The roles come
    from ``frame.attrs``, as :func:`load` and :func:`sweep.execute.simulate` leave them
    (a frame without them gets the standard index and the built-in families' metrics);
    ``metrics`` selects some. The cell-constant columns come from ``cells`` (one row per
    ``cell_id``) if given, and from ``frame`` otherwise.
    """
    if interval not in ("se", "ci95"):
        raise ValueError(f"interval: must be 'se' or 'ci95'; got {interval!r}")
    width = 1.0 if interval == "se" else Z95
    roles = _given_roles(frame)
    if metrics is not None:
        roles = Roles(roles.index, {m: roles.metrics.get(m, CONTINUOUS) for m in metrics})
    names = list(roles.metrics)
    keys = [*roles.series, "t"]
    # A family's own index is missing on another family's rows: keep those rows.
    grouped = frame.groupby(keys, sort=True, observed=True, dropna=False)
    summary = grouped[names].mean()
    count = grouped.size()
    deviation = grouped[names].std(ddof=1).fillna(0.0)  # one replicate (or analytic): no spread
    summary["n"] = count
    for metric, kind in roles.metrics.items():
        if kind == PROPORTION:
            # Reference rows (no replicate) are exact: no band.
            replicated = grouped["replicate"].count() > 0
            low, high = wilson(summary[metric], grouped[metric].count(), width)
            summary[f"{metric}_low"] = low.where(replicated, summary[metric])
            summary[f"{metric}_high"] = high.where(replicated, summary[metric])
        else:
            spread = deviation[metric] / np.sqrt(count)
            summary[f"{metric}_low"] = summary[metric] - width * spread
            summary[f"{metric}_high"] = summary[metric] + width * spread
    summary = summary.reset_index()
    if cells is None:
        constant = [c for c in frame.columns
                    if c not in (*roles.index, *roles.metrics) and c != "cell_id"]
        cells = frame.drop_duplicates("cell_id")[["cell_id", *constant]]
    return _describe(summary.merge(cells, on="cell_id", how="left"), roles)


def summaries(
    results: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    interval: str = "se",
    versions: str = "newest",
    **filters: Any,
) -> pd.DataFrame:
    """:func:`summarize` of the results directories, one file (cell) at a time.

    A cell's rows are all in its own file, so summarizing file by file gives the same
    table as summarizing everything at once, with the memory of one cell; of the columns
    constant over a cell, only the first row is read. This is how large directories are
    read (see :func:`load` for ``results``, ``versions`` and ``filters``).
    """
    parts, seen, found = [], set(), Roles((), {})
    for dataset, schemas in _datasets(results, filters, versions):
        expression = _expression(filters)
        for fragment in dataset.get_fragments(filter=expression):
            # The rows' own columns in full, the cell's constants from its first row; a
            # file's roles are those its own family declared.
            own = schemas[fragment.path]
            roles = roles_of(own)
            varying = [*roles.index, *roles.metrics, "cell_id"]
            constant = [c for c in own.names if c not in varying or c == "cell_id"]
            with _checked(fragment.path):
                frame = fragment.to_table(columns=varying, filter=expression,
                                          schema=dataset.schema).to_pandas()
            frame = frame[~frame.cell_id.isin(seen)]
            if len(frame):
                seen.update(frame.cell_id.unique())
                found = found.merged(roles)
                with _checked(fragment.path):
                    cells = fragment.scanner(schema=dataset.schema, columns=constant,
                                             filter=expression).head(1).to_pandas()
                parts.append(summarize(_describe(frame, roles), interval, cells))
    if not parts:
        return pd.DataFrame(columns=["cell_id", *ROW_KEYS])
    return _describe(pd.concat(parts, ignore_index=True), found)


def summary_metrics(summary: pd.DataFrame) -> list[str]:
    """The metrics of a summary: the columns :func:`summarize` gave a band."""
    return [c for c in summary.columns if f"{c}_low" in summary.columns]


def swept(frame: pd.DataFrame) -> list[str]:
    """The cell-constant columns that take more than one value: what the sweep varied."""
    skip = {*ROW_KEYS, *frame.attrs.get("index", ()), "cell_id", "seed", "n",
            "family_version"}
    skip.update(c for c in frame.columns if c.endswith(("_low", "_high")))
    skip.update(summary_metrics(frame))
    # None and NaN both mean "does not apply" (families share one table): count once.
    return [c for c in frame.columns if c not in skip
            and frame[c].nunique() + frame[c].isna().any() > 1]
