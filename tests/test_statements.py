"""The declared statements and the one function that decides them
(:mod:`analysis.statements`): cases, selections measured once, the rules' evidence and
the templates of a row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.claims import Factor, Ordering, Unchecked, Value, Verdict
from analysis.statements import (
    Below,
    Estimate,
    Given,
    Interval,
    M,
    Near,
    NoRule,
    Statement,
    cases,
    evaluate,
    fill,
)


class Measures:
    """A study's measures, counting their calls."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def mse(self, scheme: str, schedule: str = "rr") -> Estimate:
        self.calls.append(("mse", scheme, schedule))
        return {"pm1": Estimate(1.0, 0.1), "pm2": Estimate(2.0, 0.1)}[scheme]

    def exact(self, value: float) -> float:
        return value

    def ratio(self, a: Estimate, b: Estimate) -> float:
        self.calls.append(("ratio",))
        return a.mean / b.mean

    def runs(self, shift: float, replicates: tuple[int, ...]) -> pd.Series:
        rng = np.random.default_rng(7)
        return pd.Series(rng.normal(size=10)[list(replicates)] + shift, index=replicates)

    def order(self) -> list[dict[str, str]]:
        return [{"a": "pm2", "b": "pm1"}]


def test_each_case_is_a_row_and_each_distinct_call_is_measured_once() -> None:
    measures = Measures()
    statement = Statement(
        "VII-A", "PM-I below PM-II", Below("MSE({s:schedule})"),
        {"a": M.mse("pm1", "{s}"), "b": M.mse("pm2", "{s}"),
         "r": M.ratio(M.mse("pm1", "{s}"), M.mse("pm2", "{s}"))},
        cases(s=("rr", "rrr")), case="{s:schedule}", ours="{a:sci} against {b:sci}, "
        "{r:number}×")
    rows = evaluate([statement, statement], measures)
    assert [r.case for r in rows] == ["RR", "rRR", "RR", "rRR"]
    # Two schemes × two schedules, then the ratio per schedule: nothing twice.
    assert sorted(measures.calls, key=str) == sorted(
        [("mse", m, s) for m in ("pm1", "pm2") for s in ("rr", "rrr")] + [("ratio",)] * 2,
        key=str)
    assert rows[0].ours == "1.00e0 ± 1.00e-1 against 2.00e0 ± 1.00e-1, 0.500×"
    assert rows[0].evidence == Ordering.of("MSE(RR)", 1.0, 0.1, 2.0, 0.1)
    assert rows[0].verdict is Verdict.AGREES  # z = −1 / 0.141 = −7.1


def test_the_data_may_decide_the_cases_and_a_selection_may_be_a_constant() -> None:
    rows = evaluate([Statement("s", "q", Below("{a_name} vs {b_name}", claimed=">"),
                               {"a": M.mse("{a}"), "b": M.mse("{b}"), "a_name": "A",
                                "b_name": "B"}, M.order())], Measures())
    assert len(rows) == 1 and rows[0].evidence.what == "A vs B"
    assert rows[0].verdict is Verdict.AGREES  # pm2 above pm1, as claimed


def test_an_ordering_of_runs_pairs_them_by_replicate() -> None:
    """Runs of two cells with different replicate counts are paired over the replicates
    both hold, not by position."""
    measures = Measures()
    a = measures.runs(0.0, (0, 1, 2, 3, 4, 5, 6))
    b = measures.runs(1.0, (2, 3, 4, 5, 6, 7, 8, 9))
    rows = evaluate([Statement("s", "q", Below("A − B"),
                               {"a": M.runs(0.0, (0, 1, 2, 3, 4, 5, 6)),
                                "b": M.runs(1.0, (2, 3, 4, 5, 6, 7, 8, 9))})], measures)
    common = [2, 3, 4, 5, 6]
    assert rows[0].evidence == Ordering.paired_runs("A − B", a[common], b[common])
    # Paired on the same samples, the difference is exactly −1 in every run.
    assert rows[0].evidence.difference == pytest.approx(-1.0)
    assert rows[0].evidence.se == pytest.approx(0.0, abs=1e-12)


def test_a_value_is_an_estimate_an_interval_or_an_exact_number() -> None:
    measures = Measures()

    def evidence(rule: Near, **select) -> Value:
        return evaluate([Statement("s", "q", rule, select)], measures)[0].evidence

    near = evidence(Near("x", "1.0"), x=M.mse("pm1"))
    assert near == Value.of("x", 1.0, 0.1, "1.0")
    assert evidence(Near("x", "600"), x=Interval(590.0, 560.0, 640.0)) == Value(
        "x", 590.0, 560.0, 640.0, "600")
    exact = evidence(Near("x", "2"), x=M.exact(2.4))
    assert (exact.low, exact.high) == (2.4, 2.4)
    # The band of an exact reference has width 0; one of a unit is ± half of it.
    checked = evidence(Near("x", "oracle {exact:sci}"), x=M.mse("pm1"), exact=M.exact(1.05))
    assert checked.printed == "oracle 1.05e0" and checked.bounds() == (1.05, 1.05)
    assert evidence(Near("t", "{m}", unit=1), x=5.0, m=200).bounds() == (199.5, 200.5)
    assert isinstance(evidence(Near("r", "1000", factor=True), x=900.0), Factor)


def test_given_evidence_and_no_rule() -> None:
    given = Ordering("d", 1.0, 0.1, ">")
    rows = evaluate([Statement("s", "q", Given(), {"evidence": given}),
                     Statement("s", "q", NoRule("no number for “{word}”"), {"word": "w"})],
                    Measures())
    assert rows[0].evidence is given
    assert rows[1].evidence == Unchecked("no number for “w”")
    assert rows[1].verdict is Verdict.INCONCLUSIVE


def test_templates_name_values_format_numbers_and_keep_pythons_specs() -> None:
    names = {"m": "pm2", "e": 0.5, "x": Estimate(4.01e-7, 3.72e-8), "t": 12000,
             "d": -0.25, "r": 10.0}
    text = "{m:mechanism}, {e:epsilon}, {x:sci}, {x.mean:sci}, t = {t:,}, {d:signed}, {r:g}"
    assert fill(text, names) == ("PM-II, ε = 0.5, 4.01e-7 ± 3.72e-8, 4.01e-7, "
                                 "t = 12,000, −0.250, 10")
    # A family's own words win: the network family's ``ol``, not another study's.
    assert fill("{m:method}", {"m": "ol"}, "network") == "OL"


def test_a_template_naming_nothing_says_where() -> None:
    with pytest.raises(KeyError, match=r"VII-A, PM-I.*names .missing."):
        evaluate([Statement("VII-A", "PM-I below", NoRule("x"), ours="{missing}")],
                 Measures())


def test_the_quote_is_never_a_template() -> None:
    row = evaluate([Statement("s", "the gaps t_i − t_{i−1}", NoRule("x"))], Measures())[0]
    assert row.claim == "the gaps t_i − t_{i−1}"
