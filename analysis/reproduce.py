"""The reproduction document, rendered from the stored results of the papers' presets.

``python -m analysis reproduce ROOT --out docs`` reads the results the document's commands
write under ``ROOT`` (one directory per preset: ``ROOT/fig2_left``, ``ROOT/fig2_oracle``,
``ROOT/fig3``, ``ROOT/fig4``, ``ROOT/fig7``, ``ROOT/sample_paths``, and the inference
paper's ``ROOT/inference_*``), computes every
number, table and verdict the document states, draws the figures into ``OUT/figures/``
and writes ``OUT/reproduction.md`` from the template ``analysis/templates/reproduction.md``.

The template is Markdown with three kinds of tags, a subset of Mustache's:

- ``{{name}}`` is replaced by the text computed under ``name``;
- ``{{#name}}...{{/name}}`` keeps its content when ``name`` is true (``True`` or a
  non-empty text), ``{{^name}}...{{/name}}`` when it is false: prose whose conclusion
  depends on the numbers is chosen by the comparison, never typed;
- a section tag alone on its line takes the line's break with it.

A tag naming no computed value, a value missing where a tag is kept, and a figure the
document shows but that was not drawn are errors, so the document cannot silently keep
a stale number.

By default only runs of the papers' sizes are read (M = 200 or 15 and 30, t_max = 3·10⁴;
n = 969 and 4,941 nodes, T = 100 rounds; the inference presets' n and time points);
``any_size=True`` reads whatever sizes the directories hold (e.g. small test runs), and
the document then says so at its top.
"""

from __future__ import annotations

import argparse
import functools
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from sweep.store import ResultsStore, cell_records

from . import inference
from .claims import Claim, claims_table, markdown_table, verdict
from .figures import FIGURES
from .labels import name
from .load import Z95, summaries, wilson
from .plot import MissingData, save

#: A ratio agrees with 1, and a point in time with the paper's, within this factor.
TOLERANCE = 1.25
#: "≈ 1000× smaller error": every ratio within half an order of magnitude of 1000.
CLAIM = (1000 / math.sqrt(10), 1000 * math.sqrt(10))
#: "Signal DP costs little": a cost of privacy below this share of the total error.
LITTLE = 0.01
#: The scenarios of the network paper, told apart by their signals (the graph may be a
#: stand-in or the real edge list).
POWER_GRID = {"signal_mean": 10.0}
GERMAN = {"signal_mean": 1.67}
PRIVACY = ("signal", "network")
#: How the document names the sizes of a run.
SIZE_NAMES = {"n_agents": "M", "t_max": "t_max", "graph.n_nodes": "n", "rounds": "T",
              "patients": "time points", "replicates": "runs"}
Values = dict[str, str | bool]


@dataclass(frozen=True)
class Preset:
    """A preset whose results the document reads from ``ROOT/<name>``, as written by
    ``python -m sweep -m +experiment=<name> results_dir=ROOT/<name>``.

    ``sizes`` are the paper's sizes of its runs (required unless ``any_size``),
    ``replicates`` its number of runs, ``figures`` the names in :data:`FIGURES` drawn
    from it.
    """

    name: str
    sizes: dict[str, Any]
    replicates: int
    figures: tuple[str, ...]


COLME_SIZE = {"t_max": 30000}
NETWORK_SIZE = {"graph.n_nodes": [969, 4941], "rounds": 100}
PRESETS: dict[str, Preset] = {p.name: p for p in [
    Preset("fig2_left", {"n_agents": 200, **COLME_SIZE}, 20, ("fig2_left",)),
    Preset("fig2_oracle", {"n_agents": [200, 30], **COLME_SIZE}, 0,
           ("fig2_middle", "fig2_right")),
    Preset("fig3", {"n_agents": 200, **COLME_SIZE}, 20, ("fig3_left", "fig3_right")),
    Preset("fig4", {"n_agents": 15, **COLME_SIZE}, 100, ("fig4_left", "fig4_right")),
    Preset("fig7", NETWORK_SIZE, 10, ("fig7",)),
    Preset("sample_paths", NETWORK_SIZE, 10, ("sample_paths",)),
    # DP distributed inference: Sec. 2 (n = 25 to 100), Sec. 5 (5 centres, 200 runs),
    # Fig. 6 (10 to 20 centres), Sec. 14.3 (3 to 96 centres, 4,096 and 8,192 time
    # points) and Sec. 14.1 (the quickstart: 5 centres, ddI against ZDV).
    Preset("inference_fig1", {"graph.n_nodes": [25, 50, 75, 100]}, 0, ("inference_fig1",)),
    Preset("inference_fig2", {"graph.n_nodes": [25, 50, 75, 100]}, 10_000,
           ("inference_fig2",)),
    Preset("inference_actg", {"graph.n_nodes": 5}, 200, ("inference_fig4", "inference_fig5")),
    Preset("inference_fig6", {"graph.n_nodes": [10, 15, 20]}, 100,
           ("inference_fig6", "inference_errors")),
    Preset("inference_runtime", {"graph.n_nodes": [3, 6, 12, 24, 48, 96],
                                 "patients": [4096, 8192]}, 10, ("inference_fig14_2",)),
    Preset("inference_quickstart", {"graph.n_nodes": 5}, 50, ()),
]}


# -- Reading ----------------------------------------------------------------------------

def read_presets(root: Path, presets: Iterable[Preset],
                 read: Callable[..., pd.DataFrame], any_size: bool,
                 names: Mapping[str, str], whose: str) -> dict[str, pd.DataFrame]:
    """``read(ROOT/<preset>, **sizes)`` of every preset, by name (without the sizes if
    ``any_size``); :class:`MissingData` naming the command to run if a directory is
    absent or holds no runs of ``whose`` sizes (worded with ``names``)."""
    found = {}
    for preset in presets:
        path = root / preset.name
        run = f"python -m sweep -m +experiment={preset.name} results_dir={path}"
        if not path.is_dir():
            raise MissingData(f"no results directory {path}: run {run}")
        frame = read(path, **({} if any_size else preset.sizes))
        if frame.empty:
            sizes = ", ".join(f"{names[c]} = {v}" for c, v in preset.sizes.items())
            raise MissingData(f"{path} holds no runs of {whose} sizes ({sizes}): run "
                              f"{run}, or render from other sizes with --any-size")
        found[preset.name] = frame
    return found


