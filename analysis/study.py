"""Family studies: what the analysis knows of a family, and how it finds them by name.

The engine modules of :mod:`analysis` (loading and summaries, plot primitives, claims,
documents, the report) know no family. What is particular to one lives in its study: one
:class:`Study` object, which declares

- the family's words (:class:`~analysis.vocabulary.Vocabulary`);
- its views: figures drawn from any results of the family, by the report and by
  ``python -m analysis figure``;
- its paper figures: views that hold only at the paper's settings, drawn from runs of
  other sizes on request (:attr:`Source.paper`);
- its document section (:class:`Section`): the presets it reads, its template, and the
  values and claims that fill it.

A study is found by the value of the results' ``family`` column (:func:`found`): a
built-in one as ``STUDY`` of ``analysis/studies/<family>/``, one installed from another
distribution by its entry point in the group ``dpsweep.studies``; :func:`register` adds
one at run time (a family outside the package, whose ``family`` column is its
``module:attribute``), and ``--study module:attribute`` does the same on the command
line. Adding a study edits no existing file.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import yaml

from sweep.cli import CONFIG_MODULE
from sweep.discovery import plugins

from .load import MissingData, load, summaries, summarize
from .vocabulary import Vocabulary

if TYPE_CHECKING:
    import seaborn as sns

    from .claims import Claim

#: Built-in studies by family name, as import paths so that naming one imports only it.
#: The entry point group of studies installed from other distributions.
ENTRY_POINTS = "dpsweep.studies"


@functools.cache
def found() -> dict[str, str]:
    """Every study found, by the family it studies, as its import path: the installed
    ones, then the built-in ones, ``STUDY`` of ``analysis/studies/<family>/``
    (:mod:`sweep.discovery`)."""
    return plugins("analysis.studies", "STUDY", "", ENTRY_POINTS)

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
        return load(list(self.results), keep=self.keep, family=self.family)

    def rows(self) -> pd.DataFrame:
        """The family's rows, replicate by replicate (read once, when first asked)."""
        return self.preloaded if self.preloaded is not None else self._rows


#: A view: a figure from a :class:`Source`; :class:`~analysis.plot.MissingData` (or
#: ``ValueError``) says why the results cannot give it.
View = Callable[[Source], "sns.FacetGrid"]


def summary_view(draw: Callable[..., sns.FacetGrid]) -> View:
    """The view that draws ``draw(summary, aggregate=...)`` from a source's summary."""
    return lambda source: draw(source.summary, aggregate=source.aggregate)


@dataclass(frozen=True)
class Section:
    """A study's part of a document (:mod:`analysis.document`).

    ``template`` is the section's Markdown: a resource of the study's package (``package``,
    ``file name``), or a file; ``presets`` the sweeps it reads, one results directory each under the
    document's root; ``reads`` whether it reads their summaries (``"summaries"``) or
    their rows (``"rows"``, summarized too); ``sizes`` names the size options of its
    presets (``n_agents`` → ``M``); ``figures`` are the figures only the document draws
    (the report does not: a view drawn for one preset, with its own title), beside the
    study's views and paper figures, which its presets may name too; ``values`` computes
    every placeholder of the template
    from the presets' :class:`Results`: a text, a condition for a
    ``{{#block}}``, or a list of :class:`~analysis.claims.Claim`, which the document
    renders as a table: the paper's claims under ``<stem>_claims``, tallied
    (``{{<stem>_tally}}`` and the document's ``{{tallies}}``, under ``paper``, the paper's
    short title), and the project's own checks under ``<stem>_checks``, never tallied.
    """

    template: tuple[str, str] | Path
    presets: Sequence[Preset]
    values: Callable[[Results], Mapping[str, str | bool | list[Claim]]]
    sizes: Mapping[str, str]
    reads: str = "summaries"
    figures: Mapping[str, View] = field(default_factory=dict)
    paper: str = ""

    def text(self) -> str:
        if isinstance(self.template, Path):
            return self.template.read_text("utf-8")
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


# -- The presets a section reads --------------------------------------------------------

@functools.cache
def _composed(name: str, choices: tuple[str, ...], column: str) -> Any:
    """``column`` of the preset's configuration with the config-group ``choices``, as
    Hydra composes it (a size that a config group, such as a scenario, sets)."""
    from hydra import compose, initialize_config_module
    from hydra.core.global_hydra import GlobalHydra

    GlobalHydra.instance().clear()
    with initialize_config_module(CONFIG_MODULE, version_base="1.3"):
        config = compose("config", overrides=[f"+experiment={name}", *choices])
    value: Any = config
    for key in column.split("."):
        value = value[key]
    return value


def _listed(text: Any) -> list[Any]:
    """The values of a sweep parameter (``200,30`` → ``[200, 30]``)."""
    return [yaml.safe_load(part) for part in str(text).split(",")]


def _one_or_all(values: list[Any]) -> Any:
    unique = list(dict.fromkeys(values))
    return unique[0] if len(unique) == 1 else unique


