"""The papers' claims, checked by rules declared in advance.

Every row of a document's claims table is one case of a statement of a paper, decided by
one of eight rules (:data:`EVIDENCE_KINDS`), each a kind of :class:`Evidence`. Each rule
but three is a test with three outcomes (:class:`Verdict`): the numbers *agree* with the
claim, *disagree* with it, or cannot tell (*inconclusive*), decided by an interval or a
test statistic, never by a point mean:

- :class:`Ordering` ("A below B"): Student's t with the comparison's degrees of freedom
  (paired: n − 1; independent: Welch–Satterthwaite);
- :class:`Value` ("≈ 600"): an equivalence test, the 95% interval inside the band of
  numbers that print as the paper's value, or wholly outside it;
- :class:`Factor` ("≈ 1000×"): the same on a log scale, only where the paper prints a
  factor;
- :class:`Match` (against an exact number): the two-sided test of that number; two
  outcomes;
- :class:`Slope` (a rate): the same, against the paper's exponent read to its first decimal,
  or one-sided against a worst-case bound;
- :class:`Guarantee` ("error below the bound with probability 1 − δ"): the exact binomial
  test of the rate of violations against the allowed rate;
- :class:`Curves` (a project check, "agree at every checkpoint"): Welch's test at each
  checkpoint, Bonferroni over the checkpoints; two outcomes;
- :class:`Unchecked`: a claim with no number to hold the data against, inconclusive.

Each test has a p-value (:meth:`Evidence.test`), that of the outcome its numbers point to;
an interval rule's p-value is the smallest level at which its interval would decide, so
that p ≤ 5% is exactly "the 95% interval decides". A document declares one multiplicity
procedure over the tests of its claims (:data:`PROCEDURES`: Holm, or Benjamini–Hochberg at
5%), and a claim's verdict is read at its adjusted p-value (:func:`adjust`).

A verdict is computed from the evidence *as printed* (:func:`parse` of
:func:`evidence_text`), so anyone can re-derive it from the document alone
(``tests/test_document_verdicts.py`` does); no row carries a tolerance of its own.
One statement of a paper is one tallied claim (:func:`statements`): it agrees when all its
cases agree, disagrees when any disagrees, and is inconclusive otherwise.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

#: The level of every test, after a document's multiplicity adjustment.
ALPHA = 0.05
#: The confidence of every interval a rule reads: an interval decides at p ≤ ALPHA.
CONFIDENCE = 1 - ALPHA
#: An exponent the paper states as a fraction or an integer (½, 1, −1/n³) is read to its
#: first decimal: the band of a rate is its exponent ± half of this.
EXPONENT_UNIT = 0.1


class Verdict(enum.Enum):
    """A rule's answer: the paper's claim agrees with ours, disagrees, or the data cannot
    tell."""

    AGREES = "agrees"
    DISAGREES = "disagrees"
    INCONCLUSIVE = "inconclusive"

    def __str__(self) -> str:
        return "**disagrees**" if self is Verdict.DISAGREES else self.value


@dataclass(frozen=True)
class Test:
    """What a rule's numbers can show: the ``outcome`` they point to (agrees or disagrees)
    and the p-value ``p`` of the test that would decide it."""

    outcome: Verdict
    p: float

    def decide(self, p: float | None = None) -> Verdict:
        """The outcome at ``p`` ≤ :data:`ALPHA` (the test's own p-value, or an adjusted
        one), inconclusive otherwise."""
        return self.outcome if (self.p if p is None else p) <= ALPHA else Verdict.INCONCLUSIVE


# -- Distributions -------------------------------------------------------------------------

def _t_sf(x: float, df: float) -> float:
    """P(T > x) for Student's t with ``df`` degrees of freedom (normal at df = ∞)."""
    if math.isinf(x):
        return 0.0 if x > 0 else 1.0
    from scipy.stats import norm, t

    return float(norm.sf(x) if math.isinf(df) else t.sf(x, df))


def t_quantile(df: float, confidence: float = CONFIDENCE) -> float:
    """The two-sided ``confidence`` quantile of Student's t (1.96 at df = ∞)."""
    from scipy.stats import norm, t

    upper = (1 + confidence) / 2
    return float(norm.ppf(upper) if math.isinf(df) else t.ppf(upper, df))


def welch_df(se_a: float, df_a: float, se_b: float, df_b: float) -> float:
    """The Welch–Satterthwaite degrees of freedom of A − B from two independent estimates
    (∞ where both are exact or normal)."""
    terms = [se ** 4 / df for se, df in ((se_a, df_a), (se_b, df_b))
             if se > 0 and not math.isinf(df)]
    if not terms:
        return math.inf
    return (se_a ** 2 + se_b ** 2) ** 2 / sum(terms)


def _z(difference: float, se: float) -> float:
    """``difference`` in units of ``se``; an exact side (se = 0) is ±∞, and 0 counts as on
    the claimed side (a closed band holds its ends)."""
    if se > 0:
        return difference / se
    return math.inf if difference >= 0 else -math.inf