@dataclass(frozen=True)
class Results:
    """The summaries (mean ± one standard error per checkpoint) of the presets' results
    under one root, by preset name."""

    root: Path
    summaries: dict[str, pd.DataFrame]

    @classmethod
    def read(cls, root: str | Path, any_size: bool = False) -> Results:
        """Read every preset's directory; :class:`MissingData` if one is absent or holds
        no runs of the paper's sizes (unless ``any_size``)."""
        return cls(Path(root), read_presets(Path(root), PRESETS.values(), summaries,
                                            any_size, SIZE_NAMES, "the paper's"))

    def rows(self, preset: str, **match: Any) -> pd.DataFrame:
        """The rows, ordered by t, of the one series (cell, method and source) of
        ``preset`` whose columns equal ``match`` (``source`` defaults to simulated).

        :class:`MissingData` unless exactly one series matches: a number of the document
        must never be a silent pick among several.
        """
        summary = self.summaries[preset]
        match = {"source": "simulated", **match}
        absent = [column for column in match if column not in summary]
        if absent:
            raise MissingData(f"{preset}: the results have no column {absent[0]!r}")
        rows = summary[matching(summary, match)]
        series = len(rows.groupby(["cell_id", "method", "source"]))
        if series != 1 or not rows.t.is_unique:
            described = ", ".join(f"{c}={v}" for c, v in match.items())
            raise MissingData(f"{preset}: {series} series match {described}; the document "
                              "needs exactly one (rerun the commands of docs/reproduction.md)")
        return rows.sort_values("t")

    def curve(self, preset: str, metric: str, **match: Any) -> pd.Series:
        """``metric`` of the series :meth:`rows` selects, indexed by t."""
        return self.rows(preset, **match).set_index("t")[metric]


def matching(frame: pd.DataFrame, match: Mapping[str, Any]) -> np.ndarray:
    """Which rows of ``frame`` have every column of ``match`` equal to its value."""
    return np.logical_and.reduce([frame[c] == v for c, v in match.items()])


def checkpoint(curve: pd.Series, t: float | None = None) -> int:
    """The checkpoint of ``curve`` nearest ``t`` on a log scale (default: the last)."""
    times = curve.index.to_numpy()
    return int(times[-1] if t is None else times[np.abs(np.log(times / t)).argmin()])


def at(curve: pd.Series, t: float | None = None) -> float:
    """The value of ``curve`` at the checkpoint nearest ``t`` (default: the last)."""
    return float(curve[checkpoint(curve, t)])


# -- Formatting -------------------------------------------------------------------------

def _short_exponent(text: str) -> str:
    mantissa, _, exponent = text.partition("e")
    return mantissa + (f"e{int(exponent)}" if exponent else "")


