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

import functools
import itertools
import math
import os
import re
import textwrap
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib import colors as mcolors
from matplotlib import mathtext, ticker
from matplotlib.lines import Line2D
from matplotlib.text import Text

from sweep.errors import ConfigError
from sweep.family import get_family
from sweep.results import option_columns

from .labels import add_scheme, axis, families_of, maths, name, vocabulary
from .load import ROW_KEYS, MissingData, summary_metrics
from .vocabulary import Vocabulary

DASHES = ["-", "--", ":", "-."]
#: The width of a curve's line, in points: thin, so that a narrow band shows beside it.
CURVE_WIDTH = 1.1
#: A series' marker, by its colour's place in the figure: two curves that lie on each
#: other stay apart by their markers, drawn at staggered places (:data:`MARK_EVERY`).
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]
#: The distance between a curve's markers against t, as a fraction of the axes' diagonal.
MARK_EVERY = 0.16
#: The line styles of reference curves that the vocabulary gives none, or one another
#: reference of the figure already has: each kind of reference has its own.
REFERENCE_DASHES = [(0, (2, 2)), (0, (6, 2)), (0, (1, 1)), (0, (3, 1, 1, 1)),
                    (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2, 2, 2)), (0, (1, 3))]
#: The colour of reference curves (their line styles are the vocabulary's ``dashes``).
GREY = "0.35"
#: How an extra curve (``curves(extra=...)``) is drawn: thinner, dashed and lighter.
EXTRA_STYLE = {"lw": 0.9, "ls": (0, (4, 2)), "alpha": 0.55}
#: Series per panel beyond which a part of the scheme moves to the panels.
MAX_SERIES = 8
#: Most panels in one figure: beyond, a figure is unreadable, and matplotlib's shared axes
#: take minutes to lay it out.
MAX_PANELS = 36
#: Decades of values a log axis shows at most: beyond, it shows the window of that many
#: decades that holds most values (e.g. a belief converging to 10⁻²³⁰), and says so.
MAX_DECADES = 12
#: Labelled ticks a log axis has at least.
MIN_TICKS = 3
#: Points between a figure's title and its panels' titles.
TITLE_GAP = 10
#: A title's claim to be a figure of the paper: ``Fig. 6: ``, ``Fig. 2 (left): ``,
#: ``Figs 3–6: ``, ``Fig. 3, ``.
CLAIM = re.compile(r"^(?:Supp\. )?Figs?\.? [\d.–]+(?: \([^)]*\))?[:,] +")
SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
#: Lines a legend column holds per inch of figure height, so it is never taller.
LEGEND_ROWS_PER_INCH = 4.5
#: Columns a cell carries that are not options: they never name a curve.
NOT_OPTIONS = ("cell_id", "n", "scheme", "panel", "family_version", "replicates", "seed")
#: Columns whose values are labels already (a scheme, a row of panels, a derived quantity's
#: name): shown as they are.
LABELS = ("scheme", "panel", "error", "metric")


class LayoutError(ValueError):
    """Cells a figure cannot lay out as asked: rows it cannot tell apart, or several
    families on one axis; the message says which, and ``command_line`` says it in a
    command-line user's words (:func:`hint`)."""

    def __init__(self, message: str, command_line: str | None = None) -> None:
        super().__init__(message)
        self.command_line = command_line or message


class SharedCurve(LayoutError):
    """Several cells would be drawn as one curve; ``columns`` are what differs."""

    def __init__(self, columns: list[str], mapped: list[str]) -> None:
        self.columns = columns
        if not columns:
            super().__init__("several cells share one curve and differ in no column the "
                             "results store (an option such as checkpoints): draw their "
                             "directories separately")
            return
        differ = f"several cells share one curve: they differ in {', '.join(columns)}"
        them = "it" if len(columns) == 1 else "them"
        # The command line maps nothing and averages over seeds only; of cells that differ
        # in their replicates or family version alone, --keep newest reads one.
        command_line = (
            f"{differ}; --keep newest (the default) reads one of them" if set(columns) <= {
                "replicates", "family_version"} else
            f"{differ}; the figure draws a curve per cell: give it results in which "
            f"{' and '.join(columns)} take{'s' if them == 'it' else ''} one value (a "
            "results_dir= per value)")
        super().__init__(
            f"{differ}; map {them} to hue, style, col or row (now "
            f"{', '.join(mapped) or 'nothing'}) or average explicitly with aggregate=",
            command_line)


