"""The network paper's section of the reproduction document: the measures its statements
read (:mod:`.statements`: Fig. 7 against Rizk et al. under each reading of their noise, the
claims of Secs 3–6 and the figures' captions, the two ablations, and Appendix C), the
sensitivity table of Fig. 7, the table of Appendix C's budgets and the numbers of the prose.

Cells of the network family are simulated on independent random streams (the stream digest
includes the options), so two cells are compared with independent standard errors
(:meth:`Measures.final`); two quantities of one cell (the cost of privacy and the
non-private run's error, or one error at two rounds) come from the same runs and are
compared with paired ones (:meth:`Measures.runs`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from sweep.network.api import calibrate, centralized, waterfilling

from ...claims import markdown_table
from ...document import Values
from ...labels import name
from ...numbers import number, percent, span, with_error
from ...plot import MissingData
from ...statements import Estimate, Interval, evaluate
from ...study import Results, matching
from . import statements
from . import views as network
from .statements import ALLOCATION_DRAWS, DATA, FIG7_READINGS, PRIVACY

#: The scenarios of the network paper, told apart by their signals (the graph may be a
#: stand-in or the real edge list).
POWER_GRID = {"signal_mean": 10.0}
GERMAN = {"signal_mean": 1.67}
#: The data sets' signals, by the data sets' names (:data:`.statements.DATA`).
SIGNALS = dict(zip(DATA, (POWER_GRID, GERMAN), strict=True))
#: The data sets by the prefix of their numbers in the section's values.
KEYS = dict(zip(("grid", "german"), DATA, strict=True))
#: The bootstrap draws behind a fitted slope's standard error.
BOOTSTRAP = 2000
#: The budget rules (option ``budgets``) of ``appendix_c_budgets``.
BUDGET_RULES = ("homogeneous", "centralized", "waterfilling")
#: The tests' example of Prop. C.3 (tests/test_network_appendix_c.py): Δ = (1, 4, 16), ε = 1,
#: cap 1.5ε.
EXAMPLE = np.array([1.0, 4.0, 16.0])


def noise_sd(kind: str, epsilon: float, delta: float, smooth: bool) -> float:
    """The noise's standard deviation per unit of sensitivity (per 1/s for the smooth
    sensitivity of log s) under ``calibrate``: every linear recursion's exact RMS cost of
    privacy is proportional to it."""
    cal = calibrate(kind, epsilon, delta, smooth)
    unit = cal.smooth if smooth else cal.sensitivity
    return math.sqrt(cal.variance_factor) * cal.factor * unit


def geometric_mean(ratios: pd.DataFrame) -> Interval:
    """The geometric mean over ε of Fig. 7's ratios, with the delta method's standard error
    of each log ratio: exp(mean ± 1.96 SE) of the mean log ratio."""
    logs = np.log(ratios["mean"])
    log_mean = float(logs.mean())
    half = 1.959963984540054 * float(np.sqrt(((ratios.se / ratios["mean"])**2).sum())
                                     / len(logs))
    return Interval(math.exp(log_mean), math.exp(log_mean - half), math.exp(log_mean + half))


def allocation_ratios(n: int, mean: float, sigma: float, epsilon: float, delta: float,
                      cap: float, draws: int = ALLOCATION_DRAWS) -> dict[str, np.ndarray]:
    """Prop. C.3 on draws of n log-normal signals under Signal DP (Δ_i = S*(s_i)), per
    draw: Σ(Δ/ε*)/Σ(Δ/ε) of the printed rule and of the optimum, min Δ/max Δ, and the
    largest uncapped share nε√Δ_i/Σ√Δ_j in units of ε."""
    rng = np.random.default_rng(0)
    base = calibrate("laplace", epsilon, delta, True)
    signals = rng.lognormal(mean, sigma, (n, draws))
    sens = base.statistic_sensitivity(signals)
    homogeneous = (sens / epsilon).sum(axis=0)
    root = np.sqrt(sens)
    return {"printed": (sens / centralized(sens, epsilon, cap)).sum(axis=0) / homogeneous,
            "optimum": (sens / waterfilling(sens, epsilon, cap)).sum(axis=0) / homogeneous,
            "floor": sens.min(axis=0) / sens.max(axis=0),
            "share": (n * root / root.sum(axis=0)).max(axis=0)}


@dataclass(frozen=True)
class Tightest:
    """The case where a bound of Thms 3.1, 4.1 and 4.2 is tightest: its method, error and
    round, the simulated error there (mean, SE) and the bound, the graph's size and the
    range of bound / simulated error over every case."""

    method: str
    error: str
    t: int
    simulated: Estimate
    bound: float
    nodes: int
    ratios: str


class Measures:
    """The numbers of the network paper's statements, from the results."""

    def __init__(self, results: Results) -> None:
        self.results = results

    # -- The runs of a cell --------------------------------------------------------------

    def runs(self, preset: str, metric: str, data: str | None = None, t: int | None = None,
             **match: Any) -> pd.Series:
        """``metric`` of each run (by replicate) of the one simulated cell of ``preset`` on
        ``data`` whose columns equal ``match``, at round ``t`` (default: the last, T);
        :class:`MissingData` unless exactly one cell matches."""
        match = {**match, **SIGNALS.get(data, {})}
        rows = self.results.runs[preset]
        rows = rows[matching(rows, {"source": "simulated", **match})]
        if rows.cell_id.nunique() != 1 or rows.method.nunique() != 1:
            described = ", ".join(f"{c}={v}" for c, v in match.items())
            raise MissingData(f"{preset}: {rows.cell_id.nunique()} cells match {described}; "
                              "the document needs exactly one (rerun the commands of the "
                              "document)")
        t = int(rows.rounds.iloc[0]) if t is None else t
        return rows[rows.t == t].set_index("replicate")[metric].sort_index()

    def final(self, preset: str, metric: str, data: str | None = None, **match: Any
              ) -> Estimate:
        """The mean of ``metric`` at T over the runs of a cell (:meth:`runs`), its
        standard error and n − 1 degrees of freedom."""
        return Estimate.of_runs(self.runs(preset, metric, data, **match).to_numpy(float))

    def first_round(self, preset: str) -> int:
        return int(self.results.runs[preset].t.min())

    def tenth_round(self) -> int:
        """T/10 of the ablations: their claims are about the limit, the error at T against
        the error at T/10."""
        return int(self.results.runs["network_ablations"].rounds.max()) // 10

    def worst_rate(self, edge_keep: float) -> float:
        """Prop. C.2's worst-case exponent of t: −1/2 on the static graph (q = 1), −1/n³ on a
        time-varying one (n the nodes of ``appendix_c_dynamic``)."""
        if edge_keep == 1.0:
            return -0.5
        return -1.0 / float(self.results.runs["appendix_c_dynamic"]["graph.n_nodes"].iloc[0]) ** 3

    def slope(self, start: int, preset: str = "appendix_c_dynamic",
              metric: str = "cost_of_decentralization", minus: str | None = None,
              data: str | None = None, **match: Any) -> Estimate:
        """Slope of log E[``metric``] against log t from round ``start`` to T of a cell of
        ``preset`` on ``data`` (less the slope of log E[``minus``] of the same runs, if
        given), and its
        bootstrap standard error over the runs (the runs resampled, the mean curves
        refitted; both metrics on the same draws)."""
        match = {**match, **SIGNALS.get(data, {})}
        rows = self.results.runs[preset]
        rows = rows[matching(rows, {"source": "simulated", **match}) & (rows.t >= start)]
        if rows.cell_id.nunique() != 1:
            raise MissingData(f"{preset}: {rows.cell_id.nunique()} cells match {match}")
        tables = [rows.pivot_table(index="replicate", columns="t", values=m).to_numpy()
                  for m in (metric, minus) if m]
        logt = np.log(np.sort(rows.t.unique()).astype(float))

        def fit(runs: np.ndarray) -> float:
            slopes = [np.polyfit(logt, np.log(table[runs].mean(axis=0)), 1)[0]
                      for table in tables]
            return float(slopes[0] - (slopes[1] if len(slopes) > 1 else 0.0))

        rng = np.random.default_rng(0)
        n = len(tables[0])
        draws = [fit(rng.integers(0, n, n)) for _ in range(BOOTSTRAP)]
        return Estimate(fit(np.arange(n)), float(np.std(draws, ddof=1)))

    # -- Fig. 7 (the summaries) ----------------------------------------------------------

    def rounds(self, preset: str) -> int:
        return int(self.results.summaries[preset].rounds.max())

    def last_round(self, preset: str, metric: str, data: str, epsilon: float, **match: Any
                   ) -> Estimate:
        """``metric`` at T of a series of ``preset`` on ``data`` at ``epsilon``, mean and
        SE (:func:`views.last_round`)."""
        row = network.last_round(self.results.summaries[preset], metric, **match,
                                 **SIGNALS[data]).loc[epsilon]
        return Estimate(float(row["mean"]), float(row.se))

    def fig7_ratios(self, data: str, privacy: str, reading: str, preset: str
                    ) -> pd.DataFrame:
        """Fig. 7's ratios to Rizk et al. by ε (:func:`views.rizk_ratios`) under a
        reading."""
        _, scale, start, ours = FIG7_READINGS[reading]
        return network.rizk_ratios(self.results.summaries[preset], SIGNALS[data], privacy,
                                   scale, start, ours if privacy == "network" else "paper")

    def start_bias(self) -> str:
        """How far Rizk et al.'s estimates move from ν₀ = 0 towards the mean in T
        rounds."""
        rows = self.results.summaries["fig7"]
        rows = rows[(rows.method == "rizk") & matching(rows, POWER_GRID)]
        (rounds, eta), = rows[["rounds", "learning_rate"]].drop_duplicates().itertuples(
            index=False)
        return f"1 − {1 - eta:g}^{rounds:g} ≈ {percent(1 - (1 - eta) ** rounds)}"

    def tightest(self, data: str) -> Tightest:
        """The smallest bound over the simulated error, over the cells, methods, rounds and
        errors of ``sample_paths`` on ``data``."""
        summary = self.results.summaries["sample_paths"]
        rows = summary[matching(summary, SIGNALS[data])]
        keys = ["cell_id", "method", "t"]
        bound = rows[rows.source == "bound"].set_index(keys)
        simulated = rows[rows.source == "simulated"].set_index(keys)
        metrics = ["total_error", "cost_of_privacy", "cost_of_decentralization"]
        ratios = (bound[metrics] / simulated[metrics]).stack().dropna()
        if ratios.empty:
            raise MissingData("sample_paths: no bound rows with their simulated errors "
                              "(references=[bound, exact])")
        (cell, method, t, metric) = ratios.idxmin()
        row = simulated.loc[(cell, method, t)]
        se = float(row[f"{metric}_high"] - row[f"{metric}_low"]) / 2
        return Tightest(method, metric.replace("_", " "), t, Estimate(float(row[metric]), se),
                        float(bound.loc[(cell, method, t), metric]),
                        int(row["graph.n_nodes"]), span(ratios))

    # -- Appendix C.3 ----------------------------------------------------------------------

    def budgets(self, method: str, privacy: str) -> pd.DataFrame:
        """The total error at T of ``appendix_c_budgets`` by ε (index) under each budget
        rule (columns: the rule, its SE as ``<rule>_se``), and ``mean``, Prop. C.3's error
        over the homogeneous one."""
        errors = {}
        for epsilon in sorted(self.results.summaries["appendix_c_budgets"].epsilon.unique()):
            errors[epsilon] = row = {}
            for rule in BUDGET_RULES:
                error = self.final("appendix_c_budgets", "total_error", method=method,
                                   privacy=privacy, epsilon=epsilon, budgets=rule)
                row[rule], row[f"{rule}_se"] = error.mean, error.se
        errors = pd.DataFrame.from_dict(errors, orient="index")
        return errors.assign(mean=errors.centralized / errors.homogeneous)

    def log_ratio(self, errors: pd.DataFrame) -> Estimate:
        """The mean over ε of log(Prop. C.3's error / the homogeneous error) at T, with the
        delta method's standard error (independent cells)."""
        variances = ((errors.centralized_se / errors.centralized)**2
                     + (errors.homogeneous_se / errors.homogeneous)**2)
        return Estimate(float(np.mean([math.log(r) for r in errors["mean"]])),
                        math.sqrt(sum(variances)) / len(errors))

    def budget_cap(self) -> float:
        return float(self._households.budget_cap)

    @cached_property
    def _households(self) -> pd.Series:
        """The German households' cell of ``appendix_c_budgets`` (Signal DP, ε = 1)."""
        return self.results.rows("appendix_c_budgets", method="mvue", privacy="signal",
                                 epsilon=1.0, budgets="centralized").iloc[0]

    @cached_property
    def _allocations(self) -> dict[str, np.ndarray]:
        cell = self._households
        return allocation_ratios(int(cell["graph.n_nodes"]), float(cell.signal_mean),
                                 float(cell.signal_sigma), 1.0, float(cell.delta),
                                 float(cell.budget_cap))

    def allocation(self, rule: str) -> np.ndarray:
        """:func:`allocation_ratios` on the German households' signals, Signal DP, ε = 1,
        one number per draw: ``printed``, ``optimum``, ``floor`` or ``share``."""
        return self._allocations[rule]

    def example(self, rule: str) -> float:
        """Σ Δ_i/ε_i of the example's allocation under ``rule``."""
        allocate = {"centralized": centralized, "waterfilling": waterfilling}[rule]
        return float(np.sum(EXAMPLE / allocate(EXAMPLE, 1.0, 1.5)))

    def example_spent(self) -> float:
        """Σ ε_i of Prop. C.3's closed form on the example."""
        return float(np.sum(centralized(EXAMPLE, 1.0, 1.5)))

    # -- Numbers of numbers ------------------------------------------------------------------

    noise_sd = staticmethod(noise_sd)
    geometric_mean = staticmethod(geometric_mean)

    def epsilons(self, frame: pd.DataFrame) -> str:
        """The ε of a frame indexed by ε: ``0.5, 1``."""
        return ", ".join(f"{e:g}" for e in frame.index)

    def span(self, values: pd.DataFrame | np.ndarray) -> str:
        """The range of ``values`` (a frame's ``mean``) as printed."""
        return span(values["mean"] if isinstance(values, pd.DataFrame) else values)

    def largest(self, values: np.ndarray) -> float:
        return float(np.max(values))

    def ratio(self, a: Any, b: Any) -> Any:
        return a / b

    def part(self, record: Any, field: str) -> Any:
        """A field of a record a measure gives (:class:`Tightest`)."""
        return getattr(record, field)


