"""The decentralized study's section of ``docs/decentralized.md``: every number, table and
verdict its template (``decentralized.md`` in this package) names, computed from the
presets' rows and the summary of the reference's runs (:mod:`.reference`).

The statements the section decides are declared in :mod:`.statements`; :class:`Measures`
computes what they select. The tables are :func:`agreement_tables` (our runs against the
reference's at a few checkpoints), :func:`degree_values` and :func:`privacy_values`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from analysis.claims import Claim, Curves, Ordering, Verdict, markdown_table
from analysis.document import Values, cell_provenance
from analysis.labels import name
from analysis.load import MissingData
from analysis.numbers import sci
from analysis.statements import Estimate, Interval, evaluate
from analysis.study import Results

from .figures import ALGORITHMS, FAMILY, REFERENCE_N, half_width, interval
from .reference import stored
from .statements import AGREEMENT, CLAIMS, PRINTED_RUN, PRIVACY, QUANTITIES

#: The columns of a cell's parameters, by the names the statements give them.
PARAMETERS = {"algorithm": "method", "n_nodes": "graph.n_nodes", "degree": "graph.degree",
              "mechanism": "privacy.mechanism", "epsilon": "epsilon"}
#: The steps at which the detail tables show both sides: the checkpoints nearest these.
SHOWN = (2, 10, 100, 300, 500, 750, 1000, 1500, 2000)
#: How the time per agent-step grows, by whether the fitted slope exceeds 1.
GROWTH = {True: "faster than", False: "about as fast as"}
#: Whether private C-ColME beats the local mean, by the verdict of its check.
BEATS = {Verdict.AGREES: "yes", Verdict.DISAGREES: "no: worse than the local mean",
         Verdict.INCONCLUSIVE: "the runs cannot tell them apart"}
#: Said of a checkpoint where one side takes the same value in all its runs.
NO_SPREAD = (" (one side takes the same value in all its runs: so rare an event is far from "
             "the normal law Welch's test assumes)")


def values(results: Results) -> Values:
    """Every value of the section's template."""
    measures = Measures(results)
    private = evaluate(PRIVACY, measures, family=FAMILY)
    return {**setting_values(measures.rows("reference")),
            "agreement_checks": evaluate(AGREEMENT, measures, family=FAMILY),
            "agreement_tables": agreement_tables(measures),
            "printed_checks": evaluate(PRINTED_RUN, measures, family=FAMILY),
            "decentralized_claims": evaluate(CLAIMS, measures, family=FAMILY),
            **degree_values(measures.rows("degree")),
            "privacy_checks": private, **privacy_values(measures, private)}


# -- Runs --------------------------------------------------------------------------------

def per_run(rows: pd.DataFrame, method: str, metric: str) -> pd.DataFrame:
    """``metric`` of ``method``'s simulated rows as a table: one row per run (replicate),
    one column per checkpoint t. ``rows`` are one cell's."""
    of = rows[(rows.method == method) & (rows.source == "simulated")]
    return of.pivot(index="replicate", columns="t", values=metric)


def cell_of(rows: pd.DataFrame, **match: object) -> pd.DataFrame:
    """Every row of the one cell whose rows have columns equal to ``match`` (e.g. its
    algorithm's method); :class:`MissingData` unless exactly one cell does."""
    chosen = rows[np.logical_and.reduce([rows[c] == v for c, v in match.items()])]
    cells = chosen.cell_id.unique()
    if len(cells) != 1:
        described = ", ".join(f"{c} = {v}" for c, v in match.items())
        raise MissingData(f"{len(cells)} cells have {described}; the document needs one")
    return rows[rows.cell_id == cells[0]]


def cells_by(rows: pd.DataFrame, keys: list[str], selected: pd.DataFrame | None = None
             ) -> Iterator[tuple[tuple, pd.DataFrame, int]]:
    """Each cell by its values of ``keys`` among the ``selected`` rows (default: all), in
    their order: the values, every row of the cell (:func:`cell_of`: :class:`MissingData`
    where several cells share them) and its last step."""
    found = (rows if selected is None else selected)[keys].drop_duplicates().sort_values(keys)
    for values in found.itertuples(index=False, name=None):
        cell = cell_of(rows, **dict(zip(keys, values, strict=True)))
        yield values, cell, int(cell.t.max())