def hint(error: Exception, command_line: bool = False) -> str:
    """The message of ``error``, in a command-line user's words if ``command_line``."""
    return getattr(error, "command_line", str(error)) if command_line else str(error)


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


def _options(frame: pd.DataFrame) -> set[str] | None:
    """The option columns of the families of ``frame`` (the fields of their ``options``),
    or None where a family is not known (a frame without a family column, a family whose
    module is not importable here)."""
    families = families_of(frame)
    if not families:
        return None
    try:
        return {c for f in families for c in option_columns(get_family(str(f)).options)}
    except ConfigError:
        return None


def varying(frame: pd.DataFrame, first: Sequence[str] = ()) -> list[str]:
    """The options that vary among ``frame``'s cells and are not determined by others.

    Only a family's options count: the cell columns it derives from them (a graph's
    edge count, an algorithm's number of rounds) never name a curve or a panel, and a
    column a figure adds must be mapped by name. Of the options, one counts
    only if it is not a function of those already kept, tried in the order ``first``,
    then the frame's.
    """
    cells = frame.drop_duplicates("cell_id")
    options = _options(frame)
    # An option that applies to some cells only (missing elsewhere) is set by the others.
    candidates = [c for c in cell_columns(frame) if c not in NOT_OPTIONS
                  and (options is None or c in options) and cells[c].nunique() > 1]
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
    first a panel column, the rest panel rows. The other options are the scheme, named
    together as the colour (a ``scheme`` column, :func:`add_scheme`: one colour per
    series); the one with fewest values (at most four) also sets the line style when two
    or more vary. More than :data:`MAX_SERIES` series in a panel move parts of the
    scheme to the rows.
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
        ordered = list(series)
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
        # The colour names the style's part too: each colour is one series, and a
        # reference drawn in a curve's colour says whose it is.
        lines = add_scheme(lines, parts=[c for c in ordered if c in series or (
            c == style and given.style is None)])
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


def _fixed_colour(value: object, words: Vocabulary) -> object | None:
    """The vocabulary's colour of a curve's value: of the value (``pm1``, ``am``), of the
    value it names in the paper's words (``AM (Alg. 1)``, as a scheme names it), or of the
    longest start of a scheme that has one (``MVUE, Signal DP`` takes MVUE's); None if
    none has one."""
    named = {label: words.colours[code] for labels in words.names.values()
             for code, label in labels.items() if code in words.colours}
    parts = str(value).split(", ")
    for end in range(len(parts), 0, -1):
        start = ", ".join(parts[:end])
        for colours in (words.colours, named):
            if start in colours:
                return colours[start]
    return None


def _colours(values: Sequence[object], families: list[str] | None) -> dict[object, object]:
    """A colour per curve: the vocabulary's fixed colour of its value (a method keeps one
    colour in every figure of its family: :func:`_fixed_colour`); a value without one
    takes the colour-blind palette's colour its name hashes to, or the next one no curve
    of the figure has, so that it keeps its colour from figure to figure while curves
    drawn together keep distinct hues."""
    words = vocabulary(families)
    taken = {v: c for v in values if (c := _fixed_colour(v, words)) is not None}
    used = {mcolors.to_hex(c) for c in taken.values()}
    palette = [*sns.color_palette("colorblind", 10), *sns.color_palette("dark", 10)]
    colours = dict(taken)
    for value in values:
        if value in colours:
            continue
        start = zlib.crc32(str(value).encode())
        free = [palette[(start + i) % len(palette)] for i in range(len(palette))]
        colour = next((c for c in free if mcolors.to_hex(c) not in used), free[0])
        used.add(mcolors.to_hex(colour))
        colours[value] = colour
    return {v: colours[v] for v in values}


def _kind(method: str, source: str, series: Sequence[str]) -> tuple[str, str]:
    """The kind of a reference row: a baseline is one kind per method (and source); a
    drawn method's own reference (its bound) one kind per source, whichever method it
    belongs to ('' for the method)."""
    return ("" if method in series else method, source)


