"""Every verdict of the rendered documents, re-derived from the numbers they print.

The documents in docs/ are rendered from stored results; this reads them as a reader
would, re-applies each row's declared rule (analysis.claims) to its printed evidence, and
fails on any verdict, reading or tally that does not follow.
"""

import re
from pathlib import Path

import pytest

from analysis.claims import HEADER, Verdict, parse, read_tables
from analysis.commands import documents

DOCS = Path(__file__).resolve().parents[1] / "docs"
EVIDENCE = HEADER[4]
VERDICTS = {str(v): v for v in Verdict}


def rows_of(document: str) -> list[dict[str, str]]:
    return read_tables((DOCS / document).read_text("utf-8"))


@pytest.mark.parametrize("document", sorted(documents().values()))
def test_every_verdict_follows_from_its_printed_evidence(document):
    rows = rows_of(document)
    assert rows, f"{document} has no claims table"
    wrong = [(row[HEADER[1]] if HEADER[1] in row else row["our check"], row["case"],
              row["verdict"], str(parse(row[EVIDENCE]).decide()))
             for row in rows if VERDICTS[row["verdict"]] is not parse(row[EVIDENCE]).decide()]
    assert not wrong, f"verdicts that do not follow from their evidence: {wrong}"


@pytest.mark.parametrize("document", sorted(documents().values()))
def test_a_row_that_does_not_agree_says_why(document):
    silent = [row for row in rows_of(document)
              if row["verdict"] != "agrees" and not row["reading"]]
    assert not silent, f"rows without a reading: {silent}"


@pytest.mark.parametrize("document", sorted(documents().values()))
def test_the_tallies_count_the_papers_claims_only(document):
    text = (DOCS / document).read_text("utf-8")
    header = "| paper | " + " | ".join(v.value for v in Verdict) + " | claims |"
    assert header in text, f"{document} has no table of tallies"
    lines = text[text.index(header):].splitlines()[2:]
    tallies = {}
    for line in lines:
        if not line.startswith("| "):
            break
        paper, *counts = (c.strip() for c in line.strip("|").split("|"))
        tallies[paper] = [int(c) for c in counts]
    claims = [row for row in rows_of(document) if HEADER[1] in row]
    found = [0, 0, 0]
    for row in claims:
        found[list(Verdict).index(VERDICTS[row["verdict"]])] += 1
    assert [sum(column) for column in zip(*tallies.values(), strict=True)] == [*found,
                                                                              len(claims)]
    for paper, counts in tallies.items():
        assert sum(counts[:3]) == counts[3], paper


@pytest.mark.parametrize("document", sorted(documents().values()))
def test_each_section_tally_matches_its_table(document):
    """A section's "7 agree, 2 disagree, 3 inconclusive (of 12)" counts the rows of the
    claims table that follows it."""
    text = (DOCS / document).read_text("utf-8")
    tally = re.compile(r"(\d+) agree, (\d+) disagree, (\d+) inconclusive \(of (\d+)\)")
    header = "| " + " | ".join(HEADER) + " |"
    for match in tally.finditer(text):
        rest = text[match.end():]
        rows = read_tables(rest[rest.index(header):].split("\n\n")[0])
        counts = [sum(VERDICTS[r["verdict"]] is v for r in rows) for v in Verdict]
        assert [int(g) for g in match.groups()] == [*counts, len(rows)], match[0]
