"""Every verdict of the rendered documents, re-derived from the numbers they print.

The documents in docs/ are rendered from stored results; this reads them as a reader
would, re-applies each row's declared rule (analysis.claims) to its printed evidence,
re-does the document's declared multiplicity adjustment from the printed tests, and fails
on any verdict, adjusted p-value, reading or tally that does not follow.
"""

import re
from pathlib import Path

import pytest

from analysis.claims import (
    HEADER,
    PROCEDURES,
    TESTED,
    Verdict,
    parse,
    read_tables,
    shown,
    statements,
    verdict_of,
)
from analysis.commands import documents
from analysis.document import frame, multiplicity

DOCS = Path(__file__).resolve().parents[1] / "docs"
EVIDENCE = HEADER[4]
VERDICTS = {str(v): v for v in Verdict}
TALLY = re.compile(r"(\d+) agree, (\d+) disagree, (\d+) inconclusive \(of (\d+) statements, "
                   r"(\d+) cases\)")


def rows_of(document: str) -> list[dict[str, str]]:
    return read_tables((DOCS / document).read_text("utf-8"))


def claims_of(document: str) -> list[dict[str, str]]:
    return [row for row in rows_of(document) if HEADER[1] in row]


@pytest.mark.parametrize("document", sorted(documents().values()))
def test_every_verdict_follows_from_its_printed_evidence(document):
    rows = rows_of(document)
    assert rows, f"{document} has no claims table"
    wrong = [(row.get(HEADER[1], row.get("our check")), row["case"], row["verdict"],
              str(verdict_of(row[EVIDENCE])))
             for row in rows if VERDICTS[row["verdict"]] is not verdict_of(row[EVIDENCE])]
    assert not wrong, f"verdicts that do not follow from their evidence: {wrong}"


@pytest.mark.parametrize("document", sorted(documents().values()))
def test_the_adjusted_p_values_follow_from_the_printed_tests(document):
    """Every claim a rule tests prints its adjusted p-value, and re-adjusting the printed
    tests' p-values by the procedure the document declares gives them back; the checks
    are not adjusted."""
    label, method, _ = PROCEDURES[multiplicity(frame(document))]
    tested = [(row, TESTED.search(row[EVIDENCE])) for row in claims_of(document)]
    tested = [(row, found) for row, found in tested if found]
    assert all(found["procedure"] == label for _, found in tested)
    # From the unrounded p-values of the printed numbers, as rendering computes them.
    raw = [parse(row[EVIDENCE]).test().p for row, _ in tested]
    wrong = [(row[HEADER[1]], row["case"], found["adjusted"], shown(p))
             for (row, found), p in zip(tested, method(raw), strict=True)
             if found["adjusted"] != shown(p)]
    assert not wrong, f"adjusted p-values that do not follow: {wrong}"
    checks = [row for row in rows_of(document) if HEADER[1] not in row]
    assert not [row for row in checks if (found := TESTED.search(row[EVIDENCE]))
                and found["adjusted"]]


@pytest.mark.parametrize("document", sorted(documents().values()))
def test_a_row_that_does_not_agree_says_why(document):
    silent = [row for row in rows_of(document)
              if row["verdict"] != "agrees" and not row["reading"]]
    assert not silent, f"rows without a reading: {silent}"


@pytest.mark.parametrize("document", sorted(documents().values()))
def test_the_tallies_count_the_papers_statements(document):
    text = (DOCS / document).read_text("utf-8")
    header = "| paper | " + " | ".join(v.value for v in Verdict) + " | statements | cases |"
    assert header in text, f"{document} has no table of tallies"
    lines = text[text.index(header):].splitlines()[2:]
    tallies = {}
    for line in lines:
        if not line.startswith("| "):
            break
        paper, *counts = (c.strip() for c in line.strip("|").split("|"))
        tallies[paper] = [int(c) for c in counts]
    claims = claims_of(document)
    found = statements((row["Sec."], row[HEADER[1]], VERDICTS[row["verdict"]])
                       for row in claims)
    counts = [sum(v is verdict for v in found.values()) for verdict in Verdict]
    assert [sum(column) for column in zip(*tallies.values(), strict=True)] == [
        *counts, len(found), len(claims)]
    for paper, row in tallies.items():
        assert sum(row[:3]) == row[3], paper


@pytest.mark.parametrize("document", sorted(documents().values()))
def test_each_section_tally_matches_its_table(document):
    """A section's "7 agree, 2 disagree, 3 inconclusive (of 12 statements, 30 cases)"
    counts the statements of the claims table that follows it."""
    text = (DOCS / document).read_text("utf-8")
    header = "| " + " | ".join(HEADER) + " |"
    matches = list(TALLY.finditer(text))
    assert matches, f"{document} prints no section tally"
    for match in matches:
        rest = text[match.end():]
        rows = read_tables(rest[rest.index(header):].split("\n\n")[0])
        found = statements((r["Sec."], r[HEADER[1]], VERDICTS[r["verdict"]]) for r in rows)
        counts = [sum(v is verdict for v in found.values()) for verdict in Verdict]
        assert [int(g) for g in match.groups()] == [*counts, len(found), len(rows)], match[0]
