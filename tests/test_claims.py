"""The declared verdict rules of analysis.claims, on synthetic inputs with known answers."""

import math

import numpy as np
import pytest

from analysis.claims import (
    Claim,
    Factor,
    Guarantee,
    Ordering,
    Slope,
    Unchecked,
    Value,
    Verdict,
    claims_table,
    clopper_pearson,
    evidence_text,
    parse,
    printed_band,
    read_tables,
    tally,
    tally_text,
)

AGREES, DISAGREES, INCONCLUSIVE = Verdict.AGREES, Verdict.DISAGREES, Verdict.INCONCLUSIVE


def verdict(evidence):
    return Claim("Sec. 1", "a claim", evidence).verdict


@pytest.mark.parametrize(("difference", "claimed", "expected"), [
    (-1.9, "<", INCONCLUSIVE),   # the claimed sign, short of z = 2
    (-2.0, "<", AGREES),         # z = 2 exactly decides
    (2.0, "<", DISAGREES),       # the opposite sign at z >= 2
    (1.9, "<", INCONCLUSIVE),
    (1.9, ">", INCONCLUSIVE),
    (2.5, ">", AGREES),
    (-3.0, ">", DISAGREES),
    (0.0, "<", INCONCLUSIVE),
])
def test_ordering_decides_at_z_two(difference, claimed, expected):
    assert verdict(Ordering("A − B", difference, 1.0, claimed)) is expected


def test_ordering_of_exact_values_is_decided_by_the_sign():
    assert verdict(Ordering.of("A − B", 1.0, 0.0, 2.0, 0.0)) is AGREES
    assert verdict(Ordering.of("A − B", 3.0, 0.0, 2.0, 0.0)) is DISAGREES
    assert verdict(Ordering.of("A − B", 2.0, 0.0, 2.0, 0.0)) is INCONCLUSIVE


def test_ordering_of_independent_estimates_adds_variances():
    ordering = Ordering.of("A − B", 1.0, 0.3, 2.0, 0.4)
    assert ordering.se == pytest.approx(0.5)
    assert ordering.z == pytest.approx(-2.0)
    assert not ordering.paired


def test_paired_ordering_uses_the_standard_error_of_the_differences():
    rng = np.random.default_rng(7)
    shared = rng.normal(0, 10, 400)  # common random numbers: large, and cancelled by pairing
    a, b = shared + rng.normal(0, 1, 400), shared + 0.3 + rng.normal(0, 1, 400)
    paired = Ordering.paired_runs("A − B", a, b)
    independent = Ordering.of("A − B", a.mean(), a.std(ddof=1) / 20, b.mean(),
                              b.std(ddof=1) / 20)
    assert paired.paired
    assert verdict(paired) is AGREES            # z ≈ −4: the pairing sees the shift
    assert verdict(independent) is INCONCLUSIVE  # z ≈ −0.2 under the shared noise
    assert "(paired)" in evidence_text(paired)


def test_printed_z_decides_not_the_rounded_numbers():
    # 1.99996 prints as z = 2.00: the verdict follows what the reader sees.
    ordering = Ordering("A − B", -1.99996, 1.0)
    assert "z = −2.00" in evidence_text(ordering)
    assert verdict(ordering) is AGREES


@pytest.mark.parametrize(("printed", "band"), [
    ("600", (550, 650)), ("850", (845, 855)), ("0.25", (0.245, 0.255)),
    ("1,000", (500, 1500)), ("7", (6.5, 7.5)), ("0.5", (0.45, 0.55)),
])
def test_printed_band_is_the_numbers_that_print_so(printed, band):
    assert printed_band(printed) == pytest.approx(band)


def test_printed_band_with_a_declared_unit():
    assert printed_band("600", unit=10) == pytest.approx((595, 605))


@pytest.mark.parametrize(("low", "high", "expected"), [
    (500, 550, AGREES),      # touches the band's lower end
    (650, 700, AGREES),      # touches its upper end
    (560, 640, AGREES),      # inside
    (400, 800, AGREES),      # around it
    (500, 549, DISAGREES),   # just below
    (651, 700, DISAGREES),   # just above
])
def test_value_agrees_when_its_interval_meets_the_band(low, high, expected):
    assert verdict(Value("crossing", (low + high) / 2, low, high, "600")) is expected


def test_value_of_a_mean_uses_the_normal_interval():
    value = Value.of("m", 540.0, 5.0, "600")  # [530.2, 549.8]: misses [550, 650]
    assert verdict(value) is DISAGREES
    assert verdict(Value.of("m", 540.0, 5.2, "600")) is AGREES  # [529.8, 550.2]


@pytest.mark.parametrize(("low", "high", "expected"), [
    (400, 2000, AGREES),
    (10 ** 3.5, 10 ** 4, AGREES),      # touches the decade band's upper end
    (1.0, 1.5, DISAGREES),             # a ratio of about 1, far from 1000×
    (3200, 9000, DISAGREES),
])
def test_factor_reads_the_paper_to_the_nearest_decade(low, high, expected):
    assert verdict(Factor("ratio", math.sqrt(low * high), low, high, "1000")) is expected