def nearest(times: Iterable[int], t: float) -> int:
    """The checkpoint of ``times`` nearest ``t``."""
    times = np.asarray(list(times))
    return int(times[np.abs(times - t).argmin()])


def prediction(values: pd.Series) -> tuple[float, float, float]:
    """The mean of ``values`` (one per run) and the Student-t 95% prediction interval of
    one more run."""
    mean = float(values.mean())
    half = float(half_width(values.std(ddof=1), len(values), prediction=True))
    return mean, mean - half, mean + half


def setting_values(rows: pd.DataFrame) -> Values:
    first = rows.iloc[0]
    runs = int(rows.replicate.nunique())
    sizes = "/".join(f"{n:,}" for n in sorted(rows["graph.n_nodes"].unique()))
    return {"reference_setting": (
        f"N = {sizes} agents, r = {first['graph.degree']:g}, σ = {first['sigma']:g}, "
        # The test's failure probability, as the reference names it.
        f"δ = {first['decision.failure_probability']:g}, T = {first['t_max']:,}, "
        f"{runs} runs per cell")}


# -- Agreement with the reference's runs ------------------------------------------------

def welch(m1: np.ndarray, s1: np.ndarray, n1: np.ndarray, m2: np.ndarray, s2: np.ndarray,
          n2: np.ndarray) -> np.ndarray:
    """Two-sided p-values of Welch's t-test of equal means (scipy's, from the summary
    statistics), element by element; where neither side varies, 1 if the means are equal
    and 0 if not."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = stats.ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=False).pvalue
    return np.where(s1**2 / n1 + s2**2 / n2 > 0, p, np.where(m1 == m2, 1.0, 0.0))


class Sides(NamedTuple):
    """The reference's and our mean ± Student-t 95% half-width at checkpoint ``t``, and
    ``note``: what to say where one side takes the same value in all its runs."""

    t: int
    theirs: str
    ours: str
    note: str


@dataclass(frozen=True)
class Compared:
    """One quantity, ``metric``, of our runs and of the reference's at every checkpoint
    both have (:meth:`Measures.compared`): ``frame`` holds, by ``t``, the reference's
    ``mean``, ``sd`` and ``runs``, ours (``ours_mean``, ``ours_sd``, ``ours_runs``) and
    Welch's ``p``."""

    frame: pd.DataFrame
    metric: str

    @property
    def runs(self) -> int:
        """Our runs (the fewest at a checkpoint)."""
        return int(self.frame["ours_runs"].min())

    @property
    def their_runs(self) -> int:
        """The reference's runs (the fewest at a checkpoint)."""
        return int(self.frame["runs"].min())

    def _row(self, t: int | None) -> pd.Series:
        """The checkpoint ``t``, or the one of the smallest p-value."""
        if t is None:
            return self.frame.loc[self.frame["p"].idxmin()]
        return self.frame[self.frame.t == t].iloc[0]

    def curves(self, label: str, t: int | None = None) -> Curves:
        """The curves rule at checkpoint ``t`` (default: the smallest p-value's)."""
        row = self._row(t)
        return Curves(label, float(row["p"]), int(row["t"]), len(self.frame))

    def sides(self, t: int | None = None) -> Sides:
        """Both sides at checkpoint ``t`` (default: the smallest p-value's): fractions to
        three decimals, link counts to units."""
        row = self._row(t)
        digits = ".3f" if self.metric == "within" else ".0f"

        def text(mean: float, sd: float, runs: int) -> str:
            return f"{mean:{digits}} ± {float(half_width(sd, runs)):{digits}}"

        return Sides(int(row["t"]), text(row["mean"], row["sd"], row["runs"]),
                     text(row["ours_mean"], row["ours_sd"], row["ours_runs"]),
                     NO_SPREAD if row["ours_sd"] == 0 or row["sd"] == 0 else "")


