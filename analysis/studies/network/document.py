"""The network paper's section of the reproduction document: Fig. 7 against Rizk et al.
under each reading of their noise, the claims of Secs 3–6 and the figures' captions, the
two ablations, and Appendix C (heterogeneous budgets, time-varying graphs).

Every claim row is decided by a rule of :mod:`analysis.claims`. Cells of the network family
are simulated on independent random streams (the stream digest includes the options), so
two cells are compared with independent standard errors; two quantities of one cell (the
cost of privacy and the non-private run's error, or one error at two rounds) come from the
same runs and are compared with paired ones (:func:`runs_at`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from sweep.network.api import calibrate, centralized, waterfilling

from ...claims import Claim, Factor, Ordering, Value, markdown_table
from ...document import Values
from ...labels import name
from ...numbers import number, percent, sci, span, with_error
from ...plot import MissingData
from ...study import Results, matching
from . import views as network

#: The scenarios of the network paper, told apart by their signals (the graph may be a
#: stand-in or the real edge list).
POWER_GRID = {"signal_mean": 10.0}
GERMAN = {"signal_mean": 1.67}
PRIVACY = ("signal", "network")
#: The scenarios of Fig. 7: key, label, signals.
SCENARIOS = (("grid", "power grid", POWER_GRID), ("german", "German households", GERMAN))
LABELS = {key: label for key, label, _ in SCENARIOS}
SCENARIO_OF = {key: scenario for key, _, scenario in SCENARIOS}
#: The bootstrap draws behind a fitted slope's standard error.
BOOTSTRAP = 2000


# -- Numbers of the runs ----------------------------------------------------------------------

def runs_at(results: Results, preset: str, metric: str, t: int | None = None,
            **match: Any) -> pd.Series:
    """``metric`` of each run (by replicate) of the one simulated cell of ``preset`` whose
    columns equal ``match``, at round ``t``
    (default: the last, T); :class:`MissingData` unless exactly one cell matches."""
    rows = results.runs[preset]
    rows = rows[matching(rows, {"source": "simulated", **match})]
    if rows.cell_id.nunique() != 1 or rows.method.nunique() != 1:
        described = ", ".join(f"{c}={v}" for c, v in match.items())
        raise MissingData(f"{preset}: {rows.cell_id.nunique()} cells match {described}; the "
                          "document needs exactly one (rerun the commands of the document)")
    t = int(rows.rounds.iloc[0]) if t is None else t
    return rows[rows.t == t].set_index("replicate")[metric].sort_index()


def mean_se(values: pd.Series | np.ndarray) -> tuple[float, float]:
    """The mean of the runs and its standard error."""
    values = np.asarray(values, float)
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(values.size))


def independent(what: str, a: tuple[float, float], b: tuple[float, float],
                claimed: str = "<") -> Ordering:
    """A − B of two cells' (mean, SE), on independent runs."""
    return Ordering.of(what, a[0], a[1], b[0], b[1], claimed)


def paired(what: str, a: pd.Series, b: pd.Series, claimed: str = "<") -> Ordering:
    """A − B of two quantities of the same runs (aligned by replicate)."""
    a, b = a.align(b, join="inner")
    return Ordering.paired_runs(what, a.to_numpy(), b.to_numpy(), claimed)


def slope_runs(results: Results, preset: str, metric: str, start: int, **match: Any
               ) -> tuple[float, float]:
    """Slope of log E[``metric``] against log t from round ``start`` to T, and its bootstrap
    standard error over the runs (the runs resampled, the mean curve refitted)."""
    rows = results.runs[preset]
    rows = rows[matching(rows, {"source": "simulated", **match}) & (rows.t >= start)]
    if rows.cell_id.nunique() != 1:
        raise MissingData(f"{preset}: {rows.cell_id.nunique()} cells match {match}")
    table = rows.pivot_table(index="replicate", columns="t", values=metric)
    logt = np.log(table.columns.to_numpy(float))

    def fit(curves: np.ndarray) -> float:
        return float(np.polyfit(logt, np.log(curves.mean(axis=0)), 1)[0])

    rng = np.random.default_rng(0)
    data = table.to_numpy()
    draws = [fit(data[rng.integers(0, len(data), len(data))]) for _ in range(BOOTSTRAP)]
    return fit(data), float(np.std(draws, ddof=1))


# -- Fig. 7 against Rizk et al. ------------------------------------------------------------------

#: Fig. 7's readings: Rizk et al.'s noise (``rizk_scale``) and start (``rizk_start``), and our
#: Network-DP scale (``network_scale``), as the document words them. ``text`` is the paper's
#: text (T = 100); ``code`` the authors' code's combination (T = 1096 on the German
#: households, the data's days); ``no_eta`` has no basis in the text or the code and is
#: shown only in the sensitivity table, as the noise that would give 1000×.
FIG7_READINGS = {
    "text": ("Appendix B as printed, ν₀ = 0", "printed", "zero", "paper"),
    "start": ("Appendix B as printed, ν₀ = ξ(s)", "printed", "signal", "paper"),
    "code_zero": ("the authors' code's noise (2T × printed), ν₀ = 0", "code", "zero", "paper"),
    "code": ("the authors' code: 2T × printed, ν₀ = ξ(s), our Network DP at max(a_i, 2S*)/ε",
             "code", "signal", "code"),
    "no_eta": ("printed without η: the noise that would give 1000× (no basis in the text "
               "or the authors' code)", "no_eta", "zero", "paper"),
}
#: The readings that are claim rows, and the preset of each scenario under them: ``fig7``
#: (T = 100) or, for the authors' code on the German households, ``fig7_long`` (T = 1096).
FIG7_ROWS = {"text": {"grid": "fig7", "german": "fig7"},
             "code": {"grid": "fig7", "german": "fig7_long"}}
