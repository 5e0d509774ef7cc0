"""The network paper's section of the reproduction document: Fig. 7 against Rizk et al.
under each reading of their noise, the claims of Sec. 5 and the figures' captions, and
Appendix C (heterogeneous budgets, time-varying graphs)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from sweep.network.api import calibrate, centralized, waterfilling

from ...claims import Claim, markdown_table
from ...document import Values, at
from ...labels import name
from ...numbers import number, percent, sci, span, with_error
from ...plot import MissingData
from ...study import Results, matching
from . import views as network

#: "≈ 1000× smaller error": every ratio within half an order of magnitude of 1000.
CLAIM = (1000 / math.sqrt(10), 1000 * math.sqrt(10))
#: "Signal DP costs little": a cost of privacy below this share of the total error.
LITTLE = 0.01
#: The scenarios of the network paper, told apart by their signals (the graph may be a
#: stand-in or the real edge list).
POWER_GRID = {"signal_mean": 10.0}
GERMAN = {"signal_mean": 1.67}
PRIVACY = ("signal", "network")


def final(results: Results, scenario: Mapping[str, float], method: str, privacy: str,
          epsilon: float, metric: str = "total_error", preset: str = "fig7",
          **match: Any) -> float:
    """``metric`` of a network series at its last round (T)."""
    return at(results.curve(preset, metric, method=method, privacy=privacy, epsilon=epsilon,
                            **scenario, **match))


def over_epsilon(results: Results, scenario: Mapping[str, float], method: str,
                 privacy: str, **match: Any) -> list[float]:
    """:func:`final` total error at each ε of Fig. 7, in increasing order."""
    return [final(results, scenario, method, privacy, e, **match)
            for e in sorted(results.summaries["fig7"].epsilon.unique())]


#: Readings of Appendix B's noise for Rizk et al. (option ``rizk_scale``), as the document
#: words them.
RIZK_READINGS = {"printed": "as printed",
                 "code": "as the authors' code draws it (2T × printed)",
                 "no_eta": "printed without η"}
#: Why a reading of Appendix B's noise does or does not give the paper's ≈ 1000×.
RIZK_WHY = {
    "printed": "as printed, Rizk et al.'s per-round Signal-DP noise ηT·S*/ε (0.1·S*/ε at "
               "T = 100) is below the one-shot 2S*/ε ours adds, so on the German households, "
               "where privacy noise dominates, the ratios stay at {german}",
    "code": "2T times the printed noise: German ratios {german} at T = 100, and the noise "
            "grows with T² (T rounds at budget ε/T, S* at ε/T): {long} at T = {T}",
    "no_eta": "the η-free scale gives the paper's ≈ 1000× on both data sets at T = 100; "
              "at T = {T} the German ratios grow to {long}"}


#: The scenarios of Fig. 7: key, label, signals.
SCENARIOS = (("grid", "power grid", POWER_GRID), ("german", "German households", GERMAN))


def rizk_ratio_table(results: Results) -> dict[tuple[str, int, str], dict[str, pd.DataFrame]]:
    """Fig. 7's ratios to Rizk et al. (:func:`analysis.network.rizk_ratios`) by scenario,
    T and reading of Appendix B's noise, then protection: T = 100 from ``fig7``, the
    German households at T = 1096 from ``fig7_long``."""
    runs = [(key, scenario, results.summaries["fig7"]) for key, _, scenario in SCENARIOS]
    runs.append(("german", GERMAN, results.summaries["fig7_long"]))
    return {(key, int(summary.rounds.max()), reading): {
                p: network.rizk_ratios(summary, scenario, p, reading) for p in PRIVACY}
            for key, scenario, summary in runs for reading in RIZK_READINGS}


def rizk_values(results: Results) -> Values:
    """Fig. 7 against Rizk et al.: the ratio table under each reading of Appendix B's noise
    and T, and the start of their recursion."""
    fig7 = results.summaries["fig7"]
    epsilons = sorted(fig7.epsilon.unique())
    low = epsilons[0]
    scenarios = {key: (label, scenario, fig7) for key, label, scenario in SCENARIOS}

    def rizk(key: str, privacy: str, start: str = "zero") -> pd.Series:
        _, scenario, summary = scenarios[key]
        return network.last_round(summary, "total_error", method="rizk", privacy=privacy,
                                  rizk_scale="printed", rizk_start=start, **scenario)["mean"]

    def ours(key: str, privacy: str, method: str) -> pd.Series:
        _, scenario, summary = scenarios[key]
        return network.last_round(summary, "total_error", method=method, privacy=privacy,
                                  network_scale="paper", **scenario)["mean"]

    values: Values = {"epsilon_low": f"{low:g}"}
    table = [[scenarios[key][0], str(rounds), name("privacy", privacy),
              RIZK_READINGS[reading], *(with_error(m, e) for m, e in
                                         zip(part["mean"], part.se, strict=True))]
             for (key, rounds, reading), parts in rizk_ratio_table(results).items()
             for privacy, part in parts.items()]
    values["rizk_table"] = markdown_table(
        ["scenario", "T", "protection", "Appendix B's noise",
         *(f"ε = {e:g}" for e in epsilons)], table)
    for key in scenarios:
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
    # The readings' factors and the bias of the start, from the runs' T and η.
    rows = fig7[(fig7.method == "rizk") & matching(fig7, POWER_GRID)]
    (rounds, eta), = rows[["rounds", "learning_rate"]].drop_duplicates().itertuples(
        index=False)
    values.update(rizk_t=f"{rounds:g}", rizk_eta=f"{eta:g}", rizk_2t=f"{2 * rounds:g}",
                  rizk_inverse_eta=f"{1 / eta:,.0f}",
                  rizk_t_root_t=f"{rounds:g}·√{rounds:g} = {rounds * math.sqrt(rounds):,.0f}",
                  rizk_moved=f"1 − {1 - eta:g}^{rounds:g} ≈ {percent(1 - (1 - eta) ** rounds)}",
                  grid_log_mean=f"{POWER_GRID['signal_mean']:g}")
    return values


def network_values(results: Results) -> Values:
    """The stand-in graphs, and the claims of the network paper's Sec. 5 (Fig. 7's runs at
    ε = 1 on the power grid, OL at ε = 10 and the bounds from the sample paths), with the
    readings: Network DP's scale, the MVUE target of the authors' code."""
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
    values.update(fig7_runs=str(grid.replicates), grid_max_weight=number(grid.max_weight))
    fig7 = results.summaries["fig7"]

    def at_one(method: str, privacy: str, metric: str, scale: str = "paper"
               ) -> tuple[float, float]:
        """The power grid's ``metric`` at ε = 1 and T, mean and standard error."""
        rows = network.last_round(fig7, metric, method=method, privacy=privacy,
                                  network_scale=scale, **POWER_GRID).loc[1.0]
        return float(rows["mean"]), float(rows.se)

    def exact_cost(method: str, scale: str) -> float:
        """The exact RMS cost of privacy under Network DP at ε = 1 and T."""
        rows = network.with_readings(fig7)
        rows = rows[matching(rows, {"method": method, "privacy": "network", "epsilon": 1.0,
                                    "source": "exact", "network_scale": scale, **POWER_GRID})]
        return float(rows.sort_values("t").cost_of_privacy.iloc[-1])

    cost = {(m, p, sc): at_one(m, p, "cost_of_privacy", sc) for m in ("mvue", "ol")
            for p, sc in (("signal", "paper"), ("network", "paper"), ("network", "code"))}
    exact = {(m, sc): exact_cost(m, sc) for m in ("mvue", "ol") for sc in ("paper", "code")}
    error = {m: at_one(m, "signal", "total_error") for m in ("mvue", "ol")}
    share = {m: (cost[m, "signal", "paper"][0] / error[m][0],
                 cost[m, "signal", "paper"][0] / error[m][0] * math.hypot(
                     cost[m, "signal", "paper"][1] / cost[m, "signal", "paper"][0],
                     error[m][1] / error[m][0])) for m in ("mvue", "ol")}
    for m in ("mvue", "ol"):
        for sc in ("paper", "code"):
            values[f"{m}_network_{sc}"] = (f"{with_error(*cost[m, 'network', sc])} "
                                           f"(exact {number(exact[m, sc])})")

    # The authors' code measures MVUE against node 0's time average (node_zero_excess).
    sigma = float(grid.signal_sigma)
    excess = network.node_zero_excess(int(grid["graph.n_nodes"]), int(grid.rounds), sigma)
    mvue_error = at_one("mvue", "signal", "total_error")[0]
    german = graphs["german"]
    german_excess = network.node_zero_excess(int(german["graph.n_nodes"]), 1096,
                                             float(german.signal_sigma))
    values.update(grid_sigma=number(sigma), node_zero_excess=number(excess),
                  node_zero_grid_error=number(math.hypot(mvue_error, excess)),
                  grid_mvue_error=number(mvue_error), german_node_zero=number(german_excess),
                  german_sigma=number(float(german.signal_sigma)))

    ol = {p: results.rows("sample_paths", method="ol", privacy=p, epsilon=10.0,
                          **POWER_GRID).iloc[-1] for p in PRIVACY}
    ol_se = {p: (ol[p].total_error, (ol[p].total_error_high - ol[p].total_error_low) / 2)
             for p in PRIVACY}
    margins = {key: bound_margins(results.summaries["sample_paths"], scenario)
               for key, scenario in (("grid", POWER_GRID), ("german", GERMAN))}
    nodes = {key: values[f"{key}_nodes"] for key in margins}
    claims = network_claims(rizk_ratio_table(results), cost, share, ol_se, margins, nodes)
    values["network_claims"] = claims
    return values


