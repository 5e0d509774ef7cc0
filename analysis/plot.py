"""seaborn figures of sweep summaries in which every curve is one cell.

Every function takes a summary from :func:`analysis.load.summarize` (one row per cell,
index value and checkpoint, with ``<metric>_low`` / ``<metric>_high`` bands). A curve
never averages cells silently: whatever varies among the cells drawn is mapped to the
colour, the line style or the panels, and cells that would still share a curve are
refused, unless ``aggregate=`` names the columns to average over (which the caption
then states). Reference curves (the baselines, a family's bounds) are drawn per cell:
one grey line where a panel's cells share it, one per curve, in its colour, where they
differ. Every figure carries a caption saying what it shows (``grid.caption``, also
printed under the plot); :func:`save` writes it as PNG and PDF.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D

from .labels import add_scheme, axis, families_of, name, vocabulary
from .load import ROW_KEYS, MissingData, summary_metrics

DASHES = ["-", "--", ":", "-."]
#: Line styles of reference curves, by method (baselines) or by source (a method's own
#: references, e.g. a bound).
REFERENCE_DASHES = {"local": (0, (1, 1)), "ideal": (0, (6, 2)), "oracle": (0, (3, 1, 1, 1)),
                    "bound": (0, (5, 1, 1, 1)), "exact": (0, (1, 1))}
GREY = "0.35"
#: How an extra curve (``curves(extra=...)``) is drawn: thinner, dashed and lighter.
EXTRA_STYLE = {"lw": 0.9, "ls": (0, (4, 2)), "alpha": 0.55}
#: Series per panel beyond which a part of the scheme moves to the panels.
MAX_SERIES = 8
#: Most panels in one figure: beyond, a figure is unreadable, and matplotlib's shared axes
#: take minutes to lay it out.
MAX_PANELS = 36
#: Lines a legend column holds per inch of figure height, so it is never taller.
LEGEND_ROWS_PER_INCH = 4.5
#: Columns a cell carries that are not options: they never name a curve.
NOT_OPTIONS = ("cell_id", "n", "scheme", "panel", "family_version", "replicates", "seed")
#: Columns whose values are labels already (a scheme, a row of panels, a derived quantity's
#: name): shown as they are.
LABELS = ("scheme", "panel", "error", "metric")


class SharedCurve(ValueError):
    """Several cells would be drawn as one curve; ``columns`` are what differs."""

    def __init__(self, columns: list[str], mapped: list[str]) -> None:
        self.columns = columns
        if not columns:
            super().__init__("several cells share one curve and differ in no column the "
                             "results store (an option such as checkpoints): draw their "
                             "directories separately")
            return
        super().__init__(
            f"several cells share one curve: they differ in {', '.join(columns)}; map "
            f"{'it' if len(columns) == 1 else 'them'} to hue, style, col or row (now "
            f"{', '.join(mapped) or 'nothing'}) or average explicitly with aggregate=")


@dataclass(frozen=True)
class Layout:
    """Which column sets the colour, the line style, the panel column and the panel row."""

    hue: str | None = None
    style: str | None = None
    col: str | None = None
    row: str | None = None

    @property
    def keys(self) -> list[str]:
        return [k for k in (self.hue, self.style, self.col, self.row) if k]


def cell_columns(frame: pd.DataFrame) -> list[str]:
    """The columns constant within a cell: its options and the cell's own columns."""
    index = {*ROW_KEYS, *frame.attrs.get("index", ())}
    metrics = summary_metrics(frame)
    return [c for c in frame.columns if c not in index and c not in metrics
            and not c.endswith(("_low", "_high")) and c not in ("n", "scheme", "panel")]


def varying(frame: pd.DataFrame, first: Sequence[str] = ()) -> list[str]:
    """The options that vary among ``frame``'s cells and are not determined by others.

    Columns derived from options (e.g. a graph's edge count from its size) vary with
    them but add nothing: a column counts only if it is not a function of the columns
    already kept, tried in the order ``first``, then the frame's.
    """
    cells = frame.drop_duplicates("cell_id")
    # An option that applies to some cells only (missing elsewhere) is set by the others.
    candidates = [c for c in cell_columns(frame) if c not in NOT_OPTIONS
                  and cells[c].nunique() > 1]
    candidates.sort(key=lambda c: first.index(c) if c in first else len(first))
    kept: list[str] = []
    for column in candidates:
        groups = cells.groupby(kept, dropna=False, observed=True) if kept else None
        if groups is not None and (groups[column].nunique(dropna=False) <= 1).all():
            continue
        kept.append(column)
    return kept