def test_factor_from_logarithms():
    factor = Factor.of_log("ratio", math.log(900), 0.1, "1000")
    assert factor.low == pytest.approx(900 * math.exp(-0.196), rel=1e-3)
    assert verdict(factor) is AGREES


@pytest.mark.parametrize(("low", "high", "theory", "expected"), [
    (0.38, 0.96, 0.5, AGREES),
    (-1.08, -0.55, -1.0, AGREES),
    (-0.9, -0.55, -1.0, DISAGREES),
    (0.5, 0.7, 0.5, AGREES),   # the theory's value at the interval's end
])
def test_slope_agrees_when_its_interval_holds_the_theory(low, high, theory, expected):
    assert verdict(Slope("slope", (low + high) / 2, low, high, theory,
                         "t ∈ [10⁴, 10⁶]")) is expected


def test_clopper_pearson_matches_its_closed_forms():
    # k = 0: the upper end solves (1 − p)^n = 0.025.
    assert clopper_pearson(0, 50) == pytest.approx((0.0, 1 - 0.025 ** (1 / 50)))
    assert clopper_pearson(50, 50) == pytest.approx((0.025 ** (1 / 50), 1.0))
    low, high = clopper_pearson(10, 100)
    assert low < 0.1 < high


@pytest.mark.parametrize(("violations", "runs", "expected"), [
    (0, 50, INCONCLUSIVE),    # upper end 7.1% > δ = 5%: too few runs to tell
    (0, 200, AGREES),         # upper end 1.8%
    (20, 100, DISAGREES),     # lower end 12.7%
    (5, 100, INCONCLUSIVE),
])
def test_guarantee_reads_the_clopper_pearson_interval(violations, runs, expected):
    assert verdict(Guarantee("bound", violations, runs, 0.05, "quantile at 0.3× the bound")) \
        is expected


@pytest.mark.parametrize("evidence", [
    Ordering("PM-II − PM-I (M = 15)", -1.234e-5, 3.1e-6, "<", paired=True),
    Ordering.of("A − B", 2.0, 0.0, 1.0, 0.0, ">"),
    Value.of("crossing t", 812.3, 20.1, "850"),
    Factor("ratio", 1.21, 0.98, 1.49, "1000"),
    Slope("slope of log error on log t", -0.49, -0.55, -0.43, -0.5, "t ∈ [10⁴, 5·10⁵]"),
    Guarantee("error at T below Thm. 1's bound", 0, 100, 0.05, "1 − δ quantile at 0.21×"),
    Unchecked("the paper prints no number for “comparably”"),
])
def test_printed_evidence_reads_back_to_the_same_verdict(evidence):
    text = evidence_text(evidence)
    assert evidence_text(parse(text)) == text
    assert parse(text).decide() is evidence.decide()


def test_an_interval_too_few_runs_cannot_give_is_inconclusive():
    nan = float("nan")
    assert verdict(Value("m", 1.0, nan, nan, "600")) is INCONCLUSIVE
    assert verdict(Factor("r", 1.0, nan, nan, "1000")) is INCONCLUSIVE
    assert verdict(Slope("s", 0.5, nan, nan, 0.5, "m ∈ [64, 256]")) is INCONCLUSIVE
    assert verdict(Ordering("A − B", -1.0, nan)) is INCONCLUSIVE
    assert "95% CI [nan, nan]" in evidence_text(Value("m", 1.0, nan, nan, "600"))


def test_a_claim_no_rule_can_decide_is_inconclusive():
    assert verdict(Unchecked("no number is printed")) is INCONCLUSIVE
    assert evidence_text(Unchecked("no number is printed")) == "none: no number is printed"


def test_text_that_follows_no_rule_is_refused():
    with pytest.raises(ValueError, match="not the printed form"):
        parse("ordering: A is below B")
    with pytest.raises(ValueError, match="not the printed form"):
        parse("yes: 3 of 4")


def test_tables_read_back_and_tally():
    claims = [Claim("VII-A", "A below B", Ordering("A − B", -3.0, 1.0), case="M = 15",
                    reading="never shown"),
              Claim("VII-A", "A below B", Ordering("A − B", -1.0, 1.0), case="M = 30",
                    reading="too few runs"),
              Claim("VII-C", "≈ 600 | with a bar", Value("c", 700, 690, 710, "600"))]
    assert tally(claims) == {AGREES: 1, DISAGREES: 1, INCONCLUSIVE: 1}
    assert tally_text(claims) == "1 agree, 1 disagree, 1 inconclusive (of 3)"
    rows = read_tables(f"text\n\n{claims_table(claims)}\n\nmore text\n")
    assert [r["verdict"] for r in rows] == ["agrees", "inconclusive", "**disagrees**"]
    assert [r["reading"] for r in rows] == ["", "too few runs", ""]
    assert rows[2]["the paper's claim"] == "≈ 600 | with a bar"
    assert [parse(r["evidence (rule: numbers)"]).decide() for r in rows] == [
        AGREES, INCONCLUSIVE, DISAGREES]
