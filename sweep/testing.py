"""A conformance suite for simulation families: what the engine assumes of a family,
checked on one small cell of it.

A family's own tests call it once per variant worth checking, with options that make a
cell of a few milliseconds::

    from sweep.testing import check_family

    def test_my_family_conforms():
        check_family("my_module:FAMILY", {"flips": 50})

Every failure is an :class:`AssertionError` whose message starts with
``family <name>: <property>:``. The properties, in the order checked:

- *declaration*: the family has every member of :class:`sweep.family.Family`, and its
  options and schema name no column twice (:func:`sweep.family.check_declaration`);
- *pickling*: the family, a prepared cell's options and the cell (what the engine sends
  to workers) pickle, and the copies give the same identity;
- *identity*: JSON-serializable, and stable: preparing the same options again, in
  another key order, or a pickled copy gives the same identity and cell id;
- *schema*: ``run`` returns the declared index and metric columns with the declared
  types, and the cell's constant columns have the types of its options (or of
  ``schema.constants``), so that every file of a directory agrees;
- *determinism*: the same cell and seed give bit-identical rows twice (the second time
  on a worker's pickled copy), and another seed gives other rows;
- *block independence*: the cell's replicates simulated at once give the same rows, bit
  for bit, as the engine's other cuts of them (halves, single replicates), each block
  run alone and the analytic rows on their own (:func:`sweep.plan.pieces`): the engine
  sizes blocks by estimated cost, so any cut may happen. The rows may come in another
  order: a row is known by its index, not by its place;
- *option validation*: an unknown option, a value of the wrong type for each option, and
  each of the caller's ``bad`` values are refused with a
  :class:`~sweep.errors.ConfigError` whose message names the key. A wrong value of an
  option that does not apply to the cell may instead be ignored, if the cell stays the
  same (its id unchanged): the families reset such options to their defaults.
"""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
import sys
import typing
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pyarrow as pa

from .errors import ConfigError
from .execute import compute
from .family import Family, families, get_family
from .plan import Cell, Piece, make_cell
from .results import arrow_type, option_columns

#: An option name no family has: an unknown option must be refused naming it.
UNKNOWN = "no_such_option"


def check_family(family: str | Family, options: Mapping[str, Any] | None = None, *,
                 replicates: int = 4, seed: int = 0, bad: Mapping[str, Any] | None = None
                 ) -> None:
    """Check the engine's contract (see the module docstring) on the cell of ``family``
    with ``options`` (by name, nested groups as dicts), ``replicates`` (at least 2, to
    be split) and ``seed``; :class:`AssertionError` naming the family and the property
    on the first failure.

    ``bad`` maps option names (``group.key`` in a nested group) to values the family
    must refuse in that cell, such as values out of range (``{"p": 1.5}``).

    ``family`` is a name of :func:`sweep.family.families`, an import path
    ``module:attribute``, or the family object itself (bound to a name of its module).
    """
    if replicates < 2:
        raise ValueError(f"replicates: must be at least 2 (a cell to split); got {replicates}")
    spec = _spec(family)
    try:
        loaded = get_family(spec)
    except ConfigError as error:
        raise AssertionError(f"family {spec}: declaration: {error}") from None
    config = {"family": spec, "replicates": replicates, "seed": seed, **(options or {})}
    try:
        # Prepared here first, so that an identity the engine cannot hash is named.
        _canonical(spec, loaded.identity(loaded.prepare(dict(options or {}), replicates)))
        cell = make_cell(config)
    except ConfigError as error:
        raise AssertionError(f"family {spec}: the options to check are refused: {error}"
                             ) from None
    copy = _pickles(spec, cell)
    _identity_is_stable(spec, cell, copy, config)
    _schema_is_kept(spec, cell)
    _deterministic(spec, cell, copy)
    _blocks_are_independent(spec, cell)
    _bad_options_are_refused(spec, cell, config, bad or {})


def _spec(family: str | Family) -> str:
    """The name the engine loads ``family`` by: its registered name if it is built in."""
    if isinstance(family, str):
        return family
    module = sys.modules.get(type(family).__module__)
    attribute = next((k for k, v in vars(module or object).items() if v is family), None)
    if attribute is None:
        raise ValueError(f"family: {family!r} is not bound to a name of its module "
                         f"{type(family).__module__}; pass its import path module:attribute")
    path = f"{module.__name__}:{attribute}"
    return next((name for name, known in families().items() if known == path), path)


def _fail(spec: str, prop: str, message: str) -> typing.NoReturn:
    raise AssertionError(f"family {spec}: {prop}: {message}")


