"""The papers' statements as data, and the one function that decides them.

A :class:`Statement` declares one statement of a paper: where it is made (``section``),
its words (``quote``), the cases it covers (``cases``), what is measured in each case
(``select``: named calls of the study's measures, :data:`M`), and how the rule's
evidence is made of those numbers (``rule``: :class:`Below`, :class:`Near`,
:class:`Rate`, :class:`Given` or :class:`NoRule`). :func:`evaluate` turns a list of statements into
the rows of a claims table (:class:`~analysis.claims.Claim`), one per case. A study
keeps only its *measures*: a class whose methods compute, from the results, a number
(exact), an :class:`Estimate` (a mean with its standard error), an :class:`Interval`, the
runs of a quantity (paired across cells on common random numbers) or a piece of evidence
made whole.

The texts of a statement (``case``, ``ours``, ``reading`` and a rule's ``what``) are
templates (:func:`fill`): ``{name}`` is a case's parameter, a selected number or one of
the section's values; ``{x:sci}`` writes a number as the documents do
(:data:`FORMATS`), ``{schedule:schedule}`` names a value in the paper's words
(:func:`analysis.labels.name`: a spec that is a column of the vocabulary), and any other
spec is Python's (``{t:,}``, ``{r:.3g}``).
"""

from __future__ import annotations

import functools
import itertools
import math
import string
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .claims import (
    Claim,
    Evidence,
    Factor,
    Match,
    Ordering,
    Slope,
    Unchecked,
    Value,
    printed_band,
    shown,
    t_quantile,
)
from .labels import name, vocabulary
from .numbers import number, percent, pvalue, sci, with_error
from .study import note, noting

#: How a template writes a number: ``{x:sci}``.
FORMATS: dict[str, Callable[[float], str]] = {
    "sci": sci, "percent": percent, "number": number, "pvalue": pvalue,
    "number2": lambda x: number(x, 2), "count": lambda x: f"{x:,.0f}",
    # As the rules print their numbers: three digits, a true minus sign.
    "signed": shown}


