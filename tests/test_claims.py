"""The declared verdict rules of analysis.claims, on synthetic inputs with known answers:
each rule's three outcomes at their edges, Student's t at small degrees of freedom, the
multiplicity procedures on a worked example, and the tally by statement."""

import math

import numpy as np
import pytest

from analysis.claims import (
    Adjusted,
    Claim,
    Curves,
    Factor,
    Guarantee,
    Ordering,
    Slope,
    Unchecked,
    Value,
    Verdict,
    adjust,
    benjamini_hochberg,
    claims_table,
    clopper_pearson,
    evidence_text,
    holm,
    parse,
    printed_band,
    read_tables,
    statements,
    tally,
    tally_text,
    verdict_of,
    welch_df,
)

AGREES, DISAGREES, INCONCLUSIVE = Verdict.AGREES, Verdict.DISAGREES, Verdict.INCONCLUSIVE


def verdict(evidence):
    return Claim("Sec. 1", "a claim", evidence).verdict


# -- Ordering: Student's t -----------------------------------------------------------------

@pytest.mark.parametrize(("difference", "claimed", "expected"), [
    (-1.9, "<", INCONCLUSIVE),   # the claimed sign, p = 0.057 at df = ∞
    (-2.0, "<", AGREES),         # p = 0.046
    (2.0, "<", DISAGREES),       # the opposite sign at p ≤ 5%
    (1.9, "<", INCONCLUSIVE),
    (1.9, ">", INCONCLUSIVE),
    (2.5, ">", AGREES),
    (-3.0, ">", DISAGREES),
    (0.0, "<", INCONCLUSIVE),
])
def test_ordering_of_normal_estimates_decides_near_two_standard_errors(difference, claimed,
                                                                        expected):
    assert verdict(Ordering("A − B", difference, 1.0, claimed)) is expected


def test_ordering_reads_students_t_at_its_degrees_of_freedom():
    # t = 2.02 decides under the normal (p = 0.043) but not on 9 degrees of freedom
    # (p = 0.074): ten paired runs.
    assert parse(evidence_text(Ordering("A − B", -2.02, 1.0))).test().p == \
        pytest.approx(0.0434, abs=1e-3)
    assert verdict(Ordering("A − B", -2.02, 1.0)) is AGREES
    small = Ordering("A − B", -2.02, 1.0, paired=True, df=9.0)
    assert small.test().p == pytest.approx(0.0741, abs=1e-3)
    assert verdict(small) is INCONCLUSIVE
    assert "(paired, 9 df), t = −2.02" in evidence_text(small)
    # At t = 2.27 the 9 degrees of freedom decide (t₀.₉₇₅,₉ = 2.262).
    assert verdict(Ordering("A − B", -2.27, 1.0, paired=True, df=9.0)) is AGREES
    assert verdict(Ordering("A − B", 2.27, 1.0, paired=True, df=9.0)) is DISAGREES


def test_ordering_of_exact_values_is_decided_by_the_sign():
    assert verdict(Ordering.of("A − B", 1.0, 0.0, 2.0, 0.0)) is AGREES
    assert verdict(Ordering.of("A − B", 3.0, 0.0, 2.0, 0.0)) is DISAGREES
    assert verdict(Ordering.of("A − B", 2.0, 0.0, 2.0, 0.0)) is INCONCLUSIVE


def test_ordering_of_independent_estimates_adds_variances_and_reads_welchs_df():
    ordering = Ordering.of("A − B", 1.0, 0.3, 2.0, 0.4, df_a=9, df_b=19)
    assert ordering.se == pytest.approx(0.5)
    assert ordering.t == pytest.approx(-2.0)
    assert not ordering.paired
    # Welch–Satterthwaite: (0.09 + 0.16)² / (0.09²/9 + 0.16²/19).
    assert ordering.df == pytest.approx(0.0625 / (0.0081 / 9 + 0.0256 / 19))
    assert welch_df(1.0, 4, 1.0, 4) == pytest.approx(8)
    assert welch_df(1.0, math.inf, 0.0, 3) == math.inf


