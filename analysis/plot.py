"""seaborn figures of sweep summaries: MSE against t, baselines as reference lines.

Every function takes a summary from :func:`analysis.load.summarize` (one row per series
and checkpoint, with ``<metric>_low`` / ``<metric>_high`` bands) and returns a seaborn
``FacetGrid``; :func:`save` writes it as PNG and PDF.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from .labels import add_scheme, axis, families_of, name, vocabulary
from .load import ROW_KEYS, summary_metrics

DASHES = ["-", "--", ":", "-."]
BASELINE_STYLE = {"local": ("0.35", (0, (1, 1))), "ideal": ("0.0", (0, (6, 2))),
                  "oracle": ("0.55", (0, (3, 1, 1, 1)))}


class MissingData(LookupError):
    """The results hold nothing to draw for a figure; the message says what is needed."""


def _facet_values(frame: pd.DataFrame, facets: Sequence[str | None]) -> pd.DataFrame:
    frame = frame.copy()
    for column in facets:
        if column:
            frame[column] = frame[column].map(lambda v, c=column: name(c, v))
    return frame


def curves(
    summary: pd.DataFrame,
    *,
    y: str | None = None,
    series: Sequence[str] | None = None,
    source: str | None = None,
    baselines: Sequence[str] | None = None,
    hue: str = "scheme",
    style: str | None = None,
    col: str | None = None,
    row: str | None = None,
    band: bool = True,
    log: tuple[bool, bool] = (True, True),
    xlim: tuple[float, float] | None = None,
    title: str | None = None,
    height: float = 4.0,
) -> sns.FacetGrid:
    """Curves of ``y`` against t, one per series, with baselines as reference lines.

    ``y`` is a metric (default: the family's main one, else the summary's first);
    ``series`` are the methods drawn as curves (default: the family's algorithms, e.g.
    ``colme`` and the ``oracle`` class estimator; every method for a family without a
    vocabulary), optionally of one ``source``; ``hue``, ``style``, ``col`` and ``row``
    map any column (``scheme`` names the varying parts of a scheme in the paper's
    words). ``baselines`` (default: the family's) are drawn in grey in every panel,
    analytic when the results hold analytic rows and simulated otherwise. Bands: the
    summary's interval.
    """
    words = vocabulary(families_of(summary))
    if y is None:
        held = [m for m in summary.attrs.get("metrics") or summary_metrics(summary)
                if summary[m].notna().any()]
        y = words.metric if words.metric in held else held[0]
    series = tuple(series or words.curves or summary.method.unique())
    baselines = tuple(words.baselines if baselines is None else baselines)
    if "scheme" not in summary:
        summary = add_scheme(summary)
    facets = [col, row]
    data = _facet_values(summary, facets)
    chosen = data.method.isin(series) & (True if source is None else data.source == source)
    lines = data[chosen & data[y].notna()]  # a series without this metric draws nothing
    if lines.empty:
        raise MissingData(f"no rows of method {', '.join(series)}"
                          + (f" from source {source}" if source else ""))
    keys = [k for k in (hue, style, col, row) if k]
    unmapped = [c for c in summary.attrs.get("index", ()) if c not in (*ROW_KEYS, *keys)]
    if unmapped:
        raise ValueError(f"the rows also vary by {', '.join(unmapped)}: map it to hue, "
                         "style, col or row")
    clash = lines.groupby(keys, observed=True).cell_id.nunique()
    if (clash > 1).any():
        raise ValueError(f"several cells share one curve: map the columns that vary among "
                         f"them to hue, style, col or row (now {', '.join(keys)})")
    styles = {v: DASHES[i % len(DASHES)] for i, v in enumerate(
        sorted(lines[style].unique()) if style else [None])}

    def draw(*, data: pd.DataFrame, color: str, label: str) -> None:
        frame = data
        ax = plt.gca()
        parts = frame.groupby(style, observed=True) if style else [(None, frame)]
        for value, part in parts:
            part = part.sort_values("t")
            text = label if style is None else f"{label}, {name(style, value)}"
            ax.plot(part.t, part[y], color=color, ls=styles[value], lw=1.4, label=text)
            if band and f"{y}_low" in part:
                ax.fill_between(part.t, part[f"{y}_low"], part[f"{y}_high"], color=color,
                                alpha=0.2, lw=0)

    grid = sns.FacetGrid(lines, col=col, row=row, hue=hue, height=height, aspect=1.3,
                         hue_order=sorted(lines[hue].unique(), key=str),
                         sharex=True, sharey=True, palette="colorblind")
    grid.map_dataframe(draw)
    _draw_baselines(grid, data[~data.method.isin(series)], baselines, y, col, row)
    grid.set(xscale="log" if log[0] else "linear", yscale="log" if log[1] else "linear")
    if xlim:
        grid.set(xlim=xlim)
    grid.set_axis_labels(axis("t"), axis(y, families_of(summary)))
    if col or row:
        grid.set_titles(col_template="{col_name}", row_template="{row_name}")
    legend: dict[str, object] = {}
    for ax in grid.axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            legend.setdefault(label, handle)
    references = {name("method", m) for m in baselines}  # listed after every panel's series
    legend = dict(sorted(legend.items(), key=lambda item: item[0] in references))
    grid.add_legend(legend_data=legend, label_order=list(legend), title="")
    if title:
        grid.figure.suptitle(title, y=1.02)
    return grid


def _draw_baselines(grid: sns.FacetGrid, data: pd.DataFrame, baselines: Sequence[str],
                    y: str, col: str | None, row: str | None) -> None:
    rows = data[data.method.isin(baselines)]
    for (i, j), ax in zip(itertools.product(range(grid.axes.shape[0]),
                                            range(grid.axes.shape[1])), grid.axes.flat,
                          strict=True):
        panel = rows
        if row:
            panel = panel[panel[row] == grid.row_names[i]]
        if col:
            panel = panel[panel[col] == grid.col_names[j]]
        for method in baselines:
            part = panel[panel.method == method]
            if (part.source == "analytic").any():
                part = part[part.source == "analytic"]
            if part.empty:
                continue
            # One curve per baseline: the baseline does not depend on the scheme.
            part = part.groupby("t", as_index=False)[y].mean()
            color, dashes = BASELINE_STYLE.get(method, ("0.5", "-"))
            ax.plot(part.t, part[y], color=color, ls=dashes, lw=1.2, label=name("method", method))


def save(grid: sns.FacetGrid | plt.Figure, path: str | os.PathLike[str],
         formats: Sequence[str] = ("png", "pdf")) -> list[Path]:
    """Write a figure as ``path.<format>`` for each format; return the paths."""
    figure = grid.figure if isinstance(grid, sns.FacetGrid) else grid
    written = []
    for fmt in formats:
        target = Path(path).with_suffix(f".{fmt}")
        target.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(target, dpi=150, bbox_inches="tight")
        written.append(target)
    plt.close(figure)
    return written
