"""``python -m analysis report RESULTS_DIR --out OUT_DIR``: every figure the results allow.

Writes a PNG and a PDF per figure (the paper's figures whose preset is present, an
overview of all series, and the further views), ``final.csv`` (every series at its last
checkpoint) and ``index.html``: which cells were read (and which were left out: older
versions, fewer replicates), then a section per family with the options its sweep varied
(and their values) and those it fixed, its figures with their captions, the figures that
raised an error (with the traceback), what could not be drawn and why, and its metrics
at the last checkpoint, summed up as each metric's range over the family's cells.
"""

from __future__ import annotations

import functools
import html
import numbers
import os
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .labels import add_scheme, axis, families_of, name
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
from .plot import LayoutError, cell_columns, curves, hint, metric_of, save, unclaim
from .study import PathLike, Source, View, get_study, known, views_of

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
#: Significant digits of the numbers the page shows (``final.csv`` holds every digit).
DIGITS = 6
#: Significant digits of the metrics in the page's summary of them.
METRIC_DIGITS = 3
#: Columns of a cell that the page says elsewhere (the section's heading), or that name
#: nothing (a cell's id).
NOT_SHOWN = ("cell_id", "family", "family_version")

#: A figure of the report, drawn from the whole summary.
Drawer = Callable[[pd.DataFrame], sns.FacetGrid]


@dataclass
class Report:
    """What a report drew (name -> files, and captions), what it could not draw (name ->
    reason, and name -> what it needs: a key of :data:`NEEDS`), the figures that raised
    an error (name -> traceback), and the family each figure is of (None: results that
    do not say)."""

    out: Path
    drawn: dict[str, list[Path]] = field(default_factory=dict)
    captions: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    needs: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    families: dict[str, str | None] = field(default_factory=dict)


def not_drawn(done: Report, command_line: bool = False,
              figures: Sequence[str] | None = None) -> str:
    """One line on what ``done`` could not draw (of ``figures``, default: all it tried),
    by need (:data:`NEEDS`), naming the figures (``20 of 24 figures: 4 need the paper's
    sizes (fig7, …); …``); '' if it drew everything."""
    tried = [n for n in done.families if figures is None or n in figures]
    skipped = [n for n in tried if n in done.skipped]
    if not skipped:
        return ""
    parts = []
    for need, (says, cli, python) in NEEDS.items():
        names = [n for n in skipped if done.needs.get(n, OTHER_SWEEP) == need]
        if not names:
            continue
        listed = ", ".join(names[:NAMED]) + (", …" if len(names) > NAMED else "")
        told = cli if command_line else python
        parts.append(f"{len(names)} {says}" + ("" if need == OTHER_FAMILY else
                                                f" ({listed}{f': {told}' if told else ''})"))
    return f"{len(skipped)} of {len(tried)} figures: {'; '.join(parts)}"


def overview(summary: pd.DataFrame, aggregate: str | Sequence[str] = ()) -> sns.FacetGrid:
    """Every series of a family's algorithms, laid out by :func:`analysis.plot.arrange`
    (numeric options as panels, the scheme as colour and line style), with every
    baseline its cells hold; a family's own index column (beyond method, source,
    replicate and t) sets the line style. The y axis is logarithmic where the values
    span decades (:func:`analysis.plot.curves`' ``log``)."""
    own = [c for c in summary.attrs.get("index", ()) if c not in ROW_KEYS]
    families = families_of(summary)
    y = metric_of(summary)
    of = f"{families[0]} " if families else ""
    return curves(summary, y=y, style=own[0] if own else None, aggregate=aggregate,
                  log=(True, None), title=f"Every {of}cell: {axis(y, families)} against t")


def _families(summary: pd.DataFrame) -> list[str | None]:
    """The families of ``summary`` in the order of the known studies, then by name; [None]
    if it does not say."""
    families = families_of(summary)
    if not families:
        return [None]
    order = {family: i for i, family in enumerate(known())}
    return sorted(families, key=lambda f: (order.get(f, len(order)), f))


def _rows_of(summary: pd.DataFrame, family: str | None) -> pd.DataFrame:
    # A summary of one family is taken as it is: no copy of a large table.
    one = family is None or not (summary.family != family).any()
    return summary if one else present(summary[summary.family == family])


def _drawer(view: View, source: Callable[[], Source]) -> Drawer:
    def draw(_: pd.DataFrame) -> sns.FacetGrid:
        return view(source())
    return draw