#: Why a reading of Fig. 7 does not give the paper's ≈ 1000×, by (scenario, privacy, reading).
FIG7_WHY = {
    ("grid", "signal", "code"): "started at ν₀ = ξ(s), as the authors' code does, Rizk et "
    "al.'s estimates carry no start bias; S* is tiny for signals around e¹⁰, so both "
    "methods' errors are the non-private error",
    ("german", "signal", "text"): "as printed, Rizk et al.'s per-round Signal-DP noise "
    "ηT·S*/ε is below the one-shot 2S*/ε ours adds; the households' small consumptions "
    "make S* large, so privacy noise dominates both",
    ("german", "network", "text"): "as printed, Rizk et al.'s Network-DP noise T·max(a_i, "
    "ηS*)/ε is set by a_i ≈ 1/deg, while ours pays the households' large S*",
    ("german", "signal", "code"): "at T = {T} the authors' code's noise, 2T times the "
    "printed one (S* at ε/T and the factor 2), grows as T²",
    ("german", "network", "code"): "at T = {T} the authors' code's noise, 2T times the "
    "printed one, grows as T²",
    ("grid", "network", "text"): "", ("grid", "network", "code"): "",
    ("grid", "signal", "text"): "",
}


def fig7_summaries(results: Results) -> dict[tuple[str, int], pd.DataFrame]:
    """Fig. 7's summaries by (scenario, T): T = 100 from ``fig7``, the German households at
    T = 1096 from ``fig7_long``."""
    short, long = (results.summaries[p] for p in ("fig7", "fig7_long"))
    out = {(key, int(short.rounds.max())): short for key in SCENARIO_OF}
    out["german", int(long.rounds.max())] = long
    return out


def fig7_ratios(results: Results, key: str, rounds: int, privacy: str, reading: str
                ) -> pd.DataFrame:
    """Fig. 7's ratios to Rizk et al. by ε (:func:`views.rizk_ratios`) under a reading."""
    _, scale, start, ours = FIG7_READINGS[reading]
    scenario = SCENARIO_OF[key]
    summary = fig7_summaries(results)[key, rounds]
    return network.rizk_ratios(summary, scenario, privacy, scale, start,
                               ours if privacy == "network" else "paper")


def fig7_factor(ratios: pd.DataFrame) -> Factor:
    """The geometric mean over ε of the ratios, with the delta method's standard error of
    each log ratio, against the paper's ≈ 1000×."""
    logs = np.log(ratios["mean"])
    log_se = ratios.se / ratios["mean"]
    epsilons = ", ".join(f"{e:g}" for e in ratios.index)
    return Factor.of_log(f"Rizk et al.'s total error at T over ours, geometric mean over "
                         f"ε ∈ {{{epsilons}}}", float(logs.mean()),
                         float(np.sqrt((log_se**2).sum()) / len(logs)), "1000")


def fig7_claims(results: Results) -> list[Claim]:
    """One row per data set, protection and reading of Fig. 7 (the paper's text, the
    authors' code's combination)."""
    claims = []
    moved = start_bias(results)
    for key, label, _ in SCENARIOS:
        for privacy in PRIVACY:
            for reading, presets in FIG7_ROWS.items():
                t = int(results.summaries[presets[key]].rounds.max())
                ratios = fig7_ratios(results, key, t, privacy, reading)
                ours = f"ratios {span(ratios['mean'])} over ε"
                if (key, privacy, reading) == ("grid", "signal", "text"):
                    ours += (f"; Rizk et al.'s error here is the bias of their start ν₀ = 0 "
                             f"(they move {moved} of the way to the mean in T rounds), not "
                             "privacy")
                claims.append(Claim(
                    "2, 5; Fig. 7", "“our method is able to achieve significantly smaller "
                    "MSE under the same total privacy budget; ≈ 1000× smaller for both "
                    "datasets” (Sec. 2: “up to 1000× more” for Rizk et al.)",
                    fig7_factor(ratios),
                    case=f"{label}, {name('privacy', privacy)}, T = {t}: "
                         f"{FIG7_READINGS[reading][0]}",
                    ours=ours, reading=FIG7_WHY[key, privacy, reading].format(T=t)))
    return claims


def start_bias(results: Results) -> str:
    """How far Rizk et al.'s estimates move from ν₀ = 0 towards the mean in T rounds."""
    rows = results.summaries["fig7"]
    rows = rows[(rows.method == "rizk") & matching(rows, POWER_GRID)]
    (rounds, eta), = rows[["rounds", "learning_rate"]].drop_duplicates().itertuples(
        index=False)
    return f"1 − {1 - eta:g}^{rounds:g} ≈ {percent(1 - (1 - eta) ** rounds)}"


def rizk_table(results: Results) -> str:
    """The sensitivity table: Fig. 7's ratios by data set, T, protection and reading."""
    epsilons = sorted(results.summaries["fig7"].epsilon.unique())
    lines = []
    for (key, rounds) in fig7_summaries(results):
        for privacy in PRIVACY:
            for reading, (words, *_) in FIG7_READINGS.items():
                try:
                    ratios = fig7_ratios(results, key, rounds, privacy, reading)
                except MissingData:
                    continue
                cells = {e: with_error(m, s) for e, m, s in
                         zip(ratios.index, ratios["mean"], ratios.se, strict=True)}
                lines.append([LABELS[key], str(rounds), name("privacy", privacy), words,
                              *(cells.get(e, "") for e in epsilons)])
    return markdown_table(["data set", "T", "protection", "reading",
                           *(f"ε = {e:g}" for e in epsilons)], lines)


