"""The results contract: what a family's rows vary by, and what its metrics are.

A family declares a :class:`ResultSchema`: its *index* (the columns its rows vary by:
``method``, ``source``, ``replicate``, ``t`` and any of its own, such as ``node``) and its
*metrics*, each of a :data:`KIND`. Its ``run`` returns those columns only. The engine
then, in :func:`cell_table`, checks the rows against the declaration, attaches the cell's
constant columns once, and marks every column's role in the Parquet field metadata, so
that any reader (:mod:`analysis.load`) knows a file's index and metrics without importing
the family that wrote it.

Roles in the field metadata (key :data:`ROLE_KEY`): ``index``, ``metric`` (with its kind
under :data:`KIND_KEY`) and ``constant``.

Column types are Arrow types or their names (``"int64"``, ``"string"``; Arrow's aliases).
The families name them, so that a declaration loads no pyarrow: planning a sweep, its
dry run and ``--help`` read the declarations and never build a table. pyarrow is loaded
by the functions that do.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import FamilyError
from .options import PERMIT, ROWS, declaration

if TYPE_CHECKING:
    from typing import TypeAlias

    import pandas as pd
    import pyarrow as pa

    #: A column's type: an Arrow type, or its name (Arrow's alias: ``"int64"``, ``"bool"``).
    ArrowType: TypeAlias = pa.DataType | str

#: The index every family's rows have (analytic or reference rows have no replicate).
STANDARD_INDEX: dict[str, str] = {
    "method": "string", "source": "string", "replicate": "int64", "t": "int64",
}
#: A metric summarized by its mean over replicates, with mean ± SE or a normal 95% interval.
CONTINUOUS = "continuous"
#: A metric whose values are indicators or proportions in [0, 1], summarized by its mean
#: with a Wilson score interval.
PROPORTION = "proportion"
METRIC_KINDS = (CONTINUOUS, PROPORTION)
#: Keys of a configuration that say how to run, not what: they are not part of a cell,
#: and no option may take their names.
EXECUTION_KEYS = ("results_dir", "executor", "dry_run", "recompute", "threads", "processes",
                  "ray")
#: Columns the engine adds to every row: they describe the cell, not the row.
ENGINE_COLUMNS = ("family", "family_version", "seed", "replicates", "cell_id")
#: The replicates a cell of ``replicates=auto`` needs for its target (Stein's N, before
#: ``target.max``: above ``replicates``, the cell stopped there); only its cells have it.
NEEDED = "replicates_needed"
#: Columns the analysis adds to summaries (the replicate count and the bands' suffixes).
SUMMARY_COLUMNS = ("n",)
ROLE_KEY = b"dpsweep"
KIND_KEY = b"dpsweep.kind"
INDEX, METRIC, CONSTANT = b"index", b"metric", b"constant"


@dataclass(frozen=True)
class Metric:
    """A measured column: its kind (:data:`CONTINUOUS` or :data:`PROPORTION`) and dtype."""

    kind: str = CONTINUOUS
    dtype: ArrowType = "float64"

    def __post_init__(self) -> None:
        if self.kind not in METRIC_KINDS:
            raise ValueError(f"kind: must be one of {', '.join(METRIC_KINDS)}; got {self.kind!r}")


@dataclass(frozen=True)
class ResultSchema:
    """What a family's rows vary by (``index``, after :data:`STANDARD_INDEX`) and measure.

    >>> ResultSchema(metrics={"mse": Metric()}, index={"node": "int64"}).index_names
    ('method', 'source', 'replicate', 't', 'node')
    """

    metrics: Mapping[str, Metric]
    index: Mapping[str, ArrowType] = field(default_factory=dict)
    #: The Arrow types of the cell columns the family derives beyond its options (its
    #: ``columns()``), so that a cell where one does not apply (None) stores it with that
    #: type and the files of a directory agree.
    constants: Mapping[str, ArrowType] = field(default_factory=dict)

    @property
    def index_names(self) -> tuple[str, ...]:
        return (*STANDARD_INDEX, *self.index)

    @functools.cached_property
    def arrow(self) -> pa.Schema:
        """The rows' schema as a family returns them, with every field's role marked.

        Its pandas metadata makes pandas read ``replicate`` as a nullable integer, which
        it is (analytic rows have none), whichever way the family built its rows.
        """
        import pyarrow as pa

        fields = [pa.field(n, arrow_type(t), metadata={ROLE_KEY: INDEX})
                  for n, t in {**STANDARD_INDEX, **self.index}.items()]
        fields += [pa.field(n, arrow_type(m.dtype),
                            metadata={ROLE_KEY: METRIC, KIND_KEY: m.kind.encode()})
                   for n, m in self.metrics.items()]
        empty = pa.schema(fields).empty_table().to_pandas().astype({"replicate": "Int64"})
        return pa.schema(fields, metadata=pa.Schema.from_pandas(empty,
                                                                preserve_index=False).metadata)

    def reserved(self) -> set[str]:
        """Names no option may take: metrics, and the columns the engine or the analysis
        add. (An option may share an index column's name, e.g. ``method``, as long as
        the family does not also make it a constant column: :func:`cell_table` checks.)"""
        bands = {f"{m}{suffix}" for m in self.metrics for suffix in ("_low", "_high")}
        return {*self.metrics, *ENGINE_COLUMNS, NEEDED, *SUMMARY_COLUMNS, *bands}


def check_schema(name: str, schema: ResultSchema) -> None:
    """:class:`FamilyError` if ``schema`` names a column twice, or one of the engine's."""
    names = [*STANDARD_INDEX, *schema.index, *schema.metrics, *ENGINE_COLUMNS,
             *schema.constants]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise FamilyError(f"family {name}: column {twice[0]!r} is declared twice (or is a "
                          "standard index or engine column)")
    if not schema.metrics:
        raise FamilyError(f"family {name}: declares no metric")


