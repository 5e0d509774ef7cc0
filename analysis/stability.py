"""Whether the documents' verdicts stay put when the runs are redone from another root seed.

``python -m analysis stability ROOT_A ROOT_B [--document NAME ...]`` decides every
document's claims from two stores of the presets' results, made with two independent root
seeds (``python -m sweep -m +experiment=<preset> results_dir=ROOT_B/<preset> seed=1``), and
prints every claim whose verdict differs. A verdict that moves to or from *inconclusive* is
allowed (a test at 5% can); a move between *agrees* and *disagrees* is not a finding, and
makes the command exit with 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .claims import Claim, Verdict, markdown_table, statements

#: The two verdicts a claim may not move between.
DECIDED = {Verdict.AGREES, Verdict.DISAGREES}


@dataclass(frozen=True)
class Move:
    """One claim (section, the paper's words, the k-th case of its statement) whose
    verdict differs between the two roots, with the case as each root words it."""

    section: str
    claim: str
    case: tuple[str, str]
    verdicts: tuple[Verdict | None, Verdict | None]

    @property
    def flips(self) -> bool:
        """Between agrees and disagrees."""
        return set(self.verdicts) == DECIDED


def _keyed(claims: Sequence[Claim]) -> dict[tuple[str, str, int], Claim]:
    """The claims by (section, claim, rank of the case in its statement): a case's words
    may hold numbers that differ between the roots."""
    seen: dict[tuple[str, str], int] = {}
    keyed = {}
    for claim in claims:
        rank = seen.get((claim.section, claim.claim), 0)
        seen[(claim.section, claim.claim)] = rank + 1
        keyed[(claim.section, claim.claim, rank)] = claim
    return keyed


def moves(a: Sequence[Claim], b: Sequence[Claim]) -> list[Move]:
    """The claims whose verdict differs between ``a`` and ``b`` (None: a case one side
    lacks), in ``a``'s order."""
    first, second = _keyed(a), _keyed(b)
    found = []
    for key in [*first, *(k for k in second if k not in first)]:
        x, y = first.get(key), second.get(key)
        verdicts = (x and x.verdict, y and y.verdict)
        if verdicts[0] is not verdicts[1]:
            found.append(Move(key[0], key[1], (x.case if x else "", y.case if y else ""),
                              verdicts))
    return found


def report(name: str, a: Sequence[Claim], b: Sequence[Claim], found: Sequence[Move]) -> str:
    """What moved in the document ``name``, as Markdown."""
    counted = [len(statements((c.section, c.claim, c.verdict) for c in side))
               for side in (a, b)]
    flips = sum(move.flips for move in found)
    head = (f"{name}: {len(a)} and {len(b)} cases ({counted[0]} and {counted[1]} statements); "
            f"{len(found)} verdicts differ, {flips} between agrees and disagrees")
    if not found:
        return head

    def word(v: Verdict | None) -> str:
        return "—" if v is None else v.value

    rows = [[m.section, m.claim[:90] + ("…" if len(m.claim) > 90 else ""),
             m.case[0] if m.case[0] == m.case[1] or not m.case[1] else
             f"{m.case[0]} / {m.case[1]}", word(m.verdicts[0]), word(m.verdicts[1]),
             "**flip**" if m.flips else ""] for m in found]
    table = markdown_table(["Sec.", "claim", "case", "root A", "root B", ""],
                           [[c.replace("|", "\\|") for c in row] for row in rows])
    return f"{head}\n\n{table}"


def command(argv: Sequence[str]) -> int:
    """``python -m analysis stability ROOT_A ROOT_B [--document NAME ...]``."""
    from .commands import documents

    names = documents()
    parser = argparse.ArgumentParser(
        prog="python -m analysis stability",
        description="Decide every document's claims from two stores of the presets' results "
                    "(two root seeds) and print each claim whose verdict differs; exit 1 if "
                    "any moves between agrees and disagrees.")
    parser.add_argument("roots", nargs=2, metavar="ROOT",
                        help="a directory holding one results directory per preset")
    parser.add_argument("--document", action="append", choices=sorted(names), default=[],
                        help="a document's command (repeatable; default: every document)")
    parser.add_argument("--any-size", action="store_true",
                        help="read runs of any size, not only the presets'")
    args = parser.parse_args(argv)
    for root in args.roots:
        if not Path(root).is_dir():
            parser.error(f"ROOT: {root} is not a directory")
    from .document import document_claims
    from .load import MissingData

    flips = 0
    for command_name in args.document or sorted(names):
        try:
            a, b = (document_claims(names[command_name], root, args.any_size)
                    for root in args.roots)
        except MissingData as error:
            print(f"error: {names[command_name]}: {error}", file=sys.stderr)
            return 2
        found = moves(a, b)
        flips += sum(move.flips for move in found)
        print(report(names[command_name], a, b, found), end="\n\n")
    return 1 if flips else 0