def interval_test(estimate: float, low: float, high: float, band: tuple[float, float],
                  df: float = math.inf) -> Test | None:
    """The equivalence test of an estimate with its 95% interval [low, high] (each side's
    standard error read from its half-width, so an asymmetric interval keeps its shape)
    against the closed ``band``: *agrees* when the interval lies inside the band
    (two one-sided tests), *disagrees* when it lies wholly outside. The p-value is the
    smallest level at which the interval would decide; None without an interval."""
    if math.isnan(low) or math.isnan(high):
        return None
    se_low, se_high = _side_errors(estimate, low, high, df)
    lower, upper = band
    inside = 2 * max(_t_sf(_z(estimate - lower, se_low), df),
                     _t_sf(_z(upper - estimate, se_high), df))
    if estimate > upper:
        outside = 2 * _t_sf(_z(estimate - upper, se_low), df)
    elif estimate < lower:
        outside = 2 * _t_sf(_z(lower - estimate, se_high), df)
    else:
        outside = 1.0
    if inside <= outside:
        return Test(Verdict.AGREES, min(1.0, inside))
    return Test(Verdict.DISAGREES, min(1.0, outside))


def _side_errors(estimate: float, low: float, high: float, df: float) -> tuple[float, float]:
    """Each side's standard error, read from a 95% interval's half-width on that side."""
    q = t_quantile(df)
    return (estimate - low) / q, (high - estimate) / q


def interval_shrink(estimate: float, low: float, high: float, band: tuple[float, float],
                    level: float, df: float = math.inf) -> float | None:
    """The factor by which the standard errors of :func:`interval_test`'s interval must
    shrink for it to decide at ``level`` (runs then scale by its square): the smaller of
    the factors that make it agree (every side clear of the band's edges) and disagree
    (clear of the band); ∞ for an estimate on an edge, None without an interval."""
    if math.isnan(low) or math.isnan(high):
        return None
    # The test's threshold when runs are many: the normal quantile of ``level``.
    z = t_quantile(math.inf, 1 - level)
    se_low, se_high = _side_errors(estimate, low, high, df)
    lower, upper = band
    if lower < estimate < upper:
        return z * max(se_low / (estimate - lower), se_high / (upper - estimate))
    if estimate > upper:
        return z * se_low / (estimate - upper)
    if estimate < lower:
        return z * se_high / (lower - estimate)
    return math.inf


# -- Numbers as printed ---------------------------------------------------------------------

def shown(x: float, digits: int = 3, rounding: str = "nearest") -> str:
    """``x`` as the rules print it: to ``digits`` significant digits, rounded to nearest,
    ``"down"`` or ``"up"`` (an interval's ends are rounded outwards), with a true minus
    sign."""
    if math.isinf(x):
        return "−∞" if x < 0 else "∞"
    if math.isnan(x):  # an interval too few runs cannot give
        return "nan"
    if x != 0 and rounding != "nearest":
        scale = 10.0 ** (math.floor(math.log10(abs(x))) - digits + 1)
        x = (math.floor(x / scale + 1e-9) if rounding == "down"
             else math.ceil(x / scale - 1e-9)) * scale
    x = float(f"{x:.{digits}g}")
    exponent = math.floor(math.log10(abs(x))) if x else 0
    if -3 <= exponent < 6:
        text = f"{x:.{max(0, digits - 1 - exponent)}f}"
    else:
        text = f"{x:.{digits - 1}e}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")
    return text.replace("-", "−")


def _read(text: str) -> float:
    """The number :func:`shown` printed."""
    return float(text.strip().replace("−", "-").replace(",", "").replace("∞", "inf"))


NUMBER = r"[−\-]?(?:∞|nan|[\d.,]+(?:e[+\-−]?\d+)?)"


def printed_band(printed: str, unit: float | None = None) -> tuple[float, float]:
    """The numbers that print as ``printed``: ± half a unit of its last significant digit
    ("600" → [550, 650], "850" → [845, 855], "0.25" → [0.245, 0.255]), or of ``unit``
    where the paper's precision is not its last digit."""
    text = printed.replace(",", "").strip()
    value = float(text)
    if unit is None:
        if "." in text:
            unit = 10.0 ** -len(text.split(".")[1])
        else:
            digits = text.lstrip("-")
            unit = 10.0 ** (len(digits) - len(digits.rstrip("0"))) if value else 1.0
    return value - unit / 2, value + unit / 2


def _df_text(df: float) -> str:
    """", 19 df" after an interval read with Student's t; nothing for a normal one."""
    if math.isinf(df):
        return ""
    return f", {df:.0f} df" if df >= 10 else f", {df:.3g} df"


DF = r"(?:, (?P<df>[\d.]+(?:e\d+)?) df)?"


def _df(match: re.Match[str]) -> float:
    return float(match["df"]) if match["df"] else math.inf


# -- The rules ------------------------------------------------------------------------------

