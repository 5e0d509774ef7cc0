"""The papers' claims, checked: one row per statement of an experiment section.

A :class:`Claim` holds where a paper makes a statement, what it says, what we measure
(with its standard error or interval), the comparisons that decide it and the reading that
explains a disagreement; :func:`claims_table` renders claims as the Markdown table of the
reproduction documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Claim:
    """One claim of the paper: where it is made, what it says, what we measure (text),
    the comparisons that decide it (``checks``: label → holds), and the reading that
    explains a disagreement (shown only when a check fails)."""

    section: str
    claim: str
    ours: str
    checks: Mapping[str, bool]
    reading: str = ""
    notes: Mapping[str, Any] = field(default_factory=dict)

    @property
    def agrees(self) -> bool:
        return all(self.checks.values())


def verdict(checks: Mapping[str, bool]) -> str:
    """``yes`` if every check holds and ``**no**`` if none does; otherwise the majority's
    answer with its exceptions: ``yes, except ...`` or ``**no**, except ...``."""
    held = [label for label, holds in checks.items() if holds]
    failed = [label for label, holds in checks.items() if not holds]
    if not failed or not held:
        return "yes" if held else "**no**"
    if len(failed) <= len(held):
        return f"yes, except {', '.join(failed)}"
    return f"**no**, except {', '.join(held)}"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table of text cells."""
    lines = [header, ["---"] * len(header), *rows]
    return "\n".join(f"| {' | '.join(line)} |" for line in lines)


def claims_table(claims: Sequence[Claim]) -> str:
    """The Markdown table of ``claims``, one row each: where the paper makes it, what it
    says, what we measure, the verdict of its checks (:func:`verdict`) and, where a check
    fails, the reading that explains it."""
    rows = [[c.section, c.claim, c.ours, verdict(c.checks), c.reading if not c.agrees else ""]
            for c in claims]
    # A bar in a cell (|Θ̄|) would end it.
    return markdown_table(["Sec.", "the paper's claim", "ours", "agrees",
                           "reading of a disagreement"],
                          [[cell.replace("|", "\\|") for cell in row] for row in rows])