def network_claims(ratios: Mapping, cost: Mapping, share: Mapping, ol: Mapping,
                   margins: Mapping, nodes: Mapping) -> list[Claim]:
    """One claim per statement of the network paper's Sec. 5 (and its figures' captions),
    with our number ± its standard error over the runs: ``ratios`` from
    :func:`rizk_ratio_table`, the power grid's costs of privacy at ε = 1 and their shares
    of the total error, OL's total errors at ε = 10, the bounds' margins by scenario (and
    its number of nodes)."""

    def ratio_span(key: str, rounds: int, reading: str) -> tuple[str, bool]:
        part = pd.concat(ratios[key, rounds, reading].values())
        text = (f"{span(part['mean'])} (relative SE at most "
                f"{percent(float((part.se / part['mean']).max()))})")
        return text, bool(((part["mean"] >= CLAIM[0]) & (part["mean"] <= CLAIM[1])).all())

    claims = []
    short, longer = sorted({rounds for _, rounds, _ in ratios})
    for reading, words in RIZK_READINGS.items():
        grid, grid_ok = ratio_span("grid", short, reading)
        german, german_ok = ratio_span("german", short, reading)
        long, long_ok = ratio_span("german", longer, reading)
        claims.append(Claim(
            "5, Fig. 7", f"≈ 1000× smaller error than Rizk et al. for both data sets "
            f"(Appendix B's noise {words}; agrees: every ratio in "
            f"[{number(CLAIM[0])}, {number(CLAIM[1])}])",
            f"T = {short}: power grid {grid}, German households {german}; T = {longer}, German "
            f"households: {long}",
            {"power grid": grid_ok, "German households": german_ok,
             f"German households at T = {longer}": long_ok},
            RIZK_WHY[reading].format(german=german, long=long, T=longer)
            + "; start ν_0 = 0, target 1·m̂ (see Readings)"))
    signal_shares = {m: with_error(*share[m], percent) for m in share}
    claims += [
        Claim("5, Fig. 5", "almost perfect Signal DP with reasonable accuracy on the US "
              f"power grid at ε = 1 (agrees: cost of privacy below {percent(LITTLE)} of the "
              "total error)",
              f"cost of privacy {with_error(*cost['mvue', 'signal', 'paper'])} (MVUE) and "
              f"{with_error(*cost['ol', 'signal', 'paper'])} (OL): "
              f"{signal_shares['mvue']} and {signal_shares['ol']} of the total error",
              {name("method", m): share[m][0] < LITTLE for m in share},
              "the smooth sensitivity of signals around e¹⁰ is tiny"),
        Claim("5, Fig. 6", "protecting network neighbourhoods is harder than protecting "
              "signals (power grid, ε = 1)",
              "cost of privacy under Network DP, the paper's scale 2·max(a_i, S*)/ε: "
              f"MVUE {with_error(*cost['mvue', 'network', 'paper'])}, OL "
              f"{with_error(*cost['ol', 'network', 'paper'])}; the authors' code's "
              f"max(a_i, 2S*)/ε: MVUE {with_error(*cost['mvue', 'network', 'code'])}, OL "
              f"{with_error(*cost['ol', 'network', 'code'])}; Signal DP: MVUE "
              f"{with_error(*cost['mvue', 'signal', 'paper'])}, OL "
              f"{with_error(*cost['ol', 'signal', 'paper'])}",
              {f"{name('method', m)} ({sc})": cost[m, "network", sc][0]
               > cost[m, "signal", "paper"][0] for m in ("mvue", "ol")
               for sc in ("paper", "code")},
              "a_i dominates S* on the power grid"),
        Claim("4.3, Fig. 6", "Alg. 5's self-weight slows its convergence: OL under Network "
              "DP converges more slowly than Alg. 4 (power grid, ε = 10, T = 100)",
              f"total error {with_error(*ol['network'])} (Alg. 5, Network DP) against "
              f"{with_error(*ol['signal'])} (Alg. 4, Signal DP)",
              {"": ol["network"][0] - ol["signal"][0]
               > 2 * math.hypot(ol["network"][1], ol["signal"][1])},
              "the difference is within two standard errors"),
        Claim("3–4, Figs 3–6", "the Theorem 3.1 / 4.1 / 4.2 bounds hold",
              "bound / simulated error (total, privacy, decentralization, every round): "
              + "; ".join(f"{span(m)} at n = {nodes[key]}" for key, m in margins.items()),
              {"": all(m.min() > 1 for m in margins.values())},
              "a bound below the simulated error"),
    ]
    return claims