def agreement_tables(measures: Measures) -> str:
    """Per algorithm and N, the reference's and our means ± Student-t 95% half-widths of
    every quantity at the checkpoints nearest :data:`SHOWN`, ✗ where the curves rule
    holds the checkpoint's p-value below its family-wise level."""
    tables = []
    for algorithm in ALGORITHMS:
        for n_nodes in measures.sizes:
            found = [measures.compared(algorithm, n_nodes, method.format(algorithm=algorithm),
                                       metric) for method, metric, _ in QUANTITIES]
            lines = []
            for t in dict.fromkeys(nearest(found[0].frame.t, t) for t in SHOWN):
                cells = [f"{t:,}"]
                for both in found:
                    sides = both.sides(t)
                    mark = "" if both.curves("", t).decide() is Verdict.AGREES else " ✗"
                    cells.append(f"{sides.theirs} / {sides.ours}{mark}")
                lines.append(cells)
            title = f"**{name('method', algorithm, FAMILY)}, N = {n_nodes:,}** (reference / ours)"
            header = ["t", *(label for _, _, label in QUANTITIES)]
            tables.append(f"{title}\n\n" + markdown_table(header, lines))
    return "\n\n".join(tables)


# -- What the statements measure -----------------------------------------------------------

class Measures:
    """What the section's statements (:mod:`.statements`) select, from the rows of the
    presets (``decentralized_<preset>``) and the summary of the reference's runs; a cell
    is named by its parameters (:data:`PARAMETERS`)."""

    def __init__(self, results: Results) -> None:
        self.results = results
        self.theirs = stored()

    def rows(self, preset: str) -> pd.DataFrame:
        return self.results.runs[f"decentralized_{preset}"]

    def cell(self, preset: str, **parameters: Any) -> pd.DataFrame:
        """Every row of the one cell of ``preset`` with these parameters (:func:`cell_of`)."""
        return cell_of(self.rows(preset), **{PARAMETERS[k]: v for k, v in parameters.items()})

    def _cases(self, preset: str, selected: pd.DataFrame, *names: str
               ) -> list[dict[str, Any]]:
        """The cells among the ``selected`` rows of ``preset`` as cases: their parameters
        ``names``, in their order."""
        columns = [PARAMETERS[n] for n in names]
        return [dict(zip(names, values, strict=True))
                for values, _, _ in cells_by(self.rows(preset), columns, selected)]

    # -- Runs

    def runs(self, preset: str, method: str, metric: str, t: int | None = None,
             **parameters: Any) -> pd.Series:
        """``metric`` of ``method`` in each run of a cell at checkpoint ``t`` (default: the
        cell's last step)."""
        cell = self.cell(preset, **parameters)
        return per_run(cell, method, metric)[int(cell.t.max()) if t is None else t]

    def last_step(self, preset: str, **parameters: Any) -> int:
        return int(self.cell(preset, **parameters).t.max())

    def mean(self, runs: pd.Series) -> float:
        return float(runs.mean())

    def count(self, runs: pd.Series) -> int:
        return len(runs)

    def prediction(self, runs: pd.Series) -> Interval:
        """The mean of ``runs`` and the Student-t 95% prediction interval of one more run."""
        return Interval(*prediction(runs))

    def log_ratio(self, a: pd.Series, b: pd.Series) -> pd.Series:
        """ln(a / b), run by run."""
        return np.log(a / b)

    def early_step(self, preset: str, **parameters: Any) -> int:
        """The checkpoint of a cell nearest a tenth of its last step."""
        cell = self.cell(preset, **parameters)
        return nearest(np.unique(cell.t), cell.t.max() / 10)

    # -- Our runs against the reference's

    @property
    def sizes(self) -> list[int]:
        """The N of both our reference preset's runs and the reference's."""
        return sorted(set(self.rows("reference")["graph.n_nodes"]) & set(self.theirs.n_nodes))

    def held(self, algorithm: str, n_nodes: int) -> list[dict[str, Any]]:
        """The case of ``algorithm`` at N = ``n_nodes``, where both sides have runs."""
        return [{"algorithm": algorithm, "n_nodes": n_nodes}] if n_nodes in self.sizes else []

    def compared(self, algorithm: str, n_nodes: int, method: str, metric: str) -> Compared:
        """Ours and the reference's mean, standard deviation and runs of one quantity at
        every checkpoint both have, with Welch's p-value."""
        cell = self.cell("reference", algorithm=algorithm, n_nodes=n_nodes)
        ours = per_run(cell, method, metric)
        theirs = self.theirs[(self.theirs.algorithm == algorithm)
                             & (self.theirs.n_nodes == n_nodes) & (self.theirs.method == method)
                             & (self.theirs.metric == metric)]
        both = theirs.set_index("t").join(pd.DataFrame({
            "ours_mean": ours.mean(), "ours_sd": ours.std(ddof=1), "ours_runs": ours.count()}),
            how="inner")
        both["p"] = welch(*(both[c].to_numpy() for c in (
            "mean", "sd", "runs", "ours_mean", "ours_sd", "ours_runs")))
        return Compared(both.reset_index(), metric)

    def curves(self, both: Compared, label: str) -> Curves:
        return both.curves(label)

    def sides(self, both: Compared) -> Sides:
        return both.sides()

    def reference_size(self) -> int:
        """The reference's N = 10⁴, or the largest N of the runs."""
        sizes = set(self.rows("reference")["graph.n_nodes"])
        return REFERENCE_N if REFERENCE_N in sizes else max(sizes)

    def checkpoint(self, iteration: int) -> int:
        """The checkpoint nearest the reference's ``iteration`` (``iteration`` + 1
        samples), of C-ColME's cell at :meth:`reference_size`."""
        cell = self.cell("reference", algorithm="c_colme", n_nodes=self.reference_size())
        return nearest(np.unique(cell[cell.source == "simulated"].t), iteration + 1)

    # -- The degree preset

    def degrees(self, algorithm: str) -> list[dict[str, Any]]:
        """The cells of ``algorithm``, by degree, as cases."""
        rows = self.rows("degree")
        return self._cases("degree", rows[rows.method == algorithm], "algorithm", "degree")

    @functools.cached_property
    def timings(self) -> pd.DataFrame:
        """Per cell: its first row's ``method``, its ``degree`` and ``depth`` and its
        compute time per agent and step (``per_step``: its estimate's, its oracle's and
        its baselines' together)."""
        records = cell_provenance(self.results, "decentralized_degree")
        cells = self.rows("degree").drop_duplicates("cell_id").set_index("cell_id")
        seconds = np.array([records[c]["wall_seconds"] for c in cells.index])
        work = (cells["graph.n_nodes"] * cells["t_max"] * cells["replicates"]).to_numpy(float)
        return pd.DataFrame({"method": cells.method, "degree": cells["graph.degree"],
                             "depth": cells["depth"], "per_step": seconds / work})

    def timed(self, algorithm: str) -> list[dict[str, Any]]:
        """The case of ``algorithm``'s cost, the degrees it was timed at (none under
        three cells)."""
        of = self.timings[self.timings.method == algorithm]
        return [] if len(of) < 3 else [{"low": of.degree.min(), "high": of.degree.max(),
                                        "depth": of.depth.iloc[0]}]

    def cost_slope(self, algorithm: str) -> Estimate:
        """The log–log slope of the compute time per agent-step against r, with the
        standard error of the fit's residuals and their degrees of freedom."""
        of = self.timings[self.timings.method == algorithm]
        fit = stats.linregress(np.log(of.degree.to_numpy(float)), np.log(of.per_step))
        return Estimate(fit.slope, fit.stderr, len(of) - 2)

    def per_step(self, algorithm: str) -> str:
        of = self.timings[self.timings.method == algorithm].sort_values("degree")
        return ", ".join(f"{sci(p)} s at r = {r:g}" for r, p in zip(of.degree, of.per_step,
                                                                      strict=True))

    def growth(self, slope: Estimate) -> str:
        return GROWTH[slope.mean > 1]

    # -- The private preset

    def private_cells(self) -> list[dict[str, Any]]:
        """The private cells, by mechanism, ε and degree, as cases."""
        rows = self.rows("private")
        return self._cases("private", rows[rows["privacy.mechanism"] != "none"],
                           "mechanism", "epsilon", "degree")

    def beats(self, private: pd.Series, local: pd.Series) -> str:
        """Whether private C-ColME beats the local mean (:data:`BEATS`), by the verdict
        of their paired check."""
        return BEATS[Ordering.paired_runs("", private, local).decide()]


