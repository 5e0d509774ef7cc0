"""The papers' claims, checked by rules declared in advance.

Every row of a document's claims table is one statement of a paper, decided by one of seven
rules (:data:`EVIDENCE_KINDS`), each a kind of :class:`Evidence`:

- :class:`Ordering` ("A below B"): the difference's sign at z >= 2;
- :class:`Value` ("≈ 600"): the 95% interval against the band of numbers that print as the
  paper's value;
- :class:`Factor` ("≈ 1000×"): the same, with the paper's factor read to the nearest decade;
- :class:`Slope` (a rate): a bootstrap interval, over a fitting range fixed in advance,
  against the theory's value;
- :class:`Guarantee` ("error below the bound with probability 1 − δ"): a Clopper–Pearson
  interval of the rate of violations against the allowed rate;
- :class:`Curves` ("agree at every checkpoint"): Welch's test at each checkpoint, the
  smallest p-value against a Bonferroni level;
- :class:`Unchecked`: a claim with no number to hold the data against, inconclusive.

The verdict is one of :class:`Verdict`: a rule that cannot decide says *inconclusive*, never
"yes" from a point mean. A verdict is computed from the evidence *as printed*
(:func:`parse` of :meth:`Evidence.text`), so anyone can re-derive it from the document alone
(``tests/test_document_verdicts.py`` does); no row carries a tolerance of its own.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

#: The z at which an ordering is decided, either way.
Z_DECISIVE = 2.0
#: The confidence of every interval a rule reads.
CONFIDENCE = 0.95


class Verdict(enum.Enum):
    """A rule's answer: the paper's claim agrees with ours, disagrees, or the data cannot
    tell."""

    AGREES = "agrees"
    DISAGREES = "disagrees"
    INCONCLUSIVE = "inconclusive"

    def __str__(self) -> str:
        return "**disagrees**" if self is Verdict.DISAGREES else self.value


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
    """The number :func:`_show` printed."""
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


# -- The rules ------------------------------------------------------------------------------

class Evidence:
    """The numbers that decide one claim under one rule.

    :meth:`text` prints them in the rule's fixed form and :meth:`decide` applies the rule;
    :func:`parse` reads the printed form back, and a claim's verdict is decided from that.
    """

    kind: ClassVar[str]
    rule: ClassVar[str]
    pattern: ClassVar[re.Pattern[str]]

    def text(self) -> str:
        raise NotImplementedError

    def decide(self) -> Verdict:
        raise NotImplementedError

    @classmethod
    def read(cls, match: re.Match[str]) -> Evidence:
        raise NotImplementedError


@dataclass(frozen=True)
class Ordering(Evidence):
    """``difference`` = A − B with its standard error ``se`` (0 for exact values); the claim
    is that A is below B (``claimed="<"``) or above it (``">"``). ``paired`` says the cells
    share their random numbers and ``se`` is the standard error of the paired differences.
    """

    what: str
    difference: float
    se: float
    claimed: str = "<"
    paired: bool = False

    kind = "ordering"
    rule = ("**Ordering** (\"A below B\"): z = (A − B) / SE, with the standard error of "
            "the paired differences where the cells share their random numbers. It agrees "
            f"when the difference has the claimed sign at |z| ≥ {Z_DECISIVE:g}, disagrees at "
            f"|z| ≥ {Z_DECISIVE:g} the other way, and is inconclusive otherwise.")
    pattern = re.compile(rf"^(?P<what>.+) = (?P<d>{NUMBER}) ± (?P<se>{NUMBER}) "
                         r"\((?P<how>paired|independent|exact)\), z = (?P<z>\S+); "
                         r"claimed (?P<sign>[<>]) 0$")

    @classmethod
    def of(cls, what: str, a: float, se_a: float, b: float, se_b: float,
           claimed: str = "<") -> Ordering:
        """A − B from two independent estimates with their standard errors."""
        return cls(what, a - b, math.hypot(se_a, se_b), claimed)

    @classmethod
    def paired_runs(cls, what: str, a: Sequence[float], b: Sequence[float],
                    claimed: str = "<") -> Ordering:
        """A − B from runs paired on common random numbers: the mean of the differences
        and its standard error."""
        d = np.asarray(a, float) - np.asarray(b, float)
        return cls(what, float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.size)), claimed,
                   paired=True)

    @property
    def z(self) -> float:
        if self.se == 0:
            return 0.0 if self.difference == 0 else math.copysign(math.inf, self.difference)
        return self.difference / self.se

    def text(self) -> str:
        how = "exact" if self.se == 0 else "paired" if self.paired else "independent"
        z = shown(self.z) if math.isinf(self.z) else f"{self.z:.2f}".replace("-", "−")
        return (f"{self.what} = {shown(self.difference)} ± {shown(self.se)} ({how}), "
                f"z = {z}; claimed {self.claimed} 0")

    def decide(self) -> Verdict:
        signed = self.z if self.claimed == ">" else -self.z
        if signed >= Z_DECISIVE:
            return Verdict.AGREES
        if signed <= -Z_DECISIVE:
            return Verdict.DISAGREES
        return Verdict.INCONCLUSIVE

    @classmethod
    def read(cls, match: re.Match[str]) -> Ordering:
        z = _read(match["z"])
        se = _read(match["se"])
        # The printed z decides; the difference keeps its sign and SE its value.
        return _Printed(match["what"], z * se if se else _read(match["d"]), se,
                        match["sign"], match["how"] == "paired", z)


@dataclass(frozen=True)
class _Printed(Ordering):
    """An ordering read back from its text: its printed z, not one recomputed from the
    rounded difference and standard error."""

    printed_z: float = 0.0

    @property
    def z(self) -> float:
        return self.printed_z


def _interval_pattern(x: str) -> re.Pattern[str]:
    """The printed form of a :class:`Value` whose numbers end in ``x`` ("×" for a factor)."""
    return re.compile(rf"^(?P<what>.+) = (?P<est>{NUMBER}){x}, 95% CI \[(?P<lo>{NUMBER}){x}, "
                      rf"(?P<hi>{NUMBER}){x}\]; against (?P<printed>.+?){x} → "
                      rf"\[(?P<blo>{NUMBER}){x}, (?P<bhi>{NUMBER}){x}\]$")


@dataclass(frozen=True)
class Value(Evidence):
    """An estimate with its 95% interval [``low``, ``high``] against the paper's printed
    value ``printed`` (``"600"``), whose band is the numbers that print as it
    (:func:`printed_band`) unless ``band`` is given: where the paper states an exact value
    ("the optimal solution"), or, in a project check, an exact reference (then
    ``printed`` names it, "oracle 3.27e-6")."""

    what: str
    estimate: float
    low: float
    high: float
    printed: str
    band: tuple[float, float] | None = None

    kind = "value"
    rule = ("**Approximate value** (\"≈ 600\"): the paper's precision is read from how it "
            "prints the number, the band of the numbers that print as it (600 → [550, 650]). "
            "It agrees when our 95% interval meets that band (touching counts), "
            "disagrees when the two are disjoint, and is inconclusive when too few runs give "
            "no interval.")
    suffix: ClassVar[str] = ""
    pattern = _interval_pattern(suffix)

    @classmethod
    def of(cls, what: str, mean: float, se: float, printed: str, **kw) -> Value:
        """A mean with the normal 95% interval mean ± 1.96 SE."""
        half = 1.959963984540054 * se
        return cls(what, mean, mean - half, mean + half, printed, **kw)

    def bounds(self) -> tuple[float, float]:
        return self.band if self.band is not None else printed_band(self.printed)

    def text(self) -> str:
        s = self.suffix
        lo, hi = self.bounds()
        return (f"{self.what} = {shown(self.estimate)}{s}, 95% CI [{shown(self.low, 4, 'down')}{s}"
                f", {shown(self.high, 4, 'up')}{s}]; against {self.printed}{s} → "
                f"[{shown(lo, 4, 'down')}{s}, {shown(hi, 4, 'up')}{s}]")

    def decide(self) -> Verdict:
        lo, hi = self.bounds()
        if math.isnan(self.low) or math.isnan(self.high):
            return Verdict.INCONCLUSIVE
        meets = self.low <= hi and lo <= self.high
        return Verdict.AGREES if meets else Verdict.DISAGREES

    @classmethod
    def read(cls, match: re.Match[str]) -> Value:
        return cls(match["what"], _read(match["est"]), _read(match["lo"]), _read(match["hi"]),
                   match["printed"], (_read(match["blo"]), _read(match["bhi"])))


@dataclass(frozen=True)
class Factor(Value):
    """A ratio with its 95% interval against the paper's factor ``printed`` (``"1000"``)
    read to the nearest decade: the band 10^(log₁₀ factor ± ½), unless ``band`` is given."""

    kind = "factor"
    rule = ("**Factor** (\"≈ 1000×\", \"up to 100×\"): the same on a log scale; a factor "
            "the paper prints as a power of ten is read to the nearest decade (1000× → "
            "[316×, 3163×]).")
    suffix = "×"
    pattern = _interval_pattern(suffix)

    @classmethod
    def of_log(cls, what: str, log_mean: float, log_se: float, printed: str, **kw) -> Factor:
        """A ratio estimated on the log scale: exp(mean ± 1.96 SE) of its logarithm."""
        half = 1.959963984540054 * log_se
        return cls(what, math.exp(log_mean), math.exp(log_mean - half),
                   math.exp(log_mean + half), printed, **kw)

    def bounds(self) -> tuple[float, float]:
        if self.band is not None:
            return self.band
        decade = math.log10(float(self.printed.replace(",", "")))
        return 10 ** (decade - 0.5), 10 ** (decade + 0.5)


@dataclass(frozen=True)
class Slope(Evidence):
    """A fitted slope or rate with its bootstrap 95% interval, over the fitting range
    ``fit`` fixed before the data were seen, against the theory's value ``theory``."""

    what: str
    estimate: float
    low: float
    high: float
    theory: float
    fit: str

    kind = "slope"
    rule = ("**Slope or rate**: fitted over a range fixed in advance and stated; it agrees "
            "when the bootstrap 95% interval contains the theory's value and disagrees when "
            "it excludes it.")
    pattern = re.compile(rf"^(?P<what>.+) = (?P<est>{NUMBER}), 95% CI \[(?P<lo>{NUMBER}), "
                         rf"(?P<hi>{NUMBER})\] over (?P<fit>.+); theory (?P<theory>{NUMBER})$")

    def text(self) -> str:
        return (f"{self.what} = {shown(self.estimate)}, 95% CI [{shown(self.low, 4, 'down')}, "
                f"{shown(self.high, 4, 'up')}] over {self.fit}; theory {shown(self.theory)}")

    def decide(self) -> Verdict:
        if math.isnan(self.low) or math.isnan(self.high):
            return Verdict.INCONCLUSIVE
        return Verdict.AGREES if self.low <= self.theory <= self.high else Verdict.DISAGREES

    @classmethod
    def read(cls, match: re.Match[str]) -> Slope:
        return cls(match["what"], _read(match["est"]), _read(match["lo"]), _read(match["hi"]),
                   _read(match["theory"]), match["fit"])


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
            "Clopper–Pearson 95% interval of the rate of runs that break it. It agrees when "
            "the interval lies at or below the allowed rate δ, disagrees when it lies above, "
            "and is inconclusive when it straddles δ (too few runs); the margin says how far "
            "inside the bound the runs stay.")
    pattern = re.compile(r"^(?P<what>.+): (?P<k>\d+) of (?P<n>\d+) runs break it, 95% CI "
                         rf"\[(?P<lo>{NUMBER})%, (?P<hi>{NUMBER})%\]; allowed "
                         rf"(?P<allowed>{NUMBER})%(?:; margin (?P<margin>.+))?$")

    def interval(self) -> tuple[float, float]:
        return clopper_pearson(self.violations, self.runs)

    def text(self) -> str:
        lo, hi = self.interval()
        margin = f"; margin {self.margin}" if self.margin else ""
        return (f"{self.what}: {self.violations} of {self.runs} runs break it, 95% CI "
                f"[{shown(100 * lo, 3, 'down')}%, {shown(100 * hi, 3, 'up')}%]; allowed "
                f"{shown(100 * self.allowed)}%{margin}")

    def decide(self) -> Verdict:
        lo, hi = self.interval()
        if hi <= self.allowed:
            return Verdict.AGREES
        if lo > self.allowed:
            return Verdict.DISAGREES
        return Verdict.INCONCLUSIVE

    @classmethod
    def read(cls, match: re.Match[str]) -> _PrintedGuarantee:
        return _PrintedGuarantee(match["what"], int(match["k"]), int(match["n"]),
                                 _read(match["allowed"]) / 100, match["margin"] or "",
                                 (_read(match["lo"]) / 100, _read(match["hi"]) / 100))