def _distinct(frame: pd.DataFrame, column: str) -> list[object]:
    """The values of ``column`` in order: a categorical's own, otherwise numbers ascending
    and text alphabetically."""
    values = pd.unique(frame[column].dropna())
    if isinstance(frame[column].dtype, pd.CategoricalDtype):
        return [v for v in frame[column].cat.categories if v in set(values)]
    return sorted(values, key=lambda v: (isinstance(v, str), v))


def arrange(lines: pd.DataFrame, x: str, given: Layout = Layout(),
            parts: Sequence[str] | None = None) -> tuple[pd.DataFrame, Layout]:
    """Map what varies among the cells of ``lines`` to the roles ``given`` leaves open.

    Numeric options (ε, M, t_max, ...) and the family's ``facets`` become panels: the
    first a panel column, the rest panel rows. The other options are the scheme: the
    one with fewest values (at most four) sets the line style when two or more vary, the
    rest are named together as the colour (a ``scheme`` column, :func:`add_scheme`).
    More than :data:`MAX_SERIES` series in a panel move parts of the scheme to the rows.
    """
    words = vocabulary(families_of(lines))
    taken = set(given.keys)
    scheme = list(words.scheme if parts is None else parts)
    free = [c for c in varying(lines, [*words.facets, *scheme]) if c != x and c not in taken]
    numeric = [c for c in free if c in words.facets
               or (c not in scheme and pd.api.types.is_numeric_dtype(lines[c]))]
    series = [c for c in free if c not in numeric]
    if "method" not in taken and lines.method.nunique() > 1:
        series.insert(0, "method")  # several algorithms (e.g. MVUE and OL) are drawn
    hue, style = given.hue, given.style
    if hue is None:
        if style is None and len(series) > 1:
            fewest = min((c for c in series if lines[c].nunique() <= len(DASHES)),
                         key=lambda c: lines[c].nunique(), default=None)
            if fewest is not None:
                style = fewest
                series.remove(fewest)
        counts = [lines[c].nunique() for c in series]
        styles = lines[style].nunique() if style else 1
        while series and math.prod(counts) * styles > MAX_SERIES and given.row is None:
            numeric.append(series.pop(int(np.argmin(counts))))
            counts = [lines[c].nunique() for c in series]
        hue = "scheme"
        lines = add_scheme(lines, parts=series)
    elif hue == "scheme" and "scheme" not in lines:
        lines = add_scheme(lines, parts=parts)
    col, row = given.col, given.row
    if col is None and numeric:
        col = numeric.pop(0)
    if row is None and numeric:
        row = numeric[0] if len(numeric) == 1 else "panel"
        if row == "panel":
            # Several options on the rows: one row per combination, in numeric order.
            order = lines[numeric].drop_duplicates().sort_values(numeric)

            def key(values: tuple) -> tuple:
                # An option a cell leaves out is missing (NaN), which equals nothing.
                return tuple(None if pd.isna(v) else v for v in values)

            labels = {key(v): ", ".join(name(c, x, families_of(lines))
                                        for c, x in zip(numeric, v, strict=True))
                      for v in order.itertuples(index=False)}
            lines = lines.assign(panel=[labels[key(v)] for v in
                                        lines[numeric].itertuples(index=False)])
            lines.attrs["panel_order"] = list(labels.values())
    return lines, Layout(hue, style, col, row)


def _check(lines: pd.DataFrame, layout: Layout, x: str,
           aggregate: Sequence[str]) -> pd.DataFrame:
    """The cells that share each curve, refused unless they differ only in ``aggregate``;
    returns one row per curve (and x) with the number of cells in ``cells``."""
    per = [*layout.keys] + ([] if x == "t" else [x])
    # A cell may draw several curves (methods, a family's own index): one row per each.
    cells = lines.drop_duplicates(["cell_id", *per])
    groups = cells.groupby(per, dropna=False, observed=True, sort=False)
    options = [c for c in cell_columns(lines) if c not in (*per, "cell_id")]
    differ = [c for c in options if (groups[c].nunique(dropna=False) > 1).any()]
    extra = [c for c in differ if c not in aggregate]
    if not differ and (groups.cell_id.nunique() > 1).any():
        raise SharedCurve([], per)
    if extra:
        # Derived columns (edge counts, ...) differ with the options: name the options.
        named = [c for c in varying(cells) if c in extra] or extra
        raise SharedCurve(named, per)
    return groups.cell_id.nunique().rename("cells").reset_index()


