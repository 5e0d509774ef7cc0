"""``python -m analysis report RESULTS_DIR --out OUT_DIR``: every figure the results allow.

Writes a PNG and a PDF per figure (the paper's figures whose preset is present, an
overview of all series, and the further views), and ``index.html`` showing them with the
sweep's parameters, a summary table at the last checkpoint, and what could not be drawn
and why. Results are read one cell at a time (:func:`analysis.load.summaries`).
"""

from __future__ import annotations

import functools
import html
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import seaborn as sns

from .figures import FIGURES, VIEWS
from .labels import add_scheme, families_of, vocabulary
from .load import ROW_KEYS, present, summaries, summary_metrics, swept
from .plot import MissingData, curves, save


@dataclass
class Report:
    """What a report drew (name -> files) and what it could not draw (name -> reason)."""

    out: Path
    drawn: dict[str, list[Path]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def overview(summary: pd.DataFrame) -> sns.FacetGrid:
    """All series of the families' algorithms, named by every swept option, with the
    baselines; a family's own index column (beyond method, source, replicate and t)
    sets the line style."""
    varying = [c for c in swept(summary) if c not in ("replicates",)]
    scheme = vocabulary(families_of(summary)).scheme
    parts = [*scheme, *(c for c in varying if c not in scheme)]
    rows = add_scheme(summary, parts=parts)
    own = [c for c in summary.attrs.get("index", ()) if c not in ROW_KEYS]
    return curves(rows, style=own[0] if own else None, title="All series")


def _overview_of(summary: pd.DataFrame, family: str | None) -> sns.FacetGrid:
    return overview(summary if family is None else present(summary[summary.family == family]))


def report(results: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
           out: str | os.PathLike[str]) -> Report:
    """Draw every figure the results allow into ``out`` and write ``out/index.html``."""
    summary = summaries(results)
    if summary.empty:
        raise MissingData(f"no results in {results}")
    done = Report(Path(out))
    # One overview per family: families measure different things on their y axes.
    families = families_of(summary) or [None]
    overviews = {"overview" if len(families) == 1 else f"overview_{family}":
                 functools.partial(_overview_of, family=family) for family in families}
    drawers = {**overviews, **{n: f.draw for n, f in FIGURES.items()}, **VIEWS}
    for figure, draw in drawers.items():
        try:
            done.drawn[figure] = save(draw(summary), done.out / figure)
        except (MissingData, ValueError) as reason:
            done.skipped[figure] = str(reason)
    done.out.mkdir(parents=True, exist_ok=True)
    (done.out / "index.html").write_text(_page(summary, done), encoding="utf-8")
    return done


def _table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, border=0, float_format=lambda v: f"{v:.4g}")


def _page(summary: pd.DataFrame, done: Report) -> str:
    varying = swept(summary)
    cells = summary.drop_duplicates("cell_id")
    metrics = summary_metrics(summary)
    constant = [c for c in cells.columns if c not in varying and c not in (
        "cell_id", "method", "source", "t", "n") and not c.endswith(("_low", "_high"))
        and c not in metrics]
    parameters = pd.DataFrame({"option": constant,
                               "value": [cells[c].iloc[0] for c in constant]})
    swept_table = pd.DataFrame({"swept option": varying,
                                "values": [", ".join(map(str, sorted(cells[c].unique(),
                                                                     key=str)))
                                           for c in varying]})
    final = add_scheme(summary[summary.t == summary.groupby("cell_id").t.transform("max")])
    bands = [c for m in metrics for c in (m, f"{m}_low", f"{m}_high")]
    table = final[[*varying, "method", "source", "scheme", "t", *bands, "n"]].sort_values(
        [*varying, "method", "source"]).dropna(axis=1, how="all")
    figures = "\n".join(
        f'<figure><img src="{paths[0].name}" alt="{name}"><figcaption>{html.escape(name)}'
        f' (<a href="{paths[1].name}">PDF</a>)</figcaption></figure>'
        for name, paths in done.drawn.items()
    )
    skipped = "\n".join(f"<li><b>{html.escape(n)}</b>: {html.escape(r)}</li>"
                        for n, r in done.skipped.items())
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sweep report</title>
<style>body{{font-family:sans-serif;margin:2em}} img{{max-width:100%}}
table{{border-collapse:collapse}} td,th{{padding:2px 8px;text-align:right}}</style></head>
<body><h1>Sweep report</h1>
<p>{cells.cell_id.nunique()} cells, {len(summary)} summary rows. Bands: ± one standard
error over replicates.</p>
<h2>Parameters</h2>{_table(swept_table)}{_table(parameters)}
<h2>Figures</h2>{figures}
<h2>Not drawn</h2><ul>{skipped or "<li>none</li>"}</ul>
<h2>Metrics at the last checkpoint</h2>{_table(table)}
</body></html>
"""