@dataclass(frozen=True)
class _PrintedGuarantee(Guarantee):
    printed: tuple[float, float] = (0.0, 1.0)

    def interval(self) -> tuple[float, float]:
        return self.printed


@dataclass(frozen=True)
class Curves(Evidence):
    """Two curves, each a mean over its runs at the same ``checkpoints`` steps (ours and,
    e.g., a reference implementation's), compared at every checkpoint by Welch's
    two-sample t-test: ``p`` is the smallest two-sided p-value, at step ``at``."""

    what: str
    p: float
    at: int
    checkpoints: int

    kind = "curves"
    rule = ("**Curves** (\"agree at every checkpoint\"): at each of the K checkpoints, "
            "Welch's two-sample t-test of the two means over their runs (where neither side "
            "varies over its runs, p = 1 if the two are equal and 0 if not). They agree when "
            "the smallest p-value is at least 5%/K (Bonferroni: a family-wise level of 5%, "
            "however the checkpoints of a curve correlate), and disagree otherwise.")
    pattern = re.compile(rf"^(?P<what>.+): smallest Welch p = (?P<p>{NUMBER}) at t = "
                         r"(?P<at>\d+) of (?P<k>\d+) checkpoints; family-wise 5% → p ≥ "
                         rf"(?P<level>{NUMBER})$")

    @property
    def level(self) -> float:
        """The Bonferroni level: 5% over the checkpoints."""
        return (1 - CONFIDENCE) / self.checkpoints

    def text(self) -> str:
        return (f"{self.what}: smallest Welch p = {shown(self.p)} at t = {self.at} of "
                f"{self.checkpoints} checkpoints; family-wise 5% → p ≥ {shown(self.level)}")

    def decide(self) -> Verdict:
        return Verdict.AGREES if self.p >= self.level else Verdict.DISAGREES

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
            "data against (\"comparably\", \"almost perfectly\") or one side of its "
            "comparison cannot be run: the row shows what we measure and is inconclusive; "
            "no band is invented for it.")
    pattern = re.compile(r"^(?P<why>.+)$")

    def text(self) -> str:
        return self.why

    def decide(self) -> Verdict:
        return Verdict.INCONCLUSIVE

    @classmethod
    def read(cls, match: re.Match[str]) -> Unchecked:
        return cls(match["why"])


