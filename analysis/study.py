"""Family studies: what the analysis knows of a family, and how it finds them by name.

The engine modules of :mod:`analysis` (loading and summaries, plot primitives, claims,
documents, the report) know no family. What is particular to one lives in its study: one
:class:`Study` object, which declares

- the family's words (:class:`~analysis.labels.Vocabulary`);
- its views: figures drawn from any results of the family, by the report and by
  ``python -m analysis figure``;
- its paper figures: views that hold only at the paper's settings, drawn from runs of
  other sizes on request (:attr:`Source.paper`);
- its document section (:class:`Section`): the presets it reads, its template, and the
  values and claims that fill it.

Built-in studies are named in :data:`STUDIES` by the value of the results' ``family``
column; :func:`register` adds one at run time (a family outside the package, whose
``family`` column is its ``module:attribute``), and ``--study module:attribute`` does the
same on the command line. Adding a study changes no engine module.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .vocabulary import Vocabulary

if TYPE_CHECKING:
    import pandas as pd
    import seaborn as sns

    from .claims import Claim
    from .document import Preset, Results

#: Built-in studies by family name, as import paths so that naming one imports only it.
STUDIES: dict[str, str] = {
    "colme": "analysis.studies.colme:STUDY",
    "network": "analysis.studies.network:STUDY",
    "continual": "analysis.studies.continual:STUDY",
    "inference": "analysis.studies.inference:STUDY",
}

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class Source:
    """What a view draws from: the summary of one family's rows, and where they are.

    ``results`` are the directories the summary was read from (some views read more:
    the replicates' rows, :meth:`rows`, or the results' provenance); ``keep`` is the
    summary's (:func:`analysis.load.summaries`); ``paper`` false draws a paper figure
    from runs of any size; ``aggregate`` names the columns whose cells a view averages
    (the seed, when cells differ only in it).
    """

    summary: pd.DataFrame
    results: tuple[Path, ...] = ()
    family: str | None = None
    keep: str = "newest"
    paper: bool = True
    aggregate: tuple[str, ...] = ()
    preloaded: pd.DataFrame | None = field(default=None, repr=False)

    @functools.cached_property
    def _rows(self) -> pd.DataFrame:
        from .load import load

        return load(list(self.results), keep=self.keep, family=self.family)

    def rows(self) -> pd.DataFrame:
        """The family's rows, replicate by replicate (read once, when first asked)."""
        return self.preloaded if self.preloaded is not None else self._rows

    @property
    def directory(self) -> Path:
        """The one results directory (a view that reads provenance needs exactly one)."""
        if len(self.results) != 1:
            from .plot import MissingData

            raise MissingData(f"this view reads one results directory; got {len(self.results)}")
        return self.results[0]


#: A view: a figure from a :class:`Source`; :class:`~analysis.plot.MissingData` (or
#: ``ValueError``) says why the results cannot give it.
View = Callable[[Source], "sns.FacetGrid"]
def summary_view(draw: Callable[..., sns.FacetGrid]) -> View:
    """The view that draws ``draw(summary, aggregate=...)`` from a source's summary."""
    return lambda source: draw(source.summary, aggregate=source.aggregate)


@dataclass(frozen=True)
class Section:
    """A study's part of a document (:mod:`analysis.document`).

    ``template`` is the section's Markdown, a resource of the study's package (``package``,
    ``file name``); ``presets`` the sweeps it reads, one results directory each under the
    document's root; ``reads`` whether it reads their summaries (``"summaries"``) or
    their rows (``"rows"``, summarized too); ``sizes`` names the size options of its
    presets (``n_agents`` → ``M``); ``values`` computes every placeholder of the template
    from the :class:`~analysis.document.Results`: a text, a condition for a
    ``{{#block}}``, or a list of :class:`~analysis.claims.Claim`, which the document
    renders as a table and counts (``{{<stem>_claims}}`` and ``{{<stem>_agreed}}``).
    """

    template: tuple[str, str]
    presets: Sequence[Preset]
    values: Callable[[Results], Mapping[str, str | bool | list[Claim]]]
    sizes: Mapping[str, str]
    reads: str = "summaries"

    def text(self) -> str:
        from importlib import resources

        package, name = self.template
        return (resources.files(package) / name).read_text("utf-8")


@dataclass(frozen=True)
class Study:
    """What the analysis knows of one family (see the module's docstring)."""

    family: str
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    views: Mapping[str, View] = field(default_factory=dict)
    figures: Mapping[str, View] = field(default_factory=dict)
    section: Section | None = None


_registered: dict[str, str | Study] = {}


def register(family: str, study: str | Study) -> None:
    """Use ``study`` (a :class:`Study`, or its import path ``module:attribute``) for the
    results whose ``family`` column is ``family``."""
    _registered[family] = study
    get_study.cache_clear()


@functools.cache
def get_study(family: str) -> Study | None:
    """The study of ``family`` (None if it has none: the engine draws it with its own
    column names); :class:`ImportError` names a registered path that does not load."""
    spec = _registered.get(family, STUDIES.get(family))
    if spec is None or isinstance(spec, Study):
        return spec
    module, _, attribute = spec.partition(":")
    try:
        study = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise ImportError(f"study of family {family}: cannot load {spec!r} ({error})") from None
    if study.family != family:
        raise ImportError(f"study {spec!r} is that of family {study.family!r}, not {family!r}")
    return study


def known() -> list[str]:
    """Every family that has a study: the built-in ones and those registered."""
    return list(dict.fromkeys([*STUDIES, *_registered]))


def studies(families: Sequence[str] | None = None) -> list[Study]:
    """The studies of ``families`` (default: every known one), in that order, skipping
    families without one."""
    found = (get_study(f) for f in (known() if families is None else families))
    return [study for study in found if study is not None]


def views_of(study: Study) -> dict[str, View]:
    """A study's views and paper figures by name."""
    return {**study.views, **study.figures}


def check(studies_: Sequence[Study]) -> None:
    """:class:`ValueError` if two studies name a view alike (``figure NAME`` would be
    ambiguous)."""
    seen: dict[str, str] = {}
    for study in studies_:
        for view in views_of(study):
            if view in seen:
                raise ValueError(f"view {view!r} is declared by the studies of both "
                                 f"{seen[view]} and {study.family}")
            seen[view] = study.family


def from_path(spec: str) -> Study:
    """The study at ``module:attribute``, registered under its family (the command
    line's ``--study``)."""
    module, sep, attribute = spec.partition(":")
    if not sep:
        raise ValueError(f"--study: must be module:attribute; got {spec!r}")
    try:
        study = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"--study: cannot load {spec!r} ({error})") from None
    register(study.family, study)
    return study


__all__ = ["STUDIES", "Section", "Source", "Study", "View", "get_study", "known", "register",
           "studies", "summary_view", "views_of"]
