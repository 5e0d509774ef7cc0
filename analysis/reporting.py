"""``python -m analysis report RESULTS_DIR --out OUT_DIR``: every figure the results allow.

Writes a PNG and a PDF per figure (the paper's figures whose preset is present, an
overview of all series, and the further views), ``final.csv`` (every series at its last
checkpoint) and ``index.html`` showing the figures with their captions, which cells were
read (and which were left out: older versions, fewer replicates), the sweep's
parameters, the last-checkpoint table, and what could not be drawn and why.
"""

from __future__ import annotations

import functools
import html
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import seaborn as sns

from .labels import add_scheme, families_of
from .load import (
    OTHER_FAMILY,
    OTHER_SWEEP,
    PAPER_SIZES,
    ROW_KEYS,
    MissingData,
    present,
    summaries,
    summary_metrics,
    swept,
)
from .plot import curves, hint, save, unclaim
from .study import PathLike, Source, View, get_study, views_of

#: What a figure that could not be drawn needs (:attr:`Report.needs`): beyond
#: :class:`~analysis.plot.MissingData`'s, other cells than these (``LAYOUT``: cells the
#: figure cannot tell apart, a choice it cannot make).
LAYOUT = "layout"
#: How :func:`not_drawn` says each need, in the order it lists them, with the hint for a
#: command-line user and for a Python caller (None: no hint).
NEEDS = {
    PAPER_SIZES: ("need the paper's sizes", "--any-size draws them", "paper=False draws them"),
    OTHER_SWEEP: ("need other sweeps", None, None),
    LAYOUT: ("cannot show these cells", None, None),
    OTHER_FAMILY: ("are of families the results do not hold", None, None),
}
#: Names :func:`not_drawn` lists per need before it abbreviates.
NAMED = 3


@dataclass
class Report:
    """What a report drew (name -> files, and captions), and what it could not draw
    (name -> reason, and name -> what it needs: a key of :data:`NEEDS`)."""

    out: Path
    drawn: dict[str, list[Path]] = field(default_factory=dict)
    captions: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    needs: dict[str, str] = field(default_factory=dict)


def not_drawn(done: Report, command_line: bool = False) -> str:
    """One line on what ``done`` could not draw, by need (:data:`NEEDS`), naming the
    figures (``20 of 24 figures: 4 need the paper's sizes (fig7, …); …``); '' if it drew
    everything."""
    if not done.skipped:
        return ""
    parts = []
    for need, (says, cli, python) in NEEDS.items():
        names = [n for n in done.skipped if done.needs.get(n, OTHER_SWEEP) == need]
        if not names:
            continue
        listed = ", ".join(names[:NAMED]) + (", …" if len(names) > NAMED else "")
        told = cli if command_line else python
        parts.append(f"{len(names)} {says}" + ("" if need == OTHER_FAMILY else
                                                f" ({listed}{f': {told}' if told else ''})"))
    tried = len(done.skipped) + len(done.drawn)
    return f"{len(done.skipped)} of {tried} figures: {'; '.join(parts)}"


def overview(summary: pd.DataFrame, aggregate: str | Sequence[str] = ()) -> sns.FacetGrid:
    """Every series of a family's algorithms, laid out by :func:`analysis.plot.arrange`
    (numeric options as panels, the scheme as colour and line style), with each panel's
    baselines; a family's own index column (beyond method, source, replicate and t) sets
    the line style."""
    own = [c for c in summary.attrs.get("index", ()) if c not in ROW_KEYS]
    return curves(summary, style=own[0] if own else None, aggregate=aggregate,
                  title="All series")


def _rows_of(summary: pd.DataFrame, family: str | None) -> pd.DataFrame:
    # A summary of one family is taken as it is: no copy of a large table.
    one = family is None or not (summary.family != family).any()
    return summary if one else present(summary[summary.family == family])


def _drawer(view: View, source: Callable[[], Source]
            ) -> Callable[[pd.DataFrame], sns.FacetGrid]:
    def draw(_: pd.DataFrame) -> sns.FacetGrid:
        return view(source())
    return draw


def drawers(summary: pd.DataFrame, paper: bool = True,
            results: PathLike | Sequence[PathLike] = (),
            keep: str = "newest") -> dict[str, Callable[[pd.DataFrame], sns.FacetGrid]]:
    """Every figure a report tries, by name: the overview of each family (``overview``,
    or ``overview_<family>`` in a directory of several), and the views and paper figures
    of the study of each family present (:mod:`analysis.study`), drawn from its rows
    (paper figures at the paper's sizes unless ``paper`` is false); ``results`` are the
    directories of ``summary`` (read by the views that need the replicates or the
    provenance), ``keep`` the summary's.

    Cells that differ only in their seed are averaged in the overview and the views,
    and their captions say so; every other curve is one cell.
    """
    seeds = ("seed",) if "seed" in summary and summary.seed.nunique() > 1 else ()
    directories = tuple(Path(p) for p in ([results] if isinstance(results, str | os.PathLike)
                                          else results))
    # One overview per family: families measure different things on their y axes.
    families = families_of(summary) or [None]
    found: dict[str, Callable[[pd.DataFrame], sns.FacetGrid]] = {
        "overview" if len(families) == 1 else f"overview_{family}":
        functools.partial(_overview_of, family=family, aggregate=seeds)
        for family in families}
    for family in families:
        study = get_study(family) if family is not None else None
        if study is None:
            continue
        # The family's rows are picked, and its replicates read, when its first view is
        # drawn, once for all its views.
        source = functools.cache(lambda family=family: Source(
            _rows_of(summary, family), directories, family, keep, paper, seeds))
        # A paper figure that is one of the views under its document's name is drawn once.
        drawn = {name: view for name, view in views_of(study).items()
                 if name in study.views or all(view is not v for v in study.views.values())}
        found.update({name: _drawer(view, source) for name, view in drawn.items()})
    return found