def _reference_dashes(refs: pd.DataFrame, series: Sequence[str], families: list[str] | None
                      ) -> dict[tuple[str, str], tuple[object, str]]:
    """The line style and label of each kind of reference of a figure (:func:`_kind`):
    the vocabulary's style of its method (of its source, for a drawn method's own), then
    of its source, unless another kind of the figure has it already; else the first of
    :data:`REFERENCE_DASHES` no kind has, so that no two kinds share one."""
    dashes = vocabulary(families).dashes
    kinds = {_kind(m, s, series): _reference_label(m, s, series, families)
             for m, s in refs[["method", "source"]].drop_duplicates().itertuples(index=False)}
    found: dict[tuple[str, str], object] = {}
    # A kind's own style first (a baseline's by its method, a bound by its source): a
    # baseline given as a bound (Sec. 5's lower bound) takes "bound"'s only if it is free.
    for choose in (lambda m, s: dashes.get(m or s), lambda m, s: dashes.get(s)):
        for method, source in kinds:
            own = choose(method, source)
            if (method, source) not in found and own is not None and own not in found.values():
                found[method, source] = own
    spare = (d for d in REFERENCE_DASHES if d not in found.values())
    for kind in kinds:
        if kind not in found:
            found[kind] = next(spare, REFERENCE_DASHES[0])
    return {kind: (found[kind], label) for kind, label in kinds.items()}


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
                 f"{low if low == shared else f'{low}–{shared}'} cells")
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


