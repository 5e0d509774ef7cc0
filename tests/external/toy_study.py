"""The study of the toy family (toy_family.py), as a user's would be (see README,
"Adding a family's study"): its words, one view, one statement of a claim, declared, and a
document section.

It is registered under the family's ``family`` column, ``toy_family:FAMILY``: from
Python with ``analysis.study.register("toy_family:FAMILY", "toy_study:STUDY")``, on the
command line with ``--study toy_study:STUDY``.
"""

from __future__ import annotations

from pathlib import Path

import seaborn as sns

from analysis.load import Z95, wilson
from analysis.numbers import percent
from analysis.plot import MissingData, curves
from analysis.statements import Interval, M, Near, Statement, evaluate
from analysis.study import Preset, Results, Section, Source, Study
from analysis.vocabulary import Vocabulary

HERE = Path(__file__).resolve().parent
#: The coverage the interval is built for.
NOMINAL = 0.95

VOCABULARY = Vocabulary(
    names={"method": {"coin": "normal interval"}},
    axes={"covered": "coverage of p", "error": "absolute error |p̂ − p|"},
    symbols={"p": "p", "n_nodes": "nodes"},
    curves=("coin",),
    facets=("p",),
    metric="error",
)


def coverage(source: Source) -> sns.FacetGrid:
    """The share of runs whose interval covers p, against t (Wilson bands), with the
    nominal 95% as a line."""
    rows = source.summary[source.summary.source == "simulated"]
    if rows.empty:
        raise MissingData("toy_coverage: needs simulated runs (replicates > 0)")
    grid = curves(rows, y="covered", style="node", aggregate=source.aggregate,
                  note=f"The horizontal line marks the nominal {percent(NOMINAL)}.")
    for ax in grid.axes.flat:
        ax.axhline(NOMINAL, color="0.3", lw=0.8)
    return grid


#: The claim, declared: one row per cell, decided by the rule for an approximate value
#: (the Wilson interval of the cell's coverage against the numbers that print as 0.95).
CLAIMS = (Statement(
    "toy", f"the interval covers p in {percent(NOMINAL)} of runs at the last checkpoint",
    Near("coverage at t = {t:,}", f"{NOMINAL:g}"), {"x": M.coverage("{cell}")},
    cases=M.cells(), case="p = {p:g}, node {node}",
    reading="the normal interval undercovers when p̂(1 − p̂)/t is small"),)


class Measures:
    """The numbers the claim reads: each cell's coverage at its last checkpoint."""

    def __init__(self, results: Results) -> None:
        summary = results.summaries["toy_coverage"]
        self.last = summary[(summary.source == "simulated")
                            & (summary.t == summary.t.max())].reset_index(drop=True)

    def cells(self) -> list[dict[str, object]]:
        return [{"cell": i, "p": row.p, "node": row.node, "t": int(row.t)}
                for i, row in enumerate(self.last.itertuples())]

    def coverage(self, cell: int) -> Interval:
        row = self.last.iloc[cell]
        low, high = wilson(row.covered, row.n, Z95)
        return Interval(row.covered, float(low), float(high))


def values(results: Results) -> dict[str, object]:
    """The section's values: the runs, the biases, and the claim's rows."""
    measures = Measures(results)
    last = measures.last
    return {"toy_runs": f"{int(last.n.max()):,}",
            "toy_biases": "{" + ", ".join(f"{p:g}" for p in sorted(last.p.unique())) + "}",
            "toy_claims": evaluate(CLAIMS, measures)}


STUDY = Study(
    family="toy_family:FAMILY",
    vocabulary=VOCABULARY,
    views={"toy_coverage": coverage},
    section=Section(template=HERE / "toy.md",
                    presets=(Preset("toy_coverage", ("flips",), ("toy_coverage",),
                                    HERE / "conf" / "experiment"),),
                    values=values, sizes={"flips": "flips"}),
)