def _pool(frame: pd.DataFrame, keys: list[str], y: str) -> pd.DataFrame:
    """The mean of ``y`` over the cells of each curve, with the band ± s/√k of the k
    cells' means (s their standard deviation): cells that differ only in what is
    averaged are independent estimates of one curve, whatever their replicates."""
    grouped = frame.groupby(keys, dropna=False, observed=True, sort=False)
    pooled = grouped[y].agg(["mean", "std", "size"])
    half = (pooled["std"] / np.sqrt(pooled["size"])).fillna(0.0)  # one cell: exact
    out = pd.DataFrame({y: pooled["mean"], f"{y}_low": pooled["mean"] - half,
                        f"{y}_high": pooled["mean"] + half})
    first = grouped.first().drop(columns=[y, f"{y}_low", f"{y}_high"])
    return out.join(first).reset_index()


def derived(frame: pd.DataFrame, base: pd.DataFrame, metric: str,
            kind: str = "continuous") -> pd.DataFrame:
    """``frame`` (a quantity derived from ``base``'s rows, e.g. a ratio) with ``base``'s
    roles but the one metric ``metric`` (of ``kind``), as :func:`curves` reads them."""
    frame.attrs.update(base.attrs)
    frame.attrs.update(metrics=[metric], kinds={metric: kind})
    return frame


def _at(frame: pd.DataFrame, at: str | int | None) -> pd.DataFrame:
    """The rows at one checkpoint per cell: the last (``"final"``) or ``at``."""
    if at is None or "t" not in frame:
        return frame
    if at == "final":
        return frame[frame.t == frame.groupby("cell_id").t.transform("max")]
    return frame[frame.t == at]


def _columns(data: pd.DataFrame, rows: pd.Series, needed: Sequence[str | None]
             ) -> list[str]:
    """The columns of ``data`` a figure of ``rows`` reads: the index, ``needed``, and the
    cell columns that vary among the rows' cells (a column constant over every cell
    drawn can tell no two curves apart), so that a figure of a large summary never
    copies it whole."""
    firsts = data.loc[rows, "cell_id"].drop_duplicates().index
    cells = data.loc[firsts]
    options = [c for c in cell_columns(data) if c in ("cell_id", "family", "replicates")
               or cells[c].nunique(dropna=False) > 1]
    index = [c for c in (*ROW_KEYS, *data.attrs.get("index", ())) if c in data]
    return list(dict.fromkeys([*index, *options, *(c for c in needed if c and c in data)]))


def _references(data: pd.DataFrame, candidates: pd.Series, methods: Sequence[str],
                series: Sequence[str], sources: Sequence[str], y: str,
                columns: list[str]) -> pd.DataFrame:
    """Rows of the baseline ``methods``, and those of the ``series`` from the reference
    ``sources`` (e.g. a bound), among the ``candidates`` that hold ``y``: of a baseline,
    each cell's analytic rows where it has them, its simulated ones otherwise."""
    own = data.method.isin(series) & data.source.isin(sources)
    rows = data.loc[candidates & (data.method.isin(methods) | own) & data[y].notna(), columns]
    analytic = rows.source.eq("analytic").groupby([rows.cell_id, rows.method]).transform("any")
    return rows[rows.source.eq("analytic") | ~analytic]


def _reference_label(method: str, source: str, series: Sequence[str],
                     families: list[str] | None) -> str:
    if method in series:  # a method's own reference, e.g. its bound
        return name("source", source, families)
    label = name("method", method, families)
    return label if source == "analytic" else f"{label} ({name('source', source, families)})"


def _reference_dashes(method: str, source: str) -> object:
    return REFERENCE_DASHES.get(method, REFERENCE_DASHES.get(source, (0, (2, 2))))


def _interval(frame: pd.DataFrame, y: str) -> str:
    """What the bands of ``y`` are: the summary's interval for the metric's kind."""
    ci95 = frame.attrs.get("interval") == "ci95"
    if (frame.attrs.get("kinds") or {}).get(y) == "proportion":
        return f"Wilson score intervals at z = {'1.96' if ci95 else '1'} over replicates"
    return f"{'normal 95% intervals' if ci95 else '± one standard error'} over replicates"


