"""Enough data to decide (:mod:`analysis.needs`): the factor by which a rule's standard
errors must shrink to decide, the presets a row's numbers come from, and the runs each
preset is extended to within its budget."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

from analysis.claims import (
    ALPHA,
    Adjusted,
    Claim,
    Factor,
    Ordering,
    Slope,
    Unchecked,
    Value,
    Verdict,
)
from analysis.needs import Need, commands, needs, needs_table
from analysis.statements import Below, Estimate, Interval, M, Near, Statement, evaluate
from analysis.study import Preset, Results, Section, Study, note, noting

Z = stats.norm.isf(ALPHA / 2)


def decided(evidence, level: float = ALPHA) -> bool:
    test = evidence.test()
    return test is not None and test.p <= level * (1 + 1e-9)


def shrunk(evidence, factor: float):
    """The same evidence with its standard errors divided by ``factor``."""
    if isinstance(evidence, Ordering):
        return Ordering(evidence.what, evidence.difference, evidence.se / factor,
                        evidence.claimed, df=evidence.df)
    if isinstance(evidence, Factor):  # on the log scale
        x, low, high = (math.log(v) for v in (evidence.estimate, evidence.low, evidence.high))
        return Factor(evidence.what, evidence.estimate, math.exp(x - (x - low) / factor),
                      math.exp(x + (high - x) / factor), evidence.printed, evidence.band)
    return type(evidence)(evidence.what, evidence.estimate,
                          evidence.estimate - (evidence.estimate - evidence.low) / factor,
                          evidence.estimate + (evidence.high - evidence.estimate) / factor,
                          evidence.printed, evidence.band)


@pytest.mark.parametrize("evidence", [
    Ordering("A − B", -1.0, 1.0),  # t = −1
    Ordering("A − B", 0.3, 0.2, claimed=">"),
    Value("x", 600.0, 560.0, 655.0, "600"),  # inside the band, straddling its top
    Value("x", 680.0, 600.0, 760.0, "600"),  # above the band, straddling it
    Value("x", 520.0, 480.0, 580.0, "600"),  # below it
    Factor("r", 30.0, 10.0, 90.0, "100"),
], ids=["ordering", "ordering-above", "value-in", "value-above", "value-below", "factor"])
def test_the_shrink_factor_is_where_the_test_starts_to_decide(evidence) -> None:
    """Inconclusive as given; with its standard errors divided by 1.001 × the factor it
    decides at 5%, with 0.999 × it does not (the factor is the edge of the decision)."""
    assert not decided(evidence)
    factor = evidence.shrink(ALPHA)
    assert factor > 1
    assert decided(shrunk(evidence, factor * 1.001))
    assert not decided(shrunk(evidence, factor * 0.999))


def test_the_factor_is_the_quantile_over_t_for_an_ordering() -> None:
    assert Ordering("A − B", -1.0, 0.5).shrink(ALPHA) == pytest.approx(Z / 2)
    assert Ordering("A − B", -1.0, 0.5).shrink(0.01) == pytest.approx(
        stats.norm.isf(0.005) / 2)
    assert math.isinf(Ordering("A − B", 0.0, 0.5).shrink(ALPHA))


def test_what_more_runs_cannot_decide_or_do_not_narrow() -> None:
    on_edge = Value("x", 650.0, 600.0, 700.0, "600")  # the estimate on the band's top
    assert math.isinf(on_edge.shrink(ALPHA))
    assert Ordering("A − B", -1.0, 0.0).shrink(ALPHA) is None  # exact
    assert Slope("s", 0.5, 0.3, 0.7, 0.5, "t in [10, 100]").shrink(ALPHA) is None  # cells
    assert Unchecked("no number printed").shrink(ALPHA) is None
    grid = Value("first t", 2.0, 1.0, 8.0, "2", (1.5, 2.5), from_runs=False)
    assert grid.shrink(ALPHA) is None


def test_a_row_is_planned_at_the_level_its_adjusted_p_value_faces() -> None:
    """Under BH a row whose p is 0.02 and adjusted p 0.08 decides at p ≤ 0.05 × 0.02/0.08
    = 0.0125: its factor is that level's quantile over |t|."""
    evidence = Ordering("A − B", -1.0, 1 / stats.norm.isf(0.01))  # p = 0.02
    claim = Claim("s", "q", evidence, adjusted=Adjusted("BH", 0.08))
    assert claim.shrink() == pytest.approx(stats.norm.isf(0.0125 / 2) / abs(evidence.t))
    assert Claim("s", "q", evidence).shrink() == pytest.approx(Z / abs(evidence.t))


class Measures:
    """Measures that read presets from a results object, one of them inside another."""

    def __init__(self) -> None:
        self.results = {"fig4": 1.0, "fig3": 2.0}

    def final(self, preset: str) -> Estimate:
        note((preset,))
        return Estimate(self.results[preset], 0.5, 19)

    def derived(self, x: Estimate) -> Estimate:
        return Estimate(x.mean - 1.5, x.se, x.df)

    def order(self, preset: str) -> list[dict[str, str]]:
        return [{"p": preset}]