# -- What a measure gives --------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    """A mean over runs, its standard error and the degrees of freedom of that error
    (n − 1 for a mean of n runs; ∞ where it is normal or exact); a template writes it
    ``mean ± se`` (``{a:sci}``: ``4.01e-7 ± 3.72e-8``)."""

    mean: float
    se: float
    df: float = math.inf

    @classmethod
    def of_runs(cls, runs: Sequence[float]) -> Estimate:
        """The mean of ``runs``, its standard error and n − 1 degrees of freedom."""
        runs = np.asarray(runs, float)
        return cls(float(runs.mean()), float(runs.std(ddof=1) / math.sqrt(runs.size)),
                   float(runs.size - 1))

    def __format__(self, spec: str) -> str:
        return with_error(self.mean, self.se, FORMATS[spec] if spec else None)


@dataclass(frozen=True)
class Interval:
    """An estimate with its 95% interval [``low``, ``high``] (a bootstrap's, or exact);
    ``from_runs`` false where more runs would not narrow it (the resolution of a grid of
    checkpoints)."""

    estimate: float
    low: float
    high: float
    from_runs: bool = True

    def __format__(self, spec: str) -> str:
        return format(self.estimate, spec) if spec not in FORMATS else \
            FORMATS[spec](self.estimate)


@dataclass(frozen=True)
class Select:
    """A call of a study's measure, ``M.final("fig4", noise="{noise}")``: the measure's
    name and its arguments, in which ``"{p}"`` is the case's parameter ``p`` itself, any
    other text with braces a template of the case's parameters, and a :class:`Select` the
    number it measures (``M.ratio(M.final(...), M.exact(...))``)."""

    measure: str
    args: tuple[Any, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)

    def key(self, params: Mapping[str, Any]) -> _Key:
        """The call with the case's parameters put in: hashable, so that a number
        measured for several cases is measured once."""
        return _Key((self.measure, tuple(_put(a, params) for a in self.args),
                     tuple(sorted((k, _put(v, params)) for k, v in self.options.items()))))


class _Key(tuple):
    """A :class:`Select` with its parameters put in: (measure, args, options)."""


def _put(value: Any, params: Mapping[str, Any]) -> Any:
    if isinstance(value, Select):
        return value.key(params)
    if isinstance(value, tuple):
        return tuple(_put(v, params) for v in value)
    if not isinstance(value, str) or "{" not in value:
        return value
    if value[0] == "{" and value[-1] == "}" and value[1:-1] in params:
        return params[value[1:-1]]
    return fill(value, params)


class _Measures:
    """``M.name(*args, **options)`` is the :class:`Select` of the measure ``name``."""

    def __getattr__(self, measure: str) -> Callable[..., Select]:
        return lambda *args, **options: Select(measure, args, options)


#: Where a statement selects its numbers: ``M.final("fig2_left", schedule="{s}")``.
M = _Measures()


# -- Templates -------------------------------------------------------------------------

class _Formatter(string.Formatter):
    """Fills a template: :data:`FORMATS` by name, the value of a column the vocabulary
    names or has a symbol for in the words of ``family`` (every study's if None:
    ``PM-I``, ``ε = 0.5``), Python's specs otherwise."""

    def __init__(self, family: str | None = None) -> None:
        self.family = family
        words = vocabulary(family)
        self.columns = {*words.names, *words.symbols}

    def format_field(self, value: Any, spec: str) -> str:
        if spec in FORMATS and not isinstance(value, Estimate | Interval):
            return FORMATS[spec](value)
        if spec in self.columns:
            return name(spec, value, self.family)
        return format(value, spec)


@functools.cache
def _formatter(family: str | None) -> _Formatter:
    return _Formatter(family)


def fill(template: str, names: Mapping[str, Any], family: str | None = None) -> str:
    """``template`` with its fields filled from ``names`` (see the module's text)."""
    return _formatter(family).vformat(template, (), names)


def cases(**axes: Sequence[Any]) -> tuple[dict[str, Any], ...]:
    """Every combination of the axes' values, as a statement's cases:
    ``cases(s=("rr", "rrr"))``."""
    return tuple(dict(zip(axes, combo, strict=True))
                 for combo in itertools.product(*axes.values()))


# -- Rules: how the evidence is made of the selected numbers -----------------------------

Numbers = Mapping[str, Any]
#: A template filled with a case's names (:func:`fill`).
Text = Callable[[str], str]


def _runs(x: Any) -> bool:
    return isinstance(x, np.ndarray | pd.Series)


@dataclass(frozen=True)
class Below:
    """The :class:`~analysis.claims.Ordering` of ``a`` − ``b``: two estimates (their
    standard errors combined), an estimate and an exact number, two exact numbers, or
    the runs of two cells paired on common random numbers (by replicate, for series
    indexed by it: the replicates both hold)."""

    what: str
    claimed: str = "<"

    def evidence(self, got: Numbers, text: Text) -> Evidence:
        what, a, b = text(self.what), got["a"], got["b"]
        if _runs(a):
            if isinstance(a, pd.Series) and isinstance(b, pd.Series):
                # Paired by replicate: the runs both cells hold (their counts may differ).
                common = a.index.intersection(b.index)
                a, b = a[common], b[common]
            return Ordering.paired_runs(what, a, b, self.claimed)
        a, b = (x if isinstance(x, Estimate) else Estimate(float(x), 0.0) for x in (a, b))
        return Ordering.of(what, a.mean, a.se, b.mean, b.se, self.claimed, a.df, b.df)


@dataclass(frozen=True)
class Near:
    """The :class:`~analysis.claims.Value` (or, with ``factor``,
    :class:`~analysis.claims.Factor`) of ``x`` against the printed ``printed`` (a
    template): ``x`` an :class:`Estimate` (its normal interval), an :class:`Interval` or
    an exact number. The band is the numbers that print as ``printed``; ± half ``unit``
    around it where the paper's precision is not that of its last digit; ``band`` as
    given; an :class:`Interval` selected as ``band``; or, with an exact number selected as
    ``exact``, that number (:class:`~analysis.claims.Match`: its two-sided test, no
    tolerance)."""

    what: str
    printed: str
    band: tuple[float, float] | None = None
    factor: bool = False
    unit: float | None = None

    def evidence(self, got: Numbers, text: Text) -> Evidence:
        what, x, printed = text(self.what), got["x"], text(self.printed)
        band, kind = self.band, Factor if self.factor else Value
        if "exact" in got:  # held against an exact number: the test of that number
            band, kind = (got["exact"],) * 2, Match
        elif "band" in got:
            band = (got["band"].low, got["band"].high)
        elif self.unit:
            band = printed_band(printed, self.unit)
        if isinstance(x, Estimate):
            return kind.of(what, x.mean, x.se, printed, x.df, band=band)
        if not isinstance(x, Interval):  # an exact number: an interval of width 0
            x = Interval(float(x), float(x), float(x))
        return kind(what, x.estimate, x.low, x.high, printed, band, from_runs=x.from_runs)


@dataclass(frozen=True)
class Rate:
    """The :class:`~analysis.claims.Slope` of ``x`` (an :class:`Estimate`, its Student-t
    interval; or an :class:`Interval`) over the range ``fit`` (a template) against the
    exponent ``theory``, or the number selected as ``theory``; ``bound`` where the paper
    states the rate as a worst case (O(·), a bound over graph sequences), which only a
    slower rate contradicts."""

    what: str
    fit: str
    theory: float | None = None
    bound: bool = False

    def evidence(self, got: Numbers, text: Text) -> Evidence:
        x = got["x"]
        if isinstance(x, Estimate):
            half = t_quantile(x.df) * x.se
            x = Interval(x.mean, x.mean - half, x.mean + half)
        theory = got["theory"] if self.theory is None else self.theory
        return Slope(text(self.what), x.estimate, x.low, x.high, float(theory),
                     text(self.fit), self.bound)


@dataclass(frozen=True)
class Given:
    """Evidence a measure makes whole (a slope's bootstrap, a guarantee's count), selected
    as ``evidence``."""

    def evidence(self, got: Numbers, text: Text) -> Evidence:
        return got["evidence"]


@dataclass(frozen=True)
class NoRule:
    """No rule applies (:class:`~analysis.claims.Unchecked`), and ``why``."""

    why: str

    def evidence(self, got: Numbers, text: Text) -> Evidence:
        return Unchecked(text(self.why))


#: The ways a statement's evidence is made of its numbers.
Rule = Below | Near | Rate | Given | NoRule


# -- Statements ------------------------------------------------------------------------

@dataclass(frozen=True)
class Statement:
    """One statement of a paper, declared.

    ``section`` is where the paper makes it; ``quote`` its words, quoted or closely
    paraphrased with their qualifiers (not a template); ``rule`` the rule that decides it;
    ``select`` the numbers the rule reads, by name (``a`` and ``b`` for an ordering, ``x``
    for a value, ``evidence`` for evidence made whole; any other name is for the texts);
    ``cases`` the cases it covers, one row each (a :class:`Select` where the data decide
    them, e.g. an order found in the results); ``case``, ``ours`` (what we measure, in
    words) and ``reading`` (what explains a verdict other than *agrees*) the texts of a
    row.
    """

    section: str
    quote: str
    rule: Rule
    select: Mapping[str, Any] = field(default_factory=dict)
    cases: Sequence[Mapping[str, Any]] | Select = ({},)
    case: str = ""
    ours: str = ""
    reading: str = ""


def evaluate(statements: Sequence[Statement], measures: object,
             values: Mapping[str, Any] | None = None, family: str | None = None
             ) -> list[Claim]:
    """The rows of ``statements``, one per case, in the order declared: each case's
    numbers measured by ``measures`` (each distinct call once; a selected value that is
    not a :class:`Select` is taken as it is, ``"{p}"`` as the case's parameter ``p``), its
    evidence made by the statement's rule
    and its texts filled from the case's parameters, its numbers and the section's
    ``values``, with the values of a vocabulary column named in ``family``'s words. A
    row's ``presets`` are those whose results its numbers read (:func:`~analysis.study.
    noting`), and the texts its calls name (a preset read before the call, by a measure's
    constructor, is found by its name)."""
    measured: dict[_Key, Any] = {}
    read: dict[_Key, frozenset[str]] = {}

    def measure(key: _Key) -> Any:
        if key not in measured:
            called, args, options = key
            with noting() as seen:
                args = [measure(a) if isinstance(a, _Key) else a for a in args]
                options = {k: measure(v) if isinstance(v, _Key) else v for k, v in options}
                measured[key] = getattr(measures, called)(*args, **options)
            read[key] = frozenset(seen) | frozenset(_texts(key))
        note(read[key])
        return measured[key]

    rows = []
    for statement in statements:
        every, chosen = statement.cases, frozenset()
        if isinstance(every, Select):  # the cases found in the results: theirs too
            every, chosen = measure(every.key({})), read[every.key({})]
        for params in every:
            with noting() as seen:
                seen.update(chosen)
                got = {k: measure(s.key(params)) if isinstance(s, Select) else _put(s, params)
                       for k, s in statement.select.items()}
            names = {**(values or {}), **params, **got}

            def text(template: str, names: Mapping[str, Any] = names) -> str:
                return fill(template, names, family)

            try:
                rows.append(Claim(
                    statement.section, statement.quote, statement.rule.evidence(got, text),
                    text(statement.case), text(statement.ours), text(statement.reading),
                    presets=tuple(sorted(seen))))
            except KeyError as missing:
                raise KeyError(f"{statement.section}, {statement.quote[:50]}…: a template "
                               f"names {missing}, which is neither a parameter of the case, "
                               "a selected number nor a value") from None
    return rows


def _texts(key: _Key) -> Iterator[str]:
    """The texts among a call's arguments (its own and its nested calls')."""
    _, args, options = key
    for value in (*args, *(v for _, v in options)):
        if isinstance(value, _Key):
            yield from _texts(value)
        elif isinstance(value, str):
            yield value