def bound_margins(summary: pd.DataFrame, scenario: Mapping[str, float]) -> pd.Series:
    """Each bound divided by the simulated error it bounds (total error, cost of privacy,
    cost of decentralization), over the cells, methods and rounds of a scenario."""
    rows = summary[matching(summary, scenario)]
    keys = ["cell_id", "method", "t"]
    bound = rows[rows.source == "bound"].set_index(keys)
    simulated = rows[rows.source == "simulated"].set_index(keys)
    metrics = ["total_error", "cost_of_privacy", "cost_of_decentralization"]
    ratios = (bound[metrics] / simulated[metrics]).stack().dropna()
    if ratios.empty:
        raise MissingData("sample_paths: no bound rows with their simulated errors "
                          "(references=[bound, exact])")
    return ratios


# -- Appendix C of the network paper (Papachristou & Rahimian) ----------------------------

#: The budget rules (option ``budgets``) and the time-varying graphs' edge_keep values of
#: the Appendix C presets; None is the static graph.
BUDGET_RULES = ("homogeneous", "centralized", "waterfilling")
EDGE_KEEPS = (1.0, 0.5, 0.2)
#: "Smaller" / "larger": a difference of more than two standard errors.
SEPARATED = 2.0
#: Draws of the German households' signals behind Prop. C.3's ratio.
ALLOCATION_DRAWS = 10