@functools.cache
def preset_sizes(name: str, columns: tuple[str, ...], experiments: Path | None = None
                 ) -> dict[str, Any]:
    """The values the preset ``<experiments>/<name>.yaml`` (by default the platform's,
    ``conf/experiment``) gives ``columns`` and ``replicates``: a value, or the list
    it sweeps. A column the file does not set is read from the configuration Hydra
    composes for each choice of the config groups the file sweeps (``+scenario:
    german,power_grid``)."""
    directory = experiments or resources.files(CONFIG_MODULE) / "experiment"
    config = yaml.safe_load((directory / f"{name}.yaml").read_text("utf-8"))
    params = ((config.get("hydra") or {}).get("sweeper") or {}).get("params") or {}
    groups = [[f"{key}={value}" for value in _listed(text)]
              for key, text in params.items() if key.startswith("+")]
    sizes = {}
    for column in (*columns, "replicates"):
        if column in params:
            sizes[column] = _one_or_all(_listed(params[column]))
        elif column in config:
            sizes[column] = config[column]
        else:
            sizes[column] = _one_or_all([_composed(name, choice, column)
                                         for choice in itertools.product(*groups)])
    return sizes


@dataclass(frozen=True)
class Preset:
    """A preset whose results a document reads from ``ROOT/<name>``, as written by
    ``python -m sweep -m +experiment=<name> results_dir=ROOT/<name>``.

    ``columns`` are the options that set its runs' sizes; their values (:attr:`sizes`),
    and the number of runs (:attr:`replicates`), are the preset file's, in
    ``experiments`` (a family outside the package keeps its presets beside its configs;
    default: the platform's). ``figures`` are the names of the study's figures drawn from
    it. ``budget`` is the most runs per cell its results may be extended to where a claim
    it decides is inconclusive only because its interval is too wide
    (:mod:`analysis.needs`); by default, the preset's own runs (no extension).
    """

    name: str
    columns: tuple[str, ...]
    figures: tuple[str, ...] = ()
    experiments: Path | None = None
    budget: int | None = None

    @property
    def sizes(self) -> dict[str, Any]:
        """The sizes of the preset's runs: the paper's, required unless ``any_size``."""
        return {c: v for c, v in preset_sizes(self.name, self.columns, self.experiments).items()
                if c != "replicates"}

    @property
    def replicates(self) -> int:
        return preset_sizes(self.name, self.columns, self.experiments)["replicates"]

    @property
    def most_runs(self) -> int:
        """The most runs per cell its results may hold: the budget, or its own runs."""
        return self.budget or self.replicates

    def command(self, root: Path, **overrides: Any) -> str:
        """The sweep that writes its results under ``root``, with ``overrides``
        (``replicates=200``)."""
        options = "".join(f" {key}={value}" for key, value in overrides.items())
        return (f"python -m sweep -m +experiment={self.name}{options} "
                f"results_dir={root / self.name}")


#: The sets of presets being noted (:func:`noting`), innermost last.
_NOTING: list[set[str]] = []


@contextlib.contextmanager
def noting() -> Iterator[set[str]]:
    """Note, in the set it yields, every preset whose results are read meanwhile (the
    presets a number of a document comes from)."""
    seen: set[str] = set()
    _NOTING.append(seen)
    try:
        yield seen
    finally:
        _NOTING.pop()  # nested: the innermost is last


def note(presets: Iterable[str]) -> None:
    """Note ``presets`` as read, in every set being noted."""
    for seen in _NOTING:
        seen.update(presets)


class _ByPreset(dict):
    """Results by preset name, noting each preset read (:func:`noting`)."""

    def __getitem__(self, preset: str) -> pd.DataFrame:
        note((preset,))
        return super().__getitem__(preset)


