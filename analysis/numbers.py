"""How the documents write numbers: significant digits, scientific notation, shares,
ranges, means with their errors, intervals, p-values and durations."""

from __future__ import annotations

from collections.abc import Callable, Iterable


def _short_exponent(text: str) -> str:
    mantissa, _, exponent = text.partition("e")
    return mantissa + (f"e{int(exponent)}" if exponent else "")


def number(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits (``1.20``, ``0.00150``); integers with
    thousands separators from 10^digits on (``1,225``), a short exponent for small values
    (``1.60e-5``)."""
    if abs(x) >= 10 ** digits - 0.5:
        return f"{x:,.0f}"
    # "#" keeps significant trailing zeros, and a trailing point to strip.
    mantissa, _, exponent = f"{x:#.{digits}g}".partition("e")
    return _short_exponent(mantissa.rstrip(".") + (f"e{exponent}" if exponent else ""))


def sci(x: float) -> str:
    """``x`` in scientific notation to three digits: ``4.01e-7``."""
    return _short_exponent(f"{x:.2e}")


def percent(x: float) -> str:
    """A share as a percentage to two significant digits: ``11%``, ``0.17%``."""
    return f"{number(100 * x, 2)}%"


def span(values: Iterable[float], fmt: Callable[[float], str] = number) -> str:
    """The range of ``values`` as ``low–high``, or one value if they print alike."""
    values = list(values)
    low, high = fmt(min(values)), fmt(max(values))
    return low if low == high else f"{low}–{high}"


def with_error(value: float, se: float, fmt: Callable[[float], str] | None = None) -> str:
    """A mean with its standard error: ``1.55 ± 0.24`` (the error to two digits), or both
    in ``fmt``: ``4.01e-7 ± 3.72e-8`` with :func:`sci`."""
    return f"{number(value)} ± {number(se, 2)}" if fmt is None else f"{fmt(value)} ± {fmt(se)}"


def duration(seconds: float) -> str:
    """Seconds as ``56 s`` or ``2 min 3 s``."""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def interval(low: float, high: float, fmt: Callable[[float], str] = number) -> str:
    """An interval as ``[low, high]``."""
    return f"[{fmt(low)}, {fmt(high)}]"


def pvalue(x: float) -> str:
    """A p-value: ``0.27``, ``0.0090``, ``3.97e-6``."""
    return number(x, 2) if x >= 1e-3 else sci(x)