def rizk_values(results: Results) -> Values:
    """Fig. 7 against Rizk et al.: the claim rows, the sensitivity table and the numbers of
    the prose."""
    fig7 = results.summaries["fig7"]
    epsilons = sorted(fig7.epsilon.unique())
    low = epsilons[0]

    def rizk(key: str, privacy: str, start: str = "zero") -> pd.Series:
        scenario = SCENARIO_OF[key]
        return network.last_round(fig7, "total_error", method="rizk", privacy=privacy,
                                  rizk_scale="printed", rizk_start=start, **scenario)["mean"]

    def ours(key: str, privacy: str, method: str) -> pd.Series:
        scenario = SCENARIO_OF[key]
        return network.last_round(fig7, "total_error", method=method, privacy=privacy,
                                  network_scale="paper", **scenario)["mean"]

    values: Values = {"epsilon_low": f"{low:g}", "rizk_table": rizk_table(results)}
    for key, _, _ in SCENARIOS:
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
                  rizk_moved=start_bias(results),
                  grid_log_mean=f"{POWER_GRID['signal_mean']:g}")
    return values


# -- Secs 3–6 and the captions of Figs 3–6 ------------------------------------------------------

#: The budgets at which Laplace noise is compared with Gaussian noise of the
#: same (ε, δ) (Thm 3.1, part 2).
OPTIMALITY_EPSILONS = (1.0, 10.0)


def network_values(results: Results) -> Values:
    """The stand-in graphs, the readings' numbers (Network DP's scale, the MVUE target of
    the authors' code), and the claims and checks of Secs 3–6."""
    values: Values = {}
    graphs = {}
    for key, scenario in (("grid", POWER_GRID), ("german", GERMAN)):
        graphs[key] = graph = results.rows("fig7", method="mvue", privacy="signal",
                                           epsilon=1.0, **scenario).iloc[0]
        paths = results.rows("sample_paths", method="mvue", privacy="signal", epsilon=1.0,
                             **scenario).iloc[0]
        values.update({f"{key}_edges": f"{graph.n_edges:,}", f"{key}_beta": number(graph.beta_star),
                       f"{key}_nodes": f"{paths['graph.n_nodes']:,}"})
    grid = graphs["grid"]
    values.update(fig7_runs=str(grid.replicates), grid_max_weight=number(grid.max_weight),
                  paths_runs=str(results.rows("sample_paths", method="mvue", privacy="signal",
                                              epsilon=1.0, **POWER_GRID).replicates.iloc[0]))
    fig7 = results.summaries["fig7"]

    def at_one(method: str, scale: str) -> tuple[float, float]:
        """The power grid's Network-DP cost of privacy at ε = 1 and T, mean and SE."""
        rows = network.last_round(fig7, "cost_of_privacy", method=method, privacy="network",
                                  network_scale=scale, **POWER_GRID).loc[1.0]
        return float(rows["mean"]), float(rows.se)

    def exact_cost(method: str, scale: str) -> float:
        """The exact RMS cost of privacy under Network DP at ε = 1 and T."""
        rows = fig7[matching(fig7, {"method": method, "privacy": "network", "epsilon": 1.0,
                                    "source": "exact", "network_scale": scale, **POWER_GRID})]
        return float(rows.sort_values("t").cost_of_privacy.iloc[-1])

    for m in ("mvue", "ol"):
        for sc in ("paper", "code"):
            values[f"{m}_network_{sc}"] = (f"{with_error(*at_one(m, sc))} "
                                           f"(exact {number(exact_cost(m, sc))})")

    # The authors' code measures MVUE against node 0's time average (node_zero_excess).
    sigma = float(grid.signal_sigma)
    excess = network.node_zero_excess(int(grid["graph.n_nodes"]), int(grid.rounds), sigma)
    mvue_error = float(network.last_round(fig7, "total_error", method="mvue",
                                          privacy="signal", **POWER_GRID).loc[1.0, "mean"])
    german = graphs["german"]
    german_excess = network.node_zero_excess(int(german["graph.n_nodes"]), 1096,
                                             float(german.signal_sigma))
    values.update(grid_sigma=number(sigma), node_zero_excess=number(excess),
                  node_zero_grid_error=number(math.hypot(mvue_error, excess)),
                  grid_mvue_error=number(mvue_error), german_node_zero=number(german_excess),
                  german_sigma=number(float(german.signal_sigma)))
    values["network_claims"] = network_claims(results)
    values["network_checks"] = network_checks(results)
    return values


def network_claims(results: Results) -> list[Claim]:
    """The claims of Secs 3–6 and of the captions of Figs 3–6: Fig. 7's rows, then the
    sample paths' (``sample_paths``), Laplace noise's optimality, the two ablations
    (``network_ablations``) and the bounds."""
    return [*fig7_claims(results), *sample_path_claims(results), *optimality_claims(),
            *ablation_claims(results), *bound_claims(results)]


