"""Every planted bug of :mod:`tests.mutants` still applies: its edit matches its file
exactly once, so that a change of the code cannot leave an audit's mutant silently unrun
(``python -m tests.mutants`` runs them, and each must fail its audit)."""

from __future__ import annotations

import pytest

from sweep.family import families

from .mutants import CHECK_TESTS, MUTANTS
from .sweep_reference import ROOT


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_the_edit_applies_once(mutant) -> None:
    assert (ROOT / mutant.path).read_text(encoding="utf-8").count(mutant.old) == 1
    assert mutant.old != mutant.new and mutant.family in {*families(), *CHECK_TESTS}


def test_every_family_has_planted_bugs() -> None:
    assert {m.family for m in MUTANTS} == {*families(), *CHECK_TESTS}
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
