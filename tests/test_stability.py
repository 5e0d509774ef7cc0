"""analysis.stability: which claims move between two roots, and which moves are flips."""

from analysis.claims import Claim, Ordering, Unchecked, Verdict
from analysis.stability import moves, report

AGREES, DISAGREES, INCONCLUSIVE = Verdict.AGREES, Verdict.DISAGREES, Verdict.INCONCLUSIVE


def _claim(section, claim, t, case=""):
    return Claim(section, claim, Ordering("A − B", t, 1.0), case=case)


def test_moves_pair_cases_by_rank_and_flag_only_agrees_disagrees_flips():
    a = [_claim("1", "A below B", -3.0, "n = 10 (mean 0.31)"),
         _claim("1", "A below B", -3.0, "n = 20"),
         _claim("2", "C below D", -1.0),
         Claim("3", "comparably", Unchecked("no number"))]
    b = [_claim("1", "A below B", 3.0, "n = 10 (mean 0.29)"),   # the case's words differ
         _claim("1", "A below B", -1.0, "n = 20"),
         _claim("2", "C below D", -1.0),
         Claim("3", "comparably", Unchecked("no number")),
         _claim("4", "E below F", -3.0)]                       # a case only B has
    found = moves(a, b)
    assert [(m.section, m.verdicts) for m in found] == [
        ("1", (AGREES, DISAGREES)), ("1", (AGREES, INCONCLUSIVE)), ("4", (None, AGREES))]
    assert [m.flips for m in found] == [True, False, False]
    assert found[0].case == ("n = 10 (mean 0.31)", "n = 10 (mean 0.29)")
    text = report("doc.md", a, b, found)
    assert text.startswith("doc.md: 4 and 5 cases (3 and 4 statements); 3 verdicts differ, "
                           "1 between agrees and disagrees")
    assert text.count("**flip**") == 1
    assert moves(a, a) == []