def arrow_type(declared: ArrowType) -> pa.DataType:
    """The Arrow type a declaration names (an Arrow type is itself)."""
    import pyarrow as pa

    return pa.type_for_alias(declared) if isinstance(declared, str) else declared


#: Arrow types of option values, by Python type; other options (tuples, unions) are
#: stored as the family's columns() gives them.
_ARROW_TYPES = {bool: "bool", int: "int64", float: "float64", str: "string"}


@functools.cache
def option_columns(options: type) -> dict[str, str | None]:
    """The result columns an option dataclass gives (nested groups joined with '.'): every
    option but the ``rows`` and ``permit`` ones (:func:`sweep.options.describe`), with the
    Arrow type of each where its annotation says (``X | None`` counts as X).

    A missing value (an option that does not apply) is stored with that type, so that a
    directory's files agree on their columns' types whatever each cell left out.
    """
    hints = typing.get_type_hints(options)
    columns: dict[str, str | None] = {}
    for f in dataclasses.fields(options):
        hint = hints[f.name]
        if declaration(f).kind in (ROWS, PERMIT):
            continue
        if dataclasses.is_dataclass(hint):
            columns.update({f"{f.name}.{n}": t for n, t in option_columns(hint).items()})
            continue
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        columns[f.name] = _ARROW_TYPES.get(args[0] if len(args) == 1 else hint)
    return columns


def cell_rows(tables: Sequence[pa.Table]) -> pa.Table:
    """A cell's rows from the tables of its pieces (or of its stored replicates and an
    extension's): by replicate, a replicate's rows in the family's order (a stable sort),
    the rows of no replicate (analytic, reference) last. So they are the same however
    the replicates were cut into pieces, or added to a stored cell."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.concat_tables(tables, promote_options="default")
    # Arrow places nulls last by default.
    return table.take(pc.sort_indices(table, sort_keys=[("replicate", "ascending")]))


def cell_table(family: str, schema: ResultSchema, rows: pd.DataFrame | Mapping[str, Any],
               constants: Mapping[str, Any],
               types: Mapping[str, ArrowType | None] | None = None) -> pa.Table:
    """A family's rows, checked against its schema, with the cell's constant columns.

    ``types`` give the Arrow type of constants that are None (:func:`option_columns`);
    a None without one is stored as Arrow's null type.

    :class:`FamilyError` naming the family and the column if a declared column is
    missing, an undeclared one is present, a value does not convert to the declared
    dtype, an index column other than ``replicate`` has a missing value, or a
    :data:`PROPORTION` metric leaves [0, 1].
    """
    import pyarrow as pa

    declared = schema.arrow
    names = list(rows if isinstance(rows, Mapping) else rows.columns)
    for name in declared.names:
        if name not in names:
            raise FamilyError(f"family {family}: run returned no column {name!r}")
    for name in names:
        if name not in declared.names:
            raise FamilyError(f"family {family}: run returned undeclared column {name!r} "
                              "(declare it in the family's ResultSchema, or leave it out: "
                              "constant columns come from columns())")
    # Column by column: pa.Table.from_pandas costs a millisecond a call in pandas
    # metadata, more than a tiny cell's simulation.
    arrays = []
    for target in declared:
        try:
            arrays.append(pa.array(rows[target.name], type=target.type, from_pandas=True))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as error:
            raise FamilyError(f"family {family}: column {target.name}: "
                              f"{' '.join(str(error).split())}") from None
    table = pa.Table.from_arrays(arrays, schema=declared)
    for target in declared:
        column = table.column(target.name)
        if target.metadata[ROLE_KEY] == INDEX and target.name != "replicate" and (
                column.null_count):
            raise FamilyError(f"family {family}: index column {target.name!r} has "
                              "missing values")
        if target.metadata.get(KIND_KEY) == PROPORTION.encode():
            values = column.to_numpy()
            if np.any((values < 0) | (values > 1)):
                raise FamilyError(f"family {family}: proportion {target.name!r} has values "
                                  "outside [0, 1]")
    for name in constants:
        if name in declared.names:
            raise FamilyError(f"family {family}: column {name!r} is both a row column and "
                              "a constant of the cell")
    types = types or {}
    # One row of the constants, repeated by one take for every column at once.
    arrays = [pa.array([v], type=arrow_type(types[n]) if types.get(n) else
                       pa.null() if v is None else None)
              for n, v in constants.items()]
    one = pa.Table.from_arrays(arrays, schema=pa.schema(
        [pa.field(n, a.type, metadata={ROLE_KEY: CONSTANT})
         for n, a in zip(constants, arrays, strict=True)]))
    repeated = one.take(np.zeros(len(table), dtype=np.int64))
    return pa.Table.from_arrays([*table.columns, *repeated.columns],
                                schema=pa.schema([*table.schema, *repeated.schema],
                                                 metadata=table.schema.metadata))


def roles(schema: pa.Schema) -> tuple[list[str], dict[str, str]] | None:
    """The index columns and the metrics (name → kind) a file's schema marks, or None.

    Files written before the roles were marked give None; see :mod:`analysis.load`.
    """
    index, metrics = [], {}
    for f in schema:
        role = (f.metadata or {}).get(ROLE_KEY)
        if role == INDEX:
            index.append(f.name)
        elif role == METRIC:
            metrics[f.name] = (f.metadata.get(KIND_KEY) or CONTINUOUS.encode()).decode()
    return (index, metrics) if index else None