# -- The degree and private sweeps --------------------------------------------------------

def first_zero(runs: pd.DataFrame) -> int | None:
    """The first checkpoint from which every run has no wrong link left (None if never)."""
    clean = (runs == 0).all(axis=0)
    later = clean[::-1].cummin()[::-1]
    return int(later.idxmax()) if later.any() else None


def degree_values(rows: pd.DataFrame) -> Values:
    """``degree_table``: per algorithm and degree, when the wrong links are all cut, and
    the fraction within 0.1 and the MSE against the oracle's at the last step."""
    lines = []
    for (algorithm, degree), cell, t_max in cells_by(
            rows, ["method", "graph.degree"], rows[rows.method.isin(ALGORITHMS)]):
        cut = first_zero(per_run(cell, algorithm, "wrong_links"))
        within = interval(per_run(cell, algorithm, "within")[t_max])
        mse, oracle = (interval(per_run(cell, m, "mse")[t_max])
                       for m in (algorithm, f"{algorithm}_oracle"))
        lines.append([name("method", algorithm, FAMILY), f"{degree:g}",
                      "not by T" if cut is None else f"{cut:,}",
                      f"{within[0]:.3f} [{within[1]:.3f}, {within[2]:.3f}]",
                      f"{sci(mse[0])} [{sci(mse[1])}, {sci(mse[2])}]",
                      f"{sci(oracle[0])} [{sci(oracle[1])}, {sci(oracle[2])}]"])
    return {"degree_table": markdown_table(
        ["algorithm", "r", "no wrong link left in any run from t =", "within 0.1 at T (95% CI)",
         "MSE at T", "oracle's MSE at T"], lines)}