class Evidence:
    """The numbers that decide one claim under one rule.

    :meth:`text` prints them in the rule's fixed form, :meth:`test` gives the outcome they
    point to and its p-value, and :meth:`decide` the verdict at a level :data:`ALPHA`;
    :func:`parse` reads the printed form back, and a claim's verdict is decided from that.
    """

    kind: ClassVar[str]
    rule: ClassVar[str]
    pattern: ClassVar[re.Pattern[str]]
    #: A project check's consistency test: it disagrees when its test decides, and agrees
    #: (no difference found) otherwise; never inconclusive.
    two_outcomes: ClassVar[bool] = False

    def text(self) -> str:
        raise NotImplementedError

    def test(self) -> Test | None:
        """The test the numbers make, or None where no rule applies."""
        raise NotImplementedError

    def shrink(self, level: float) -> float | None:
        """The factor by which the standard errors must shrink for the test to decide at
        ``level`` (more runs of the same cells shrink them as 1/√runs); ∞ where more
        runs cannot decide, None where runs do not set the width (an exact value, a
        slope's misfit, a count)."""
        return None

    def decide(self, p: float | None = None) -> Verdict:
        """The verdict at :data:`ALPHA`, read at ``p`` if given (an adjusted p-value)."""
        test = self.test()
        verdict = Verdict.INCONCLUSIVE if test is None else test.decide(p)
        # Without an interval even a consistency test cannot tell.
        if self.two_outcomes and test is not None and verdict is Verdict.INCONCLUSIVE:
            return Verdict.AGREES
        return verdict

    @classmethod
    def read(cls, match: re.Match[str]) -> Evidence:
        raise NotImplementedError


@dataclass(frozen=True)
class Ordering(Evidence):
    """``difference`` = A − B with its standard error ``se`` (0 for exact values) on
    ``df`` degrees of freedom; the claim is that A is below B (``claimed="<"``) or above it
    (``">"``). ``paired`` says the cells share their random numbers and ``se`` is the
    standard error of the paired differences."""

    what: str
    difference: float
    se: float
    claimed: str = "<"
    paired: bool = False
    df: float = math.inf

    kind = "ordering"
    rule = ("**Ordering** (\"A below B\"): t = (A − B) / SE, with the standard error of "
            "the paired differences where the cells share their random numbers (n − 1 "
            "degrees of freedom), or of two independent means (Welch–Satterthwaite's); "
            "the two-sided p-value of Student's t. It agrees when the difference has the "
            "claimed sign at p ≤ 5%, disagrees when it has the other sign at p ≤ 5%, and "
            "is inconclusive otherwise.")
    pattern = re.compile(rf"^(?P<what>.+) = (?P<d>{NUMBER}) ± (?P<se>{NUMBER}) "
                         rf"\((?P<how>paired|independent|exact){DF}\), t = (?P<t>\S+); "
                         r"claimed (?P<sign>[<>]) 0$")

    @classmethod
    def of(cls, what: str, a: float, se_a: float, b: float, se_b: float,
           claimed: str = "<", df_a: float = math.inf, df_b: float = math.inf
           ) -> Ordering:
        """A − B from two independent estimates with their standard errors and degrees
        of freedom (Welch)."""
        return cls(what, a - b, math.hypot(se_a, se_b), claimed,
                   df=welch_df(se_a, df_a, se_b, df_b))

    @classmethod
    def paired_runs(cls, what: str, a: Sequence[float], b: Sequence[float],
                    claimed: str = "<") -> Ordering:
        """A − B from runs paired on common random numbers: the mean of the differences,
        its standard error and n − 1 degrees of freedom."""
        d = np.asarray(a, float) - np.asarray(b, float)
        return cls(what, float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.size)), claimed,
                   paired=True, df=float(d.size - 1))

    @property
    def t(self) -> float:
        if self.se == 0:
            return 0.0 if self.difference == 0 else math.copysign(math.inf, self.difference)
        return self.difference / self.se

    def text(self) -> str:
        how = "exact" if self.se == 0 else "paired" if self.paired else "independent"
        df = "" if self.se == 0 else _df_text(self.df)
        t = shown(self.t) if math.isinf(self.t) else f"{self.t:.3g}".replace("-", "−")
        return (f"{self.what} = {shown(self.difference)} ± {shown(self.se)} ({how}{df}), "
                f"t = {t}; claimed {self.claimed} 0")

    def test(self) -> Test | None:
        t = self.t
        if math.isnan(t):
            return None
        sign = 1 if self.claimed == ">" else -1
        outcome = Verdict.AGREES if sign * t >= 0 else Verdict.DISAGREES
        return Test(outcome, min(1.0, 2 * _t_sf(abs(t), self.df)))

    def shrink(self, level: float) -> float | None:
        if self.se == 0 or math.isnan(self.t):
            return None
        return t_quantile(math.inf, 1 - level) / abs(self.t) if self.t else math.inf

    @classmethod
    def read(cls, match: re.Match[str]) -> Ordering:
        se = _read(match["se"])
        # The printed t decides; the difference keeps its sign and SE its value.
        t = _read(match["t"])
        return cls(match["what"], t * se if se else _read(match["d"]), se, match["sign"],
                   match["how"] == "paired", _df(match))


