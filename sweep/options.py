"""Checks shared by the families' option dataclasses.

Every check raises :class:`~sweep.errors.ConfigError` with one line naming the option and
its allowed range, before any work starts.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

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


def as_floats(cls: type, options: dict[str, Any]) -> dict[str, Any]:
    """Integers given for float options as floats: equal values, one spelling (and cell id)."""
    return {
        key: float(value)
        if dataclasses.is_dataclass(cls) and key in cls.__dataclass_fields__
        and cls.__dataclass_fields__[key].type == "float" and real(value)
        else value
        for key, value in options.items()
    }


def plain_options(cls: type, options: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``options`` checked against the fields of ``cls``, as plain Python values.

    Unknown names are rejected; numpy scalars and arrays become Python values and lists
    become tuples (the frozen dataclasses hold tuples), integers of float fields floats.
    """
    names = {f.name for f in dataclasses.fields(cls)}
    for name in options:
        if name not in names:
            raise ConfigError(f"{prefix}{name}: unknown option; allowed: "
                              + ", ".join(prefix + n for n in sorted(names)))
    plain = {}
    for key, value in options.items():
        if isinstance(value, np.generic | np.ndarray):
            value = value.tolist()
        if isinstance(value, Sequence) and not isinstance(value, str):
            value = tuple(float(v) if isinstance(v, float | np.floating) else v for v in value)
        plain[key] = value
    return as_floats(cls, plain)


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