def sample_path_claims(results: Results) -> list[Claim]:
    """Secs 5–6 and the captions of Figs 3–6, from the sample paths (``sample_paths``,
    ε = 1 and 10, both data sets)."""

    def at(metric: str, method: str, privacy: str, epsilon: float, key: str,
           t: int | None = None) -> pd.Series:
        scenario = SCENARIO_OF[key]
        return runs_at(results, "sample_paths", metric, t, method=method, privacy=privacy,
                       epsilon=epsilon, **scenario)

    def cell(metric: str, method: str, privacy: str, epsilon: float, key: str
             ) -> tuple[float, float]:
        return mean_se(at(metric, method, privacy, epsilon, key))

    cop, cod, te = "cost of privacy", "cost of decentralization", "total error"

    def privacy_share(method: str, privacy: str, epsilon: float, key: str,
                      claimed: str = "<") -> Ordering:
        """The cost of privacy against the non-private run's error, on the same runs."""
        return paired(f"{cop} − {cod} at T (same runs)",
                      at("cost_of_privacy", method, privacy, epsilon, key),
                      at("cost_of_decentralization", method, privacy, epsilon, key), claimed)

    claims = []
    # Sec. 6 and Fig. 6's caption: Signal DP on the power grid costs (almost) nothing.
    for method, figure in (("mvue", "Fig. 3"), ("ol", "Fig. 5")):
        claims.append(Claim(
            f"6; {figure}, Fig. 6's caption", "“In all cases of signal DP with the US power "
            "grid network, the DP noise did not affect the convergence rate in practice”; "
            "“almost perfect signal DP can be achieved with reasonable accuracy for the US "
            "power grid network (ε = 1 in Figure 5)”",
            privacy_share(method, "signal", 1.0, "grid"),
            case=f"power grid, {name('method', method)}, Signal DP, ε = 1",
            ours="the privacy noise's share of the error: the cost of privacy against the "
                 "non-private run's error on the same signals"))
    # Fig. 6's caption and Sec. 6: Network DP is harder than Signal DP.
    for key, label, _ in SCENARIOS:
        for method, figures in (("mvue", "Figs 3–4"), ("ol", "Figs 5–6")):
            claims.append(Claim(
                f"6; {figures}", "“Protecting network neighborhoods is a harder task than "
                "protecting private signals”; “the increased difficulty of ensuring network "
                "DP”", independent(f"{cop} at T, Network DP − Signal DP",
                                   cell("cost_of_privacy", method, "network", 1.0, key),
                                   cell("cost_of_privacy", method, "signal", 1.0, key), ">"),
                case=f"{label}, {name('method', method)}, ε = 1",
                ours="Alg. 3 with the Network-DP noise against Alg. 3 with the Signal-DP "
                     "noise" if method == "mvue" else
                     "Alg. 5 under Network DP against Alg. 4 under Signal DP (the paper's "
                     "pairing: the algorithm changes with the protection)",
                reading="on the German households the smooth sensitivity of the small "
                        "consumptions, not a_i, sets both noises" if key == "german" else ""))
    claims.append(Claim(
        "5, Fig. 6's caption", "“even moderate protection of network neighborhoods (ε = 1) "
        "come at a noticeable cost to accuracy” (US power grid)",
        privacy_share("ol", "network", 1.0, "grid", ">"),
        case="power grid, OL (Alg. 5), Network DP, ε = 1",
        ours="“noticeable” read as: the cost of privacy exceeds the non-private run's error"))
    # The German households' captions.
    claims += [
        Claim("5, Fig. 3's caption", "“the large error in the case of the German household "
              "dataset is because protecting households with low (near zero) consumption "
              "rates even at a relatively high privacy budget (ε = 10) comes at a huge cost "
              "to accuracy”",
              privacy_share("mvue", "signal", 10.0, "german", ">"),
              case="German households, MVUE, Signal DP, ε = 10",
              ours="the cost of privacy against the non-private run's error",
              reading="at ε = 10 the error is mostly the non-private run's (Alg. 3 "
                      "mixing over the slow geometric graph, β* near 1): the cost of "
                      "privacy is the smaller part; the authors' code, measuring MVUE "
                      "against node 0's time average, adds a floor of σ√(1 + (n − 2)/T) "
                      "whatever ε (Readings)"),
        Claim("5, Fig. 4's caption", "“even requiring a moderate accuracy in the case of the "
              "German household dataset comes at a high cost to privacy (ε = 1)”",
              privacy_share("mvue", "network", 1.0, "german", ">"),
              case="German households, MVUE, Network DP, ε = 1",
              ours="at ε = 1 the privacy noise still dominates the error",
              reading="at ε = 1 the error is mostly the non-private run's"),
        Claim("5, Fig. 5's caption", "“Choosing ε large enough leads to a convergent behavior "
              "for the German household dataset” (ε = 10)",
              paired(f"{te} at T − {te} at t = 10 (same runs)",
                     at("total_error", "ol", "signal", 10.0, "german"),
                     at("total_error", "ol", "signal", 10.0, "german", 10)),
              case="German households, OL (Alg. 4), Signal DP, ε = 10",
              ours="the error falls from round 10 to T"),
        Claim("5, Fig. 6's caption", "“Privacy protection for network neighborhoods in the "
              "case of German households is further complicated … no meaningful protections "
              "is accomplished (ε = 10)”",
              independent(f"{cop} at T, Network DP − Signal DP",
                          cell("cost_of_privacy", "ol", "network", 10.0, "german"),
                          cell("cost_of_privacy", "ol", "signal", 10.0, "german"), ">"),
              case="German households, OL, ε = 10",
              ours="Alg. 5 under Network DP against Alg. 4 under Signal DP; “no meaningful "
                   "protection” (ε = 10 is a weak guarantee) is a judgement, not a number"),
    ]
    # Sec. 6: Alg. 4 faster than Alg. 5 even without noise, and under equal noise (Alg.
    # 5's matrix with Alg. 4's Signal-DP noise, ol_alg5); both faster than Alg. 3.
    faster = ("“Algorithm 4 converges faster than Algorithm 5 (even in the absence of DP "
              "noise) because of the underlying mixing matrices”")
    # One change at a time: Alg. 5 (ol under Network DP) without noise, then Alg. 5's
    # matrix under Alg. 4's own noise (ol_alg5).
    changes = (
        (cod, "cost_of_decentralization", "network", "Alg. 5", "without noise",
         "the non-private runs of Alg. 4 and Alg. 5 (each cell's run on its own signals "
         "without noise): only the mixing matrix changes", ""),
        (te, "total_error", "ol_alg5", "Alg. 5's matrix",
         "under equal (Signal-DP) noise, ε = 10",
         "Alg. 4 under Signal DP against Alg. 5's mixing matrix C(t) = ((t−2)/t) I + A/t run "
         "with the same Signal-DP noise (ol_alg5): only the mixing matrix changes; "
         "independent cells",
         "both matrices shrink the consensus direction alike ((t−1)/t) and differ only off "
         "it; where the noise along the consensus direction dominates the error at T, the "
         "runs may not separate the two"),
    )
    for key, label, _ in SCENARIOS:
        for words, metric, other, compared, case, ours, reading in changes:
            method, privacy = ("ol", "network") if other == "network" else (other, "signal")
            claims.append(Claim(
                "6 (and 4.3)", faster,
                independent(f"{words} at T, Alg. 4 − {compared}",
                            cell(metric, "ol", "signal", 10.0, key),
                            cell(metric, method, privacy, 10.0, key)),
                case=f"{label}, {case}", ours=ours, reading=reading))
    for key, label, _ in SCENARIOS:
        for privacy, metric, words in ((None, "cost_of_decentralization", "without noise"),
                                       ("signal", "total_error", "with Signal-DP noise"),
                                       ("network", "total_error", "with Network-DP noise")):
            protect = privacy or "signal"
            algorithm = "Alg. 5" if protect == "network" else "Alg. 4"
            claims.append(Claim(
                "6", "“both of these algorithms [Algs 4 and 5] converge faster (with and "
                "without DP noise) than Algorithm 3”",
                independent(f"{cod if privacy is None else te} at T, {algorithm} − Alg. 3",
                            cell(metric, "ol", protect, 1.0, key),
                            cell(metric, "mvue", protect, 1.0, key)),
                case=f"{label}, {words}, ε = 1" if privacy else f"{label}, {words}",
                ours="“faster” read as: a smaller error at T = 100, each against its own "
                     "target (m̂ for Alg. 3, m_θ for OL)",
                reading="Alg. 3 mixes its n initial signals with β*ᵗ, fast on these graphs "
                        "over 100 rounds, while OL's error falls as 1/√(nt) at best"))
    return claims


