"""Empirical lower bounds on ε, black box (issue 36): each family's single releases and
small whole runs, run by its own code on neighbouring inputs (:mod:`tests.epsilon_audit`).

The bound is a 95% Clopper–Pearson bound: a correct mechanism gives ε_lb <= ε except
with probability 5% (fixed seeds make each case deterministic). A single Laplace, staircase or
Gaussian release must also show power: ε_lb >= ε/2 (the tightest a Monte-Carlo sample of
10⁵–10⁶ runs can see is about 0.98 ε for Laplace noise, and for the Gaussian mechanism
at δ = 10⁻³ about 0.6 ε, the rest of its privacy loss sitting in tails of probability
near δ), and > ε with the drawn noise halved. Whole runs and the floored smooth
sensitivity must stay within their budget (the smooth framework's noise 2S*/ε pays for
the location with half of ε, so about ε/2 is all a sound one shows). The network's
smooth sensitivity as the paper prints it must *exceed* its budget at a small signal: a
finding, which this shows black box. The tables of docs/families/<family>.md must be
these numbers.
"""

from __future__ import annotations

import pytest

from .black_box import EpsilonBound
from .epsilon_audit import DOCS, END, START, Case, cases, table

#: About a minute of Monte-Carlo runs.
pytestmark = pytest.mark.slow
CASES = cases()


@pytest.fixture(scope="module")
def results() -> list[tuple[Case, EpsilonBound, EpsilonBound]]:
    return [(case, *case.bounds()) for case in CASES]


@pytest.mark.parametrize("index", range(len(CASES)),
                         ids=[f"{c.family}-{c.noise}-{c.rule}" for c in CASES])
def test_the_bound_follows_its_declared_rule(
        index: int, results: list[tuple[Case, EpsilonBound, EpsilonBound]]) -> None:
    case, plain, halved = results[index]
    ratio, halved_ratio = plain.epsilon_lb / case.epsilon, halved.epsilon_lb / case.epsilon
    if case.rule == "finding":
        assert ratio > 1.0, f"ε_lb/ε = {ratio:.3f}: {case.release} no longer exceeds its budget"
        return
    assert ratio <= 1.0, f"ε_lb/ε = {ratio:.3f}: {case.release} spends more than its budget"
    if case.rule == "power":
        assert ratio >= 0.5, f"ε_lb/ε = {ratio:.3f}: the audit of {case.release} has no power"
        assert halved_ratio > 1.0, f"with the noise halved ε_lb/ε is only {halved_ratio:.3f}"


def test_the_tables_in_the_docs_are_the_commands(
        results: list[tuple[Case, EpsilonBound, EpsilonBound]]) -> None:
    """Each family page holds, between its markers, the table
    ``python -m tests.epsilon_audit --write`` renders from these runs."""
    for family in dict.fromkeys(c.family for c in CASES):
        page = (DOCS / f"{family}.md").read_text()
        assert START in page and END in page, f"{family}.md has no ε_lb table"
        assert table(family, results) in page, (
            f"{family}.md's ε_lb table is stale: run python -m tests.epsilon_audit --write")