def test_paired_ordering_uses_the_standard_error_of_the_differences():
    rng = np.random.default_rng(7)
    shared = rng.normal(0, 10, 400)  # common random numbers: large, and cancelled by pairing
    a, b = shared + rng.normal(0, 1, 400), shared + 0.3 + rng.normal(0, 1, 400)
    paired = Ordering.paired_runs("A − B", a, b)
    independent = Ordering.of("A − B", a.mean(), a.std(ddof=1) / 20, b.mean(),
                              b.std(ddof=1) / 20)
    assert paired.paired and paired.df == 399
    assert verdict(paired) is AGREES            # t ≈ −4: the pairing sees the shift
    assert verdict(independent) is INCONCLUSIVE  # t ≈ −0.2 under the shared noise
    assert "(paired, 399 df)" in evidence_text(paired)


def test_printed_t_decides_not_the_rounded_numbers():
    # 1.95996 prints as t = −1.96: the verdict follows what the reader sees.
    ordering = Ordering("A − B", -1.959960, 1.0)
    assert "t = −1.96" in evidence_text(ordering)
    assert parse(evidence_text(ordering)).t == -1.96


# -- Approximate values and factors: equivalence --------------------------------------------

@pytest.mark.parametrize(("printed", "band"), [
    ("600", (550, 650)), ("850", (845, 855)), ("0.25", (0.245, 0.255)),
    ("1,000", (500, 1500)), ("7", (6.5, 7.5)), ("0.5", (0.45, 0.55)),
])
def test_printed_band_is_the_numbers_that_print_so(printed, band):
    assert printed_band(printed) == pytest.approx(band)


def test_printed_band_with_a_declared_unit():
    assert printed_band("600", unit=10) == pytest.approx((595, 605))


@pytest.mark.parametrize(("low", "high", "expected"), [
    (551, 649, AGREES),          # just inside [550, 650]
    (550, 650, AGREES),          # its ends: the band is closed
    (549, 600, INCONCLUSIVE),    # straddles its lower end
    (600, 651, INCONCLUSIVE),    # straddles its upper end
    (400, 800, INCONCLUSIVE),    # around it: too wide to tell
    (500, 549, DISAGREES),       # just below
    (651, 700, DISAGREES),       # just above
])
def test_value_agrees_only_when_its_whole_interval_is_inside_the_band(low, high, expected):
    assert verdict(Value("crossing", (low + high) / 2, low, high, "600")) is expected


def test_an_interval_decides_exactly_at_p_five_percent():
    # [550, 640] around 595: the lower side's z is 1.96, the p-value 5%.
    value = Value("m", 595.0, 550.0, 640.0, "600")
    assert value.test().p == pytest.approx(0.05)
    assert value.test().outcome is AGREES
    # An asymmetric interval keeps its shape: each side's error from its half-width.
    assert Value("m", 560.0, 551.0, 649.0, "600").test().p < 0.05


def test_value_of_a_mean_reads_students_t():
    assert verdict(Value.of("m", 600.0, 20.0, "600")) is AGREES  # [560.8, 639.2]
    few = Value.of("m", 600.0, 20.0, "600", df=4)   # t₀.₉₇₅,₄ = 2.776: [544.5, 655.5]
    assert few.low == pytest.approx(600 - 2.7764 * 20, abs=1e-2)
    assert verdict(few) is INCONCLUSIVE
    assert "4 df" in evidence_text(few)
    assert verdict(Value.of("m", 540.0, 4.0, "600")) is DISAGREES  # [532.2, 547.8]


@pytest.mark.parametrize(("low", "high", "printed", "expected"), [
    (400, 2000, "1000", AGREES),             # inside [316×, 3163×]
    (10 ** 3.5, 10 ** 4, "1000", INCONCLUSIVE),  # straddles the decade's upper end
    (1.0, 1.5, "1000", DISAGREES),           # a ratio of about 1, far from 1000×
    (3200, 9000, "1000", DISAGREES),
    (24.6, 25.4, "25", AGREES),               # a factor that is no power of ten: its digit
    (20.0, 30.0, "25", INCONCLUSIVE),
])
def test_factor_reads_a_power_of_ten_to_the_decade_and_others_to_their_digit(
        low, high, printed, expected):
    assert verdict(Factor("ratio", math.sqrt(low * high), low, high, printed)) is expected