def metric_of(summary: pd.DataFrame) -> str:
    """The metric a figure of ``summary`` draws by default: its family's main one if the
    rows hold it, else the first metric they hold."""
    held = [m for m in summary.attrs.get("metrics") or summary_metrics(summary)
            if summary[m].notna().any()]
    if not held:
        raise MissingData("the rows hold no metric")
    main = vocabulary(families_of(summary)).metric
    return main if main in held else held[0]


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
    log: tuple[bool, bool | None] = (True, True),
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
    the caption says so. ``baselines`` (default: the family's, then every other method
    the rows hold), and the rows of the drawn methods from the family's reference
    sources (a bound), are drawn per cell, as reference lines. Bands: the summary's
    interval, as bands against t and error bars against an option. ``log`` says which
    axes are logarithmic; None for y: where most values span decades
    (:func:`_spans_decades`). ``xlim`` zooms in x, and y with it to what is drawn there
    unless ``ylim`` is given. ``ylabel``, ``title`` and ``note`` (appended to the
    caption) say what a derived quantity is; ``sharey`` is seaborn's. Cells whose columns
    equal every value of ``extra`` are extras, drawn thinner, dashed and lighter, their
    legend entry marked "(``extra_label``)". A summary of several families raises
    :class:`LayoutError`: select one (``summaries(results, family=...)``).
    """
    families = families_of(summary)
    if families and len(families) > 1:
        # Families measure different things (an MSE, a TVD, a rate): one y axis cannot
        # hold them, and drawing the one whose metric is chosen would drop the others.
        raise LayoutError(
            f"curves: the summary holds {len(families)} families ({', '.join(families)}), "
            "which measure different things: draw one at a time, e.g. "
            f"curves(summaries(results, family={families[0]!r}))")
    words = vocabulary(families)
    aggregate = [aggregate] if isinstance(aggregate, str) else list(aggregate)
    y = y or metric_of(summary)
    series = tuple(series or words.curves or summary.method.unique())
    if baselines is None:
        # Every baseline the cells hold is drawn: the family's, then the other methods'
        # rows (a cell's oracle for its own scheme, an algorithm's oracle).
        others = [m for m in pd.unique(summary.method) if m not in (*series, *words.baselines)]
        baselines = (*words.baselines, *others)
    baselines = tuple(baselines)
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
        raise LayoutError(f"the rows also vary by {', '.join(unmapped)}: map it to hue, "
                         "style, col or row")
    panels = math.prod(lines[k].nunique() for k in (layout.col, layout.row) if k)
    if panels > MAX_PANELS:
        shown = [k for k in (layout.col, layout.row) if k]
        many = f"{panels} panels ({' by '.join(shown)}), more than {MAX_PANELS} in one figure"
        raise MissingData(f"{many}: draw fewer cells (filter the results)", command_line=(
            f"{many}: give it fewer cells (a results_dir= per value of {shown[-1]})"))
    counts = _check(lines, layout, x, aggregate)
    # Each reference row belongs to its cell's curve and panel; a key that varies within
    # a cell (e.g. which error a row holds) is the reference row's own.
    within = lines.groupby("cell_id")[layout.keys].nunique(dropna=False).max()
    per_cell = [k for k in layout.keys if within[k] <= 1]
    keyed = lines.drop_duplicates("cell_id")[["cell_id", *per_cell]]
    refs = _references(data, ~chosen, baselines, series, words.references, y, columns)
    own = refs.cell_id.isin(keyed.cell_id)
    refs = pd.concat([refs[own].drop(columns=[k for k in per_cell if k in refs]).merge(
        keyed, on="cell_id"), _apart(refs[~own], layout, words.baselines)],
        ignore_index=True)
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
    logy = _spans_decades(pd.concat([lines[y], refs[y]])) if log[1] is None else log[1]
    grid.set(xscale="log" if log[0] else "linear", yscale="log" if logy else "linear")
    if x != "t" and log[0]:
        # An option's values as plain ticks (0.25, 0.5, 1), not powers of ten.
        values = _distinct(lines, x)
        for ax in grid.axes.flat:
            ax.set_xticks(values, [f"{v:g}" for v in values])
            ax.minorticks_off()
    if xlim:
        grid.set(xlim=xlim)
    cut = ""
    if ylim:
        grid.set(ylim=ylim)
    else:
        cut = _fit_y(grid, layout, lines, refs, x, y, xlim, logy, sharey)
    if band and x == "t":
        cut = f"{cut} {_thin_bands(grid, layout, lines, y, logy)}".strip()
    grid.set_axis_labels(axis(x, families), ylabel or axis(y, families))
    return finish(grid, f"{text} {cut}" if cut else text, title)


def _thin_bands(grid: sns.FacetGrid, layout: Layout, lines: pd.DataFrame, y: str,
                log: bool) -> str:
    """The caption's sentence on bands most of which are narrower than the curves' lines
    (then they do not show, however drawn): how wide they are; '' if most show."""
    if f"{y}_low" not in lines:
        return ""
    heights = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for ax, where in _panels(grid, layout):
            panel = _select(lines, where)
            scale = np.log10 if log else np.asarray
            low, high = scale(np.array(ax.get_ylim(), float))
            points = ax.get_position().height * grid.figure.get_figheight() * 72
            heights.append((scale(panel[f"{y}_high"].to_numpy(float))
                            - scale(panel[f"{y}_low"].to_numpy(float))) / (high - low) * points)
        shown = np.concatenate(heights) if heights else np.array([])
        shown = shown[np.isfinite(shown)]
        if not shown.size or np.median(shown) >= CURVE_WIDTH:
            return ""
        half = ((lines[f"{y}_high"] - lines[f"{y}_low"]) / 2).to_numpy(float)
        # On a log axis a band's width is relative to its value; on a linear one, absolute.
        if log:
            half = half / lines[y].abs().to_numpy(float)
    half = half[np.isfinite(half)]
    width = f"{np.median(half):.1%} of the value" if log else f"{np.median(half):.2g}"
    return f"Most bands are narrower than their curve's line: half a band is a median {width}."


def _spans_decades(values: pd.Series) -> bool:
    """Whether no factor of ten holds three quarters of the positive ``values``: a log
    axis then shows them. Where one does, a log axis would give a decade to most curves
    and the rest of its height to a few (a belief that converges to 10⁻²⁰⁰), which a
    linear one draws at 0."""
    shown = np.sort(values[values > 0].to_numpy(float))
    if not shown.size:
        return False
    most = math.ceil(0.75 * shown.size)
    return bool((shown[most - 1:] / shown[:shown.size - most + 1]).min() > 10)


def _apart(refs: pd.DataFrame, layout: Layout, baselines: Sequence[str]) -> pd.DataFrame:
    """The rows of a family's ``baselines`` computed in cells that draw no curve (the
    inference family's pooled baseline is a cell of its own), drawn in every panel whose
    options they share, as no curve's; none where a panel is a combination of options.
    Other methods of such cells (an oracle of a scheme no curve draws) are not drawn."""
    panels = [k for k in (layout.col, layout.row) if k]
    if not all(k in refs and k != "panel" for k in panels):
        return refs.iloc[:0]
    return refs[refs.method.isin(baselines)]


def _extra(rows: pd.DataFrame, extra: Mapping[str, Any]) -> np.ndarray:
    """Which rows have every column of ``extra`` equal to its value (none if empty)."""
    if not extra:
        return np.zeros(len(rows), dtype=bool)
    return np.logical_and.reduce([(rows[c] == v).to_numpy() for c, v in extra.items()])


def _fit_y(grid: sns.FacetGrid, layout: Layout, lines: pd.DataFrame, refs: pd.DataFrame,
           x: str, y: str, xlim: tuple[float, float] | None, log: bool,
           sharey: bool | str) -> str:
    """Fit the y axes to what is drawn (:func:`_span`): over every panel when they share
    y, else panel by panel; with ``xlim``, to what is drawn there. Return the caption's
    sentence on the points they leave out (:func:`_cut`)."""
    panels = [(list(grid.axes.flat), {})] if sharey else [
        ([ax], where) for ax, where in _panels(grid, layout)]
    outside, points, limits = 0, 0, []
    for axes, where in panels:
        shown, shown_refs = _select(lines, where), _select(refs, where)
        span, clipped = _span(shown, shown_refs, x, y, xlim, log)
        for ax in axes if span and (xlim or clipped) else ():
            ax.set_ylim(span)
        if clipped:
            limits.append(span)
        drawn = pd.concat([shown[[x, y]], shown_refs[[x, y]]], ignore_index=True)
        values = drawn[y][drawn[x].between(*xlim)] if xlim else drawn[y]
        off = (values <= 0) if log else pd.Series(False, index=values.index)
        if clipped:
            off |= ~values.between(*span)
        points, outside = points + len(values), outside + int(off.sum())
    return _cut(limits, outside, points, len(panels) > 1)


def _span(lines: pd.DataFrame, refs: pd.DataFrame, x: str, y: str,
          xlim: tuple[float, float] | None, log: bool
          ) -> tuple[tuple[float, float] | None, bool]:
    """The y range of the curves, their bands and the references (within ``xlim``), with
    a margin of 5 % of it (of its logarithm on a log axis), and whether it leaves values
    out; None if nothing is there.

    On a log axis, values over more than :data:`MAX_DECADES` say nothing more: the range
    is then the window of that many decades that holds most of them (the highest of
    equals), widened to whole decades.
    """
    values = [(frame[c][frame[x].between(*xlim)] if xlim else frame[c]).to_numpy(float)
              for frame, columns in ((lines, (y, f"{y}_low", f"{y}_high")), (refs, (y,)))
              for c in columns if c in frame]
    shown = np.concatenate(values) if values else np.array([])
    shown = np.sort(shown[np.isfinite(shown) & ((shown > 0) if log else True)])
    if not shown.size:
        return None, False
    scale = np.log10(shown) if log else shown
    low, high = scale[0], scale[-1]
    clipped = bool(log and high - low > MAX_DECADES)
    if clipped:
        ends = np.searchsorted(scale, scale + MAX_DECADES, side="right")
        held = ends - np.arange(len(scale))
        first = len(held) - 1 - int(np.argmax(held[::-1]))
        low, high = math.floor(scale[first]), math.ceil(scale[ends[first] - 1])
        return (10.0 ** low, 10.0 ** high), True
    margin = 0.05 * (high - low) or 0.05
    low, high = low - margin, high + margin
    return ((10.0 ** low, 10.0 ** high) if log else (low, high)), False


def _power(value: float) -> str:
    """A power of ten as text: 1, 10, 10⁻⁸."""
    exponent = round(math.log10(value))
    return {0: "1", 1: "10"}.get(exponent, "10" + str(exponent).translate(SUPERSCRIPTS))


def _cut(limits: list[tuple[float, float]], outside: int, points: int, panels: bool) -> str:
    """The caption's sentence on the points a y axis leaves out: those outside the
    ``limits`` it was cut to, or at zero or below on a log axis; '' if none."""
    if not outside:
        return ""
    count = f"{_count(outside, 'point')} of {points}"
    one = outside == 1
    if not limits:
        return (f"{count} {'lies' if one else 'lie'} at zero or below, which a log axis does "
                "not show.")
    window = f"where most values lie (they span over {MAX_DECADES} decades)"
    off = f"{count} {'is' if one else 'are'} off"
    if panels:
        return f"Each panel's y axis shows {window}: {off} the axes."
    low, high = limits[0]
    return f"The y axis shows {_power(low)} to {_power(high)}, {window}: {off} it."


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
    colours = _colours(hue_order, families)
    styles = ({v: DASHES[i % len(DASHES)] for i, v in enumerate(_distinct(lines, layout.style))}
              if layout.style else {None: "-"})
    # One curve alone needs no marker against t; points against an option always have one.
    several = len(hue_order) * len(styles) > 1
    markers = {v: MARKERS[i % len(MARKERS)] if several or x != "t" else None
               for i, v in enumerate(hue_order)}
    # Where the curves' markers start, staggered so that curves that lie on each other
    # show each its own.
    starts = {key: MARK_EVERY * i / (len(hue_order) * len(styles))
              for i, key in enumerate(itertools.product(hue_order, styles))}
    dashes = _reference_dashes(refs, series, families)
    # Where each colour has one line style (the style names a part of the scheme), the
    # legend shows each colour in its style, and no style apart.
    own_style: dict[object, object] = {}
    if layout.hue and layout.style:
        pairs = lines[[layout.hue, layout.style]].drop_duplicates()
        if not pairs[layout.hue].duplicated().any():
            own_style = {h: styles[v] for h, v in pairs.itertuples(index=False)}
    order = {"col_order": _distinct(lines, layout.col) if layout.col else None,
             "row_order": (lines.attrs.get("panel_order") if layout.row == "panel"
                           else _distinct(lines, layout.row) if layout.row else None)}
    grid = sns.FacetGrid(lines, col=layout.col, row=layout.row, height=height, aspect=1.3,
                         sharex=True, sharey=sharey, **order)
    for ax, where in _panels(grid, layout):
        panel = _select(lines, where)
        keys = [k for k in (layout.hue, layout.style) if k]
        groups = panel.groupby(keys, sort=False, observed=True) if keys else [((), panel)]
        for key, curve in groups:
            key = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
            curve = curve.sort_values(x)
            colour = colours[key.get(layout.hue)]
            label = ", ".join(_label(k, v, families) for k, v in key.items())
            look = {"ls": styles[key.get(layout.style)], "lw": CURVE_WIDTH,
                    "marker": markers[key.get(layout.hue)], "ms": 4,
                    "markevery": None if x != "t" else (
                        starts[key.get(layout.hue), key.get(layout.style)], MARK_EVERY)}
            ax.plot(curve[x], curve[y], color=colour, label=label,
                    **{**look, **(EXTRA_STYLE if curve.extra_curve.all() else {})})
            if band and f"{y}_low" in curve:
                if x == "t":
                    # Edged, so that a narrow band still shows at the saved size.
                    ax.fill_between(curve[x], curve[f"{y}_low"], curve[f"{y}_high"],
                                    facecolor=mcolors.to_rgba(colour, 0.25),
                                    edgecolor=mcolors.to_rgba(colour, 0.6), lw=0.5)
                else:
                    ax.errorbar(curve[x], curve[y], yerr=[curve[y] - curve[f"{y}_low"],
                                                          curve[f"{y}_high"] - curve[y]],
                                color=colour, ls="none", capsize=2, lw=1)
        _draw_references(ax, _select(refs, where), layout, x, y, colours, dashes, series)
        title = " | ".join(_label(k, v, families) for k, v in reversed(where.items()))
        ax.set_title(title)
    extras = set(lines.loc[lines.extra_curve, layout.hue]) if layout.hue else set()
    _legend(grid, layout, colours, markers, styles, own_style, dashes, families, extras,
            extra_label)
    return grid


def _draw_references(ax: plt.Axes, refs: pd.DataFrame, layout: Layout, x: str, y: str,
                     colours: dict[object, object],
                     dashes: dict[tuple[str, str], tuple[object, str]],
                     series: Sequence[str]) -> None:
    """Each kind of reference (:func:`_kind`) once per distinct curve in the panel, in
    its style (``dashes``): grey when every curve of the panel shares it, else in the
    colour of the curve it belongs to."""
    keys = [k for k in (layout.hue, layout.style) if k]
    owner = refs.method.where(~refs.method.isin(series), "")
    for kind, rows in refs.groupby([owner, refs.source], sort=False):
        dash, label = dashes[kind]
        distinct: dict[tuple[bytes, bytes], list[object]] = {}
        for key, curve in (rows.groupby(keys, sort=False, observed=True, dropna=False)
                           if keys else [((), rows)]):
            curve = curve.sort_values(x).drop_duplicates(x)
            values = (curve[x].to_numpy(float).tobytes(), curve[y].to_numpy(float).tobytes())
            hue = key[0] if isinstance(key, tuple) and layout.hue else (
                key if layout.hue else None)
            distinct.setdefault(values, []).append(hue)
        for (xs, ys), hues in distinct.items():
            # A baseline of cells of its own (:func:`_apart`) is no curve's: grey.
            colour = GREY if len(distinct) == 1 or len(set(hues)) > 1 or \
                hues[0] not in colours else colours[hues[0]]
            ax.plot(np.frombuffer(xs), np.frombuffer(ys), color=colour, lw=1.1,
                    ls=dash, zorder=1.5, label=label)


def _legend(grid: sns.FacetGrid, layout: Layout, colours: dict[object, object],
            markers: dict[object, str | None], styles: dict[object, object],
            own_style: dict[object, object],
            dashes: dict[tuple[str, str], tuple[object, str]], families: list[str] | None,
            extras: set[object], extra_label: str) -> None:
    """One entry per colour (with its marker), per line style and per kind of reference,
    beside the panels, in as many columns as keep it no taller than the figure; a colour
    of extras only (``extras``) drawn and marked as one. Where each colour has one line
    style (``own_style``), its entry shows it, and the styles have none of their own."""
    entries: dict[str, Line2D] = {}
    if layout.hue:
        for value, colour in colours.items():
            label = _label(layout.hue, value, families)
            marked = {"marker": markers[value], "ms": 4, "ls": own_style.get(value, "-")}
            if value in extras:
                entries[f"{label} ({extra_label})"] = Line2D(
                    [], [], color=colour, **{**marked, **EXTRA_STYLE})
            else:
                entries[label] = Line2D([], [], color=colour, lw=1.6, **marked)
    if layout.style and len(styles) > 1 and not own_style:
        for value, style in styles.items():
            entries[_label(layout.style, value, families)] = Line2D([], [], color="0.2",
                                                                    ls=style, lw=1.4)
    for dash, label in dashes.values():
        entries[label] = Line2D([], [], color=GREY, ls=dash, lw=1.1)
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
    """Give ``grid`` its caption (``grid.caption``, printed under the panels) and title,
    its labels as mathtext and its log axes their ticks (:func:`dress`)."""
    figure = grid.figure
    if title:
        suptitle(figure, title)
    dress(figure)
    width = figure.get_figwidth()
    # Below the lowest tick labels and axis labels, wherever the layout put them.
    renderer = figure.canvas.get_renderer()
    bottom = min(ax.get_tightbbox(renderer).y0 for ax in grid.axes.flat)
    figure.text(0.01, bottom / figure.bbox.height - 0.01, textwrap.fill(text, int(width * 15)),
                ha="left", va="top", fontsize=7.5, color="0.25")
    _render(figure.texts[-1])
    grid.caption = text
    return grid


def suptitle(figure: plt.Figure, title: str) -> None:
    """Title ``figure`` above its panels and their own titles, by a line's spacing."""
    renderer = figure.canvas.get_renderer()
    top = max((ax.get_tightbbox(renderer).y1 for ax in figure.axes),
              default=figure.bbox.height)
    gap = TITLE_GAP / 72 * figure.dpi
    figure.suptitle(title, y=(top + gap) / figure.bbox.height, va="bottom")