def privacy_values(measures: Measures, checks: list[Claim]) -> Values:
    """``privacy_table``: per mechanism, ε and degree, the links private C-ColME keeps and
    cuts, and whether it beats the local mean by its check (``checks``, one per private
    cell); ``private_summary`` says where, per mechanism."""
    lines = []
    found: dict[str, dict[Verdict, list[str]]] = {}
    for cell, check in zip(measures.private_cells(), checks, strict=True):
        verdict = check.evidence.decide()
        label = name("privacy.mechanism", cell["mechanism"], FAMILY)
        setting = f"ε = {cell['epsilon']:g}, r = {cell['degree']:g}"
        found.setdefault(label, {v: [] for v in Verdict})[verdict].append(setting)
        wrong, lost = (interval(measures.runs("private", "c_colme", metric, **cell))
                       for metric in ("wrong_links", "lost_links"))
        lines.append([label, f"{cell['epsilon']:g}", f"{cell['degree']:g}",
                      f"{wrong[0]:.1f} ± {wrong[2] - wrong[0]:.1f}",
                      f"{lost[0]:.1f} ± {lost[2] - lost[0]:.1f}", BEATS[verdict]])
    rows = measures.rows("private")
    private = rows[rows["privacy.mechanism"] != "none"]
    first = private.iloc[0]
    return {"private_summary": private_summary(found),
            "privacy_table": markdown_table(
                ["mechanism", "ε", "r", "wrong links kept at T", "same-class links cut at T",
                 "beats the local mean"], lines),
            "private_setting": (
                f"N = {first['graph.n_nodes']:,}, classes of Bernoulli samples with means "
                f"{' and '.join(str(first['class_means']).split(','))}, "
                f"T = {first['t_max']:,}, "
                f"{int(private.replicate.nunique())} runs per cell")}


def private_summary(found: dict[str, dict[Verdict, list[str]]]) -> str:
    """Per mechanism, the settings where private C-ColME beats the local mean, and where
    it is worse, by the verdicts of their checks (``found``: mechanism → verdict →
    settings)."""
    sentences = []
    for mechanism, settings in found.items():
        beats, worse, unclear = (settings[v] for v in Verdict)
        parts = [f"beats the local mean in {len(beats)} of {sum(map(len, settings.values()))}"
                 " cells" + (f" ({'; '.join(beats)})" if beats else "")]
        if worse:
            parts.append(f"is worse in {len(worse)} ({'; '.join(worse)})")
        if unclear:
            parts.append(f"cannot be told apart from it in {len(unclear)} "
                         f"({'; '.join(unclear)})")
        sentences.append(f"Under {mechanism}, private C-ColME " + ", ".join(parts) + ".")
    return " ".join(sentences)