def _label(column: str, value: object, families: list[str] | None) -> str:
    return str(value) if column in LABELS else name(column, value, families)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def caption(lines: pd.DataFrame, x: str, y: str, counts: pd.DataFrame,
            aggregate: Sequence[str], references: Sequence[str], band: bool,
            extra: str = "") -> str:
    """What a figure shows: its cells, their replicates, the bands and the references."""
    cells = lines.cell_id.nunique()
    text = _count(cells, "cell")
    shared = int(counts.cells.max()) if len(counts) else 1
    unit = "curve" if x == "t" else "point"
    if shared > 1:
        low = int(counts.cells.min())
        text += (f"; each {unit} is the mean over {', '.join(aggregate)} of "
                 f"{low if low == shared else f'{low}–{shared}'} cells (aggregate=)")
    else:
        text += f"; each {unit} is one cell"
    if "replicates" in lines:
        reps = sorted(lines.drop_duplicates("cell_id").replicates.dropna().unique())
        # Analytic cells (an oracle grid) run no replicates: nothing to count.
        reps = [r for r in reps if r > 0]
        if reps:
            text += (f", {_count(reps[0], 'replicate')} each" if len(reps) == 1
                     else f", {reps[0]}–{reps[-1]} replicates")
    if band:
        bars = "bands" if x == "t" else "error bars"
        text += (f"; {bars}: ± one standard error of the mean over the cells averaged"
                 if shared > 1 else f"; {bars}: {_interval(lines, y)}")
    if references:
        text += (f"; references ({', '.join(references)}) come from each panel's own cells: "
                 "grey where its curves share them, in a curve's colour where they differ")
    return text + (f". {extra}" if extra else ".")