def _mean_se(rows: pd.DataFrame, metric: str) -> tuple[float, float]:
    """A series' ``metric`` at its last round, with its standard error (the summary's
    interval is ± one SE)."""
    last = rows.iloc[-1]
    return float(last[metric]), float(last[f"{metric}_high"] - last[f"{metric}_low"]) / 2


def _below(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether ``a`` is smaller than ``b`` by more than :data:`SEPARATED` SEs of the
    difference."""
    return b[0] - a[0] > SEPARATED * math.hypot(a[1], b[1])


def _dynamic_rows(results: Results, method: str, privacy: str, keep: float | None
                  ) -> pd.DataFrame:
    """The one series of ``appendix_c_dynamic`` with this ``edge_keep`` (None: static)."""
    summary = results.summaries["appendix_c_dynamic"]
    graph = summary.edge_keep.isna() if keep is None else summary.edge_keep == keep
    rows = summary[matching(summary, {"source": "simulated", "method": method,
                                      "privacy": privacy}) & graph]
    if rows.cell_id.nunique() != 1:
        raise MissingData(f"appendix_c_dynamic: {rows.cell_id.nunique()} series match "
                          f"method={method}, privacy={privacy}, edge_keep={keep}")
    return rows.sort_values("t")


def _slope(rows: pd.DataFrame, metric: str, start: int = 10) -> float:
    """Slope of log ``metric`` against log t from ``start`` on: the rate t^slope."""
    part = rows[rows.t >= start]
    return float(np.polyfit(np.log(part.t), np.log(part[metric]), 1)[0])


def allocation_ratios(n: int, mean: float, sigma: float, epsilon: float, delta: float,
                      cap: float, draws: int = ALLOCATION_DRAWS) -> dict[str, float]:
    """Prop. C.3 on draws of n log-normal signals under Signal DP (Δ_i = S*(s_i)):
    Σ(Δ/ε*)/Σ(Δ/ε) of the printed rule and of the optimum, min Δ/max Δ (averages over
    the draws), and the largest uncapped share nε√Δ_i/Σ√Δ_j in units of ε."""
    rng = np.random.default_rng(0)
    base = calibrate("laplace", epsilon, delta, True)
    signals = rng.lognormal(mean, sigma, (n, draws))
    sens = base.statistic_sensitivity(signals)
    homogeneous = (sens / epsilon).sum(axis=0)
    root = np.sqrt(sens)
    return {"printed": float(np.mean((sens / centralized(sens, epsilon, cap)).sum(axis=0)
                                     / homogeneous)),
            "optimum": float(np.mean((sens / waterfilling(sens, epsilon, cap)).sum(axis=0)
                                     / homogeneous)),
            "floor": float(np.mean(sens.min(axis=0) / sens.max(axis=0))),
            "share": float((n * root / root.sum(axis=0)).max())}


def appendix_c_claims(results: Results) -> tuple[list[Claim], str]:
    """Appendix C's statements (C.1 dynamic graphs, C.3 heterogeneous budgets) from the
    presets ``appendix_c_budgets`` and ``appendix_c_dynamic``, and the budgets table."""
    summary = results.summaries["appendix_c_budgets"]
    epsilons = sorted(summary.epsilon.unique())

    def budget(method: str, privacy: str, epsilon: float, rule: str,
               metric: str = "total_error") -> tuple[float, float]:
        return _mean_se(results.rows("appendix_c_budgets", method=method, privacy=privacy,
                                     epsilon=epsilon, budgets=rule), metric)

    table, smaller, ratios = [], {}, {}
    for method in ("mvue", "ol"):
        for privacy in PRIVACY:
            label = f"{name('method', method)}, {name('privacy', privacy)}"
            better = worse = 0
            for epsilon in epsilons:
                errors = {rule: budget(method, privacy, epsilon, rule) for rule in BUDGET_RULES}
                hom, cen = errors["homogeneous"], errors["centralized"]
                better += _below(cen, hom)
                worse += _below(hom, cen)
                ratios[method, privacy, epsilon] = cen[0] / hom[0]
                table.append([label, f"{epsilon:g}", *(with_error(*e) for e in errors.values()),
                              number(cen[0] / hom[0])])
            smaller[label] = better > 0 and worse == 0
    budgets_table = markdown_table(
        ["algorithm", "ε", "homogeneous", "Prop. C.3 (as printed)", "optimum of (C.6)",
         "Prop. C.3 / homogeneous"], table)

    small = [e for e in epsilons if e <= 2]
    claims = [Claim(
        "C.3, Supp. Fig. 3", "heterogeneous budgets give a smaller error (\"MSE\") than "
        "homogeneous ones",
        f"total error at T with Prop. C.3's budgets over homogeneous ones: "
        f"{span(v for (_, _, e), v in ratios.items() if e in small)} at ε ≤ 2, "
        f"{span(v for (_, _, e), v in ratios.items() if e not in small)} at ε ≥ "
        f"{min(e for e in epsilons if e not in small):g} (table below)", smaller,
        f"smaller means below by more than {SEPARATED:g} SEs at some ε and never above")]

    paths = {}
    for method, epsilon in (("mvue", 1.0), ("ol", 10.0)):
        hom = budget(method, "network", epsilon, "homogeneous")
        cen = budget(method, "network", epsilon, "centralized")
        privacy_cost = budget(method, "network", epsilon, "homogeneous", "cost_of_privacy")
        paths[method] = (epsilon, hom, cen, privacy_cost)
    ol_epsilon, ol_hom, _, ol_cost = paths["ol"]
    claims.append(Claim(
        "C.3, Supp. Figs 1–2", "with heterogeneous budgets (MVUE at ε = 1, OL at ε = 10, "
        "Network DP) the dynamics converge faster than with homogeneous ones (Fig. 4)",
        "; ".join(f"{name('method', m)} at ε = {e:g}: total error at T {with_error(*c)} against "
                  f"{with_error(*h)} homogeneous" for m, (e, h, c, _) in paths.items()),
        {name("method", m): _below(c, h) for m, (_, h, c, _) in paths.items()},
        f"at ε = {ol_epsilon:g} OL's homogeneous cost of privacy is {with_error(*ol_cost)} against "
        f"a total error of {with_error(*ol_hom)}: the error is the cost of decentralization, which "
        "no allocation of the budgets changes; the gain shows at small ε (ratio "
        f"{number(ratios['ol', 'network', 1.0])} at ε = 1)"))

    scenario = results.rows("appendix_c_budgets", method="mvue", privacy="signal",
                            epsilon=1.0, budgets="centralized").iloc[0]
    cap = float(scenario.budget_cap)
    prop = allocation_ratios(int(scenario["graph.n_nodes"]), float(scenario.signal_mean),
                             float(scenario.signal_sigma), 1.0, float(scenario.delta), cap)
    claims.append(Claim(
        "C.3, Prop. C.3", "Σ Δ_i/ε_i* lies between min Δ/max Δ and 1 times Σ Δ_i/ε",
        f"{number(prop['printed'])} (printed rule) and {number(prop['optimum'])} (optimum), "
        f"min Δ/max Δ = {sci(prop['floor'])}; Signal DP, ε = 1, {ALLOCATION_DRAWS} draws "
        "of the households' signals",
        {rule: prop["floor"] <= prop[rule] <= 1 for rule in ("printed", "optimum")}))
    # The tests' example (tests/test_network_appendix_c.py): Δ = (1, 4, 16), cap 1.5ε.
    example = np.array([1.0, 4.0, 16.0])
    printed, optimum = (np.sum(example / rule(example, 1.0, 1.5))
                        for rule in (centralized, waterfilling))
    claims.append(Claim(
        "C.3, Prop. C.3", "ε_i* = min(ε_i,max, nε√Δ_i/Σ_j√Δ_j) solves (C.6)",
        f"on the households no cap binds (the largest nε√Δ_i/Σ_j√Δ_j is "
        f"{number(prop['share'])}ε < {cap:g}ε), so it is the optimum; with Δ = (1, 4, 16) "
        f"and ε_max = 1.5ε it spends {number(np.sum(centralized(example, 1.0, 1.5)))} of "
        f"3ε and Σ Δ_i/ε_i = {number(printed)} against the optimum's {number(optimum)}",
        {"households (cap 10ε)": prop["share"] < cap,
         "a binding cap": bool(np.isclose(printed, optimum))},
        "the printed formula leaves the capped agents' excess unspent; the KKT optimum is "
        "min(ε_i,max, λ√Δ_i) with λ such that Σ_i ε_i = nε (budgets=waterfilling)"))

    static = {m: _dynamic_rows(results, m, "signal", None) for m in ("mvue", "ol")}
    moving = {(m, q): _dynamic_rows(results, m, "signal", q) for m in ("mvue", "ol")
              for q in EDGE_KEEPS}
    cod = "cost_of_decentralization"
    first = {q: float(moving["mvue", q][cod].iloc[0]) for q in EDGE_KEEPS}
    last = {q: _mean_se(moving["mvue", q], cod) for q in EDGE_KEEPS}
    last_static = _mean_se(static["mvue"], cod)
    claims.append(Claim(
        "C.1, Prop. C.1", "MVUE with the weights (C.3) on time-varying graphs converges to "
        "the MVUE",
        "non-private error ‖μ_t − m̂1‖ from t = 1 to T: " + "; ".join(
            f"q = {q:g}: {number(first[q])} → {with_error(*last[q])}" for q in EDGE_KEEPS)
        + " (A(t) doubly stochastic: the average is preserved, tests/test_network_"
        "appendix_c.py)", {f"q = {q:g}": last[q][0] < first[q] / 10 for q in EDGE_KEEPS},
        "the non-private error has not fallen tenfold by T"))
    claims.append(Claim(
        "C.1, after Prop. C.1", "convergence on time-varying graphs is slower than on the "
        "static graph (a bound exponentially worse in n)",
        f"non-private MVUE error at T: {with_error(*last_static)} static (MH weights) against "
        + ", ".join(f"{with_error(*last[q])} (q = {q:g})" for q in EDGE_KEEPS),
        {f"q = {q:g}": _below(last_static, last[q]) for q in EDGE_KEEPS},
        "with the weights (C.3) halving every kept edge's weight, random edge failures "
        "leave the expected weights near the static MH ones"))
    slopes = {q: _slope(moving["ol", q], cod) for q in EDGE_KEEPS}
    slope_static = _slope(static["ol"], cod)
    n_nodes = int(static["ol"]["graph.n_nodes"].iloc[0])
    claims.append(Claim(
        "C.1, Prop. C.2", "OL with A(t) converges to 1m_θ, the rate dropping from "
        "t^(−1/2) (static) to t^(−1/n³)",
        f"non-private OL error ∝ t^s from t = 10 to T: s = {number(slope_static, 2)} static, "
        + ", ".join(f"{number(s, 2)} (q = {q:g})" for q, s in slopes.items())
        + f"; −1/n³ = {sci(-1 / n_nodes**3)}",
        {"converges": all(s < -0.25 for s in slopes.values()),
         "slower than static": all(s > slope_static + 0.1 for s in slopes.values())},
        "t^(−1/n³) is Touri and Nedić's worst case over graph sequences; with edges failing "
        "independently every round E[A(t)] is a fixed mixing matrix and OL keeps the static "
        "graph's rate (about t^(−1) up to T = 100, where the decentralization term "
        "∝ 1/t still dominates the t^(−1/2) of the average)"))
    return claims, budgets_table


def appendix_c_values(results: Results) -> Values:
    """The Appendix C subsection: its claims table and the budgets table."""
    claims, budgets_table = appendix_c_claims(results)
    return {"appendix_c_claims": claims, "appendix_c_budgets": budgets_table,
            "appendix_c_separated": f"{SEPARATED:g}"}


# -- The inference paper (Papachristou & Rahimian) ----------------------------------------

#: "Up to 100 times smaller errors": the largest ratio within half an order of magnitude.


def values(results: Results) -> Values:
    """Every value of the section."""
    return {**rizk_values(results), **network_values(results), **appendix_c_values(results)}
