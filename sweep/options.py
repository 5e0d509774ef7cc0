"""Checks shared by the families' option dataclasses.

Every check raises :class:`~sweep.errors.ConfigError` with one line naming the option and
its allowed range, before any work starts.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import itertools
import math
import types
import typing
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, TypeVar, Union

import numpy as np

from .errors import ConfigError

T = TypeVar("T")


def fail(name: str, allowed: str, value: Any) -> None:
    raise ConfigError(f"{name}: must be {allowed}; got {value!r}")


def choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        fail(name, "one of " + ", ".join(choices), value)


def integer(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        fail(name, f"an integer >= {low}", value)


def in_range(name: str, value: Any, low: float, high: float, allowed: str) -> None:
    """``low < value <= high`` and finite (``allowed`` words the range in the message)."""
    if not real(value) or not (low < value <= high) or not math.isfinite(value):
        fail(name, allowed, value)


def real(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool
    )


def as_dict(value: Any) -> dict[str, Any]:
    """:func:`dataclasses.asdict` of a frozen dataclass of immutable values, without its
    deep copies (a tenth of a millisecond per cell of a sweep)."""
    return {f.name: as_dict(v) if dataclasses.is_dataclass(v := getattr(value, f.name)) else v
            for f in dataclasses.fields(value)}


def identity_options(config: Any, later: Iterable[str] = ()) -> dict[str, Any]:
    """:func:`as_dict` of ``config`` for a cell's identity, without the options in ``later``
    that keep their defaults.

    ``later`` names the options a family added after its first results: a cell that
    leaves them at their defaults keeps its identity, hence its random streams and its
    stored results, and a cell that sets one is a new cell.
    """
    defaults = {f.name: f.default for f in dataclasses.fields(config)}
    return {name: value for name, value in as_dict(config).items()
            if name not in later or value != defaults[name]}


def flat_columns(config: Any) -> dict[str, Any]:
    """A family's options as result columns: a nested option group's as ``group.key``
    (``graph.kind``), a tuple as comma-separated text; ``method``, a row column of every
    family, and ``checkpoints`` (the rows' times) left out."""
    columns: dict[str, Any] = {}
    for name, value in as_dict(config).items():
        if name in ("method", "checkpoints"):
            continue
        if isinstance(value, dict):
            columns.update({f"{name}.{key}": v for key, v in value.items()})
        elif isinstance(value, tuple):
            columns[name] = ",".join(v if isinstance(v, str) else f"{v:g}" for v in value)
        else:
            columns[name] = value
    return columns


#: How :func:`plain_options` spells a field's values: integers of a float field as floats,
#: integral floats of an integer field (or in its tuple of integers) as ints, so that
#: equal values have one spelling and one cell id (``t_max=1e4`` is ``t_max=10000``).
FLOAT, INT = "float", "int"


@functools.cache
def _kinds(cls: type) -> dict[str, str | None]:
    """Each field of ``cls`` by name: :data:`FLOAT`, :data:`INT` or None."""
    hints = typing.get_type_hints(cls)
    kinds: dict[str, str | None] = {}
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        union = typing.get_origin(hint) in (Union, types.UnionType)
        types_ = typing.get_args(hint) if union else (hint,)
        integral = int in types_ or tuple[int, ...] in types_
        kinds[f.name] = (FLOAT if hint is float else
                         INT if integral and float not in types_ else None)
    return kinds


def _integral(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def unknown_key(name: str, names: Collection[str], prefix: str = "",
                listing: str = "allowed") -> str:
    """The one-line error for the unknown option ``prefix + name``: the closest of
    ``names`` (the keys next to it) if one is close, as a typo's fix, then all of them."""
    close = difflib.get_close_matches(name, names, n=1)
    guess = f" did you mean {prefix}{close[0]}?" if close else ""
    return (f"{prefix}{name}: unknown option;{guess} {listing}: "
            + ", ".join(prefix + n for n in sorted(names)))


def plain_options(cls: type, options: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``options`` checked against the fields of ``cls``, as plain Python values.

    Unknown names are rejected; numpy scalars and arrays become Python values and lists
    become tuples (the frozen dataclasses hold tuples), integers of float fields floats
    and integral floats of integer fields ints.
    """
    kinds = _kinds(cls)
    for name in options:
        if name not in kinds:
            raise ConfigError(unknown_key(name, kinds, prefix))
    plain = {}
    for key, value in options.items():
        if isinstance(value, np.generic | np.ndarray):
            value = value.tolist()
        if isinstance(value, Sequence) and not isinstance(value, str):
            value = tuple(float(v) if isinstance(v, float | np.floating) else v for v in value)
        kind = kinds[key]
        if kind == FLOAT and real(value):
            value = float(value)
        elif kind == INT:
            value = tuple(map(_integral, value)) if isinstance(value, tuple) else (
                _integral(value))
        plain[key] = value
    return plain


def check_checkpoints(checkpoints: int | tuple[int, ...], last: int, name: str) -> None:
    """A count of checkpoints, or increasing times in [1, ``last``] (``name`` its key)."""
    if isinstance(checkpoints, tuple):
        times = checkpoints
        if (
            not times
            or not all(isinstance(t, int | np.integer) for t in times)
            or any(b <= a for a, b in itertools.pairwise(times))
            or times[0] < 1
            or times[-1] > last
        ):
            fail("checkpoints", f"increasing integers in [1, {name} = {last}]", times)
    else:
        integer("checkpoints", checkpoints, 1)


def checkpoint_times(checkpoints: int | tuple[int, ...], last: int) -> np.ndarray:
    """Times at which metrics are recorded, always including ``last``.

    A count n gives min(n, last) distinct times: log-spaced from 1 to ``last``, pushed
    apart where rounding would merge them (so the first ones are 1, 2, 3, ...).
    """
    if isinstance(checkpoints, tuple):
        return np.asarray(checkpoints, dtype=np.int64)
    n = min(checkpoints, last)
    if n == 1:
        return np.array([last], dtype=np.int64)
    times = np.rint(np.geomspace(1.0, last, n)).astype(np.int64)
    times = np.maximum(times, np.arange(1, n + 1))  # at least i + 1 at position i
    for i in range(1, n):
        times[i] = max(times[i], times[i - 1] + 1)
    return times