def curves(
    summary: pd.DataFrame,
    *,
    x: str = "t",
    y: str | None = None,
    series: Sequence[str] | None = None,
    source: str | None = None,
    baselines: Sequence[str] | None = None,
    hue: str | None = None,
    style: str | None = None,
    col: str | None = None,
    row: str | None = None,
    parts: Sequence[str] | None = None,
    aggregate: str | Sequence[str] = (),
    at: str | int | None = "final",
    band: bool = True,
    log: tuple[bool, bool] = (True, True),
    xlim: tuple[float, float] | None = None,
    ylim: tuple[float, float] | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    note: str = "",
    extra: Mapping[str, Any] | None = None,
    extra_label: str = "not in the paper",
    height: float = 3.2,
    sharey: bool | str = True,
) -> sns.FacetGrid:
    """Curves of ``y`` against ``x``, one per cell, with each cell's baselines.

    ``x`` is ``t`` (a curve per cell over its checkpoints) or an option such as
    ``epsilon`` (a curve through the cells, each at the checkpoint ``at``: ``"final"``
    or a time). ``y`` is a metric (default: the family's main one); ``series`` the
    methods drawn as curves (default: the family's algorithms), optionally of one
    ``source``. ``hue``, ``style``, ``col`` and ``row`` map columns; those left open are
    filled by :func:`arrange` from what varies (``parts`` names the scheme). Cells that
    still share a curve raise :class:`SharedCurve` unless they differ only in the
    columns of ``aggregate`` (e.g. ``"seed"``), over which the curve is averaged and
    the caption says so. ``baselines`` (default: the family's), and the rows of the
    drawn methods from the family's reference sources (a bound), are drawn per cell, as
    reference lines. Bands: the summary's interval, as bands against t and error bars
    against an option. ``xlim`` zooms in x, and y with it to what is drawn there unless
    ``ylim`` is given. ``ylabel``, ``title`` and ``note`` (appended to the caption) say
    what a derived quantity is; ``sharey`` is seaborn's. Cells whose columns equal every
    value of ``extra`` are extras, drawn thinner, dashed and lighter, their legend entry
    marked "(``extra_label``)".
    """
    families = families_of(summary)
    words = vocabulary(families)
    aggregate = [aggregate] if isinstance(aggregate, str) else list(aggregate)
    if y is None:
        held = [m for m in summary.attrs.get("metrics") or summary_metrics(summary)
                if summary[m].notna().any()]
        y = words.metric if words.metric in held else held[0]
    series = tuple(series or words.curves or summary.method.unique())
    baselines = tuple(words.baselines if baselines is None else baselines)
    data = _at(summary, at) if x != "t" else summary
    # A family's reference rows (its bounds) are references, never series of their own.
    chosen = data.method.isin(series) & (~data.source.isin(words.references) if source is None
                                         else data.source == source)
    drawn = chosen & data[y].notna()
    if not drawn.any():
        raise MissingData(f"no rows of method {', '.join(series)}"
                          + (f" from source {source}" if source else ""))
    columns = _columns(data, drawn, [x, y, f"{y}_low", f"{y}_high", hue, style, col, row])
    lines = data.loc[drawn, columns]
    lines = lines.assign(extra_curve=_extra(data.loc[drawn], extra or {}))
    lines, layout = arrange(lines, x, Layout(hue, style, col, row), parts)
    unmapped = [c for c in summary.attrs.get("index", ())
                if c not in (*ROW_KEYS, *layout.keys) and lines[c].nunique() > 1]
    if unmapped:
        raise ValueError(f"the rows also vary by {', '.join(unmapped)}: map it to hue, "
                         "style, col or row")
    panels = math.prod(lines[k].nunique() for k in (layout.col, layout.row) if k)
    if panels > MAX_PANELS:
        shown = [k for k in (layout.col, layout.row) if k]
        raise MissingData(f"{panels} panels ({' by '.join(shown)}), more than {MAX_PANELS} "
                          "in one figure: draw fewer cells (filter the results)")
    counts = _check(lines, layout, x, aggregate)
    # Each reference row belongs to its cell's curve and panel; a key that varies within
    # a cell (e.g. which error a row holds) is the reference row's own.
    within = lines.groupby("cell_id")[layout.keys].nunique(dropna=False).max()
    per_cell = [k for k in layout.keys if within[k] <= 1]
    keyed = lines.drop_duplicates("cell_id")[["cell_id", *per_cell]]
    refs = _references(data, ~chosen, baselines, series, words.references, y, columns)
    refs = refs.drop(columns=[k for k in per_cell if k in refs]).merge(keyed, on="cell_id")
    # References in the order of ``baselines``, then a method's own, by source.
    rank = refs.method.map({m: i for i, m in enumerate(baselines)}).fillna(len(baselines))
    refs = refs.iloc[np.argsort(rank.to_numpy(), kind="stable")]
    kinds = refs[["method", "source"]].drop_duplicates().itertuples(index=False)
    described = dict.fromkeys(_reference_label(m, s, series, families) for m, s in kinds)
    text = caption(lines, x, y, counts, aggregate, list(described), band, note)
    if counts.cells.max() > 1:
        lines = _pool(lines, [*layout.keys, x], y)
        refs = _pool(refs, [*layout.keys, x, "method", "source"], y)
    grid = _draw(lines, refs, layout, x, y, series, band, families, height, sharey,
                 extra_label)
    grid.set(xscale="log" if log[0] else "linear", yscale="log" if log[1] else "linear")
    if x != "t" and log[0]:
        # An option's values as plain ticks (0.25, 0.5, 1), not powers of ten.
        values = _distinct(lines, x)
        for ax in grid.axes.flat:
            ax.set_xticks(values, [f"{v:g}" for v in values])
            ax.minorticks_off()
    if xlim:
        grid.set(xlim=xlim)
    if ylim:
        grid.set(ylim=ylim)
    elif xlim:
        # A zoom in x zooms y to what is drawn there: over every panel when they share y,
        # else panel by panel.
        panels = [(list(grid.axes.flat), {})] if sharey else [
            ([ax], where) for ax, where in _panels(grid, layout)]
        for axes, where in panels:
            span = _span(_select(lines, where), _select(refs, where), x, y, xlim, log[1])
            for ax in axes if span else ():
                ax.set_ylim(span)
    grid.set_axis_labels(axis(x, families), ylabel or axis(y, families))
    return finish(grid, text, title)


def _extra(rows: pd.DataFrame, extra: Mapping[str, Any]) -> np.ndarray:
    """Which rows have every column of ``extra`` equal to its value (none if empty)."""
    if not extra:
        return np.zeros(len(rows), dtype=bool)
    return np.logical_and.reduce([(rows[c] == v).to_numpy() for c, v in extra.items()])