def unclaimed(title: str) -> str:
    """``title`` without its claim to be a figure of the paper (:data:`CLAIM`)."""
    rest = CLAIM.sub("", title, count=1)
    return rest[:1].upper() + rest[1:] if rest != title else title


def unclaim(figure: plt.Figure) -> None:
    """Drop the claim to be a figure of the paper from ``figure``'s title: a figure drawn
    from cells the paper's sizes are not checked for."""
    title = figure.get_suptitle()
    if title and unclaimed(title) != title:
        suptitle(figure, unclaimed(title))


class LogTicks(ticker.Locator):
    """Major ticks of a log axis, at least :data:`MIN_TICKS` in view: powers of ten, else
    1, 2 and 5 times them, else evenly spaced round values (an axis under a factor of
    ten or so)."""

    def __call__(self) -> Sequence[float]:
        return self.tick_values(*self.axis.get_view_interval())

    def tick_values(self, vmin: float, vmax: float) -> Sequence[float]:
        vmin, vmax = sorted((vmin, vmax))
        if vmax <= 0:
            return []
        vmin = max(vmin, vmax * 1e-300)
        low, high = math.floor(math.log10(vmin)), math.ceil(math.log10(vmax))
        # At most about nine labelled decades: every other one, or fewer, beyond.
        stride = max(1, math.ceil((high - low) / 8))
        powers = 10.0 ** np.array([k for k in range(low, high + 1) if k % stride == 0],
                                  dtype=float)
        for subs in ((1.0,), (1.0, 2.0, 5.0)):
            ticks = np.outer(powers, subs).ravel()
            if np.count_nonzero((ticks >= vmin * (1 - 1e-9)) & (ticks <= vmax * (1 + 1e-9))
                                ) >= MIN_TICKS:
                return ticks[ticks > 0]
        ticks = ticker.MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]).tick_values(vmin, vmax)
        return ticks[ticks > 0]


