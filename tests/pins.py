"""Stored references, and the one rule every comparison with them follows.

A reference stores its values with the fingerprint of the arithmetic that computed them
(:func:`sweep.arithmetic.fingerprint`: the C library's math variants, numpy's SIMD
targets, numba's target CPU, the BLAS kernels, the versions). Compared with it:

- **Integers, booleans and strings** (counts, decisions, flags, labels) are equal
  everywhere: the code alone determines them.
- **Floats, in a process of the same fingerprint**, are equal to the last bit: the same
  code on the same arithmetic gives the same bits, so any difference is a change of the
  code.
- **Floats elsewhere** are equal to within :data:`ULPS` units in the last place (ulp) of
  the larger of the two, element by element; NaN matches NaN and an infinity itself.

Why :data:`ULPS` = 2¹⁰ (a relative 2.3·10⁻¹³):

- One call of a math function differs between two arithmetics by a few ulps at most.
  Measured on 2·10⁶ arguments: numpy's AVX-512 exp and log against glibc's, at most 1
  ulp (tanh 3); glibc's FMA variants against its SSE2 ones, at most 1 ulp for exp, log,
  pow, sin and cos (tanh 3; more only close to lgamma's zeros at 1 and 2).
- A pinned value is a well-conditioned function of such results. MSE curves, closed
  forms and means are sums of positive terms, products and quotients. The worst step is
  the cancellation in an estimate minus its mean, which at the stored checkpoints loses
  less than 2⁷ of relative precision once squared. So 4 ulps × 2⁷ × 2 accumulated
  differences stays within 2¹⁰.
- Measured: with numba's target forced to ``generic``, numpy's AVX-512 loops disabled
  and glibc's FMA variants masked (``tests/test_pins.py``), the largest difference over
  every pinned float was 1 ulp.
- The tolerance is about 10⁴ times tighter than the relative 10⁻⁹ the suite allowed
  before, and far below what a change of method does to a result. A changed formula, a
  changed random number or a changed decision moves a value by 10⁻⁸ or more, relative.

A decision that an ulp flips (a test statistic within an ulp of its threshold) would
change every later value and fail the comparison, as it should. It is about as likely as
drawing one given double.
"""

from __future__ import annotations

import base64
import zlib
from typing import Any

import numpy as np

from sweep.arithmetic import differences, fingerprint

#: Units in the last place that two arithmetics may put between a pinned float's values.
ULPS = 2**10


def same_arithmetic(stored: dict[str, str]) -> bool:
    """Whether this process does the arithmetic of the one that wrote ``stored``."""
    return not differences(stored)


def ulps(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """The distance between two float arrays in ulps of their own precision (float32's
    for float32 arrays) at the larger magnitude, element by element (0 where both are
    equal, NaN or the same infinity)."""
    dtype = np.result_type(actual, expected, np.float32)
    actual, expected = np.asarray(actual, dtype), np.asarray(expected, dtype)
    same = (actual == expected) | (np.isnan(actual) & np.isnan(expected))
    with np.errstate(invalid="ignore", over="ignore"):
        scale = np.spacing(np.maximum(np.abs(actual), np.abs(expected))).astype(np.float64)
        distance = np.abs(actual.astype(np.float64) - expected) / scale
    return np.where(same, 0.0, np.where(np.isfinite(distance), distance, np.inf))


def assert_pinned(actual: Any, expected: Any, exact: bool, name: str = "") -> None:
    """``actual`` against its stored value by the module's rule: exact for integers,
    booleans, strings and, when ``exact`` (the same arithmetic), floats; floats within
    :data:`ULPS` ulps otherwise. Arrays must also have the stored dtype and shape."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert (actual.dtype.str, actual.shape) == (expected.dtype.str, expected.shape), name
    if exact or actual.dtype.kind != "f":
        np.testing.assert_array_equal(actual, expected, err_msg=name, strict=True)
        return
    distance = ulps(actual, expected)
    worst = float(distance.max(initial=0.0))
    assert worst <= ULPS, (
        f"{name}: {int(np.count_nonzero(distance > ULPS))} of {distance.size} values differ "
        f"by more than {ULPS} ulps (the largest by {worst:.3g}: "
        f"{actual.flat[distance.argmax()]!r} against {expected.flat[distance.argmax()]!r})")


def encode(array: np.ndarray) -> dict[str, Any]:
    """An array as JSON, exactly: dtype, shape and its bytes in C order (deflated, in
    base64)."""
    array = np.ascontiguousarray(array)
    return {"dtype": array.dtype.str, "shape": list(array.shape),
            "bytes": base64.b64encode(zlib.compress(array.tobytes(), 9)).decode("ascii")}


def decode(stored: dict[str, Any]) -> np.ndarray:
    data = zlib.decompress(base64.b64decode(stored["bytes"]))
    return np.frombuffer(data, dtype=stored["dtype"]).reshape(stored["shape"])


def stamp(values: dict[str, Any]) -> dict[str, Any]:
    """A reference to store: ``values`` with this process's arithmetic."""
    return {"arithmetic": fingerprint(), **values}