def _span(lines: pd.DataFrame, refs: pd.DataFrame, x: str, y: str,
          xlim: tuple[float, float], log: bool) -> tuple[float, float] | None:
    """The range of the curves, their bands and the references within ``xlim``, with a
    margin of 5 % of it (of its logarithm on a log axis); None if nothing is there."""
    values = [frame[c][frame[x].between(*xlim)].to_numpy(float)
              for frame, columns in ((lines, (y, f"{y}_low", f"{y}_high")), (refs, (y,)))
              for c in columns if c in frame]
    shown = np.concatenate(values) if values else np.array([])
    shown = shown[np.isfinite(shown) & ((shown > 0) if log else True)]
    if not shown.size:
        return None
    low, high = (np.log(shown) if log else shown).min(), (np.log(shown) if log else shown).max()
    margin = 0.05 * (high - low) or 0.05
    low, high = low - margin, high + margin
    return (math.exp(low), math.exp(high)) if log else (low, high)


def _panels(grid: sns.FacetGrid, layout: Layout) -> list[tuple[plt.Axes, dict[str, object]]]:
    """Each axis with the values of its panel's columns."""
    out = []
    rows = grid.row_names or [None]
    cols = grid.col_names or [None]
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            where = {k: v for k, v in ((layout.row, r), (layout.col, c)) if k}
            out.append((grid.axes[i, j], where))
    return out


def _select(frame: pd.DataFrame, where: dict[str, object]) -> pd.DataFrame:
    for column, value in where.items():
        frame = frame[frame[column] == value]
    return frame


def _draw(lines: pd.DataFrame, refs: pd.DataFrame, layout: Layout, x: str, y: str,
          series: Sequence[str], band: bool, families: list[str] | None,
          height: float, sharey: bool | str, extra_label: str) -> sns.FacetGrid:
    hue_order = _distinct(lines, layout.hue) if layout.hue else [None]
    colours = dict(zip(hue_order, sns.color_palette("colorblind", max(len(hue_order), 1)),
                       strict=False))
    styles = ({v: DASHES[i % len(DASHES)] for i, v in enumerate(_distinct(lines, layout.style))}
              if layout.style else {None: "-"})
    order = {"col_order": _distinct(lines, layout.col) if layout.col else None,
             "row_order": (lines.attrs.get("panel_order") if layout.row == "panel"
                           else _distinct(lines, layout.row) if layout.row else None)}
    grid = sns.FacetGrid(lines, col=layout.col, row=layout.row, height=height, aspect=1.3,
                         sharex=True, sharey=sharey, **order)
    marker = None if x == "t" else "o"
    for ax, where in _panels(grid, layout):
        panel = _select(lines, where)
        keys = [k for k in (layout.hue, layout.style) if k]
        groups = panel.groupby(keys, sort=False, observed=True) if keys else [((), panel)]
        for key, curve in groups:
            key = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
            curve = curve.sort_values(x)
            colour = colours[key.get(layout.hue)]
            label = ", ".join(_label(k, v, families) for k, v in key.items())
            look = {"ls": styles[key.get(layout.style)], "lw": 1.4}
            ax.plot(curve[x], curve[y], color=colour, marker=marker, ms=4, label=label,
                    **{**look, **(EXTRA_STYLE if curve.extra_curve.all() else {})})
            if band and f"{y}_low" in curve:
                if x == "t":
                    ax.fill_between(curve[x], curve[f"{y}_low"], curve[f"{y}_high"],
                                    color=colour, alpha=0.2, lw=0)
                else:
                    ax.errorbar(curve[x], curve[y], yerr=[curve[y] - curve[f"{y}_low"],
                                                          curve[f"{y}_high"] - curve[y]],
                                color=colour, ls="none", capsize=2, lw=1)
        _draw_references(ax, _select(refs, where), layout, x, y, colours, series, families)
        title = " | ".join(_label(k, v, families) for k, v in reversed(where.items()))
        ax.set_title(title)
    extras = set(lines.loc[lines.extra_curve, layout.hue]) if layout.hue else set()
    _legend(grid, layout, colours, styles, refs, series, families, extras, extra_label)
    return grid