def noise_sd(kind: str, epsilon: float, delta: float, smooth: bool) -> float:
    """The noise's standard deviation per unit of sensitivity (per 1/s for the smooth
    sensitivity of log s) under ``calibrate``: every linear recursion's exact RMS cost of
    privacy is proportional to it."""
    cal = calibrate(kind, epsilon, delta, smooth)
    unit = cal.smooth if smooth else cal.sensitivity
    return math.sqrt(cal.variance_factor) * cal.factor * unit


def optimality_claims(delta: float = 0.01) -> list[Claim]:
    """Thm 3.1, part 2 (and 4.1, 4.2): Laplace noise minimizes the cost of privacy; checked
    against the Gaussian noise of the same (ε, δ), exactly (the noise's standard deviation
    sets the RMS cost of privacy of every linear recursion)."""
    claims = []
    for smooth, words in ((False, "a global sensitivity Δ (Thm 3.1's setting)"),
                          (True, "the smooth sensitivity of log s (Sec. 5's setting)")):
        for epsilon in OPTIMALITY_EPSILONS:
            laplace, gauss = (noise_sd(k, epsilon, delta, smooth)
                              for k in ("laplace", "gaussian"))
            claims.append(Claim(
                "1.1, 3.1 (Thms 3.1–4.2, part 2)", "“the noise that minimizes the "
                "convergence time to the best estimates is the Laplace noise” (the "
                "variance-minimizing distributions under ε-DP are the Laplace "
                "distributions with parameters Δ/ε)",
                Ordering(f"noise s.d. per unit sensitivity, Laplace − Gaussian "
                         f"({laplace:.3g} − {gauss:.3g})", laplace - gauss, 0.0),
                case=f"{words}, (ε, δ) = ({epsilon:g}, {delta:g})",
                ours="the exact RMS cost of privacy is the noise's s.d. times a factor of "
                     "the recursion; Gaussian noise: the analytic Gaussian mechanism "
                     "(global Δ), Nissim et al.'s Gaussian smooth-sensitivity noise "
                     "(smooth); pure ε-DP admits no Gaussian noise, so this is the only "
                     "comparison the theorem leaves to check",
                reading="under (ε, δ)-DP the Gaussian mechanism is admissible: the "
                        "theorem's optimality is under pure ε-DP"))
    return claims


