"""Paper figures, and the figures and views of every study.

A paper figure is a :class:`Figure`: the rows it needs (``load`` filters, matching the
``+experiment=`` preset that produces them), the paper's settings and sizes, and how to
draw them. ``draw(summary)`` raises :class:`~analysis.plot.MissingData` with the reason
when the results lack them. The studies declare theirs (:mod:`analysis.study`);
:data:`FIGURES` and :data:`VIEWS` gather those of every known study, by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd
import seaborn as sns

from .labels import name
from .load import OTHER_FAMILY, PAPER_SIZES, MissingData
from .plot import suptitle, unclaimed

if TYPE_CHECKING:
    from .study import Source, View

#: Values listed in a reason before it abbreviates.
SHOWN = 6


def _values(values: Iterable[Any]) -> str:
    shown = [f"{v:g}" if isinstance(v, float) else str(v) for v in values]
    if len(shown) > SHOWN:
        shown = [*shown[:SHOWN], "…"]
    return shown[0] if len(shown) == 1 else "{" + ", ".join(shown) + "}"


def _wanted(column: str, value: Any) -> str:
    values = list(value) if isinstance(value, list | set | tuple) else [value]
    return f"{column} {'=' if len(values) == 1 else '∈'} {_values(sorted(values, key=str))}"


def _present(rows: pd.DataFrame, column: str) -> str:
    values = sorted(pd.unique(rows[column]), key=lambda v: (isinstance(v, str), str(v)
                                                             if v is None else v))
    return f"{column} {'=' if len(values) == 1 else '∈'} {_values(values)}"


def _matches(rows: pd.DataFrame, column: str, value: Any) -> pd.Series:
    allowed = value if isinstance(value, list | set | tuple) else [value]
    # None stands for "does not apply" (a missing value in the results).
    return rows[column].isin(allowed) | (rows[column].isna() if None in allowed else False)


@dataclass(frozen=True)
class Figure:
    """A figure: what it shows, the rows it reads, and how it draws them.

    ``filters`` select the figure's series; ``parameters`` are the paper's settings of the
    scenario (its sizes among them), also required unless ``draw(..., paper=False)``,
    which draws the same panels from runs of any size (e.g. in tests and notebooks).
    ``requires`` are values each of which the figure must show; ``sizes`` are the options
    that set a run's size: drawn at any size, the figure shows whatever sizes the results
    hold, as panels.
    """

    name: str
    caption: str
    filters: dict[str, Any]
    draw_summary: Callable[[pd.DataFrame], sns.FacetGrid]
    requires: dict[str, set[Any]] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    sizes: tuple[str, ...] = ()

    @property
    def preset(self) -> str:
        """The sweep that produces the figure's rows (the caption's first part)."""
        return self.caption.split(";")[0]

    def _missing(self, needs: str, have: str, sizes: bool) -> MissingData:
        message = f"{self.name}: needs {needs}; the results have {have} (run {self.preset}"
        if not sizes:
            return MissingData(f"{message})")
        return MissingData(f"{message}, or draw it from these sizes with paper=False)", PAPER_SIZES,
                           f"{message}, or draw it from these sizes with --any-size)")

    def select(self, summary: pd.DataFrame, paper: bool = True) -> pd.DataFrame:
        """The figure's rows of ``summary``; :class:`MissingData` names the filter that
        failed and the values the results hold instead."""
        wanted = {**self.parameters, **self.filters} if paper else {
            c: v for c, v in self.filters.items() if c not in self.sizes}
        family = wanted.get("family", None)
        if family and not _matches(summary, "family", family).any():
            raise MissingData(f"{self.name}: needs results of family {family}; the results "
                              f"have {_present(summary, 'family')} (run {self.preset})",
                              OTHER_FAMILY)
        absent = [c for c in wanted if c not in summary]
        if absent:
            needs = ", ".join(_wanted(c, wanted[c]) for c in absent)
            # Options of another family: the results hold none of its cells.
            raise MissingData(f"{self.name}: needs {needs}; the results have no column "
                              f"{', '.join(absent)} (run {self.preset})", OTHER_FAMILY)
        # Every filter that matches nothing on its own, with what is there instead.
        failing = [c for c, v in wanted.items() if not _matches(summary, c, v).any()]
        if failing:
            raise self._missing(", ".join(_wanted(c, wanted[c]) for c in failing),
                                ", ".join(_present(summary, c) for c in failing),
                                set(failing) <= set(self.sizes))
        rows, applied = summary, []
        for column, value in wanted.items():
            kept = rows[_matches(rows, column, value)]
            if kept.empty:
                raise self._missing(f"{_wanted(column, value)} together with {', '.join(applied)}",
                                    _present(rows, column) + " there", column in self.sizes)
            rows = kept
            applied.append(_wanted(column, value))
        for column, values in self.requires.items():
            present = set(rows[column]) if column in rows else set()
            if not values <= present:
                # Each value is needed: the message names those missing, not those held.
                every = [str(v) for v in sorted(values, key=str)]
                every = ", ".join(every[:-1]) + f" and {every[-1]}" if len(every) > 1 \
                    else every[0]
                raise self._missing(f"cells at {column} = {every}", "none at "
                                    f"{_wanted(column, values - present)} among the "
                                    "figure's rows", False)
        return rows

    def at_paper(self, rows: pd.DataFrame) -> bool:
        """Whether every row is at the paper's settings and sizes."""
        wanted = {**self.parameters, **self.filters}
        return all(c in rows and _matches(rows, c, v).all() for c, v in wanted.items())

    def draw(self, summary: pd.DataFrame, paper: bool = True) -> sns.FacetGrid:
        """Draw from a summary that may hold more than this figure needs; the title says
        the sizes its cells share, and claims the paper's figure (``Fig. 2 (left)``) only
        if they are the paper's (``grid.paper_sizes``)."""
        rows = self.select(summary, paper)
        grid = self.draw_summary(rows)
        grid.paper_sizes = paper or self.at_paper(rows)
        sizes = [name(c, rows[c].iloc[0]) for c in self.sizes
                 if c in rows and rows[c].nunique() == 1]
        title = grid.figure.get_suptitle() or self.caption.split("; ", 1)[1]
        title = title if grid.paper_sizes else unclaimed(title)
        suptitle(grid.figure, f"{title} ({', '.join(sizes)})" if sizes else title)
        return grid

    def __call__(self, source: Source) -> sns.FacetGrid:
        """The figure as a study's view: drawn from the source's summary, at the paper's
        sizes unless ``source.paper`` is false."""
        return self.draw(source.summary, paper=source.paper)


def _every(kind: str) -> dict[str, View]:
    from .study import studies

    return {name: view for study in studies() for name, view in getattr(study, kind).items()}


def __getattr__(attribute: str) -> dict[str, View]:
    # Gathered when first asked: naming a study's module imports it.
    if attribute == "FIGURES":
        return _every("figures")
    if attribute == "VIEWS":
        return _every("views")
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")


__all__ = ["Figure"]