def test_factor_from_logarithms():
    factor = Factor.of_log("ratio", math.log(900), 0.1, "1000")
    assert factor.low == pytest.approx(900 * math.exp(-0.196), rel=1e-3)
    assert verdict(factor) is AGREES


# -- Slopes: the exponent to its first decimal, bounds one-sided ----------------------------

@pytest.mark.parametrize(("low", "high", "theory", "bound", "expected"), [
    (0.46, 0.54, 0.5, False, AGREES),          # inside [0.45, 0.55]
    (0.38, 0.96, 0.5, False, INCONCLUSIVE),    # holds ½, but too wide to tell
    (0.56, 0.70, 0.5, False, DISAGREES),       # just above the band
    (-1.2, -1.06, -1.0, False, DISAGREES),
    (-0.50, -0.40, -1e-9, True, AGREES),       # faster than a worst case: consistent
    (0.02, 0.10, -1e-9, True, INCONCLUSIVE),   # across the bound's band
    (0.06, 0.20, -1e-9, True, DISAGREES),      # slower than the bound allows
])
def test_slope_is_an_equivalence_test_or_one_sided_against_a_bound(low, high, theory, bound,
                                                                   expected):
    slope = Slope("slope", (low + high) / 2, low, high, theory, "t ∈ [10⁴, 10⁶]", bound)
    assert verdict(slope) is expected


# -- Guarantees: the exact binomial test ---------------------------------------------------

def test_clopper_pearson_matches_its_closed_forms():
    # k = 0: the upper end solves (1 − p)^n = 0.025.
    assert clopper_pearson(0, 50) == pytest.approx((0.0, 1 - 0.025 ** (1 / 50)))
    assert clopper_pearson(50, 50) == pytest.approx((0.025 ** (1 / 50), 1.0))
    low, high = clopper_pearson(10, 100)
    assert low < 0.1 < high


@pytest.mark.parametrize(("violations", "runs", "expected"), [
    (0, 50, INCONCLUSIVE),    # upper end 7.1% > δ = 5%: too few runs to tell
    (0, 71, INCONCLUSIVE),    # 2·0.95⁷¹ = 0.0524: just short
    (0, 72, AGREES),          # 2·0.95⁷² = 0.0498: the upper end just below 5%
    (20, 100, DISAGREES),     # lower end 12.7%
    (5, 100, INCONCLUSIVE),
])
def test_guarantee_is_the_binomial_test_its_interval_shows(violations, runs, expected):
    guarantee = Guarantee("bound", violations, runs, 0.05, "quantile at 0.3× the bound")
    assert verdict(guarantee) is expected
    low, high = clopper_pearson(violations, runs)
    assert (high <= 0.05) == (expected is AGREES)
    assert (low > 0.05) == (expected is DISAGREES)


# -- Printed evidence ----------------------------------------------------------------------

@pytest.mark.parametrize("evidence", [
    Ordering("PM-II − PM-I (M = 15)", -1.234e-5, 3.1e-6, "<", paired=True, df=19),
    Ordering.of("A − B", 2.0, 0.0, 1.0, 0.0, ">"),
    Value.of("crossing t", 812.3, 20.1, "850", df=9),
    Factor("ratio", 1.21, 0.98, 1.49, "1000"),
    Slope("slope of log error on log t", -0.49, -0.55, -0.43, -0.5, "t ∈ [10⁴, 5·10⁵]"),
    Slope("slope", -0.49, -0.55, -0.43, -1e-9, "t ∈ [10⁴, 5·10⁵]", bound=True),
    Guarantee("error at T below Thm. 1's bound", 0, 100, 0.05, "1 − δ quantile at 0.21×"),
    Curves("ours against the reference", 0.003, 400, 20),
    Unchecked("the paper prints no number for “comparably”"),
])
def test_printed_evidence_reads_back_to_the_same_verdict(evidence):
    text = evidence_text(evidence)
    assert evidence_text(parse(text)) == text
    assert verdict_of(text) is parse(text).decide()
    adjusted = evidence_text(evidence, Adjusted("BH", 0.5))
    assert parse(adjusted) == parse(text)


