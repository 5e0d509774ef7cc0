"""Enough data to decide: the runs that a claim left inconclusive by too wide an interval
would need, up to the budget each preset declares.

A claim's evidence says by what factor f its standard errors must shrink for its test to
decide at the level its p-value faces after the document's multiplicity adjustment
(:meth:`~analysis.claims.Claim.shrink`). More runs of the same cells shrink them as
1/√runs, so the presets it reads need f² times their runs. Each preset declares the most
runs per cell it may be extended to (:attr:`~analysis.study.Preset.budget`, printed in
the document); it is extended to the largest need of its rows that fits within it. Rows
that more runs cannot decide (an estimate on a band's edge: f = ∞) or whose width runs do
not set (an exact value, a slope's misfit, which needs cells, not runs) are counted
apart. The need is a plan, not a promise: the new runs move the estimates as well as
their errors.

``python -m analysis extend ROOT`` (:mod:`analysis.extend`) prints the sweeps that extend
the presets under ROOT (``--run`` runs them): ``replicates=N`` of a stored cell computes
runs R..N − 1 only, replicate r being the same whatever the count (:mod:`sweep.plan`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .claims import Claim, Unchecked, Verdict, markdown_table
from .study import Preset, Results, Study


@dataclass(frozen=True)
class Need:
    """What the inconclusive claims reading ``preset`` would need: its runs per cell now,
    and each row's factor on them (f², ∞ where more runs cannot decide it, None where
    runs do not set its width); ``seed``, its stored cells' root seed, which their
    extension keeps."""

    preset: Preset
    runs: int
    factors: tuple[float | None, ...]
    seed: int | None = None

    def _needed(self) -> list[int]:
        """The runs each row that more runs can decide needs."""
        return [math.ceil(self.runs * f) for f in self.factors
                if f is not None and not math.isinf(f)]

    @property
    def within(self) -> list[int]:
        """The runs each row decidable within the budget needs."""
        return [n for n in self._needed() if n <= self.preset.most_runs]

    @property
    def beyond(self) -> int:
        return sum(n > self.preset.most_runs for n in self._needed())

    @property
    def edge(self) -> int:
        return sum(f is not None and math.isinf(f) for f in self.factors)

    @property
    def unset(self) -> int:
        return sum(f is None for f in self.factors)

    @property
    def wanted(self) -> int:
        """The runs per cell to extend to: the largest need within the budget."""
        return max([self.runs, *self.within])


def stored_runs(results: Results, preset: str) -> int:
    """The most runs a cell of ``preset`` holds."""
    return int(results.summaries[preset].replicates.max())


def stored_seed(results: Results, preset: str) -> int | None:
    """The root seed of ``preset``'s stored cells, if they share one."""
    seeds = results.summaries[preset].seed.dropna().unique()
    return int(seeds[0]) if len(seeds) == 1 else None


def needs(studies: Sequence[Study], results: Results,
          computed: Sequence[Mapping[str, object]]) -> list[Need]:
    """Each preset of the sections, with the factors of the inconclusive claims (of the
    papers, not the project's checks; not those no rule decides) that read it."""
    found = []
    for study, values in zip(studies, computed, strict=True):
        claims = [c for key, value in values.items() if key.endswith("_claims")
                  for c in value if isinstance(c, Claim)]
        for preset in study.section.presets:
            factors = tuple(_factor(c) for c in claims
                            if c.verdict is Verdict.INCONCLUSIVE and preset.name in c.presets
                            and not isinstance(c.evidence, Unchecked))
            found.append(Need(preset, stored_runs(results, preset.name), factors,
                              stored_seed(results, preset.name)))
    return found


def _factor(claim: Claim) -> float | None:
    shrink = claim.shrink()
    return None if shrink is None else max(1.0, shrink) ** 2


def needs_table(found: Iterable[Need]) -> str:
    """The presets whose claims are inconclusive or whose budget exceeds their runs: runs
    now, budget, and how many of those claim rows more runs (within the budget, beyond
    it) would decide, and how many they cannot."""
    rows = []
    for need in found:
        if not need.factors and need.preset.most_runs == need.preset.replicates:
            continue
        within = need.within
        rows.append([f"`{need.preset.name}`", f"{need.runs:,}", f"{need.preset.most_runs:,}",
                     str(len(need.factors)),
                     f"{len(within)}" + (f" (at most {max(within):,} runs)" if within else ""),
                     str(need.beyond), str(need.edge), str(need.unset)])
    if not rows:
        return ("No claim a rule tests is inconclusive, and no preset declares a budget "
                "beyond its own runs.")
    return markdown_table(["preset", "runs per cell", "budget", "inconclusive claim rows",
                           "decided by more runs within the budget", "beyond it",
                           "not by more runs (on a band's edge)",
                           "runs do not set the width (exact, slope, count)"], rows)


def commands(found: Iterable[Need], root: Path) -> list[str]:
    """The sweeps that extend each preset to the runs its claims need within its budget,
    with its stored cells' seed (another seed would make new cells)."""
    return [need.preset.command(root, replicates=need.wanted,
                                **({} if need.seed is None else {"seed": need.seed}))
            for need in found if need.wanted > need.runs]
