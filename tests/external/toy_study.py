"""The study of the toy family (toy_family.py), as a user's would be (see README,
"Adding a family's study"): its words, one view, one claim and a document section.

It is registered under the family's ``family`` column, ``toy_family:FAMILY``: from
Python with ``analysis.study.register("toy_family:FAMILY", "toy_study:STUDY")``, on the
command line with ``--study toy_study:STUDY``.
"""

from __future__ import annotations

from pathlib import Path

import seaborn as sns

from analysis.claims import Claim, Value
from analysis.load import Z95, wilson
from analysis.numbers import percent
from analysis.plot import MissingData, curves
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


def values(results: Results) -> dict[str, object]:
    """The section's values: the runs, the biases, and the claim that the interval
    covers p in 95% of runs at the last checkpoint, one row per cell, decided by the
    declared rule for an approximate value: the Wilson interval of the cell's coverage
    against the numbers that print as 0.95."""
    summary = results.summaries["toy_coverage"]
    last = summary[(summary.source == "simulated") & (summary.t == summary.t.max())]
    low, high = wilson(last.covered, last.n, Z95)
    claims = [Claim("toy", f"the interval covers p in {percent(NOMINAL)} of runs at t = "
                    f"{int(row.t)}",
                    Value("coverage", row.covered, lo, hi, f"{NOMINAL:g}"),
                    case=f"p = {row.p:g}, node {row.node}",
                    reading="the normal interval undercovers when p̂(1 − p̂)/t is small")
              for row, lo, hi in zip(last.itertuples(), low, high, strict=True)]
    return {"toy_runs": f"{int(last.n.max()):,}",
            "toy_biases": "{" + ", ".join(f"{p:g}" for p in sorted(last.p.unique())) + "}",
            "toy_claims": claims}


STUDY = Study(
    family="toy_family:FAMILY",
    vocabulary=VOCABULARY,
    views={"toy_coverage": coverage},
    section=Section(template=HERE / "toy.md",
                    presets=(Preset("toy_coverage", ("flips",), ("toy_coverage",),
                                    HERE / "conf" / "experiment"),),
                    values=values, sizes={"flips": "flips"}),
)