class LogLabels(ticker.Formatter):
    """Labels of :class:`LogTicks`: plain numbers (0.05, 1, 20, 5000) when every tick is
    between 10⁻³ and 10⁴, else powers of ten (10⁻³, 2×10⁻³, 1.5×10⁻¹), up to four
    significant digits."""

    def __call__(self, value: float, pos: int | None = None) -> str:
        if value <= 0:
            return ""
        mantissa, exponent = f"{value:.3e}".split("e")
        mantissa = f"{float(mantissa):g}"
        power = f"10^{{{int(exponent)}}}"
        label = power if mantissa == "1" else rf"{mantissa}\times{power}"
        return rf"$\mathdefault{{{label}}}$"

    def format_ticks(self, values: Sequence[float]) -> list[str]:
        if all(1e-3 <= v < 1e4 for v in values):
            return [f"{v:.4g}" for v in values]
        return [self(v) for v in values]


def dress(figure: plt.Figure) -> None:
    """Give every log axis of ``figure`` that has matplotlib's default ticks
    :class:`LogTicks`, and every text (labels, titles, legends, caption) its symbols as
    mathtext (:func:`analysis.labels.maths`). Repeating it changes nothing."""
    for ax in figure.axes:
        for which in (ax.xaxis, ax.yaxis):
            if which.get_scale() == "log" and type(which.get_major_locator()) is \
                    ticker.LogLocator:
                which.set_major_locator(LogTicks())
                which.set_major_formatter(LogLabels())
                which.set_minor_formatter(ticker.NullFormatter())
    for text in figure.findobj(Text):
        _render(text)