def _interval_pattern(x: str, against: str) -> re.Pattern[str]:
    """The printed form of an interval rule whose numbers end in ``x`` ("×" for a factor)
    and whose band is printed after ``against``."""
    return re.compile(rf"^(?P<what>.+) = (?P<est>{NUMBER}){x}, 95% CI \[(?P<lo>{NUMBER}){x}, "
                      rf"(?P<hi>{NUMBER}){x}\]{DF}{against} → "
                      rf"[\[(](?P<blo>{NUMBER}){x}, (?P<bhi>{NUMBER}){x}\]$")


@dataclass(frozen=True)
class Value(Evidence):
    """An estimate with its 95% interval [``low``, ``high``] (Student's t on ``df``
    degrees of freedom, or normal) against the paper's printed value ``printed``
    (``"600"``), whose band is the numbers that print as it (:func:`printed_band`) unless
    ``band`` is given: where the paper states an exact value ("the optimal solution"), or,
    in a project check, an exact reference (then ``printed`` names it, "oracle
    3.27e-6")."""

    what: str
    estimate: float
    low: float
    high: float
    printed: str
    band: tuple[float, float] | None = None
    df: float = math.inf
    #: Whether more runs narrow the interval (a checkpoint grid's resolution they do not).
    from_runs: bool = field(default=True, compare=False)

    kind = "value"
    rule = ("**Approximate value** (\"≈ 600\"): the paper's precision is read from how it "
            "prints the number, the band of the numbers that print as it (600 → [550, 650]). "
            "An equivalence test: it agrees when our whole 95% interval lies inside that "
            "band (its ends included), disagrees when the two are disjoint, and is "
            "inconclusive when they overlap or too few runs give no interval. The p-value "
            "is the smallest level at which the interval would decide (two one-sided tests, "
            "each side's standard error read from its half-width).")
    suffix: ClassVar[str] = ""
    pattern = _interval_pattern(suffix, rf"; against (?P<printed>.+?){suffix}")

    @classmethod
    def of(cls, what: str, mean: float, se: float, printed: str, df: float = math.inf,
           **kw) -> Value:
        """A mean with its 95% interval mean ± t SE (normal at df = ∞)."""
        half = t_quantile(df) * se
        return cls(what, mean, mean - half, mean + half, printed, df=df, **kw)

    def bounds(self) -> tuple[float, float]:
        return self.band if self.band is not None else printed_band(self.printed)

    def text(self) -> str:
        s, (lo, hi) = self.suffix, self.bounds()
        return (f"{self.what} = {shown(self.estimate)}{s}, 95% CI "
                f"[{shown(self.low, 4, 'down')}{s}, {shown(self.high, 4, 'up')}{s}]"
                f"{_df_text(self.df)}; against {self.printed}{s} → "
                f"[{shown(lo, 4, 'down')}{s}, {shown(hi, 4, 'up')}{s}]")

    def test(self) -> Test | None:
        return interval_test(self.estimate, self.low, self.high, self.bounds(), self.df)

    def shrink(self, level: float) -> float | None:
        if not self.from_runs:
            return None
        return interval_shrink(self.estimate, self.low, self.high, self.bounds(), level,
                               self.df)

    @classmethod
    def read(cls, match: re.Match[str]) -> Value:
        return cls(match["what"], _read(match["est"]), _read(match["lo"]), _read(match["hi"]),
                   match["printed"], (_read(match["blo"]), _read(match["bhi"])), _df(match))


@dataclass(frozen=True)
class Factor(Value):
    """A ratio with its 95% interval against the factor the paper prints, ``printed``
    (``"1000"``), read to the nearest decade where it is a power of ten (the band
    10^(log₁₀ factor ± ½)) and to its last digit otherwise, unless ``band`` is given; the
    test is on the log scale."""

    kind = "factor"
    rule = ("**Factor** (\"≈ 1000×\", \"up to 100×\"), only where the paper prints a "
            "factor: the same on a log scale; a factor the paper prints as a power of ten "
            "is read to the nearest decade (1000× → [316×, 3163×]).")
    suffix = "×"
    pattern = _interval_pattern(suffix, rf"; against (?P<printed>.+?){suffix}")

    @classmethod
    def of_log(cls, what: str, log_mean: float, log_se: float, printed: str,
               df: float = math.inf, **kw) -> Factor:
        """A ratio estimated on the log scale: exp(mean ± t SE) of its logarithm."""
        half = t_quantile(df) * log_se
        return cls(what, math.exp(log_mean), math.exp(log_mean - half),
                   math.exp(log_mean + half), printed, df=df, **kw)

    def bounds(self) -> tuple[float, float]:
        if self.band is not None:
            return self.band
        factor = float(self.printed.replace(",", ""))
        decade = math.log10(factor)
        if decade == round(decade):
            return 10 ** (decade - 0.5), 10 ** (decade + 0.5)
        return printed_band(self.printed)

    def test(self) -> Test | None:
        if min(self.estimate, self.low) <= 0:
            return None  # no ratio on a log scale
        return interval_test(*self._logs(), self.df)

    def shrink(self, level: float) -> float | None:
        if not self.from_runs or min(self.estimate, self.low) <= 0:
            return None
        return interval_shrink(*self._logs(), level, self.df)

    def _logs(self) -> tuple[float, float, float, tuple[float, float]]:
        """The estimate, the interval and the band on the log scale."""
        lo, hi = self.bounds()
        return (math.log(self.estimate), math.log(self.low), math.log(self.high),
                (math.log(lo) if lo > 0 else -math.inf, math.log(hi)))