def _pickles(spec: str, cell: Cell) -> Cell:
    """The cell as a worker receives it, after checking that it and its parts pickle."""
    family = get_family(spec)
    for what, value in (("the family object", family), ("its prepared options", cell.prepared),
                        ("a cell", cell)):
        try:
            pickle.loads(pickle.dumps(value))
        except Exception as error:  # any failure to pickle is the finding
            _fail(spec, "pickling", f"{what} cannot be pickled ({type(error).__name__}: "
                  f"{error}); the engine sends it to worker processes")
    return pickle.loads(pickle.dumps(cell))


def _canonical(spec: str, identity: Any) -> str:
    try:
        return json.dumps(identity, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as error:
        _fail(spec, "identity", f"not JSON-serializable ({error}): {identity!r}")


def _reversed(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with their keys (and those of nested groups) in reverse order."""
    return {k: _reversed(v) if isinstance(v, Mapping) else v
            for k, v in reversed(list(options.items()))}


def _identity_is_stable(spec: str, cell: Cell, copy: Cell, config: Mapping[str, Any]) -> None:
    family = get_family(spec)
    text = _canonical(spec, family.identity(cell.prepared))
    cases = {"the same options prepared again": make_cell(dict(config)),
             "the options in another key order": make_cell(_reversed(config))}
    for what, other in cases.items():
        again = _canonical(spec, family.identity(other.prepared))
        if again != text or other.cell_id != cell.cell_id:
            _fail(spec, "identity", f"{what} give another identity: {again} against {text}")
    if _canonical(spec, family.identity(copy.prepared)) != text:
        _fail(spec, "identity", "a pickled copy of the prepared options gives another "
              "identity")


def _rows(cell: Cell, cuts: list[tuple[int, int, bool]]) -> pa.Table:
    """The cell's table as the engine assembles it from pieces ``(start, stop,
    analytic)``: each computed alone, concatenated replicates first, analytic rows last
    (:class:`sweep.execute._Collector`)."""
    parts = sorted(cuts, key=lambda cut: (cut[2], cut[0]))
    return pa.concat_tables([compute(Piece(cell, start, stop, analytic, 0.0))
                             for start, stop, analytic in parts])


def _differences(first: pa.Table, second: pa.Table) -> Iterator[str]:
    """Where two tables differ, bit for bit (NaNs equal where their bits are)."""
    if first.column_names != second.column_names:
        yield f"columns {first.column_names} against {second.column_names}"
        return
    if first.num_rows != second.num_rows:
        yield f"{first.num_rows} rows against {second.num_rows}"
        return
    for name in first.column_names:
        a = first.column(name).to_numpy(zero_copy_only=False)
        b = second.column(name).to_numpy(zero_copy_only=False)
        if a.dtype.kind == "f" and b.dtype == a.dtype:
            same = a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}")
        else:
            same = np.array([x == y or (x is None and y is None) for x, y in zip(a, b,
                                                                                 strict=True)])
        if not same.all():
            row = int(np.flatnonzero(~same)[0])
            yield f"column {name!r}, row {row}: {a[row]!r} against {b[row]!r}"
            return


def _deterministic(spec: str, cell: Cell, copy: Cell) -> None:
    analytic = get_family(spec).has_analytic(cell.prepared)
    whole = [(0, cell.replicates, analytic)]
    first = _rows(cell, whole)
    for difference in _differences(first, _rows(copy, whole)):
        _fail(spec, "determinism", f"the same cell and seed gave other rows ({difference})")
    other = _rows(dataclasses.replace(cell, seed=cell.seed + 1), whole)
    simulated = np.asarray(first.column("replicate").is_valid())
    metrics = get_family(spec).schema.metrics
    if all(np.array_equal(first.column(m).to_numpy(zero_copy_only=False)[simulated],
                          other.column(m).to_numpy(zero_copy_only=False)[simulated],
                          equal_nan=True) for m in metrics):
        _fail(spec, "determinism", f"seed {cell.seed + 1} gave the same metrics as seed "
              f"{cell.seed}: the replicates do not draw from their seeds")


def _sorted(table: pa.Table, family: Family) -> pa.Table:
    """``table``'s rows in the order of their index, then of their metrics."""
    keys = [*family.schema.index_names, *family.schema.metrics]
    return table.sort_by([(key, "ascending") for key in keys])


def _blocks_are_independent(spec: str, cell: Cell) -> None:
    family = get_family(spec)
    analytic = family.has_analytic(cell.prepared)
    count = cell.replicates
    whole = _sorted(_rows(cell, [(0, count, analytic)]), family)
    extra = [(0, 0, True)] if analytic else []
    cuts = {"two blocks": [(0, count // 2, False), (count // 2, count, False), *extra],
            "one block per replicate": [(r, r + 1, False) for r in range(count)] + extra}
    for what, pieces in cuts.items():
        for difference in _differences(whole, _sorted(_rows(cell, pieces), family)):
            _fail(spec, "block independence", f"the {count} replicates run at once and "
                  f"in {what} give other rows ({difference}); a replicate's rows must "
                  "depend only on its own seed")


def _schema_is_kept(spec: str, cell: Cell) -> None:
    family = get_family(spec)
    rows = family.run(cell.prepared, cell.seeds(0, cell.replicates), range(cell.replicates),
                      family.has_analytic(cell.prepared))
    declared = family.schema.arrow
    names = list(rows if isinstance(rows, Mapping) else rows.columns)
    if sorted(names) != sorted(declared.names):
        _fail(spec, "schema", f"run returned columns {sorted(names)}; the schema declares "
              f"{sorted(declared.names)}")
    for target in declared:
        produced = pa.array(rows[target.name], from_pandas=True).type
        nullable = target.name == "replicate" and produced == pa.float64()  # NaN for None
        if produced not in (target.type, pa.null()) and not nullable:
            _fail(spec, "schema", f"run returned column {target.name!r} as {produced}; "
                  f"the schema declares {target.type}")
    types = {name: arrow_type(declared) if declared else None for name, declared in
             {**option_columns(family.options), **family.schema.constants}.items()}
    columns = family.columns(cell.prepared)
    missing = sorted(set(option_columns(family.options)) - set(columns))
    if missing:
        _fail(spec, "schema", f"columns() leaves out the option {missing[0]!r}: every option "
              "is stored as a column (sweep.options.describe), so that results read "
              "without the family's defaults")
    for name, value in columns.items():
        if value is None and types.get(name) is None:
            _fail(spec, "schema", f"columns() gives {name!r} as None, and no type for it "
                  "(an option's annotation, or schema.constants): it would be stored as "
                  "Arrow's null type, unlike the cells where it has a value")
        produced = pa.array([value]).type
        if types.get(name) is not None and produced not in (types[name], pa.null()):
            _fail(spec, "schema", f"columns() gives {name!r} as {produced}; the option "
                  f"declares {types[name]}")


def _bad_values(options: type, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """For each option (a nested group's as ``group.key``): its name and a value of the
    wrong type for it."""
    hints = typing.get_type_hints(options)
    for f in dataclasses.fields(options):
        hint = hints[f.name]
        if dataclasses.is_dataclass(hint):
            yield from _bad_values(hint, f"{prefix}{f.name}.")
            continue
        # A number where words (or a list of them) are expected, words elsewhere.
        textual = str in (typing.get_args(hint) or (hint,))
        yield f"{prefix}{f.name}", math.pi if textual else "not a value"


def _assignment(name: str, value: Any) -> dict[str, Any]:
    """``{"a": {"b": value}}`` for the dotted name ``a.b``."""
    head, _, rest = name.partition(".")
    return {head: _assignment(rest, value) if rest else value}


def _merged(config: Mapping[str, Any], assignment: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` with ``assignment`` applied, into nested groups."""
    merged = dict(config)
    for key, value in assignment.items():
        inner = merged.get(key)
        merged[key] = (_merged(inner, value) if isinstance(value, Mapping)
                       and isinstance(inner, Mapping) else value)
    return merged


def _bad_options_are_refused(spec: str, cell: Cell, config: Mapping[str, Any],
                             bad: Mapping[str, Any]) -> None:
    family = get_family(spec)
    cases = [(UNKNOWN, 1, True), *((n, v, True) for n, v in bad.items()),
             *((n, v, False) for n, v in _bad_values(family.options))]
    for name, value, refused in cases:
        try:
            other = make_cell(_merged(config, _assignment(name, value)))
        except ConfigError as error:
            if name not in str(error):
                _fail(spec, "option validation", f"{name} = {value!r} is refused with a "
                      f"message that does not name {name!r}: {error}")
            continue
        except Exception as error:  # what a user would see instead of a one-line error
            _fail(spec, "option validation", f"{name} = {value!r} raised "
                  f"{type(error).__name__} ({error}), not a ConfigError naming the key")
        if refused or other.cell_id != cell.cell_id:
            _fail(spec, "option validation", f"{name} = {value!r} is accepted")