def ablation_claims(results: Results) -> list[Claim]:
    """The paper's two ablations (``network_ablations``, German households, ε = 1)."""

    def at(metric: str, method: str, privacy: str, t: int | None = None) -> pd.Series:
        return runs_at(results, "network_ablations", metric, t, method=method,
                       privacy=privacy)

    cop = "cost of privacy"
    # The claims are about the limit: the error at T against the error at T/10.
    early = int(results.runs["network_ablations"].rounds.max()) // 10

    def grows(method: str, privacy: str) -> Ordering:
        return paired(f"{cop} at T − {cop} at t = {early} (same runs)",
                      at("cost_of_privacy", method, privacy),
                      at("cost_of_privacy", method, privacy, early), ">")

    return [
        Claim("3.1, remark for Network DP", "adding fresh noise at each round of Algorithm "
              "3 “is divergent, i.e. E‖ν̄_t‖² → ∞ … its mean squared error … grows "
              "linearly with n and t”",
              grows("mvue_fresh_noise", "signal"),
              case="German households, Signal DP, ε = 1: the error grows with t",
              ours="Alg. 3 with fresh noise every round (mvue_fresh_noise)"),
        Claim("3.1, remark for Network DP", "“To avoid the accumulation of the DP noise, we "
              "should limit the DP noising to the initial step, which will achieve a "
              "bounded error”",
              independent(f"{cop} at T, noise once − fresh noise every round",
                           mean_se(at("cost_of_privacy", "mvue", "signal")),
                           mean_se(at("cost_of_privacy", "mvue_fresh_noise", "signal"))),
              case="German households, Signal DP, ε = 1",
              ours="Alg. 3 (noise once) against its ablation (mvue_fresh_noise)"),
        Claim("4.1, 4.3", "using Algorithm 4 for Network DP, the sensitivity "
              "max{Δ/t, (t−1)/t·max a_ij} “approaches 1 and violates the consistency of the "
              "estimator”; “the dynamics become divergent in that case”",
              grows("ol_alg4", "network"),
              case="German households, Network DP, ε = 1: the error grows with t",
              ours="Alg. 4 run for Network DP (ol_alg4), its noise calibrated to that "
                   "sensitivity",
              reading="the cost of privacy stops falling between T/10 and T (not "
                      "consistent), but does not grow measurably by T: whether the "
                      "dynamics diverge is not decided at this T"),
        Claim("4.3", "Algorithm 5's weights make the Network-DP sensitivity go to zero, "
              "“instead of … which approaches 1” with Algorithm 4's",
              independent(f"{cop} at T, Alg. 5 − Alg. 4 (Network DP)",
                          mean_se(at("cost_of_privacy", "ol", "network")),
                          mean_se(at("cost_of_privacy", "ol_alg4", "network"))),
              case="German households, Network DP, ε = 1",
              ours="Alg. 5 (ol) against Alg. 4 run for Network DP (ol_alg4)"),
    ]


def bound_claims(results: Results) -> list[Claim]:
    """Thms 3.1, 4.1 and 4.2: the bounds hold; the tightest case of each data set (the
    smallest bound over the simulated error, over cells, methods, rounds and errors)."""
    summary = results.summaries["sample_paths"]
    claims = []
    for _, label, scenario in SCENARIOS:
        rows = summary[matching(summary, scenario)]
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
        claims.append(Claim(
            "3.2, 4.2, 4.3", "Theorems 3.1, 4.1 and 4.2: the total error, the cost of "
            "privacy and the cost of decentralization lie below their bounds at every t",
            Ordering(f"simulated − bound, tightest case ({name('method', method)}, "
                     f"{metric.replace('_', ' ')}, t = {t})",
                     float(row[metric] - bound.loc[(cell, method, t), metric]), se),
            case=f"{label} (n = {int(row['graph.n_nodes']):,}), every cell of Figs 3–6",
            ours=f"bound / simulated error from {span(ratios)} over every cell, method, "
                 "round and error"))
    return claims


def network_checks(results: Results) -> list[Claim]:
    """The project's own checks on the network runs (not tallied)."""
    fig7 = results.summaries["fig7"]
    checks = []
    for _, label, scenario in SCENARIOS:
        starts = {s: network.last_round(fig7, "total_error", method="rizk",
                                        privacy="signal", rizk_scale="printed",
                                        rizk_start=s, **scenario).loc[1.0]
                  for s in ("zero", "signal")}
        checks.append(Claim(
            "App. B (reading)", "Rizk et al. under Signal DP: started at ν₀ = ξ(s) (the "
            "authors' code) their error loses the bias of ν₀ = 0",
            independent("total error at T, ν₀ = ξ(s) − ν₀ = 0",
                        (starts["signal"]["mean"], starts["signal"].se),
                        (starts["zero"]["mean"], starts["zero"].se)),
            case=f"{label}, ε = 1, Appendix B's noise as printed"))
    return checks


# -- Appendix C of the network paper (Papachristou & Rahimian) ----------------------------

#: The budget rules (option ``budgets``) and the time-varying graphs' edge_keep values of
#: the Appendix C presets; None is the static graph with the paper's MH weights, 1 the
#: static graph with the weights (C.3): the control that changes the weights only.
BUDGET_RULES = ("homogeneous", "centralized", "waterfilling")
EDGE_KEEPS = (1.0, 0.5, 0.2)
VARYING = (0.5, 0.2)
#: Draws of the German households' signals behind Prop. C.3's ratio.
ALLOCATION_DRAWS = 10
#: The first round of the fitted OL rates of Prop. C.2 (fixed before the runs were seen:
#: past the first checkpoints, where the start dominates).
RATE_START = 10


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