def _draw_references(ax: plt.Axes, refs: pd.DataFrame, layout: Layout, x: str, y: str,
                     colours: dict[object, object], series: Sequence[str],
                     families: list[str] | None) -> None:
    """Each kind of reference once per distinct curve in the panel: grey when every
    curve of the panel shares it, else in the colour of the curve it belongs to."""
    keys = [k for k in (layout.hue, layout.style) if k]
    # A baseline is one kind per method; a drawn method's own reference (its bound) is
    # one kind per source, whichever method it belongs to.
    owner = refs.method.where(~refs.method.isin(series), "")
    for (_, source), kind in refs.groupby([owner, refs.source], sort=False):
        method = kind.method.iloc[0]
        distinct: dict[tuple[bytes, bytes], list[object]] = {}
        for key, curve in (kind.groupby(keys, sort=False, observed=True) if keys else [((), kind)]):
            curve = curve.sort_values(x).drop_duplicates(x)
            values = (curve[x].to_numpy(float).tobytes(), curve[y].to_numpy(float).tobytes())
            hue = key[0] if isinstance(key, tuple) and layout.hue else (
                key if layout.hue else None)
            distinct.setdefault(values, []).append(hue)
        for (xs, ys), hues in distinct.items():
            colour = GREY if len(distinct) == 1 or len(set(hues)) > 1 else colours[hues[0]]
            ax.plot(np.frombuffer(xs), np.frombuffer(ys), color=colour, lw=1.1,
                    ls=_reference_dashes(method, source), zorder=1.5,
                    label=_reference_label(method, source, series, families))


def _legend(grid: sns.FacetGrid, layout: Layout, colours: dict[object, object],
            styles: dict[object, object], refs: pd.DataFrame, series: Sequence[str],
            families: list[str] | None, extras: set[object], extra_label: str) -> None:
    """One entry per colour, per line style and per kind of reference, beside the panels,
    in as many columns as keep it no taller than the figure; a colour of extras only
    (``extras``) drawn and marked as one."""
    entries: dict[str, Line2D] = {}
    if layout.hue:
        for value, colour in colours.items():
            label = _label(layout.hue, value, families)
            if value in extras:
                entries[f"{label} ({extra_label})"] = Line2D([], [], color=colour,
                                                             **EXTRA_STYLE)
            else:
                entries[label] = Line2D([], [], color=colour, lw=1.6)
    if layout.style and len(styles) > 1:
        for value, dashes in styles.items():
            entries[_label(layout.style, value, families)] = Line2D([], [], color="0.2",
                                                                    ls=dashes, lw=1.4)
    for method, source in refs[["method", "source"]].drop_duplicates().itertuples(index=False):
        entries[_reference_label(method, source, series, families)] = Line2D(
            [], [], color=GREY, ls=_reference_dashes(method, source), lw=1.1)
    if not entries:
        return
    per_column = max(4, int(grid.figure.get_figheight() * LEGEND_ROWS_PER_INCH))
    grid.add_legend(legend_data=entries, label_order=list(entries), title="",
                    ncol=math.ceil(len(entries) / per_column), fontsize=8)


def panel_grid(panels: Sequence[str], height: float = 3.2, aspect: float = 1.3,
               sharey: bool = False, sharex: bool = False) -> sns.FacetGrid:
    """An empty grid of one row of panels titled ``panels``, for figures drawn by hand
    rather than as curves through cells (categories on an axis, fitted slopes, panels of
    different kinds)."""
    grid = sns.FacetGrid(pd.DataFrame({"panel": list(panels)}), col="panel",
                         col_order=list(panels), height=height, aspect=aspect,
                         sharey=sharey, sharex=sharex)
    for ax, title in zip(grid.axes.flat, panels, strict=True):
        ax.set_title(title)
    return grid


def finish(grid: sns.FacetGrid, text: str, title: str | None = None) -> sns.FacetGrid:
    """Give ``grid`` its caption (``grid.caption``, printed under the panels) and title."""
    figure = grid.figure
    if title:
        figure.suptitle(title, y=1.02)
    width = figure.get_figwidth()
    # Below the lowest tick labels and axis labels, wherever the layout put them.
    renderer = figure.canvas.get_renderer()
    bottom = min(ax.get_tightbbox(renderer).y0 for ax in grid.axes.flat)
    figure.text(0.01, bottom / figure.bbox.height - 0.01, textwrap.fill(text, int(width * 15)),
                ha="left", va="top", fontsize=7.5, color="0.25")
    grid.caption = text
    return grid


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


__all__ = ["Layout", "MissingData", "SharedCurve", "arrange", "caption", "curves", "derived",
           "finish", "save", "varying"]