@dataclass(frozen=True)
class Results:
    """The summaries (mean ± one standard error per checkpoint) of the presets' results
    under one root, by preset name; and the rows of the presets whose section reads
    them (:attr:`~analysis.study.Section.reads`)."""

    root: Path
    summaries: dict[str, pd.DataFrame]
    runs: dict[str, pd.DataFrame] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "summaries", _ByPreset(self.summaries))
        object.__setattr__(self, "runs", _ByPreset(self.runs))

    @classmethod
    def read(cls, root: str | Path, studies: Iterable[Study], any_size: bool = False
             ) -> Results:
        """Read the presets' directories of the studies' sections; :class:`MissingData`
        naming the command to run if one is absent or holds no runs of the preset's
        sizes (unless ``any_size``)."""
        root = Path(root)
        found = cls(root, {})
        for study in studies:
            section = study.section
            names = {**section.sizes, "replicates": "runs"}
            for preset in section.presets:
                path = root / preset.name
                if not path.is_dir():
                    raise MissingData(f"no results directory {path}: run {preset.command(root)}")
                sizes = {} if any_size else preset.sizes
                if section.reads == "rows":
                    rows = load(path, family=study.family, **sizes)
                    summary = summarize(rows) if not rows.empty else rows
                    found.runs[preset.name] = rows
                else:
                    summary = summaries(path, **sizes)
                if summary.empty:
                    wanted = ", ".join(f"{names[c]} = {v}" for c, v in preset.sizes.items())
                    raise MissingData(f"{path} holds no runs of the preset's sizes ({wanted}): "
                                      f"run {preset.command(root)}, or render from other "
                                      "sizes with --any-size")
                found.summaries[preset.name] = summary
        return found

    def source(self, preset: str, family: str | None, paper: bool = True) -> Source:
        """What a figure of ``preset`` draws from."""
        return Source(self.summaries[preset], (self.root / preset,), family, paper=paper,
                      preloaded=self.runs.get(preset))

    def rows(self, preset: str, **match: Any) -> pd.DataFrame:
        """The rows, ordered by t, of the one series (cell, method and source) of
        ``preset`` whose columns equal ``match`` (``source`` defaults to simulated).

        :class:`MissingData` unless exactly one series matches: a number of the document
        must never be a silent pick among several.
        """
        summary = self.summaries[preset]
        match = {"source": "simulated", **match}
        absent = [c for c, v in match.items() if c not in summary and v is not None]
        if absent:
            raise MissingData(f"{preset}: the results have no column {absent[0]!r}")
        rows = summary[matching(summary, match)]
        series = len(rows.groupby(["cell_id", "method", "source"]))
        if series != 1 or not rows.t.is_unique:
            described = ", ".join(f"{c}={v}" for c, v in match.items())
            raise MissingData(f"{preset}: {series} series match {described}; the document "
                              "needs exactly one (rerun the commands of the document)")
        return rows.sort_values("t")

    def curve(self, preset: str, metric: str, **match: Any) -> pd.Series:
        """``metric`` of the series :meth:`rows` selects, indexed by t."""
        return self.rows(preset, **match).set_index("t")[metric]


def matching(frame: pd.DataFrame, match: Mapping[str, Any]) -> np.ndarray:
    """Which rows of ``frame`` have every column of ``match`` equal to its value; ``None``
    matches a missing value (an option that does not apply)."""
    return np.logical_and.reduce([
        (frame[c].isna() if c in frame else np.ones(len(frame), bool)) if v is None
        else frame[c] == v for c, v in match.items()])


_registered: dict[str, str | Study] = {}


def _loaded(spec: str) -> Study:
    """The object at ``module:attribute``; :class:`ImportError` says why it does not load."""
    module, sep, attribute = spec.partition(":")
    if not sep:
        raise ImportError(f"must be module:attribute; got {spec!r}")
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise ImportError(f"cannot load {spec!r} ({error})") from None


def register(family: str, study: str | Study) -> None:
    """Use ``study`` (a :class:`Study`, or its import path ``module:attribute``) for the
    results whose ``family`` column is ``family``."""
    _registered[family] = study
    get_study.cache_clear()


@functools.cache
def get_study(family: str) -> Study | None:
    """The study of ``family`` (None if it has none: the engine draws it with its own
    column names); :class:`ImportError` names a registered path that does not load."""
    spec = _registered.get(family, found().get(family))
    if spec is None or isinstance(spec, Study):
        return spec
    try:
        study = _loaded(spec)
    except ImportError as error:
        raise ImportError(f"study of family {family}: {error}") from None
    if study.family != family:
        raise ImportError(f"study {spec!r} is that of family {study.family!r}, not {family!r}")
    return study


def known() -> list[str]:
    """Every family that has a study: the built-in ones and those registered."""
    return list(dict.fromkeys([*found(), *_registered]))


def studies(families: Sequence[str] | None = None) -> list[Study]:
    """The studies of ``families`` (default: every known one), in that order, skipping
    families without one."""
    found = (get_study(f) for f in (known() if families is None else families))
    return [study for study in found if study is not None]


def views_of(study: Study) -> dict[str, View]:
    """A study's views and paper figures by name."""
    return {**study.views, **study.figures}


def check(found: Sequence[Study]) -> None:
    """:class:`ValueError` if two views are named alike, in two studies or as a view and
    a paper figure of one (``figure NAME`` would be ambiguous); one view may be both."""
    seen: dict[str, tuple[str, View]] = {}
    for study in found:
        section = study.section.figures if study.section else {}
        for kind, named in (("views", study.views), ("figures", study.figures),
                             ("section's figures", section)):
            for name, view in named.items():
                where = f"the {kind} of the study of {study.family}"
                if name in seen and seen[name][1] is not view:
                    raise ValueError(f"view {name!r} is in both {seen[name][0]} and {where}")
                seen[name] = (where, view)


def from_path(spec: str) -> Study:
    """The study at ``module:attribute``, registered under its family (the command
    line's ``--study``)."""
    try:
        study = _loaded(spec)
    except ImportError as error:
        raise ValueError(f"--study: {error}") from None
    register(study.family, study)
    return study


__all__ = ["ENTRY_POINTS", "Section", "Source", "Study", "View", "found", "get_study", "known",
           "register", "studies", "summary_view", "views_of"]