# -- Fig. 7 against Rizk et al. ------------------------------------------------------------------

def rizk_table(results: Results) -> str:
    """The sensitivity table: Fig. 7's ratios by data set, T, protection and reading."""
    measures = Measures(results)
    epsilons = sorted(results.summaries["fig7"].epsilon.unique())
    lines = []
    for data, preset in ((DATA[0], "fig7"), (DATA[1], "fig7"), (DATA[1], "fig7_long")):
        for privacy in PRIVACY:
            for reading, (words, *_) in FIG7_READINGS.items():
                try:
                    ratios = measures.fig7_ratios(data, privacy, reading, preset)
                except MissingData:
                    continue
                cells = {e: with_error(m, s) for e, m, s in
                         zip(ratios.index, ratios["mean"], ratios.se, strict=True)}
                lines.append([data, str(measures.rounds(preset)), name("privacy", privacy),
                              words, *(cells.get(e, "") for e in epsilons)])
    return markdown_table(["data set", "T", "protection", "reading",
                           *(f"ε = {e:g}" for e in epsilons)], lines)


def rizk_values(results: Results) -> Values:
    """Fig. 7 against Rizk et al.: the sensitivity table and the numbers of the prose."""
    fig7 = results.summaries["fig7"]
    epsilons = sorted(fig7.epsilon.unique())
    low = epsilons[0]

    def rizk(key: str, privacy: str, start: str = "zero") -> pd.Series:
        return network.last_round(fig7, "total_error", method="rizk", privacy=privacy,
                                  rizk_scale="printed", rizk_start=start,
                                  **SIGNALS[KEYS[key]])["mean"]

    def ours(key: str, privacy: str, method: str) -> pd.Series:
        return network.last_round(fig7, "total_error", method=method, privacy=privacy,
                                  network_scale="paper", **SIGNALS[KEYS[key]])["mean"]

    values: Values = {"epsilon_low": f"{low:g}", "rizk_table": rizk_table(results)}
    for key in KEYS:
        values[f"{key}_rizk_signal"] = span(rizk(key, "signal"))
        values[f"{key}_start_signal"] = span(rizk(key, "signal", "signal"))
        values[f"{key}_start_network"] = percent(max(abs(
            rizk(key, "network", "signal") / rizk(key, "network") - 1)))
    values.update(
        grid_rizk_network=span(rizk("grid", "network")),
        grid_ours_network=span(pd.concat([ours("grid", "network", m) for m in ("mvue", "ol")])),
        grid_mvue_signal_error=span(ours("grid", "signal", "mvue")),
        grid_ol_signal_error=span(ours("grid", "signal", "ol")),
        german_mvue_low=number(ours("german", "signal", "mvue")[low]))
    rows = fig7[(fig7.method == "rizk") & matching(fig7, POWER_GRID)]
    (rounds, eta), = rows[["rounds", "learning_rate"]].drop_duplicates().itertuples(
        index=False)
    values.update(rizk_t=f"{rounds:g}", rizk_eta=f"{eta:g}", rizk_2t=f"{2 * rounds:g}",
                  rizk_inverse_eta=f"{1 / eta:,.0f}",
                  rizk_t_root_t=f"{rounds:g}·√{rounds:g} = {rounds * math.sqrt(rounds):,.0f}",
                  rizk_moved=Measures(results).start_bias(),
                  grid_log_mean=f"{POWER_GRID['signal_mean']:g}")
    return values