#: The rules, by kind, in the order a document declares them.
EVIDENCE_KINDS: dict[str, type[Evidence]] = {
    rule.kind: rule for rule in (Ordering, Value, Factor, Slope, Guarantee, Curves,
                                  Unchecked)}


def parse(text: str) -> Evidence:
    """The evidence printed as ``kind: text`` (:func:`evidence_text`); ``ValueError`` if it
    follows no rule's form."""
    kind, _, body = text.partition(": ")
    rule = EVIDENCE_KINDS.get(kind.strip())
    match = rule.pattern.match(body.strip()) if rule else None
    if match is None:
        raise ValueError(f"not the printed form of any rule: {text!r}")
    return rule.read(match)


def evidence_text(evidence: Evidence) -> str:
    """The evidence as a claims table prints it: ``kind: text``."""
    return f"{evidence.kind}: {evidence.text()}"


def rules_text() -> str:
    """The declared rules, as the Markdown list a document prints once."""
    return "\n".join(f"- {rule.rule}" for rule in EVIDENCE_KINDS.values())


# -- Claims and their tables ----------------------------------------------------------------

@dataclass(frozen=True)
class Claim:
    """One claim of a paper, decided by one rule.

    ``section`` is where the paper makes it; ``claim`` its words, quoted or closely
    paraphrased with their qualifiers; ``case`` the case this row decides when the paper's
    statement covers several (one row per case); ``ours`` what we measured, in words;
    ``evidence`` the numbers that decide it; ``reading`` what explains a verdict other than
    *agrees* (shown only then).
    """

    section: str
    claim: str
    evidence: Evidence
    case: str = ""
    ours: str = ""
    reading: str = ""

    @property
    def verdict(self) -> Verdict:
        """The rule's answer, decided from the evidence as printed."""
        return parse(evidence_text(self.evidence)).decide()


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
    rows = [[c.section, c.claim, c.case, c.ours, evidence_text(c.evidence), str(c.verdict),
             "" if c.verdict is Verdict.AGREES else c.reading] for c in claims]
    # A bar in a cell (|Θ̄|) would end it.
    return markdown_table(header, [[cell.replace("|", "\\|") for cell in row] for row in rows])


def tally(claims: Iterable[Claim]) -> dict[Verdict, int]:
    """How many claims each verdict has."""
    counts = dict.fromkeys(Verdict, 0)
    for claim in claims:
        counts[claim.verdict] += 1
    return counts


def tally_text(claims: Sequence[Claim]) -> str:
    """"7 agree, 2 disagree, 3 inconclusive (of 12)"."""
    counts = tally(claims)
    return (f"{counts[Verdict.AGREES]} agree, {counts[Verdict.DISAGREES]} disagree, "
            f"{counts[Verdict.INCONCLUSIVE]} inconclusive (of {len(claims)})")


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
