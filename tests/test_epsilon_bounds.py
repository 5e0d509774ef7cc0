"""Empirical lower bounds on ε, black box (issue 36): each family's single releases, run
by its own code on neighbouring inputs (:mod:`tests.epsilon_audit`).

The bound is a 95% Clopper–Pearson bound: a correct mechanism gives ε_lb <= ε except
with probability 5% (fixed seeds make each case deterministic). It must also have
power: >= ε/2 for every Laplace and Gaussian release (those run here: the tightest a
Monte-Carlo sample of 10⁵–10⁶ runs can see is about 0.98 ε for Laplace noise, and for
the Gaussian mechanism at δ = 10⁻³ about 0.6 ε, the rest of its privacy loss sitting
in tails of probability near δ). With the drawn noise halved the bound must exceed ε.
The tables of docs/families/<family>.md must be these numbers.
"""

from __future__ import annotations

import pytest

from .black_box import EpsilonBound
from .epsilon_audit import DOCS, END, START, Case, cases, table

#: About 20 s of Monte-Carlo runs.
pytestmark = pytest.mark.slow
CASES = cases()


@pytest.fixture(scope="module")
def results() -> list[tuple[Case, EpsilonBound, EpsilonBound]]:
    return [(case, *case.bounds()) for case in CASES]


@pytest.mark.parametrize("index", range(len(CASES)),
                         ids=[f"{c.family}-{c.noise}" for c in CASES])
def test_the_bound_has_power_and_never_exceeds_the_budget(
        index: int, results: list[tuple[Case, EpsilonBound, EpsilonBound]]) -> None:
    case, plain, halved = results[index]
    ratio, halved_ratio = plain.epsilon_lb / case.epsilon, halved.epsilon_lb / case.epsilon
    assert ratio <= 1.0, f"ε_lb/ε = {ratio:.3f}: {case.release} spends more than its budget"
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