@functools.cache
def _parser() -> mathtext.MathTextParser:
    return mathtext.MathTextParser("path")


def _render(text: plt.Text) -> None:
    """``text`` with its symbols as mathtext, line by line, unless mathtext cannot parse
    them (then as it is)."""
    raw = text.get_text()
    rendered = "\n".join(maths(line) for line in raw.split("\n"))
    if rendered == raw:
        return
    try:
        for formula in re.findall(r"\$[^$]*\$", rendered):
            _parser().parse(formula)
    except ValueError:
        return
    text.set_text(rendered)


def save(grid: sns.FacetGrid | plt.Figure, path: str | os.PathLike[str],
         formats: Sequence[str] = ("png", "pdf")) -> list[Path]:
    """Dress a figure (:func:`dress`) and write it as ``path.<format>`` for each format;
    return the paths."""
    figure = grid.figure if isinstance(grid, sns.FacetGrid) else grid
    dress(figure)
    written = []
    for fmt in formats:
        target = Path(path).with_suffix(f".{fmt}")
        target.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(target, dpi=150, bbox_inches="tight")
        written.append(target)
    plt.close(figure)
    return written


__all__ = ["Layout", "LayoutError", "LogTicks", "MissingData", "SharedCurve", "arrange",
           "caption", "curves", "derived", "dress", "finish", "hint", "metric_of", "save",
           "suptitle", "unclaim", "unclaimed", "varying"]