def _overview_of(summary: pd.DataFrame, family: str | None,
                 aggregate: Sequence[str]) -> sns.FacetGrid:
    return overview(_rows_of(summary, family), aggregate)


def draw(drawer: Callable[[pd.DataFrame], sns.FacetGrid], summary: pd.DataFrame
         ) -> sns.FacetGrid:
    """The figure ``drawer`` draws from ``summary``; its title claims a figure of the paper
    only if the figure checked that its cells are at the paper's sizes
    (``grid.paper_sizes``, :meth:`analysis.figures.Figure.draw`)."""
    grid = drawer(summary)
    if not getattr(grid, "paper_sizes", False):
        unclaim(grid.figure)
    return grid


def report(results: PathLike | Sequence[PathLike],
           out: str | os.PathLike[str], paper: bool = True, keep: str = "newest",
           command_line: bool = False) -> Report:
    """Draw every figure the results allow into ``out`` and write ``out/index.html``.

    ``paper=False`` draws the paper's figures from runs of any size; ``keep`` is that of
    :func:`analysis.load.summaries`; ``command_line`` words the reasons a figure was not
    drawn for a command-line user (:func:`analysis.plot.hint`).
    """
    summary = summaries(results, keep=keep)
    if summary.empty:
        raise MissingData(f"no results in {results}")
    done = Report(Path(out))
    done.out.mkdir(parents=True, exist_ok=True)
    for figure, drawer in drawers(summary, paper, results, keep).items():
        try:
            grid = draw(drawer, summary)
        except (MissingData, ValueError) as reason:
            done.skipped[figure] = hint(reason, command_line)
            done.needs[figure] = getattr(reason, "need", LAYOUT)
            continue
        done.captions[figure] = grid.caption
        done.drawn[figure] = save(grid, done.out / figure)
    final = _final(summary)
    final.to_csv(done.out / "final.csv", index=False)
    (done.out / "index.html").write_text(_page(summary, final, done, command_line),
                                         encoding="utf-8")
    return done


def _final(summary: pd.DataFrame) -> pd.DataFrame:
    """Each series at its cell's last checkpoint, sorted by what the sweep varied."""
    varying = swept(summary)
    metrics = summary_metrics(summary)
    final = add_scheme(summary[summary.t == summary.groupby("cell_id").t.transform("max")])
    bands = [c for m in metrics for c in (m, f"{m}_low", f"{m}_high")]
    return final[[*varying, "method", "source", "scheme", "t", *bands, "n"]].sort_values(
        [*varying, "method", "source"], key=_by_type).dropna(axis=1, how="all")


def _by_type(column: pd.Series) -> pd.Series:
    """The order of a column: of values of several types (families that name an option
    alike: text and numbers), by type, then value."""
    if column.dtype != object or column.dropna().map(type).nunique() <= 1:
        return column
    return column.map(lambda value: (type(value).__name__, value), na_action="ignore")


def _table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, border=0, float_format=lambda v: f"{v:.4g}")


#: Rows of the last-checkpoint table shown on the page; ``final.csv`` holds them all.
TABLE_ROWS = 200


def _page(summary: pd.DataFrame, final: pd.DataFrame, done: Report, command_line: bool
          ) -> str:
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
    figures = "\n".join(
        f'<figure><img src="{paths[0].name}" alt="{name}"><figcaption><b>{html.escape(name)}'
        f'</b> (<a href="{paths[1].name}">PDF</a>): {html.escape(done.captions[name])}'
        "</figcaption></figure>"
        for name, paths in done.drawn.items()
    )
    skipped = "\n".join(f"<li><b>{html.escape(n)}</b>: {html.escape(r)}</li>"
                        for n, r in done.skipped.items())
    if skipped:
        skipped = (f"<details><summary>{html.escape(not_drawn(done, command_line))}"
                   f"</summary><ul>{skipped}</ul></details>")
    kept = "".join(f"<li>{html.escape(line)}</li>" for line in summary.attrs.get("kept", ()))
    shown = (f"all {len(final)} rows" if len(final) <= TABLE_ROWS else
             f"the first {TABLE_ROWS} of {len(final)} rows")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sweep report</title>
<style>body{{font-family:sans-serif;margin:2em}} img{{max-width:100%}}
figcaption{{font-size:90%;color:#333;max-width:60em}}
table{{border-collapse:collapse}} td,th{{padding:2px 8px;text-align:right}}</style></head>
<body><h1>Sweep report</h1>
<p>{cells.cell_id.nunique()} cells, {len(summary)} summary rows.</p>
{f"<h2>Cells read</h2><ul>{kept}</ul>" if kept else ""}
<h2>Parameters</h2>{_table(swept_table)}{_table(parameters)}
<h2>Figures</h2>{figures}
<h2>Not drawn</h2>{skipped or "<p>none</p>"}
<h2>Metrics at the last checkpoint</h2>
<p>{shown}; every row in <a href="final.csv">final.csv</a>.</p>{_table(final.head(TABLE_ROWS))}
</body></html>
"""