# -- Secs 3–6 and the captions of Figs 3–6 ------------------------------------------------------

def network_values(results: Results) -> Values:
    """The stand-in graphs, the readings' numbers (Network DP's scale, the MVUE target of
    the authors' code), and the claims and checks of Secs 3–6."""
    measures = Measures(results)
    values: Values = {}
    graphs = {}
    for key, data in KEYS.items():
        graphs[key] = graph = results.rows("fig7", method="mvue", privacy="signal",
                                           epsilon=1.0, **SIGNALS[data]).iloc[0]
        paths = results.rows("sample_paths", method="mvue", privacy="signal", epsilon=1.0,
                             **SIGNALS[data]).iloc[0]
        values.update({f"{key}_edges": f"{graph.n_edges:,}", f"{key}_beta": number(graph.beta_star),
                       f"{key}_nodes": f"{paths['graph.n_nodes']:,}"})
    grid = graphs["grid"]
    values.update(fig7_runs=str(grid.replicates), grid_max_weight=number(grid.max_weight),
                  paths_runs=str(results.rows("sample_paths", method="mvue", privacy="signal",
                                              epsilon=1.0, **POWER_GRID).replicates.iloc[0]))
    fig7 = results.summaries["fig7"]

    def exact_cost(method: str, scale: str) -> float:
        """The exact RMS cost of privacy under Network DP at ε = 1 and T."""
        rows = fig7[matching(fig7, {"method": method, "privacy": "network", "epsilon": 1.0,
                                    "source": "exact", "network_scale": scale, **POWER_GRID})]
        return float(rows.sort_values("t").cost_of_privacy.iloc[-1])

    for m in ("mvue", "ol"):
        for sc in ("paper", "code"):
            # The power grid's Network-DP cost of privacy at ε = 1 and T, mean ± SE.
            cost = measures.last_round("fig7", "cost_of_privacy", KEYS["grid"], 1.0, method=m,
                                       privacy="network", network_scale=sc)
            values[f"{m}_network_{sc}"] = f"{cost} (exact {number(exact_cost(m, sc))})"

    # The authors' code measures MVUE against node 0's time average (node_zero_excess).
    sigma = float(grid.signal_sigma)
    excess = network.node_zero_excess(int(grid["graph.n_nodes"]), int(grid.rounds), sigma)
    mvue_error = measures.last_round("fig7", "total_error", KEYS["grid"], 1.0, method="mvue",
                                     privacy="signal").mean
    german = graphs["german"]
    german_excess = network.node_zero_excess(int(german["graph.n_nodes"]), 1096,
                                             float(german.signal_sigma))
    values.update(grid_sigma=number(sigma), node_zero_excess=number(excess),
                  node_zero_grid_error=number(math.hypot(mvue_error, excess)),
                  grid_mvue_error=number(mvue_error), german_node_zero=number(german_excess),
                  german_sigma=number(float(german.signal_sigma)))
    values["network_claims"] = evaluate(statements.NETWORK, measures, family="network")
    values["network_checks"] = evaluate(statements.NETWORK_CHECKS, measures, family="network")
    return values


# -- Appendix C of the network paper (Papachristou & Rahimian) ----------------------------

def appendix_c_values(results: Results) -> Values:
    """The Appendix C subsection: its claims and checks, and the table of the errors by
    budget rule (Supp. Fig. 3)."""
    measures = Measures(results)
    table = []
    for method in ("mvue", "ol"):
        for privacy in PRIVACY:
            label = f"{name('method', method)}, {name('privacy', privacy)}"
            for epsilon, row in measures.budgets(method, privacy).iterrows():
                table.append([label, f"{epsilon:g}",
                              *(with_error(row[r], row[f"{r}_se"]) for r in BUDGET_RULES),
                              number(row["mean"])])
    return {"appendix_c_claims": evaluate(statements.APPENDIX_C, measures, family="network"),
            "appendix_c_checks": evaluate(statements.APPENDIX_C_CHECKS, measures, family="network"),
            "appendix_c_budgets": markdown_table(
                ["algorithm", "ε", "homogeneous", "Prop. C.3 (as printed)", "optimum of (C.6)",
                 "Prop. C.3 / homogeneous"], table)}


def values(results: Results) -> Values:
    """Every value of the section."""
    return {**rizk_values(results), **network_values(results), **appendix_c_values(results)}