def budget_claims(results: Results) -> tuple[list[Claim], str]:
    """Appendix C.3 (``appendix_c_budgets``): Supplementary Figs 1–3 and Prop. C.3, and the
    table of the errors by budget rule."""
    summary = results.summaries["appendix_c_budgets"]
    epsilons = sorted(summary.epsilon.unique())

    def budget(method: str, privacy: str, epsilon: float, rule: str,
               metric: str = "total_error") -> tuple[float, float]:
        return mean_se(runs_at(results, "appendix_c_budgets", metric, method=method,
                               privacy=privacy, epsilon=epsilon, budgets=rule))

    table, claims = [], []
    for method in ("mvue", "ol"):
        for privacy in PRIVACY:
            label = f"{name('method', method)}, {name('privacy', privacy)}"
            logs, variances, ratios = [], [], []
            for epsilon in epsilons:
                errors = {rule: budget(method, privacy, epsilon, rule) for rule in BUDGET_RULES}
                (hom, hom_se), (cen, cen_se) = errors["homogeneous"], errors["centralized"]
                logs.append(math.log(cen / hom))
                variances.append((cen_se / cen) ** 2 + (hom_se / hom) ** 2)
                ratios.append(cen / hom)
                table.append([label, f"{epsilon:g}", *(with_error(*e) for e in errors.values()),
                              number(cen / hom)])
            claims.append(Claim(
                "C.3, Supp. Fig. 3", "“compared to the homogeneous case, using heterogeneous "
                "budgets reduces the MSE”; “the algorithm with the heterogeneous thresholds "
                "has smaller MSE compared to the homogeneous thresholds”",
                Ordering(f"log(Prop. C.3's error / homogeneous error) at T, mean over "
                         f"ε ∈ {{{', '.join(f'{e:g}' for e in epsilons)}}}",
                         float(np.mean(logs)), math.sqrt(sum(variances)) / len(logs)),
                case=f"German households, {label}",
                ours=f"ratios {span(ratios)} over ε (table below); independent cells",
                reading="at large ε the error is the cost of decentralization, which no "
                        "allocation of the budgets changes"))
    budgets_table = markdown_table(
        ["algorithm", "ε", "homogeneous", "Prop. C.3 (as printed)", "optimum of (C.6)",
         "Prop. C.3 / homogeneous"], table)

    for method, epsilon in (("mvue", 1.0), ("ol", 10.0)):
        hom = budget(method, "network", epsilon, "homogeneous")
        cen = budget(method, "network", epsilon, "centralized")
        cost = budget(method, "network", epsilon, "homogeneous", "cost_of_privacy")
        claims.append(Claim(
            "C.3, Supp. Figs 1–2", "with heterogeneous budgets (centralized solution) "
            "“the dynamics converge faster compared to the homogeneous case (cf. Figure 4)”",
            independent("total error at T, Prop. C.3 − homogeneous", cen, hom),
            case=f"German households, {name('method', method)}, Network DP, ε = {epsilon:g}",
            ours="the total error at T of the two allocations",
            reading=f"the homogeneous cost of privacy, {with_error(*cost)}, is a small part "
                    f"of the total error {with_error(*hom)}: the error is the cost of "
                    "decentralization, which no allocation changes"))

    scenario = results.rows("appendix_c_budgets", method="mvue", privacy="signal",
                            epsilon=1.0, budgets="centralized").iloc[0]
    cap = float(scenario.budget_cap)
    prop = allocation_ratios(int(scenario["graph.n_nodes"]), float(scenario.signal_mean),
                             float(scenario.signal_sigma), 1.0, float(scenario.delta), cap)
    for rule, words in (("printed", "the closed form as printed"),
                        ("optimum", "the optimum of (C.6)")):
        claims.append(Claim(
            "C.3, Prop. C.3 (1)", "the improvement satisfies min Δ/max Δ ≤ Σ(Δ_i/ε_i*) / "
            "Σ(Δ_i/ε) ≤ 1",
            Ordering("largest Σ(Δ_i/ε_i*)/Σ(Δ_i/ε) over the draws − 1",
                     float(prop[rule].max() - 1), 0.0),
            case=f"{words}; German households' signals, Signal DP, ε = 1, "
                 f"{ALLOCATION_DRAWS} draws",
            ours=f"ratio {span(prop[rule])}, above min Δ/max Δ ≤ {sci(prop['floor'].max())}"))
    # The tests' example (tests/test_network_appendix_c.py): Δ = (1, 4, 16), cap 1.5ε.
    example = np.array([1.0, 4.0, 16.0])
    printed, optimum = (float(np.sum(example / rule(example, 1.0, 1.5)))
                        for rule in (centralized, waterfilling))
    households = float(np.max(prop["printed"] / prop["optimum"]))
    for case, ratio, ours in (
            (f"German households (cap {cap:g}ε, Σ ε_i,max ≥ nε)", households,
             f"no cap binds (the largest nε√Δ_i/Σ_j√Δ_j is {number(prop['share'].max())}ε "
             f"< {cap:g}ε)"),
            ("Δ = (1, 4, 16), ε_i,max = 1.5ε (Σ ε_i,max = 4.5ε ≥ 3ε)", printed / optimum,
             f"the closed form spends {number(np.sum(centralized(example, 1.0, 1.5)))} of 3ε: "
             f"Σ Δ_i/ε_i = {number(printed)} against the optimum's {number(optimum)}")):
        claims.append(Claim(
            "C.3, Prop. C.3 (1)", "if Σ_i ε_i,max ≥ nε, “the optimal solution to Equation "
            "(C.6) is ε_i* = min{ε_i,max, nε√Δ_i/Σ_j√Δ_j}”",
            Value("Σ Δ_i/ε_i of the closed form over the optimum's (waterfilling)", ratio,
                  ratio, ratio, "1", band=(1.0, 1.0)),
            case=case, ours=ours,
            reading="the closed form leaves the capped agents' excess unspent; the KKT "
                    "optimum is min(ε_i,max, λ√Δ_i) with λ such that Σ_i ε_i = nε "
                    "(budgets=waterfilling)"))
    return claims, budgets_table