@dataclass(frozen=True)
class Match(Value):
    """An estimate with its 95% interval against an exact number (``band`` of width 0,
    named by ``printed``, "oracle 3.27e-6"): the two-sided test of that number. Two
    outcomes: it agrees (no difference found) when the interval holds the number and
    disagrees when it excludes it."""

    kind = "match"
    rule = ("**Match** (an estimate against an exact number: a simulation against its "
            "oracle, a closed form against an optimum): the two-sided test of that number. "
            "It disagrees when the 95% interval excludes it (p ≤ 5%) and agrees otherwise: "
            "no difference found, a consistency check with two outcomes.")
    pattern = _interval_pattern("", r"; against (?P<printed>.+?)")
    two_outcomes = True


@dataclass(frozen=True)
class Slope(Evidence):
    """A fitted slope or rate with its 95% interval (replicate noise and the fit's own
    misfit), over the fitting range ``fit`` fixed before the data were seen, against the
    exponent ``theory`` read to its first decimal (± :data:`EXPONENT_UNIT`/2). With
    ``bound``, ``theory`` is a worst-case rate: only a slope above it contradicts it."""

    what: str
    estimate: float
    low: float
    high: float
    theory: float
    fit: str
    bound: bool = False

    kind = "slope"
    rule = ("**Slope or rate**: fitted over a range fixed in advance and stated, its 95% "
            "interval holding both the replicates' noise and the fit's misfit; the "
            "theory's exponent is read to its first decimal (½ → [0.45, 0.55]). The same "
            "equivalence test as an approximate value; against a worst-case bound "
            "(\"theory ≤\") one-sided: it agrees when the interval lies at or below the "
            "band's top (a faster rate cannot contradict a bound), disagrees when it lies "
            "wholly above it.")
    pattern = re.compile(rf"^(?P<what>.+) = (?P<est>{NUMBER}), 95% CI \[(?P<lo>{NUMBER}), "
                         rf"(?P<hi>{NUMBER})\] over (?P<fit>.+); theory (?P<bound>≤ )?"
                         rf"(?P<theory>{NUMBER}) → [\[(](?P<blo>{NUMBER}), "
                         rf"(?P<bhi>{NUMBER})\]$")

    def bounds(self) -> tuple[float, float]:
        half = EXPONENT_UNIT / 2
        return (-math.inf if self.bound else self.theory - half), self.theory + half

    def text(self) -> str:
        lo, hi = self.bounds()
        band = (f"(−∞, {shown(hi, 4, 'up')}]" if self.bound else
                f"[{shown(lo, 4, 'down')}, {shown(hi, 4, 'up')}]")
        return (f"{self.what} = {shown(self.estimate)}, 95% CI [{shown(self.low, 4, 'down')}, "
                f"{shown(self.high, 4, 'up')}] over {self.fit}; theory "
                f"{'≤ ' if self.bound else ''}{shown(self.theory)} → {band}")

    def test(self) -> Test | None:
        return interval_test(self.estimate, self.low, self.high, self.bounds())

    @classmethod
    def read(cls, match: re.Match[str]) -> Slope:
        return cls(match["what"], _read(match["est"]), _read(match["lo"]), _read(match["hi"]),
                   _read(match["theory"]), match["fit"], bool(match["bound"]))