def number(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits (``1.20``, ``0.00150``); integers with
    thousands separators from 10^digits on (``1,225``), a short exponent for small values
    (``1.60e-5``)."""
    if abs(x) >= 10 ** digits - 0.5:
        return f"{x:,.0f}"
    # "#" keeps significant trailing zeros, and a trailing point to strip.
    mantissa, _, exponent = f"{x:#.{digits}g}".partition("e")
    return _short_exponent(mantissa.rstrip(".") + (f"e{exponent}" if exponent else ""))


def sci(x: float) -> str:
    """``x`` in scientific notation to three digits: ``4.01e-7``."""
    return _short_exponent(f"{x:.2e}")


def percent(x: float) -> str:
    """A share as a percentage to two significant digits: ``11%``, ``0.17%``."""
    return f"{number(100 * x, 2)}%"


def span(values: Iterable[float], fmt: Callable[[float], str] = number) -> str:
    """The range of ``values`` as ``low–high``, or one value if they print alike."""
    values = list(values)
    low, high = fmt(min(values)), fmt(max(values))
    return low if low == high else f"{low}–{high}"


def versus(a: float, b: float, fmt: Callable[[float], str] = sci, between: str = " vs ") -> str:
    """Two values side by side: ``4.01e-7 vs 7.04e-7``."""
    return f"{fmt(a)}{between}{fmt(b)}"


def within(ratio: float, tolerance: float = TOLERANCE) -> bool:
    """Whether ``ratio`` is 1 up to a factor ``tolerance``."""
    return 1 / tolerance <= ratio <= tolerance


def duration(seconds: float) -> str:
    """Seconds as ``56 s`` or ``2 min 3 s``."""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


# -- The numbers ------------------------------------------------------------------------

SCHEMES = [("pm1", "last"), ("pm1", "mom"), ("pm2", "last"), ("pm2", "mom")]
SCHEDULES = ("rr", "rrr")


def scheme(mechanism: str, weights: str, schedule: str | None = None) -> str:
    """A scheme in the paper's words, e.g. ``PM-II non-MoM rRR``."""
    parts = [name("mechanism", mechanism), name("weights", weights)]
    return " ".join(parts + ([name("schedule", schedule)] if schedule else []))


def colme_values(results: Results) -> Values:
    """The Private-ColME statements on Figs 2 and 4 (Sec. VII): schemes, schedules, the
    local baseline, the oracle, and the noise."""
    values: Values = {"tolerance": number(TOLERANCE)}
    fig2 = {(m, w, s): results.rows("fig2_left", method="colme", mechanism=m, weights=w,
                                    schedule=s)
            for m, w in SCHEMES for s in SCHEDULES}
    final = {key: at(rows.set_index("t").mse) for key, rows in fig2.items()}

    for s in SCHEDULES:
        values[f"pm1_last_mom_{s}"] = versus(final["pm1", "last", s], final["pm1", "mom", s])
    values["pm1_last_mom"] = verdict({name("schedule", s): final["pm1", "last", s]
                                      < final["pm1", "mom", s] for s in SCHEDULES})

    for m, w in SCHEMES:
        values[f"rr_rrr_{m}_{w}"] = versus(final[m, w, "rr"], final[m, w, "rrr"])
    values["rr_rrr"] = verdict({scheme(m, w): final[m, w, "rr"] < final[m, w, "rrr"]
                                for m, w in SCHEMES})
    values["rr_exceptions"] = ", ".join(
        f"{scheme(m, w)} ({versus(final[m, w, 'rrr'], final[m, w, 'rr'])})"
        for m, w in SCHEMES if final[m, w, "rr"] >= final[m, w, "rrr"])

    # The local baseline is the same in every cell: read it from one.
    local = at(results.curve("fig2_left", "mse", method="local", source="analytic",
                             mechanism="pm1", weights="last", schedule="rr"))
    exception = ("pm2", "last", "rrr")
    above = [scheme(*key) for key, mse in final.items() if mse >= local]
    values.update(
        local=sci(local), pm2_last_rrr=sci(final[exception]),
        pm2_last_rrr_to_local=number(final[exception] / local),
        above_local=f"at or above it: {', '.join(above)}" if above else "all end below it",
        below_local=verdict({scheme(*key): mse < local for key, mse in final.items()
                             if key != exception}))

    oracle = {}
    for m, w in SCHEMES:
        cell = fig2[m, w, "rr"].iloc[0]
        oracle[m, w] = final[m, w, "rr"] / at(results.curve(
            "fig2_oracle", "mse", method="oracle", source="analytic", mechanism=m, weights=w,
            n_agents=cell.n_agents, t_max=cell.t_max))
        values[f"oracle_{m}_{w}"] = number(oracle[m, w])
    values["oracle"] = verdict({scheme(m, w): within(r) for (m, w), r in oracle.items()})

    fig4 = {(noise, m): at(results.curve("fig4", "mse", method="colme", noise=noise,
                                         mechanism=m))
            for noise in ("laplace", "gaussian") for m in ("pm1", "pm2")}
    for m in ("pm1", "pm2"):
        values[f"laplace_{m}"] = versus(fig4["laplace", m], fig4["gaussian", m])
    values["laplace"] = verdict({name("mechanism", m): fig4["laplace", m] < fig4["gaussian", m]
                                 for m in ("pm1", "pm2")})
    return values


def stretches(mask: pd.Series) -> list[tuple[int, int]]:
    """The maximal runs of consecutive checkpoints at which ``mask`` holds, as
    (first t, last t)."""
    run = (mask != mask.shift()).cumsum()
    return [(int(part.index[0]), int(part.index[-1]))
            for _, part in mask.groupby(run) if part.iloc[0]]


def variance_values(results: Results) -> Values:
    """Fig. 3: the estimated variances against known variance (PM-I, non-MoM, RR)."""
    rows = {v: results.rows("fig3", method="colme", variance=v, weights="last")
            for v in ("known", "shared", "inferred", "inferred_bayes")}
    curves = {v: r.set_index("t").mse for v, r in rows.items()}
    ratio = {v: curves[v] / curves["known"] for v in curves}
    inferred, bayes = ratio["inferred"], ratio["inferred_bayes"]
    values: Values = {
        "inferred_ratios": ", ".join(
            f"{number(at(inferred, t))} (t = {checkpoint(inferred, t):,})"
            for t in (1e3, 5e3, 1e4, None)),
        "inferred_final": number(at(inferred)),
        "inferred": verdict({"at t_max": within(at(inferred))}),
    }

    # Sch-Var-1 from t = 2000 on (from the last checkpoint in runs shorter than that).
    late = ratio["shared"][ratio["shared"].index >= checkpoint(ratio["shared"], 2000)]
    values.update(shared_ratios=span(late), shared_from=f"{late.index[0]:,}",
                  shared=verdict({"a loss": bool((late > TOLERANCE).all())}))

    # The crossing: where the Bayesian form moves ahead for its longest stretch (in log t).
    ahead = stretches(bayes < inferred)
    values.update({f"bayes_{t:g}": versus(at(bayes, t), at(inferred, t), number)
                   for t in (600, 1000)})
    values.update({f"t_{t:g}": f"{checkpoint(bayes, t):,}" for t in (600, 1000)})
    if not ahead:
        values["bayes_stretch"] = "the Bayesian form is never better"
        crossing_agrees = False
    else:
        start, end = max(ahead, key=lambda s: math.log(s[1] / s[0]))
        text = f"Bayesian better from t = {start:,}"
        if end == bayes.index[-1]:
            text += " on"
        else:
            back = int(bayes.index[bayes.index.get_loc(end) + 1])
            text += (f" to {end:,}, worse again at t = {back:,} "
                     f"({versus(bayes[back], inferred[back], number)})")
        values["bayes_stretch"] = text
        # "Worse at first": not ahead at the checkpoint before the stretch.
        crossing_agrees = start != bayes.index[0] and within(start / 600)
    values.update(bayes_agrees=crossing_agrees,
                  bayes=verdict({"crossing near t ≈ 600": crossing_agrees}))

    # How far Sch-Var-2 ends from known variance, against the run-to-run spread.
    end_of = {v: rows[v].iloc[-1] for v in ("inferred", "known")}
    mse = {v: row.mse for v, row in end_of.items()}
    error = {v: row.mse_high - row.mse for v, row in end_of.items()}
    distance = abs(mse["inferred"] - mse["known"]) / math.hypot(*error.values())
    values.update(
        inferred_gap=percent(abs(mse["inferred"] / mse["known"] - 1)),
        inferred_side="below" if mse["inferred"] < mse["known"] else "above",
        inferred_mse=f"{sci(mse['inferred'])} ± {sci(error['inferred'])}",
        known_mse=f"{sci(mse['known'])} ± {sci(error['known'])}",
        fig3_runs=str(int(end_of["known"].replicates)),
        inferred_distance=number(distance, 2),
        # Two standard errors: about a 95% interval of the difference.
        inferred_within_noise=distance < 2)
    return values


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


def rizk_values(results: Results) -> Values:
    """Fig. 7 against Rizk et al.: the ratio table, the claim's verdicts, the start."""
    epsilons = sorted(results.summaries["fig7"].epsilon.unique())
    low = epsilons[0]

    def rizk(scenario: Mapping[str, float], privacy: str, start: str = "zero") -> list[float]:
        return over_epsilon(results, scenario, "rizk", privacy, rizk_start=start)

    def ours(scenario: Mapping[str, float], privacy: str, method: str) -> list[float]:
        """Our error: of ``method``, or the larger of MVUE and OL (``method="max"``)."""
        if method == "max":
            return list(map(max, ours(scenario, privacy, "mvue"), ours(scenario, privacy, "ol")))
        return over_epsilon(results, scenario, method, privacy)

    def ratios(scenario: Mapping[str, float], privacy: str, method: str = "max") -> list[float]:
        return [r / o for r, o in zip(rizk(scenario, privacy), ours(scenario, privacy, method),
                                      strict=True)]

    values: Values = {"claim_low": number(CLAIM[0]), "claim_high": number(CLAIM[1]),
                      "epsilon_low": f"{low:g}"}
    table = []
    for key, label, scenario in (("grid", "power grid", POWER_GRID),
                                 ("german", "German households", GERMAN)):
        nodes = results.rows("fig7", method="mvue", privacy="signal", epsilon=low,
                             **scenario)["graph.n_nodes"].iloc[0]
        table += [[f"{label} (n = {nodes:,})", name("privacy", privacy),
                   *map(number, ratios(scenario, privacy))] for privacy in PRIVACY]
        every = ratios(scenario, "signal") + ratios(scenario, "network")
        values[f"{key}_ratios"] = span(every)
        values[f"{key}_claim"] = verdict({"": all(CLAIM[0] <= r <= CLAIM[1] for r in every)})
        values[f"{key}_rizk_signal"] = span(rizk(scenario, "signal"))
        values[f"{key}_start_signal"] = span(rizk(scenario, "signal", "signal"))
        values[f"{key}_start_network"] = percent(max(
            abs(s / z - 1) for s, z in zip(rizk(scenario, "network", "signal"),
                                           rizk(scenario, "network"), strict=True)))
    values["rizk_table"] = markdown_table(
        ["scenario", "protection", *(f"ε = {e:g}" for e in epsilons)], table)
    values.update({f"grid_mvue_{p}": span(ratios(POWER_GRID, p, "mvue")) for p in PRIVACY})
    values.update(
        grid_rizk_network=span(rizk(POWER_GRID, "network")),
        grid_ours_network=span(ours(POWER_GRID, "network", "mvue")
                               + ours(POWER_GRID, "network", "ol")),
        grid_rizk_cost=number(final(results, POWER_GRID, "rizk", "signal", low,
                                    "cost_of_privacy", rizk_start="zero")),
        grid_mvue_cost=number(final(results, POWER_GRID, "mvue", "signal", low,
                                    "cost_of_privacy")),
        german_mvue_low=number(final(results, GERMAN, "mvue", "signal", low)),
        grid_mvue_signal_error=span(ours(POWER_GRID, "signal", "mvue")),
        grid_ol_signal_error=span(ours(POWER_GRID, "signal", "ol")))
    return values


def network_values(results: Results) -> Values:
    """The stand-in graphs, and the network paper's other statements on the power grid:
    costs of privacy at ε = 1 (Fig. 7's runs), OL at ε = 10 and the bounds (Figs 3–6)."""
    values: Values = {}
    graphs = {}
    for key, scenario in (("grid", POWER_GRID), ("german", GERMAN)):
        graphs[key] = graph = results.rows("fig7", method="mvue", privacy="signal",
                                           epsilon=1.0, **scenario).iloc[0]
        paths = results.rows("sample_paths", method="mvue", privacy="signal", epsilon=1.0,
                             **scenario).iloc[0]
        values.update({f"{key}_edges": f"{graph.n_edges:,}", f"{key}_beta": number(graph.beta_star),
                       f"{key}_nodes": f"{paths['graph.n_nodes']:,}"})
    values.update(fig7_runs=str(graphs["grid"].replicates),
                  grid_max_weight=number(graphs["grid"].max_weight))

    cost, error = {}, {}
    for method in ("mvue", "ol"):
        for privacy in PRIVACY:
            cost[method, privacy] = final(results, POWER_GRID, method, privacy, 1.0,
                                          "cost_of_privacy")
            exact = final(results, POWER_GRID, method, privacy, 1.0, "cost_of_privacy",
                          source="exact")
            values[f"{method}_{privacy}_cost"] = versus(cost[method, privacy], exact, number,
                                                        " / ")
        error[method] = final(results, POWER_GRID, method, "signal", 1.0)
        values[f"{method}_signal_error"] = number(error[method])
        values[f"{method}_signal_share"] = percent(cost[method, "signal"] / error[method])
    values.update(
        little=percent(LITTLE),
        signal_little=verdict({name("method", m): cost[m, "signal"] / error[m] < LITTLE
                               for m in ("mvue", "ol")}),
        network_harder=verdict({name("method", m): cost[m, "network"] > cost[m, "signal"]
                                for m in ("mvue", "ol")}))

    ol = {p: final(results, POWER_GRID, "ol", p, 10.0, preset="sample_paths") for p in PRIVACY}
    values.update(ol_network_10=number(ol["network"]), ol_signal_10=number(ol["signal"]),
                  ol_slower=verdict({"": ol["network"] > ol["signal"]}))

    margins = {key: bound_margins(results.summaries["sample_paths"], scenario)
               for key, scenario in (("grid", POWER_GRID), ("german", GERMAN))}
    values.update({f"{key}_margin": span(m) for key, m in margins.items()})
    values["bounds_hold"] = verdict({"": all(m.min() > 1 for m in margins.values())})
    return values


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


# -- The inference paper (Papachristou & Rahimian) ----------------------------------------

#: "Up to 100 times smaller errors": the largest ratio within half an order of magnitude.
RIZK_CLAIM = (100 / math.sqrt(10), 100 * math.sqrt(10))
#: A claim that an algorithm identifies (recovers) the answer: in most runs, the 95% Wilson
#: interval of its share of runs above one half.
MOST = 0.5
ARM_BEST = "ZDV+ddI"


def interval(low: float, high: float, fmt: Callable[[float], str] = number) -> str:
    """An interval as ``[low, high]``."""
    return f"[{fmt(low)}, {fmt(high)}]"


def share(successes: float, runs: int) -> tuple[float, float, float]:
    """A share of runs with its 95% Wilson interval."""
    low, high = wilson(pd.Series([successes]), pd.Series([float(runs)]), Z95)
    return successes, float(low.iloc[0]), float(high.iloc[0])


def most(value: float, runs: int) -> bool:
    """Whether a share of ``runs`` is above one half beyond its 95% Wilson interval."""
    return share(value, runs)[1] > MOST


def pvalue(x: float) -> str:
    """A p-value: ``0.27``, ``0.0090``, ``3.97e-6``."""
    return number(x, 2) if x >= 1e-3 else sci(x)


def _series(values: Iterable[float], fmt: Callable[[float], str] = number) -> str:
    return ", ".join(fmt(v) for v in values)


def toy_claims(rr: pd.DataFrame, laplace: pd.DataFrame) -> list[Claim]:
    """Sec. 2's claims on ε* from the critical tables of the two toys
    (:func:`analysis.inference.critical_table`: columns n, p, critical, crossing,
    crossing_low, crossing_high)."""
    ns = sorted(rr.n.unique())
    ps = sorted(rr.p.unique())
    where = f"n = {ns[0]}–{ns[-1]}, p = {ps[0]:g}–{ps[-1]:g}"
    claims = []
    below = {"eq. (2)": bool(rr.critical.max() < 1),
             "power crossing": bool(rr.crossing.max() < 1)}
    claims.append(Claim(
        "2, Fig. 1", f"ε*_RR < 1 in every case tested ({where})",
        f"eq. (2): {span(rr.critical)}; eq. (1)'s power reaches β_IND at "
        f"{span(rr.crossing)} ({len(rr)} (n, p))", below,
        "ε*_RR reaches 1 where the power curve crosses β_IND late: " + _series(
            rr[rr.crossing >= 1].crossing)))

    def by_n(table: pd.DataFrame, column: str, p: float) -> list[float]:
        return table[table.p == p].sort_values("n")[column].tolist()

    checks = {f"{label} at p = {p:g}": inference.decreasing(by_n(rr, column, p))
              for label, column in (("eq. (2)", "critical"), ("crossing", "crossing"))
              for p in ps}
    p7 = min(ps, key=lambda p: abs(p - 0.7))
    claims.append(Claim(
        "2, Fig. 1 (left)", "ε*_RR decreases with n (larger groups gain more from sharing)",
        f"at p = {p7:g}, n = {_series(ns, str)}: eq. (2) {_series(by_n(rr, 'critical', p7))}; "
        f"crossing {_series(by_n(rr, 'crossing', p7))}", checks,
        "ε*_RR is a step function of n: eq. (2) compares integer quantiles of Bin(n, p') and "
        "Bin(n, 1 − p'), which jump at different ε as n grows, so ε* need not fall with "
        "every n; the power crossing is read on the ε grid (30 values, a factor 1.17 "
        "apart)"))
    checks = {f"{label} at {key}": holds
              for label, column in (("eq. (2)", "critical"), ("crossing", "crossing"))
              for key, holds in inference.largest_at(rr, column, max(ps)).items()}
    claims.append(Claim(
        "2, Fig. 1 (middle)", f"ε*_RR is largest at high p (p = {max(ps):g}: individuals "
        "already test well alone)",
        "ε* at p = " + ", ".join(f"{p:g}" for p in ps) + f" for n = {ns[-1]}: eq. (2) "
        f"{_series(rr[rr.n == ns[-1]].sort_values('p').critical)}; crossing "
        f"{_series(rr[rr.n == ns[-1]].sort_values('p').crossing)}", checks,
        "the paper itself calls the variation with p small and not monotone"))

    simulated = laplace.replicates.max() > 0
    ours = f"exact {span(laplace.critical)}"
    checks = {"exact": bool(laplace.critical.max() < 1)}
    if simulated:
        ours += (f"; simulated crossing {span(laplace.crossing)} (95% Wilson band: up to "
                 f"{number(laplace.crossing_high.max())})")
        checks["simulated"] = bool(laplace.crossing_high.max() < 1)
    claims.append(Claim("2, Fig. 2", f"ε*_Laplace < 1 in every simulation ({where})", ours,
                        checks, "the simulated power crosses β_IND above ε = 1"))

    checks = {f"exact at p = {p:g}": inference.decreasing(by_n(laplace, "critical", p))
              for p in ps}
    if simulated:
        # A rise with n counts where it is beyond the crossings' intervals.
        for p in ps:
            part = laplace[laplace.p == p].sort_values("n")
            rises = (part.crossing_high.to_numpy()[:-1] < part.crossing_low.to_numpy()[1:])
            checks[f"simulated at p = {p:g}"] = not rises.any()
    claims.append(Claim(
        "2, Fig. 2 (left)", "ε*_Laplace decreases with n",
        f"at p = {p7:g}, n = {_series(ns, str)}: exact "
        f"{_series(by_n(laplace, 'critical', p7))}"
        + (f"; simulated {_series(by_n(laplace, 'crossing', p7))}" if simulated else ""),
        checks, "the simulated crossings rise with n beyond their intervals"))
    checks = {f"exact at {key}": holds
              for key, holds in inference.largest_at(laplace, "critical", max(ps)).items()}
    claims.append(Claim(
        "2, Fig. 2 (middle)", f"ε*_Laplace is highest at high p (p = {max(ps):g})",
        "exact ε* at p = " + ", ".join(f"{p:g}" for p in ps) + f" for n = {ns[-1]}: "
        f"{_series(laplace[laplace.n == ns[-1]].sort_values('p').critical)}", checks,
        "the exact ε* is not largest at the highest p"))
    return claims


def hospital_claims(centres: Sequence[Mapping[str, float]], pooled: Mapping[str, float],
                    arm: str) -> list[Claim]:
    """Sec. 2.1 (Fig. 3): the Cox model's log hazard ratio of ``arm`` against ZDV at each
    centre and pooled (:func:`analysis.inference.hazard_ratio`'s numbers)."""
    first = centres[0]
    return [
        Claim("2.1, Fig. 3", f"one hospital of five cannot detect the effect of {arm} "
              "(p-value 0.9)",
              f"centre 1: log HR {number(first['coef'])} {interval(first['low'], first['high'])}"
              f", p = {pvalue(first['p'])}; the {len(centres)} centres: p = "
              f"{_series((c['p'] for c in centres), pvalue)}",
              {f"centre {i + 1}": c["p"] > 0.05 for i, c in enumerate(centres)},
              f"with {span(c['patients'] for c in centres)} patients and "
              f"{span((c['events'] for c in centres), lambda v: f'{v:,.0f}')} events a "
              "centre detects an effect "
              f"of the pooled size ({number(pooled['coef'])}) at the 5% level in "
              f"{sum(c['p'] <= 0.05 for c in centres)} of {len(centres)} centres here: "
              "which centre the paper shows, and its split, decide"),
        Claim("2.1, Fig. 3", f"pooled, {arm}'s log HR is significant at p < 0.001",
              f"log HR {number(pooled['coef'])} {interval(pooled['low'], pooled['high'])}, "
              f"p = {sci(pooled['p'])} ({pooled['patients']:,} patients, "
              f"{pooled['events']} events)", {"": pooled["p"] < 1e-3},
              "the pooled effect is weaker than the paper's"),
    ]


def pvalue_claims(tests: pd.DataFrame, scale: float, rounds: int, sensitivity: float,
                statistic: float) -> list[Claim]:
    """Sec. 5's tests (:func:`analysis.inference.pvalues_table`' table), with the
    distributed test's noise (Laplace scale, rounds K, Δ) and the pooled statistic."""
    table = tests.set_index("method")
    pooled, ours = table.loc["centralized"], table.loc["test"]
    rate, low, high = share(ours.reject, int(ours.runs))
    return [
        Claim("5", "centralized test of ddI against ZDV: P < 10⁻⁴",
              f"P = {pvalue(pooled['median'])} (pooled GLRT, χ²₁ by Wilks, statistic "
              f"{number(statistic)})", {"": pooled["median"] < 1e-4},
              "the pooled likelihood ratio is smaller than the paper's"),
        Claim("5", "distributed test (5 centres, ε = 1): P < 10⁻⁵",
              f"median P over {int(ours.runs)} runs {pvalue(ours['median'])} "
              f"{interval(ours.low, ours.high, pvalue)} (95%); P < 10⁻⁵ in "
              f"{percent(ours.below_1e5)} of runs; rejects at α = {ours.alpha:g} in "
              f"{percent(rate)} {interval(low, high, percent)}",
              {"median": ours["median"] < 1e-5},
              f"each round adds Laplace noise of scale b = K·2Δ/ε = {number(scale)} (K = "
              f"{rounds} rounds at α/2, Δ = {number(sensitivity)} as printed) to every "
              "centre's log-likelihoods, against a pooled GLR statistic of "
              f"{number(statistic)}: the statistic is mostly noise, P is below 10⁻⁵ in "
              f"{percent(ours.below_1e5)} of runs; the paper reports one run"),
    ]


def treatment_claims(hazards: pd.DataFrame, mle_set: str, best: pd.DataFrame,
                     scale: Mapping[str, float], spread: float) -> list[Claim]:
    """Sec. 5, Figs 4 and 5: the best treatment, from the pooled log hazard ratios, the
    data's MLE set and each algorithm's final beliefs (:func:`analysis.inference.
    best_treatment`), with the algorithms' Laplace scales and the centres' spread of
    scores between arms."""
    top = hazards.loc[hazards.coef.idxmin()]
    claims = [Claim(
        "5, Fig. 4", f"{ARM_BEST} is the best treatment (ground truth)",
        "pooled log HR vs ZDV: " + "; ".join(f"{r.arm} {number(r.coef)}"
                                             for r in hazards.itertuples())
        + f"; Θ* of the centres' GLR scores: {mle_set}",
        {"log HR": top.arm == ARM_BEST, "Θ*": mle_set == ARM_BEST},
        "the data rank the arms differently")]
    rows = best.set_index("method")
    methods = [m for m in inference.PRIVATE_MLE if m in rows.index]
    column = f"share_{ARM_BEST}"
    parts = []
    for m in methods:
        value, low, high = share(rows.loc[m, column], int(rows.loc[m, "runs"]))
        parts.append(f"{name('method', m, inference.FAMILY)} {percent(value)} "
                     f"{interval(low, high, percent)}")
    scales = ", ".join(f"{number(scale[m])} ({name('method', m, inference.FAMILY)})"
                       for m in methods if m in scale)
    states = [c.removeprefix("mean_") for c in rows.columns if c.startswith("mean_")]
    means = rows.loc[methods, [f"mean_{state}" for state in states]].to_numpy().ravel()
    claims.append(Claim(
        "5, Fig. 5", f"AM, GM and the two-threshold algorithm identify {ARM_BEST} (5 "
        "centres, ε = 1)",
        f"runs whose top final belief is {ARM_BEST} (of {int(rows.runs.max())}; chance: "
        f"{percent(1 / 3)}): " + "; ".join(parts),
        {name("method", m, inference.FAMILY): most(rows.loc[m, column],
                                                   int(rows.loc[m, "runs"]))
         for m in methods},
        f"the Laplace noise on each centre's scores has scale b = K|Θ|·2Δ/ε = {scales}, "
        f"against scores that differ between arms by at most {number(spread)} at a "
        "centre: every round's belief is decided by the noise, and the mean final beliefs "
        f"are {span(means)} against 1/|Θ| = {number(1 / len(states))} (Fig. 5)"))
    return claims


def rizk_claims(ratios: pd.DataFrame) -> list[Claim]:
    """Sec. 5, Fig. 6 against Rizk et al. (:func:`analysis.inference.rizk_ratios`)."""
    largest = ratios.loc[ratios.ratio.idxmax()]
    method = name("method", largest.method, inference.FAMILY)
    below = {name("method", m, inference.FAMILY): bool((part.ours < part.rizk).all())
             for m, part in ratios.groupby("method", sort=False)}
    return [
        Claim("5, Fig. 6", "our MLE algorithms' TVD to the ground truth is below Rizk et "
              "al.'s",
              f"ours {span(ratios.ours)} against Rizk et al.'s {span(ratios.rizk)} over "
              f"{ratios.n.nunique()} n × {ratios.epsilon.nunique()} ε", below,
              "Rizk et al.'s TVD is not always the larger"),
        Claim("5", "up to 100 times smaller errors than Rizk et al.",
              f"largest ratio {number(largest.ratio)} ± {number(largest.ratio_se)} "
              f"({method}, n = {largest.n}, ε = {largest.epsilon:g}: "
              f"{number(largest.rizk)} against {number(largest.ours)}); ratios "
              f"{span(ratios.ratio)}",
              {"": RIZK_CLAIM[0] <= largest.ratio <= RIZK_CLAIM[1]},
              f"a TVD is at most 1 and Rizk et al.'s is {span(ratios.rizk)} (from θ = 0 with "
              "η = 0.001 their iterate stays nearest the state 0 ∉ Θ*), so a ratio of 100 "
              "needs ours "
              f"at 0.01; ours is at least {number(ratios.ours.min())} at these ε. The "
              "authors' notebook adds U(0, 0.05) to the plotted TVD and measures it to the "
              "non-private run: Rizk et al.'s TVD to their own noiseless run (which "
              f"stays at θ = 0 too) is at most {number(ratios.rizk_private.max())}"),
    ]


def runtime_claims(table: pd.DataFrame) -> list[Claim]:
    """Sec. 5 and Sec. 14.3: the time per run (:func:`analysis.inference.runtimes`)."""
    n_max = int(table["graph.n_nodes"].max())
    at_max = table[table["graph.n_nodes"] == n_max].per_run.max()
    sec5 = inference.PAPER_RUNTIME[1] / at_max
    actg = inference.PAPER_RUNTIME_ACTG[1] / at_max
    six = table[table["graph.n_nodes"] >= 6]
    n_min = int(table["graph.n_nodes"].min())
    return [
        Claim("5", f"a run takes 10⁻² to 10 s for n = 3 to {n_max} (ours must be ≥ 10× "
              f"faster at n = {n_max})",
              f"{span(table.per_run, sci)} s per run (the belief exchange; each cell "
              "prepares the centres' likelihoods once) for n = "
              f"{n_min}–{n_max}; at n = "
              f"{n_max} at most {sci(at_max)} s: {number(sec5)} times faster than 10 s",
              {"within 10 s": bool(table.per_run.max() <= 10),
               f"≥ 10× faster at n = {n_max}": bool(sec5 >= 10)},
              "our runs take longer than the paper's"),
        Claim("14.3, Fig. 14.2", "runtimes from ∼10⁻² s to ∼1 s (ACTG 175 resampled to "
              "4,096 and 8,192 time points, n = 6 to 96)",
              f"{span(six.per_run, sci)} s per run; at n = {n_max} {number(actg)} times "
              "faster than 1 s",
              {"at most ∼1 s": bool(six.per_run.max() <= 1)},
              "our runs take longer than the paper's"),
    ]


def recovery_claims(rates: pd.DataFrame, epsilon: float, gap: float) -> list[Claim]:
    """Sec. 14.1 (n = 5, ddI against ZDV, Θ = {0, −log 2}): exact recovery at T at
    ``epsilon`` per method (rows of the quickstart's simulated summary at T: method,
    exact_recovery, n (runs), type_i_error, noise_scale, iterations_t), with the gap
    Λ(θ*) − Λ(other) of the centres' log-likelihoods."""
    rows = rates.set_index("method")

    def part(methods: Sequence[str]) -> tuple[str, dict[str, bool]]:
        texts, checks = [], {}
        for m in methods:
            value, low, high = share(rows.loc[m, "exact_recovery"], int(rows.loc[m, "n"]))
            label = name("method", m, inference.FAMILY)
            texts.append(f"{label} {percent(value)} {interval(low, high, percent)}")
            checks[label] = low > MOST
        return "; ".join(texts), checks

    mle, mle_checks = part(["am", "gm"])
    threshold, threshold_checks = part(["threshold_1", "threshold_2"])
    online, online_checks = part(["private_ol"])
    runs = int(rows.n.max())
    return [
        Claim("14.1, Fig. 14.1(a)", "Alg. 1 (AM, GM) recovers Θ* = {−log 2} (5 centres, "
              f"ε = {epsilon:g})", f"exact recovery at T over {runs} runs: {mle}",
              mle_checks,
              f"AM returns a superset (type I error {percent(rows.loc['am', 'type_i_error'])}):"
              " it controls the type II error only; the Laplace noise (b = "
              f"{number(rows.loc['am', 'noise_scale'])} for AM, "
              f"{number(rows.loc['gm', 'noise_scale'])} for GM, per centre, state and "
              f"round) is large against the gap Λ(−log 2) − Λ(0) = {number(gap)}"),
        Claim("14.1, Fig. 14.1(b)", "the two-threshold algorithm recovers Θ*",
              f"exact recovery at T: {threshold}", threshold_checks,
              "with the printed counting p₁ = 1 − 1/|Θ*| = 0 for |Θ*| = 1, so "
              "τ^{thres,1} = 0 and Θ̂^{thres,1} is every state (type I error "
              f"{percent(rows.loc['threshold_1', 'type_i_error'])}); the paper's run uses a "
              "single threshold (τ̂ = 0, τ = 1.5), which the preset does not"),
        Claim("14.1, Fig. 14.1(c)", "private online learning (Alg. 3) identifies θ° = −log 2",
              f"exact recovery at T: {online}", online_checks,
              f"{int(rows.loc['private_ol', 'iterations_t'])} rounds of the trial's "
              f"patients (a gap of {number(gap)} in all) against Laplace noise of scale "
              f"{number(rows.loc['private_ol', 'noise_scale'])} per centre, state and round"),
    ]


THEOREMS = {
    "Thm 4.2": (("gm", "type_i_error"), ("am", "type_ii_error")),
    "Thm 4.3": (("threshold_1", "type_i_error"), ("threshold_2", "type_ii_error")),
    "Thm 4.7": (("private_ol", "exact_recovery"),),
}
THEOREM_CLAIMS = {
    "Thm 4.2": "GM's type I error ≤ 2α, AM's type II error ≤ 2(1 − β)",
    "Thm 4.3": "Alg. 2: type I ≤ |Θ̄|e^{−2Kπ₁²}, type II ≤ |Θ*|e^{−2Kπ₂²}",
    "Thm 4.7": "private OL recovers θ° with probability ≥ 1 − 2η",
}


def bound_claims(rates: pd.DataFrame, gaps: Mapping[int, float]) -> list[Claim]:
    """The theorems' guarantees over every cell that has a bound row
    (:func:`analysis.inference.final_rates` of the presets' summaries, concatenated with
    a ``preset`` column), with the likelihood gaps of the Cox cells by n."""
    gap = (f"likelihood gaps l_{{n,Θ}} of {span(gaps.values())} (n = "
           f"{_series(sorted(gaps), str)})")

    def noise(b: str) -> str:
        return ("the theorems take K from α and β alone; as T grows, GM returns the "
                "argmax of the rounds' average noisy log-likelihoods and AM every state "
                f"some round ranks first, so with Laplace noise of scale b = {b} per centre, "
                f"state and round against {gap} the rounds' answers are close to coin "
                "flips, whatever K and T")

    readings: dict[str, Callable[[str, str], str]] = {
        "Thm 4.2": lambda b, t: noise(b),
        "Thm 4.3": lambda b, t: noise(b) + "; and under the printed counting p₁ = 1 − "
                   "1/|Θ*| = 0, so τ^{thres,1} = 0 and Θ̂^{thres,1} keeps every state",
        "Thm 4.7": lambda b, t: (
            f"T = {t} rounds, each adding Laplace noise of scale b = {b} per agent and "
            "state to the round's log-likelihoods"),
    }
    claims = []
    for theorem, pairs in THEOREMS.items():
        checks, texts, worst, scales, times = {}, [], [], [], []
        for method, metric in pairs:
            part = rates[(rates.method == method) & (rates.metric == metric)]
            if part.empty:
                continue
            label = name("method", method, inference.FAMILY)
            checks[label] = bool(part.holds.all())
            texts.append(f"{label}: within the bound in {int(part.holds.sum())} of "
                         f"{len(part)} cells")
            gap_ = (part.bound - part.rate) if part.lower.iloc[0] else (part.rate - part.bound)
            w = part.loc[gap_.idxmax()]
            worst.append(f"{label} {number(w.rate)} {interval(w.low, w.high)} against "
                         f"{number(w.bound)} (n = {w.n}, ε = {w.epsilon:g})")
            scales += part.noise_scale.tolist()
            times += part.iterations_t.tolist()
        if not checks:
            continue
        presets = ", ".join(sorted(rates.preset.unique()))
        claims.append(Claim(
            theorem, THEOREM_CLAIMS[theorem], "; ".join(texts) + f" ({presets}); furthest: "
            + "; ".join(worst), checks,
            readings[theorem](span(scales), span(times, lambda v: f"{v:.0f}"))))
    return claims


def inference_values(results: Results) -> Values:
    """The inference paper's claims (Secs 2, 5, 14.1, 14.3 and the theorems), checked
    against the presets' results: the claims table and the numbers the prose states."""
    s = results.summaries
    rr = inference.critical_table(s["inference_fig1"], "rr")
    laplace = inference.critical_table(s["inference_fig2"], "laplace")
    claims = toy_claims(rr, laplace)

    actg = s["inference_actg"]
    cox = inference.survival_cell(actg, ("cox",), "reproduce")
    centres = [inference.hazard_ratio(frame) for frame in inference.cox_centre_frames(cox)]
    pooled = inference.hazard_ratio(pd.concat(inference.cox_centre_frames(cox),
                                              ignore_index=True))
    arm = inference.ARMS[int(cox.arm)]
    claims += hospital_claims(centres, pooled, arm)

    root = results.root / "inference_actg"
    tests = inference.pvalues_table(inference.load_rows(root, model="cox"))
    test_cell = actg[(actg.method == "test") & (actg.source == "simulated")].iloc[0]
    pooled_cell = actg[(actg.method == "centralized") & (actg.model == "cox")
                       & (actg.source == "simulated")].iloc[0]
    claims += pvalue_claims(tests, float(test_cell.noise_scale), int(test_cell.rounds_k),
                          float(test_cell.sensitivity_bound), float(pooled_cell.statistic))

    treatments = inference.survival_cell(actg, ("treatments",), "reproduce")
    frames = inference.centre_frames(treatments)
    hazards = inference.hazard_ratios(pd.concat(frames, ignore_index=True))
    best = inference.best_treatment(inference.load_rows(root, model="treatments",
                                                        source="belief"))
    cells = actg[(actg.model == "treatments") & (actg.source == "simulated")]
    scale = cells.drop_duplicates("method").set_index("method").noise_scale.to_dict()
    mle_set = str(cells.mle_set.iloc[0])
    spread = inference.score_spread(treatments)
    claims += treatment_claims(hazards, mle_set, best, scale, spread)

    claims += rizk_claims(inference.rizk_ratios(s["inference_fig6"]))
    times = inference.runtimes(results.root / "inference_runtime", s["inference_runtime"])
    claims += runtime_claims(times)

    quick = s["inference_quickstart"]
    epsilon = 1.0 if (quick.epsilon == 1.0).any() else float(quick.epsilon.min())
    final = quick[(quick.source == "simulated") & (quick.epsilon == epsilon)]
    final = final[final.t == final.groupby("cell_id").t.transform("max")]
    gaps = {}
    for summary in (quick, s["inference_fig6"]):
        cells = summary[(summary.model == "cox") & (summary.source == "bound")]
        for _, cell in cells.drop_duplicates("graph.n_nodes").iterrows():
            gaps[int(cell["graph.n_nodes"])] = inference.likelihood_gap(cell)
    quick_cell = quick[quick.model == "cox"].iloc[0]
    claims += recovery_claims(final, epsilon, inference.likelihood_gap(quick_cell))

    rates = pd.concat([inference.final_rates(s[p]).assign(preset=p) for p in (
        "inference_quickstart", "inference_fig6", "inference_actg")], ignore_index=True)
    claims += bound_claims(rates, gaps)

    agreed = sum(c.agrees for c in claims)
    fig2 = s["inference_fig2"]
    return {
        "inference_claims": claims_table(claims),
        "inference_agreed": f"{agreed} of {len(claims)}",
        "inference_toy_runs": f"{int(fig2[fig2.source == 'simulated'].n.max()):,}",
        "inference_actg_runs": f"{int(actg.replicates.max()):,}",
        "inference_fig6_runs": f"{int(s['inference_fig6'].replicates.max()):,}",
        "inference_runtime_runs": f"{int(times.replicates.max()):,}",
        "inference_centre_p": number(centres[0]["p"], 2),
        "inference_test_scale": number(float(test_cell.noise_scale)),
    }


def provenance_values(results: Results) -> Values:
    """The runs' provenance: cells, compute time, elapsed time and the code's version."""
    table = []
    for preset, summary in results.summaries.items():
        cells = set(summary.cell_id.unique())
        store = ResultsStore(results.root / preset)
        store.scan()
        records = [record for path in store.files
                   for cell, record in cell_records(pq.read_schema(path).metadata).items()
                   if cell in cells]
        commits = sorted({(r.get("git_commit") or "unknown")[:10] for r in records})
        versions = sorted({r.get("version", "unknown") for r in records})
        table.append([f"`{preset}`", str(len(records)),
                      duration(sum(r["wall_seconds"] for r in records)),
                      duration(max(r["finished"] for r in records)
                               - min(r["started"] for r in records)),
                      ", ".join(versions), ", ".join(commits)])
    return {"provenance": markdown_table(
        ["results", "cells", "compute time", "elapsed", "dpsweep", "commit"], table)}


def size_values(results: Results) -> Values:
    """The sizes of the runs read, and whether they are other than the papers'."""
    found, other = [], False
    for preset in PRESETS.values():
        summary = results.summaries[preset.name]
        paper = {**preset.sizes, "replicates": preset.replicates}
        parts = []
        for column, wanted in paper.items():
            present = sorted(summary[column].dropna().unique())
            allowed = wanted if isinstance(wanted, list) else [wanted]
            other |= not set(present) <= set(allowed)
            parts.append(f"{SIZE_NAMES[column]} = {'/'.join(f'{v:,}' for v in present)}")
        found.append(f"{preset.name}: {', '.join(parts)}")
    return {"other_sizes": other, "sizes_found": "; ".join(found)}


# -- The template -----------------------------------------------------------------------

TAG = re.compile(r"\{\{\s*([#^/]?)\s*(\w+)\s*\}\}")
SECTION = re.compile(r"\{\{([#^])(\w+)\}\}(.*?)\{\{/\2\}\}", re.S)
STANDALONE = re.compile(r"^[ \t]*(\{\{[#^/]\w+\}\})[ \t]*\n", re.M)
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


class TemplateError(ValueError):
    """The template names a value that was not computed, or a tag was left unfilled."""


def fill(template: str, values: Mapping[str, str | bool]) -> str:
    """The template with its sections resolved and its placeholders replaced."""
    unknown = sorted({tag for _, tag in TAG.findall(template)} - set(values))
    if unknown:
        raise TemplateError(f"no value computed for {', '.join(unknown)}")
    text = STANDALONE.sub(r"\1", template)
    while section := SECTION.search(text):
        kind, key, content = section.groups()
        kept = bool(values[key]) == (kind == "#")
        text = text[:section.start()] + (content if kept else "") + text[section.end():]

    def replace(tag: re.Match[str]) -> str:
        value = values[tag[2]]
        if tag[1] or not isinstance(value, str):
            raise TemplateError(f"{tag[0]} is not a text placeholder, or has no value here")
        return value

    text = TAG.sub(replace, text)
    if "{{" in text or "}}" in text:
        raise TemplateError(f"unfilled tag near {text[text.find('{{'):][:60]!r}")
    return text


def template() -> str:
    """The document's template, shipped with the package."""
    return (resources.files("analysis") / "templates" / "reproduction.md").read_text("utf-8")


def write(text: str, figures: Iterable[tuple[str, Callable[[], Any]]], out_dir: Path,
          name: str) -> Path:
    """Draw each ``(figure, draw)`` into ``out_dir/figures/<figure>.png``, then write
    ``text`` to ``out_dir/<name>``; returns its path. :class:`TemplateError` if the text
    shows an image that was not drawn."""
    for figure, draw in figures:
        save(draw(), out_dir / "figures" / figure, formats=("png",))
    missing = [image for image in IMAGE.findall(text) if not (out_dir / image).is_file()]
    if missing:
        raise TemplateError(f"the document shows {', '.join(missing)}, which was not drawn")
    path = out_dir / name
    path.write_text(text, encoding="utf-8")
    return path


def render(root: str | Path, out_dir: str | Path = "docs", any_size: bool = False) -> Path:
    """Render the reproduction document from the presets' results under ``root``.

    Draws the figures into ``out_dir/figures/`` (PNG) and writes
    ``out_dir/reproduction.md``; returns its path. :class:`MissingData` if a preset's
    results are absent or lack a series the document states, :class:`TemplateError` if a
    placeholder stays unfilled.
    """
    results = Results.read(root, any_size)
    values = {**size_values(results), **provenance_values(results), **colme_values(results),
              **variance_values(results), **rizk_values(results), **network_values(results)}
    values.update(inference_values(results))
    figures = ((figure, _drawer(results, p, figure, any_size))
               for p in PRESETS.values() for figure in p.figures)
    return write(fill(template(), values), figures, Path(out_dir), "reproduction.md")


def _drawer(results: Results, preset: Preset, figure: str, any_size: bool
            ) -> Callable[[], Any]:
    """How to draw ``figure`` of ``preset``: a paper figure of :mod:`analysis.figures`, or
    one of the inference paper's (:data:`analysis.inference.FIGURES`), which read the
    preset's results directory too (the run times are in its provenance)."""
    summary = results.summaries[preset.name]
    if figure in FIGURES:
        return functools.partial(FIGURES[figure].draw, summary, paper=not any_size)
    return functools.partial(inference.FIGURES[figure], summary, results.root / preset.name)


def command(argv: list[str] | None, name: str, document: str, presets: Iterable[str],
            render: Callable[[str, str, bool], Path], sizes: str) -> int:
    """``python -m analysis NAME ROOT [--out DIR] [--any-size]``: render ``document``
    from the results of ``presets`` under ROOT with ``render(root, out, any_size)``;
    ``sizes`` names the runs read by default (e.g. "the papers'")."""
    parser = argparse.ArgumentParser(
        prog=f"python -m analysis {name}",
        description=f"Render {document} and its figures from the presets' results.")
    parser.add_argument("root", help="directory holding one results directory per preset: "
                        + ", ".join(presets))
    parser.add_argument("--out", default="docs", help="output directory (default: docs)")
    parser.add_argument("--any-size", action="store_true",
                        help=f"read runs of any size, not only {sizes} (e.g. small test "
                        "runs); the document says so at its top")
    args = parser.parse_args(argv)
    matplotlib.use("Agg")  # the command writes files; it never opens a window
    try:
        print(render(args.root, args.out, args.any_size))
    except MissingData as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m analysis reproduce ROOT [--out DIR] [--any-size]``."""
    return command(argv, "reproduce", "reproduction.md", PRESETS, render, "the papers'")


if __name__ == "__main__":
    sys.exit(main())