def dynamic_claims(results: Results) -> tuple[list[Claim], list[Claim]]:
    """Appendix C.1 (``appendix_c_dynamic``): the claims, each comparing a time-varying
    graph with the q = 1 control (the weights (C.3) on the static graph), so that only the
    time variation changes; and the checks, among them the weights' own effect (static
    MH against q = 1)."""

    def at(method: str, keep: float | None, t: int | None = None) -> pd.Series:
        return runs_at(results, "appendix_c_dynamic", "cost_of_decentralization", t,
                       method=method, privacy="signal", edge_keep=keep)

    rows = results.runs["appendix_c_dynamic"]
    first = int(rows.t.min())

    def final(method: str, keep: float | None) -> tuple[float, float]:
        """The non-private error at T of a cell: mean and SE over its runs."""
        return mean_se(at(method, keep))

    cod = "non-private error at T"
    claims, checks = [], []
    def converges(method: str, q: float, start: int) -> Ordering:
        """The non-private error at T below the error at ``start``, on the same runs."""
        return paired(f"non-private error at T − at t = {start} (same runs)",
                      at(method, q), at(method, q, start))

    for q in VARYING:
        claims.append(Claim(
            "C.1, Prop. C.1", "“If G_t contains no isolated nodes …, the dynamics with the "
            "modified MH weights of Equation (C.3) will converge to the MVUE”",
            converges("mvue", q, first),
            case=f"German households, edges kept with probability q = {q:g}",
            ours="MVUE's non-private error ‖μ_t − m̂1‖ (A(t) doubly stochastic: the "
                 "average is preserved, tests/test_network_appendix_c.py)"))
    for q in VARYING:
        claims.append(Claim(
            "C.1, after Prop. C.1", "the convergence time on time-varying graphs “is "
            "exponentially worse than the … convergence time that we obtain for static "
            "networks”",
            independent(f"{cod}, q = {q:g} − q = 1", final("mvue", q), final("mvue", 1.0),
                        ">"),
            case=f"German households, MVUE, q = {q:g} against the control q = 1 (the same "
                 "weights (C.3), static)",
            ours="one change: the time variation, the weights (C.3) on both sides",
            reading="with edges failing independently every round, E[A(t)] is a fixed "
                    "mixing matrix; the bound is a worst case over graph sequences"))
    for q in VARYING:
        claims.append(Claim(
            "C.1, Prop. C.2", "the dynamics (C.4) with the weights (C.3) “converge to 1m_θ "
            "almost surely”",
            converges("ol", q, RATE_START),
            case=f"German households, OL, q = {q:g}",
            ours="OL's non-private error ‖μ_t − 1m_θ‖, with A(t) in place of A"))
    slopes = {q: slope_runs(results, "appendix_c_dynamic", "cost_of_decentralization",
                            RATE_START, method="ol", privacy="signal", edge_keep=q)
              for q in EDGE_KEEPS}
    for q in VARYING:
        claims.append(Claim(
            "C.1, Prop. C.2", "“the dependence on t becomes slower, i.e., from t^(−1/2) when "
            "the network is static to t^(−1/n³) when the network is dynamic”",
            independent(f"slope of log E‖μ_t − 1m_θ‖ on log t over t ∈ [{RATE_START}, T], "
                        f"q = {q:g} − q = 1 (bootstrap SEs)", slopes[q], slopes[1.0], ">"),
            case=f"German households, OL, q = {q:g} against the control q = 1",
            ours="one change: the time variation; slopes "
                 + ", ".join(f"{number(s, 2)} (q = {k:g})" for k, (s, _) in slopes.items()),
            reading="t^(−1/n³) is Touri and Nedić's worst case over graph sequences; with "
                    "edges failing independently every round E[A(t)] is a fixed mixing "
                    "matrix and OL keeps the static graph's rate"))
    # The weights' own effect: static MH against the static graph with the weights (C.3).
    checks.append(Claim(
        "C.1 (control)", "the weights (C.3), half the MH weights on every edge, slow MVUE's "
        "mixing on the static graph",
        independent(f"{cod}, q = 1 (weights (C.3)) − static MH", final("mvue", 1.0),
                    final("mvue", None), ">"),
        case="German households, MVUE, static graph",
        ours="one change: the weights; this, not the time variation, is what a comparison "
             "of the time-varying graphs with static MH would measure"))
    return claims, checks


def appendix_c_values(results: Results) -> Values:
    """The Appendix C subsection: its claims and checks, and the budgets table."""
    budgets, budgets_table = budget_claims(results)
    dynamic, checks = dynamic_claims(results)
    return {"appendix_c_claims": budgets + dynamic, "appendix_c_checks": checks,
            "appendix_c_budgets": budgets_table}


def values(results: Results) -> Values:
    """Every value of the section."""
    return {**rizk_values(results), **network_values(results), **appendix_c_values(results)}