def test_a_row_knows_the_presets_its_numbers_read() -> None:
    """Noted reads, nested calls (measured once, their reads kept for every row that uses
    them), the texts a call names and the presets that chose the cases."""
    rows = evaluate([
        Statement("s", "a", Below("A − B"), {"a": M.final("fig4"), "b": 1.0}),
        Statement("s", "b", Below("A − B"), {"a": M.derived(M.final("fig3")), "b": 1.0}),
        Statement("s", "c", Below("A − B"), {"a": M.final("fig3"), "b": M.final("fig4")}),
        Statement("s", "d", Below("A − B"), {"a": 0.0, "b": 1.0},
                  cases=M.order("fig2_left")),
    ], Measures())
    assert [set(r.presets) & {"fig2_left", "fig3", "fig4"} for r in rows] == [
        {"fig4"}, {"fig3"}, {"fig3", "fig4"}, {"fig2_left"}]
    with noting() as outer:
        note(("x",))
        with noting() as inner:
            note(("y",))
    assert (outer, inner) == ({"x", "y"}, {"y"})


def preset(name: str, budget: int | None = None) -> Preset:
    return Preset(name, ("n_agents", "t_max"), budget=budget)


def test_a_preset_is_extended_to_the_largest_need_within_its_budget() -> None:
    """Factors 1.5 and 4 fit a budget of 100 from 20 runs (30 and 80 runs), 6 does not
    (120), ∞ and None are counted apart; the sweep keeps the stored seed."""
    need = Need(preset("fig4", 100), 20, (1.5, 4.0, 6.0, math.inf, None), seed=1)
    assert need.within == [30, 80] and need.beyond == 1 and need.edge == 1 and need.unset == 1
    assert need.wanted == 80
    assert commands([need], Path("paper")) == [
        "python -m sweep -m +experiment=fig4 replicates=80 seed=1 results_dir=paper/fig4"]
    none_fits = Need(preset("fig3"), 20, (6.0,))  # no budget: its own runs
    assert none_fits.wanted == 20 and commands([none_fits], Path("paper")) == []
    table = needs_table([need, none_fits, Need(preset("fig2_left"), 20, ())])
    assert "| `fig4` | 20 | 100 | 5 | 2 (at most 80 runs) | 1 | 1 | 1 |" in table
    assert "| `fig3` | 20 | 20 | 1 | 0 | 1 | 0 | 0 |" in table
    assert "fig2_left" not in table  # nothing inconclusive, nothing to extend
    assert needs_table([Need(preset("fig2_left"), 20, ())]).startswith("No claim")


def test_needs_count_the_inconclusive_claims_of_each_preset() -> None:
    summary = pd.DataFrame({"replicates": [20, 20], "seed": [0, 0]})
    results = Results(Path("root"), {"fig4": summary, "fig3": summary})
    section = Section(("analysis", "x.md"), (preset("fig4", 200), preset("fig3")),
                      lambda r: {}, {})
    inconclusive = Claim("s", "q", Ordering("A − B", -1.0, 1.0), presets=("fig4",))
    decided_row = Claim("s", "q", Ordering("A − B", -3.0, 1.0), presets=("fig4", "fig3"))
    unchecked = Claim("s", "q", Unchecked("no number"), presets=("fig3",))
    check = Claim("s", "q", Ordering("A − B", -1.0, 1.0), presets=("fig3",))
    assert inconclusive.verdict is Verdict.INCONCLUSIVE
    found = needs([Study("colme", section=section)], results,
                  [{"x_claims": [inconclusive, decided_row, unchecked],
                    "x_checks": [check]}])
    assert [(n.preset.name, n.runs, n.seed) for n in found] == [("fig4", 20, 0), ("fig3", 20, 0)]
    assert found[0].factors == pytest.approx(((Z / 1.0) ** 2,))
    assert found[0].wanted == math.ceil(20 * Z**2)
    assert found[1].factors == ()


def test_a_grid_resolution_is_not_narrowed_by_runs() -> None:
    row = evaluate([Statement("s", "q", Near("first t", "2", unit=1),
                              {"x": Interval(2.0, 1.0, 8.0, from_runs=False)})], Measures())[0]
    assert row.verdict is Verdict.INCONCLUSIVE and row.shrink() is None


@pytest.mark.parametrize(("runs", "same"), [(1000, True), (1500, True), (2000, True),
                                             (2001, False), (999, False)])
def test_runs_within_the_budget_are_the_presets_size(runs: int, same: bool) -> None:
    """A preset extended within its budget is still rendered as the paper's size; more
    runs than the budget, or fewer than the preset's, are other sizes."""
    from analysis.document import sizes_found

    fig4 = preset("fig4", 2000)
    summary = pd.DataFrame({**{c: [v] for c, v in fig4.sizes.items()}, "replicates": [runs]})
    assert sizes_found(Results(Path("root"), {"fig4": summary}), fig4)[1] is same