def family_drawers(summary: pd.DataFrame, paper: bool = True,
                   results: PathLike | Sequence[PathLike] = (),
                   keep: str = "newest") -> dict[str | None, dict[str, Drawer]]:
    """Every figure a report tries, by family (None: results that do not say) and name:
    the family's overview (``overview``, or ``overview_<family>`` in a directory of
    several), and the views and paper figures of its study (:mod:`analysis.study`),
    drawn from its rows (paper figures at the paper's sizes unless ``paper`` is false);
    ``results`` are the directories of ``summary`` (read by the views that need the
    replicates or the provenance), ``keep`` the summary's.

    Cells that differ only in their seed are averaged in the overview and the views,
    and their captions say so; every other curve is one cell.
    """
    seeds = ("seed",) if "seed" in summary and summary.seed.nunique() > 1 else ()
    directories = tuple(Path(p) for p in ([results] if isinstance(results, str | os.PathLike)
                                          else results))
    # One overview per family: families measure different things on their y axes.
    families = _families(summary)
    found: dict[str | None, dict[str, Drawer]] = {}
    for family in families:
        found[family] = {"overview" if len(families) == 1 else f"overview_{family}":
                         functools.partial(_overview_of, family=family, aggregate=seeds)}
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
        found[family].update({name: _drawer(view, source) for name, view in drawn.items()})
    return found


def drawers(summary: pd.DataFrame, paper: bool = True,
            results: PathLike | Sequence[PathLike] = (),
            keep: str = "newest") -> dict[str, Drawer]:
    """Every figure a report tries, by name (:func:`family_drawers`, of every family)."""
    return {name: drawer for found in family_drawers(summary, paper, results, keep).values()
            for name, drawer in found.items()}


def _overview_of(summary: pd.DataFrame, family: str | None,
                 aggregate: Sequence[str]) -> sns.FacetGrid:
    return overview(_rows_of(summary, family), aggregate)


def draw(drawer: Drawer, summary: pd.DataFrame) -> sns.FacetGrid:
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
    drawn for a command-line user (:func:`analysis.plot.hint`). A figure that raises
    anything but :class:`~analysis.plot.MissingData` or
    :class:`~analysis.plot.LayoutError` (what the results cannot show) is a fault of the
    analysis: its traceback is kept (:attr:`Report.errors`) and shown on the page, and
    the other figures are drawn.
    """
    summary = summaries(results, keep=keep)
    if summary.empty:
        raise MissingData(f"no results in {results}")
    done = Report(Path(out))
    done.out.mkdir(parents=True, exist_ok=True)
    for family, found in family_drawers(summary, paper, results, keep).items():
        for figure, drawer in found.items():
            done.families[figure] = family
            _attempt(done, figure, drawer, summary, command_line)
    _final(summary).to_csv(done.out / "final.csv", index=False)
    (done.out / "index.html").write_text(_page(summary, done, command_line),
                                         encoding="utf-8")
    return done


def _attempt(done: Report, figure: str, drawer: Drawer, summary: pd.DataFrame,
             command_line: bool) -> None:
    """Draw and save one figure into ``done``, or say why it is not drawn."""
    opened = set(plt.get_fignums())
    try:
        grid = draw(drawer, summary)
        paths = save(grid, done.out / figure)
    except (MissingData, LayoutError) as reason:
        done.skipped[figure] = hint(reason, command_line)
        done.needs[figure] = getattr(reason, "need", LAYOUT)
    except Exception:  # a fault of the analysis: said with its traceback, never hidden
        done.errors[figure] = traceback.format_exc()
    else:
        done.captions[figure] = grid.caption
        done.drawn[figure] = paths
        return
    # A figure given up half drawn stays open in pyplot: it would hold its memory.
    for number in set(plt.get_fignums()) - opened:
        plt.close(number)


def _final(summary: pd.DataFrame) -> pd.DataFrame:
    """Each series at its cell's last checkpoint, sorted by what the sweep varied."""
    varying = swept(summary)
    metrics = summary_metrics(summary)
    final = add_scheme(_last(summary))
    bands = [c for m in metrics for c in (m, f"{m}_low", f"{m}_high")]
    return final[[*varying, "method", "source", "scheme", "t", *bands, "n"]].sort_values(
        [*varying, "method", "source"], key=_by_type).dropna(axis=1, how="all")


