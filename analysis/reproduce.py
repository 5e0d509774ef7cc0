"""The reproduction document, rendered from the stored results of the papers' presets.

``python -m analysis reproduce ROOT --out docs`` reads the results the document's commands
write under ``ROOT`` (one directory per preset: ``ROOT/fig2_left``, ``ROOT/fig2_oracle``,
``ROOT/fig3``, ``ROOT/fig4``, ``ROOT/fig7``, ``ROOT/sample_paths``), computes every
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
n = 969 and 4,941 nodes, T = 100 rounds); ``any_size=True`` reads whatever sizes the
directories hold (e.g. small test runs), and the document then says so at its top.
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

from .figures import FIGURES
from .labels import name
from .load import summaries
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
              "replicates": "runs"}
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


def verdict(checks: Mapping[str, bool]) -> str:
    """``yes`` if every check holds and ``**no**`` if none does; otherwise the majority's
    answer with its exceptions: ``yes, except ...`` or ``**no**, except ...``."""
    held = [label for label, holds in checks.items() if holds]
    failed = [label for label, holds in checks.items() if not holds]
    if not failed or not held:
        return "yes" if held else "**no**"
    if len(failed) <= len(held):
        return f"yes, except {', '.join(failed)}"
    return f"**no**, except {', '.join(held)}"


def within(ratio: float, tolerance: float = TOLERANCE) -> bool:
    """Whether ``ratio`` is 1 up to a factor ``tolerance``."""
    return 1 / tolerance <= ratio <= tolerance


def duration(seconds: float) -> str:
    """Seconds as ``56 s`` or ``2 min 3 s``."""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table of text cells."""
    lines = [header, ["---"] * len(header), *rows]
    return "\n".join(f"| {' | '.join(line)} |" for line in lines)


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
    figures = ((figure, functools.partial(FIGURES[figure].draw, results.summaries[p.name],
                                          paper=not any_size))
               for p in PRESETS.values() for figure in p.figures)
    return write(fill(template(), values), figures, Path(out_dir), "reproduction.md")


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