def test_a_printed_test_that_its_numbers_do_not_make_is_refused():
    text = evidence_text(Ordering("A − B", -3.0, 1.0))
    assert text.endswith("; p(agrees) = 0.00270")
    with pytest.raises(ValueError, match="printed test"):
        verdict_of(text.replace("p(agrees) = 0.00270", "p(agrees) = 0.0100"))
    with pytest.raises(ValueError, match="printed test"):
        verdict_of(text.replace("p(agrees)", "p(disagrees)"))


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


# -- Multiplicity --------------------------------------------------------------------------

def test_holm_and_benjamini_hochberg_on_a_worked_example():
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 → 0.02, 0.03, 0.06, 0.04,
    # made monotone → 0.02, 0.03, 0.06, 0.06.
    assert holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # BH: p₍ᵢ₎·4/i → 0.02, 0.02, 0.04, 0.04, the running minimum from the top.
    assert benjamini_hochberg(p) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])


def test_a_document_reads_its_verdicts_at_the_adjusted_p_values():
    # Four orderings at p ≈ 0.03 each: decided alone; Holm's step-down multiplies the
    # smallest by 4, so none stays decided; BH leaves equal p-values as they are.
    claims = [Claim("A", f"claim {i}", Ordering("A − B", -2.17, 1.0)) for i in range(4)]
    claims.append(Claim("B", "no rule", Unchecked("no number")))
    assert [c.verdict for c in claims[:4]] == [AGREES] * 4
    held = adjust(claims, "holm")
    assert [c.verdict for c in held[:4]] == [INCONCLUSIVE] * 4
    assert held[0].adjusted.p == pytest.approx(4 * claims[0].evidence.test().p, rel=1e-2)
    assert held[4].adjusted is None and held[4].verdict is INCONCLUSIVE
    assert [c.verdict for c in adjust(claims, "bh")[:4]] == [AGREES] * 4
    assert ", Holm 0.1" in held[0].printed


# -- Tables and tallies by statement -------------------------------------------------------

def test_a_statement_agrees_when_all_its_cases_agree_and_disagrees_when_any_does():
    rows = [("VII-A", "A below B", AGREES), ("VII-A", "A below B", INCONCLUSIVE),
            ("VII-B", "C below D", AGREES), ("VII-B", "C below D", AGREES),
            ("VII-C", "≈ 600", AGREES), ("VII-C", "≈ 600", DISAGREES),
            ("VII-C", "≈ 600", INCONCLUSIVE)]
    assert statements(rows) == {("VII-A", "A below B"): INCONCLUSIVE,
                                ("VII-B", "C below D"): AGREES,
                                ("VII-C", "≈ 600"): DISAGREES}


def test_tables_read_back_and_tally_by_statement():
    claims = [Claim("VII-A", "A below B", Ordering("A − B", -3.0, 1.0), case="M = 15",
                    reading="never shown"),
              Claim("VII-A", "A below B", Ordering("A − B", -1.0, 1.0), case="M = 30",
                    reading="too few runs"),
              Claim("VII-C", "≈ 600 | with a bar", Value("c", 700, 690, 710, "600")),
              Claim("VII-D", "≈ 600", Value("c", 600, 590, 610, "600"))]
    assert tally(claims) == {AGREES: 1, DISAGREES: 1, INCONCLUSIVE: 1}
    assert tally_text(claims) == ("1 agree, 1 disagree, 1 inconclusive (of 3 statements, "
                                  "4 cases)")
    rows = read_tables(f"text\n\n{claims_table(claims)}\n\nmore text\n")
    assert [r["verdict"] for r in rows] == ["agrees", "inconclusive", "**disagrees**",
                                            "agrees"]
    assert [r["reading"] for r in rows] == ["", "too few runs", "", ""]
    assert rows[2]["the paper's claim"] == "≈ 600 | with a bar"
    assert [verdict_of(r["evidence (rule: numbers)"]) for r in rows] == [
        AGREES, INCONCLUSIVE, DISAGREES, AGREES]