def _last(summary: pd.DataFrame) -> pd.DataFrame:
    """The rows at each cell's last checkpoint."""
    return summary[summary.t == summary.groupby("cell_id").t.transform("max")]


def _by_type(column: pd.Series) -> pd.Series:
    """The order of a column: of values of several types (families that name an option
    alike: text and numbers), by type, then value."""
    if column.dtype != object or column.dropna().map(type).nunique() <= 1:
        return column
    return column.map(lambda value: (type(value).__name__, value), na_action="ignore")


def _shown(value: object, digits: int = DIGITS) -> str:
    """A value as the page prints it: an integer as one (a float column of a mixed
    directory holds ``1000.0``), a float to ``digits`` significant digits (``0.009``, not
    ``0.009000000000000001``), text as it is; '' where the value is missing."""
    if pd.api.types.is_scalar(value) and pd.isna(value):
        return ""
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else \
            f"{value:.{digits}g}"
    return str(value)


def _distinct(column: pd.Series) -> str:
    """The values a column takes, in order (numbers ascending, text alphabetically),
    with "not set" where some cells leave it out."""
    values = sorted(pd.unique(column.dropna()), key=lambda v: (isinstance(v, str), v))
    return ", ".join([*map(_shown, values), *(["not set"] if column.isna().any() else [])])