def clopper_pearson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval of a binomial proportion, k of n."""
    from scipy.stats import beta

    tail = (1 - confidence) / 2
    low = 0.0 if k == 0 else float(beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - tail, k + 1, n - k))
    return low, high


@dataclass(frozen=True)
class Guarantee(Evidence):
    """``violations`` of ``runs`` broke the guarantee, which allows a rate ``allowed``
    (δ; 0 for a bound that always holds); ``margin`` says how far inside the guarantee
    the runs stay (e.g. "1 − δ quantile at 0.2× the bound")."""

    what: str
    violations: int
    runs: int
    allowed: float
    margin: str = ""

    kind = "guarantee"
    rule = ("**Guarantee** (\"error below the bound with probability ≥ 1 − δ\"): the "
            "exact binomial test of the rate of runs that break it against the allowed "
            "rate δ, shown with its Clopper–Pearson 95% interval. It agrees when the "
            "interval lies at or below δ, disagrees when it lies above, and is "
            "inconclusive when it straddles δ (too few runs); the margin says how far "
            "inside the bound the runs stay.")
    pattern = re.compile(r"^(?P<what>.+): (?P<k>\d+) of (?P<n>\d+) runs break it, 95% CI "
                         rf"\[(?P<lo>{NUMBER})%, (?P<hi>{NUMBER})%\]; allowed "
                         rf"(?P<allowed>{NUMBER})%(?:; margin (?P<margin>.+))?$")

    def text(self) -> str:
        lo, hi = clopper_pearson(self.violations, self.runs)
        margin = f"; margin {self.margin}" if self.margin else ""
        return (f"{self.what}: {self.violations} of {self.runs} runs break it, 95% CI "
                f"[{shown(100 * lo, 3, 'down')}%, {shown(100 * hi, 3, 'up')}%]; allowed "
                f"{shown(100 * self.allowed)}%{margin}")

    def test(self) -> Test:
        from scipy.stats import binom

        k, n, rate = self.violations, self.runs, self.allowed
        # The Clopper–Pearson interval lies at or below δ exactly when P(X ≤ k | δ) ≤ 2.5%,
        # and above it when P(X ≥ k | δ) ≤ 2.5%: doubled, the two-sided p-values.
        below = min(1.0, 2 * float(binom.cdf(k, n, rate)))
        above = min(1.0, 2 * float(binom.sf(k - 1, n, rate)))
        return Test(Verdict.AGREES, below) if below <= above else \
            Test(Verdict.DISAGREES, above)

    @classmethod
    def read(cls, match: re.Match[str]) -> Guarantee:
        return cls(match["what"], int(match["k"]), int(match["n"]),
                   _read(match["allowed"]) / 100, match["margin"] or "")


@dataclass(frozen=True)
class Curves(Evidence):
    """Two curves, each a mean over its runs at the same ``checkpoints`` steps (ours and,
    e.g., a reference implementation's), compared at every checkpoint by Welch's
    two-sample t-test: ``p`` is the smallest two-sided p-value, at step ``at``. A project
    check with two outcomes: it disagrees when the Bonferroni p-value is at most 5%, and
    agrees (no difference found) otherwise."""

    what: str
    p: float
    at: int
    checkpoints: int

    kind = "curves"
    rule = ("**Curves** (a project check, \"agree at every checkpoint\"): at each of the K "
            "checkpoints, Welch's two-sample t-test of the two means over their runs "
            "(where neither side varies over its runs, p = 1 if the two are equal and 0 if "
            "not). They agree when the smallest p-value is above 5%/K (Bonferroni: a "
            "family-wise level of 5%, however the checkpoints of a curve correlate), and "
            "disagree otherwise; a check of our code, not a paper's claim, it has no "
            "inconclusive outcome.")
    pattern = re.compile(rf"^(?P<what>.+): smallest Welch p = (?P<p>{NUMBER}) at t = "
                         r"(?P<at>\d+) of (?P<k>\d+) checkpoints; family-wise 5% → p ≥ "
                         rf"(?P<level>{NUMBER})$")

    @property
    def level(self) -> float:
        """The Bonferroni level: 5% over the checkpoints."""
        return ALPHA / self.checkpoints

    def text(self) -> str:
        return (f"{self.what}: smallest Welch p = {shown(self.p)} at t = {self.at} of "
                f"{self.checkpoints} checkpoints; family-wise 5% → p ≥ {shown(self.level)}")

    def test(self) -> Test:
        return Test(Verdict.DISAGREES, min(1.0, self.p * self.checkpoints))

    two_outcomes = True

    @classmethod
    def read(cls, match: re.Match[str]) -> Curves:
        return cls(match["what"], _read(match["p"]), int(match["at"]), int(match["k"]))


@dataclass(frozen=True)
class Unchecked(Evidence):
    """A claim no rule can decide, and ``why``: the paper gives no number to hold the data
    against ("comparably", "almost perfectly"), or one side of its comparison cannot be
    run. What we measure goes in the claim's ``ours``; the verdict is inconclusive."""

    why: str

    kind = "none"
    rule = ("**No rule applies** where the paper gives no number or precision to hold the "
            "data against (\"comparably\", \"almost perfectly\") and no ordering decides "
            "it, or one side of its comparison cannot be run: the row shows what we "
            "measure and is inconclusive; no band is invented for it.")
    pattern = re.compile(r"^(?P<why>.+)$")

    def text(self) -> str:
        return self.why

    def test(self) -> None:
        return None

    @classmethod
    def read(cls, match: re.Match[str]) -> Unchecked:
        return cls(match["why"])


#: The rules, by kind, in the order a document declares them.
EVIDENCE_KINDS: dict[str, type[Evidence]] = {
    rule.kind: rule for rule in (Ordering, Value, Factor, Match, Slope, Guarantee, Curves,
                                  Unchecked)}

#: What a row prints after its evidence: the outcome its numbers point to, the p-value of
#: that test, and the p-value the document's multiplicity procedure made of it.
TESTED = re.compile(rf"; p\((?P<outcome>agrees|disagrees)\) = (?P<p>{NUMBER})"
                    rf"(?:, (?P<procedure>\w+) (?P<adjusted>{NUMBER}))?$")


def parse(text: str) -> Evidence:
    """The evidence printed as ``kind: text`` (:func:`evidence_text`), with or without
    the test printed after it; ``ValueError`` if it follows no rule's form."""
    kind, _, body = text.partition(": ")
    rule = EVIDENCE_KINDS.get(kind.strip())
    match = rule.pattern.match(TESTED.sub("", body.strip())) if rule else None
    if match is None:
        raise ValueError(f"not the printed form of any rule: {text!r}")
    return rule.read(match)


@dataclass(frozen=True)
class Adjusted:
    """A p-value adjusted by a document's multiplicity ``procedure`` (:data:`PROCEDURES`)."""

    procedure: str
    p: float


def evidence_text(evidence: Evidence, adjusted: Adjusted | None = None) -> str:
    """The evidence as a claims table prints it: ``kind: text``, then the test its
    printed numbers make, ``; p(agrees) = 0.0123``, and the p-value ``adjusted`` by the
    document's procedure, ``, BH 0.0456``."""
    body = f"{evidence.kind}: {evidence.text()}"
    test = parse(body).test()
    if test is None:
        return body
    after = f", {adjusted.procedure} {shown(adjusted.p)}" if adjusted else ""
    return f"{body}; p({test.outcome.value}) = {shown(test.p)}{after}"


def verdict_of(text: str) -> Verdict:
    """The verdict of evidence as printed (:func:`evidence_text`): its rule applied to
    its printed numbers, at the printed adjusted p-value if there is one. ``ValueError``
    where the printed test is not the one its numbers make."""
    evidence = parse(text)
    test = evidence.test()
    printed = TESTED.search(text)
    if (test is None) != (printed is None) or (test is not None and (
            printed["outcome"] != test.outcome.value or printed["p"] != shown(test.p))):
        raise ValueError(f"the printed test is not the one its numbers make: {text!r}")
    adjusted = printed["adjusted"] if printed else None
    return evidence.decide(None if adjusted is None else _read(adjusted))


def rules_text() -> str:
    """The declared rules, as the Markdown list a document prints once."""
    return "\n".join(f"- {rule.rule}" for rule in EVIDENCE_KINDS.values())


# -- Multiplicity --------------------------------------------------------------------------

def holm(p: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error rate)."""
    p = np.asarray(p, float)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((p.size - np.arange(p.size)) * p[order])
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def benjamini_hochberg(p: Sequence[float]) -> np.ndarray:
    """Benjamini–Hochberg's adjusted p-values (false discovery rate)."""
    from scipy.stats import false_discovery_control

    p = np.asarray(p, float)
    return false_discovery_control(p, method="bh") if p.size else p


#: The multiplicity procedures a document may declare, by the name its frame gives
#: (``<!-- multiplicity: bh -->``): the label a row prints, the procedure, and its words.
PROCEDURES: dict[str, tuple[str, Callable[[Sequence[float]], np.ndarray], str]] = {
    "holm": ("Holm", holm, "Holm's step-down procedure (a family-wise error rate of 5%)"),
    "bh": ("BH", benjamini_hochberg,
           "the Benjamini–Hochberg procedure (a false discovery rate of 5%)"),
}


def multiplicity_text(procedure: str, tests: int) -> str:
    """The declared procedure in words, over how many tests."""
    return (f"**Multiplicity**: the p-values of the {tests} tests of this document's "
            f"claims (every row a rule tests) are adjusted together by "
            f"{PROCEDURES[procedure][2]}; a row prints its p-value, then the adjusted one "
            f"({PROCEDURES[procedure][0]}), and its verdict is read at the adjusted one. "
            "The project's own checks are not adjusted.")


# -- Claims and their tables ----------------------------------------------------------------

@dataclass(frozen=True)
class Claim:
    """One case of a claim of a paper, decided by one rule.

    ``section`` is where the paper makes it; ``claim`` its words, quoted or closely
    paraphrased with their qualifiers (one statement: the rows of a statement's cases
    share both); ``case`` the case this row decides when the paper's statement covers
    several (one row per case); ``ours`` what we measured, in words; ``evidence`` the
    numbers that decide it; ``reading`` what explains a verdict other than *agrees*
    (shown only then); ``adjusted`` its p-value after the document's multiplicity
    procedure (:func:`adjust`); ``presets`` the presets its numbers may come from (not
    printed: what :mod:`analysis.needs` would give more runs).
    """

    section: str
    claim: str
    evidence: Evidence
    case: str = ""
    ours: str = ""
    reading: str = ""
    adjusted: Adjusted | None = None
    presets: tuple[str, ...] = ()

    @property
    def printed(self) -> str:
        return evidence_text(self.evidence, self.adjusted)

    @property
    def verdict(self) -> Verdict:
        """The rule's answer, decided from the evidence as printed."""
        return verdict_of(self.printed)

    def shrink(self) -> float | None:
        """:meth:`Evidence.shrink` at the level this row's own p-value faces after the
        multiplicity adjustment, :data:`ALPHA` × p / adjusted p (its rank's share of
        the level, under Benjamini–Hochberg; more runs may change the ranks)."""
        test = self.evidence.test()
        if test is None:
            return None
        level = ALPHA
        if self.adjusted is not None and self.adjusted.p > 0:
            level = ALPHA * min(1.0, test.p / self.adjusted.p)
        return self.evidence.shrink(level)


def adjust(claims: Sequence[Claim], procedure: str) -> list[Claim]:
    """``claims`` with the p-values of their tests (as printed) adjusted together by
    ``procedure`` (:data:`PROCEDURES`); a claim no rule tests is left as it is."""
    label, method, _ = PROCEDURES[procedure]
    tests = [parse(evidence_text(c.evidence)).test() for c in claims]
    tested = [i for i, test in enumerate(tests) if test is not None]
    adjusted = method([tests[i].p for i in tested])
    found = list(claims)
    for i, p in zip(tested, adjusted, strict=True):
        found[i] = replace(claims[i], adjusted=Adjusted(label, float(p)))
    return found


HEADER = ("Sec.", "the paper's claim", "case", "ours", "evidence (rule: numbers)", "verdict",
          "reading")
CHECK_HEADER = ("Sec.", "our check", "case", "ours", "evidence (rule: numbers)", "verdict",
                "reading")


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table of text cells."""
    lines = [header, ["---"] * len(header), *rows]
    return "\n".join(f"| {' | '.join(line)} |" for line in lines)


def claims_table(claims: Sequence[Claim], header: Sequence[str] = HEADER) -> str:
    """The Markdown table of ``claims``, one row each: where the paper makes it, what it
    says, the case, what we measure, the evidence in its rule's printed form, the verdict
    and, unless it agrees, the reading that explains it."""
    rows = [[c.section, c.claim, c.case, c.ours, c.printed, str(c.verdict),
             "" if c.verdict is Verdict.AGREES else c.reading] for c in claims]
    # A bar in a cell (|Θ̄|) would end it.
    return markdown_table(header, [[cell.replace("|", "\\|") for cell in row] for row in rows])


def statement_verdict(verdicts: Iterable[Verdict]) -> Verdict:
    """One statement's verdict from its cases': it agrees when all agree, disagrees when
    any disagrees, and is inconclusive otherwise."""
    verdicts = list(verdicts)
    if Verdict.DISAGREES in verdicts:
        return Verdict.DISAGREES
    if all(v is Verdict.AGREES for v in verdicts):
        return Verdict.AGREES
    return Verdict.INCONCLUSIVE


def statements(rows: Iterable[tuple[str, str, Verdict]]) -> dict[tuple[str, str], Verdict]:
    """Each statement (section, claim) of ``rows`` (section, claim, verdict of a case),
    in order, with its verdict (:func:`statement_verdict`)."""
    cases: dict[tuple[str, str], list[Verdict]] = {}
    for section, claim, verdict in rows:
        cases.setdefault((section, claim), []).append(verdict)
    return {key: statement_verdict(found) for key, found in cases.items()}


def tally(claims: Iterable[Claim]) -> dict[Verdict, int]:
    """How many statements each verdict has (one statement, one count, whatever its
    cases)."""
    counts = dict.fromkeys(Verdict, 0)
    for verdict in statements((c.section, c.claim, c.verdict) for c in claims).values():
        counts[verdict] += 1
    return counts


def tally_text(claims: Sequence[Claim]) -> str:
    """"7 agree, 2 disagree, 3 inconclusive (of 12 statements, 30 cases)"."""
    counts = tally(claims)
    return (f"{counts[Verdict.AGREES]} agree, {counts[Verdict.DISAGREES]} disagree, "
            f"{counts[Verdict.INCONCLUSIVE]} inconclusive (of {sum(counts.values())} "
            f"statements, {len(claims)} cases)")


def read_tables(markdown: str) -> list[dict[str, str]]:
    """The rows of every claims or checks table in a rendered document, each as
    ``{column: cell}`` with the table's header; the inverse of :func:`claims_table`."""
    rows: list[dict[str, str]] = []
    header: list[str] = []
    lines = markdown.splitlines()
    for line, after in zip(lines, [*lines[1:], ""], strict=True):
        if not line.startswith("| "):
            header = []
            continue
        cells = [c.strip().replace("\\|", "|")
                 for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if after.startswith("| --- |"):  # a header row, wherever a table starts
            header = cells
        elif set(cells) != {"---"} and tuple(header) in (HEADER, CHECK_HEADER):
            rows.append(dict(zip(header, cells, strict=True)))
    return rows