def _options(cells: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The options of one family's ``cells`` (one row per cell), and the columns the
    cells derive from them: those that vary (``option``, ``values``: each value once)
    and those fixed (``option``, ``value``). A column no cell of the family sets (another
    family's) is in neither."""
    columns = [c for c in cell_columns(cells) if c not in NOT_SHOWN and cells[c].notna().any()]
    # None and NaN both mean "does not apply": counted once.
    varies = [c for c in columns if cells[c].nunique() + cells[c].isna().any() > 1]
    fixed = [c for c in columns if c not in varies]
    return (pd.DataFrame({"option": varies, "values": [_distinct(cells[c]) for c in varies]}),
            pd.DataFrame({"option": fixed, "value": [_shown(cells[c].dropna().iloc[0])
                                                     for c in fixed]}))


def _span(values: pd.Series) -> str:
    """The range of a metric's values (``1.2e-06 – 3.4e-06``), one value if they agree."""
    if values.empty:
        return ""
    low, high = (_shown(v, METRIC_DIGITS) for v in (values.min(), values.max()))
    return low if low == high else f"{low} – {high}"


def _metric_ranges(last: pd.DataFrame, family: str | None) -> pd.DataFrame:
    """One family's metrics at each cell's last checkpoint (``last``), per method and
    source (in the paper's words): the number of cells, and each metric's range over
    them (and over the values of the family's own index, e.g. a state); a metric no row
    of a method holds is ''."""
    metrics = [m for m in summary_metrics(last) if last[m].notna().any()]
    rows = []
    for (method, source), part in last.groupby(["method", "source"], observed=True):
        label = name("method", method, family)
        rows.append({"method": label if label == str(method) else f"{label} ({method})",
                     "source": str(source), "cells": str(part.cell_id.nunique()),
                     **{m: _span(part[m].dropna()) for m in metrics}})
    return pd.DataFrame(rows, columns=["method", "source", "cells", *metrics])


def _table(frame: pd.DataFrame, kind: str) -> str:
    return frame.to_html(index=False, border=0, classes=kind)


def _figures(done: Report, names: list[str]) -> str:
    return "\n".join(
        f'<figure><img src="{done.drawn[n][0].name}" alt="{html.escape(n)}"><figcaption>'
        f'<b>{html.escape(n)}</b> (<a href="{done.drawn[n][1].name}">PDF</a>): '
        f"{html.escape(done.captions[n])}</figcaption></figure>" for n in names)


def _errors(done: Report, names: list[str]) -> str:
    if not names:
        return ""
    listed = "\n".join(
        f"<details><summary><b>{html.escape(n)}</b>: "
        f"{html.escape(done.errors[n].strip().splitlines()[-1])}</summary>"
        f"<pre>{html.escape(done.errors[n])}</pre></details>" for n in names)
    return (f'<h3 class="errors">Errors</h3><p>{len(names)} figure'
            f"{'s' if len(names) > 1 else ''} raised an error: a fault of the analysis, "
            f"not of the results. The traceback:</p>{listed}")


def _skipped(done: Report, names: list[str], command_line: bool) -> str:
    skipped = [n for n in names if n in done.skipped]
    if not skipped:
        return ""
    listed = "".join(f"<li><b>{html.escape(n)}</b>: {html.escape(done.skipped[n])}</li>"
                     for n in skipped)
    return (f"<h3>Not drawn</h3><details><summary>"
            f"{html.escape(not_drawn(done, command_line, names))}</summary><ul>{listed}"
            "</ul></details>")


def _heading(family: str | None, cells: pd.DataFrame) -> str:
    """A section's heading: the family, its paper and its version(s)."""
    if family is None:
        return "Results"
    study = get_study(family)
    paper = f" ({study.section.paper})" if study and study.section and study.section.paper \
        else ""
    versions = sorted(cells.family_version.dropna().unique()) if "family_version" in cells \
        else []
    said = (f", version{'s' if len(versions) > 1 else ''} {', '.join(map(_shown, versions))}"
            if versions else "")
    return f"{family}{paper}{said}"


def _section(family: str | None, cells: pd.DataFrame, last: pd.DataFrame, done: Report,
             command_line: bool) -> str:
    """One family's part of the page (:func:`_page`)."""
    varied, fixed = _options(cells)
    names = [n for n, f in done.families.items() if f == family]
    index = [c for c in last.attrs.get("index", ()) if c not in ROW_KEYS]
    over = f" (and over its values of {', '.join(index)})" if index else ""
    anchor = html.escape(f"family-{family or 'results'}")
    drawn = [n for n in names if n in done.drawn]
    return f"""<section id="{anchor}"><h2>{html.escape(_heading(family, cells))}</h2>
<p>{len(cells)} cell{'s' if len(cells) != 1 else ''}.</p>
<h3>Options</h3>
<p>Varied by the sweep:</p>{"<p>none</p>" if varied.empty else _table(varied, "swept")}
<p>Fixed:</p>{"<p>none</p>" if fixed.empty else _table(fixed, "fixed")}
<h3>Figures</h3>{_figures(done, drawn) or "<p>none</p>"}
{_errors(done, [n for n in names if n in done.errors])}
{_skipped(done, names, command_line)}
<h3>Metrics at the last checkpoint</h3>
<p>Per method and source: each metric's range (lowest – highest) over the cells, each
cell's mean over its replicates at its last checkpoint{over}.</p>
{_table(_metric_ranges(last, family), "metrics")}
</section>"""


def _page(summary: pd.DataFrame, done: Report, command_line: bool) -> str:
    cells = summary.drop_duplicates("cell_id")
    last = _last(summary)
    families = _families(summary)
    sections = []
    for family in families:
        own = cells if family is None else cells[cells.family == family]
        rows = _rows_of(last, family)
        sections.append(_section(family, own, rows, done, command_line))
    contents = "".join(f'<li><a href="#family-{html.escape(f or "results")}">'
                       f"{html.escape(f or 'results')}</a></li>" for f in families)
    errors = ""
    if done.errors:
        errors = (f"<p><b>{len(done.errors)} figure{'s' if len(done.errors) > 1 else ''} "
                  f"raised an error</b> ({html.escape(', '.join(done.errors))}): each "
                  "family's section shows the traceback.</p>")
    kept = "".join(f"<li>{html.escape(line)}</li>" for line in summary.attrs.get("kept", ()))
    count = len(families) if families != [None] else 0
    of = f" of {count} famil{'ies' if count > 1 else 'y'}" if count else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sweep report</title>
<style>body{{font-family:sans-serif;margin:2em}} img{{max-width:100%}}
figcaption{{font-size:90%;color:#333;max-width:60em}}
table{{border-collapse:collapse;margin-bottom:1em}} td,th{{padding:2px 8px;text-align:left}}
pre{{font-size:85%;background:#f6f6f6;padding:0.5em;overflow-x:auto}}</style></head>
<body><h1>Sweep report</h1>
<p>{cells.cell_id.nunique()} cells{of}, {len(summary)} summary rows; every series at its
last checkpoint, with every digit, in <a href="final.csv">final.csv</a>.</p>
{errors}
{f"<h2>Cells read</h2><ul>{kept}</ul>" if kept else ""}
{f"<ul>{contents}</ul>" if count > 1 else ""}
{"".join(sections)}
</body></html>
"""
