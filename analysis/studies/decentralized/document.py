"""The decentralized study's section of ``docs/decentralized.md``: every number, table and
verdict its template (``decentralized.md`` in this package) names, computed from the
presets' rows and the summary of the reference's runs (:mod:`.reference`).

- :func:`agreement_values`: our runs against the reference's at every checkpoint, per
  algorithm, N and quantity (:class:`~analysis.claims.Curves`), and a table of both at
  a few checkpoints;
- :func:`claim_rows`: the AAAI abstract's claims (per-agent cost O(r) and O(r log|A|),
  convergence to the oracle) and the reference's values measured on one run;
- :func:`degree_values` and :func:`privacy_values`: what the degree and the private
  sweeps find.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

import numpy as np
import pandas as pd
from scipy import stats

from analysis.claims import Claim, Curves, Factor, Ordering, Value, Verdict, markdown_table
from analysis.document import Values, cell_provenance
from analysis.labels import name
from analysis.load import MissingData
from analysis.numbers import number, sci
from analysis.study import Results

from .figures import ALGORITHMS, FAMILY, REFERENCE_N, half_width, interval
from .reference import stored

#: The quantities held against the reference's runs: (row of ours, metric, label); the
#: algorithm's rows are its estimate's, ``{a}_oracle`` its oracle's.
QUANTITIES = (("{a}", "within", "within 0.1: estimate"), ("local", "within", "within 0.1: local"),
              ("{a}_oracle", "within", "within 0.1: oracle"),
              ("{a}", "wrong_links", "wrong links"), ("{a}", "lost_links", "lost links"))
#: The steps at which the detail tables show both sides: the checkpoints nearest these.
SHOWN = (2, 10, 100, 300, 500, 750, 1000, 1500, 2000)
#: How the time per agent-step grows, by whether the fitted slope exceeds 1.
GROWTH = {True: "faster than", False: "about as fast as"}
#: Whether private C-ColME beats the local mean, by the verdict of its check.
BEATS = {Verdict.AGREES: "yes", Verdict.DISAGREES: "no: worse than the local mean",
         Verdict.INCONCLUSIVE: "the runs cannot tell them apart"}
#: The values the reference's code printed on one run (seed 111, N = 10⁴, C-ColME, the
#: first run of its process), by (quantity, iteration): ``iteration`` + 1 samples.
REFERENCE_RUN = ((("c_colme", "within"), 500, "0.227"), (("c_colme", "within"), 1000, "0.978"),
                 (("c_colme", "wrong_links"), 1000, "146"), (("c_colme", "within"), 1500, "1.0"),
                 (("c_colme", "wrong_links"), 1500, "0"), (("local", "within"), 500, "0.736"),
                 (("local", "within"), 1999, "0.975"))


def values(results: Results) -> Values:
    """Every value of the section's template."""
    reference = results.runs["decentralized_reference"]
    degree = results.runs["decentralized_degree"]
    return {**setting_values(reference), **agreement_values(reference, stored()),
            **degree_values(degree), **privacy_values(results.runs["decentralized_private"]),
            "decentralized_claims": [*cost_claims(results, "decentralized_degree"),
                                     *convergence_claims(degree),
                                     *reference_run_claims(reference)]}


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


def compared(rows: pd.DataFrame, reference: pd.DataFrame, algorithm: str, n_nodes: int,
             method: str, metric: str) -> pd.DataFrame:
    """Ours and the reference's mean, standard deviation and runs of one quantity at
    every checkpoint both have, with Welch's p-value."""
    ours = per_run(cell_of(rows, method=algorithm, **{"graph.n_nodes": n_nodes}), method, metric)
    theirs = reference[(reference.algorithm == algorithm) & (reference.n_nodes == n_nodes)
                       & (reference.method == method) & (reference.metric == metric)]
    both = theirs.set_index("t").join(pd.DataFrame({
        "ours_mean": ours.mean(), "ours_sd": ours.std(ddof=1), "ours_runs": ours.count()}),
        how="inner")
    both["p"] = welch(both["mean"].to_numpy(), both["sd"].to_numpy(), both["runs"].to_numpy(),
                      both["ours_mean"].to_numpy(), both["ours_sd"].to_numpy(),
                      both["ours_runs"].to_numpy())
    return both.reset_index()


def _sides(row: pd.Series, metric: str) -> tuple[str, str]:
    """The reference's and our mean ± Student-t 95% half-width in ``row`` (of
    :func:`compared`): fractions to three decimals, link counts to units."""
    digits = ".3f" if metric == "within" else ".0f"

    def text(mean: float, sd: float, runs: int) -> str:
        return f"{mean:{digits}} ± {float(half_width(sd, runs)):{digits}}"

    return (text(row["mean"], row["sd"], row["runs"]),
            text(row["ours_mean"], row["ours_sd"], row["ours_runs"]))


def agreement_values(rows: pd.DataFrame, reference: pd.DataFrame) -> Values:
    """The checks of our runs against the reference's (``agreement_checks``) and the
    detail tables (``agreement_tables``)."""
    checks, tables = [], []
    sizes = sorted(set(rows["graph.n_nodes"]) & set(reference.n_nodes))
    for algorithm in ALGORITHMS:
        for n_nodes in sizes:
            found = {}
            for method, metric, label in QUANTITIES:
                method = method.format(a=algorithm)
                both = compared(rows, reference, algorithm, n_nodes, method, metric)
                found[label] = both
                worst = both.loc[both["p"].idxmin()]
                evidence = Curves(label, float(worst["p"]), int(worst["t"]), len(both))
                theirs, ours = _sides(worst, metric)
                reading = (f"largest difference at t = {int(worst['t'])}: reference {theirs}, "
                           f"ours {ours}")
                if worst["ours_sd"] == 0 or worst["sd"] == 0:
                    reading += (" (one side takes the same value in all its runs: so rare an "
                                "event is far from the normal law Welch's test assumes)")
                checks.append(Claim(
                    "code", f"the {label} curve agrees with the reference's runs",
                    evidence, case=f"{name('method', algorithm, FAMILY)}, N = {n_nodes:,}",
                    ours=(f"{int(both['ours_runs'].min())} runs against the reference's "
                          f"{int(both['runs'].min())}"),
                    reading="" if evidence.decide() is Verdict.AGREES else reading))
            tables.append(_detail_table(algorithm, n_nodes, found))
    return {"agreement_checks": checks, "agreement_tables": "\n\n".join(tables)}


def _detail_table(algorithm: str, n_nodes: int, found: dict[str, pd.DataFrame]) -> str:
    """The reference's and our means ± Student-t 95% half-widths at the checkpoints
    nearest :data:`SHOWN`."""
    times = next(iter(found.values()))["t"]
    shown = list(dict.fromkeys(nearest(times, t) for t in SHOWN))
    lines = []
    for t in shown:
        cells = [f"{t:,}"]
        for (_, metric, _), both in zip(QUANTITIES, found.values(), strict=True):
            row = both[both.t == t].iloc[0]
            held = Curves("", float(row["p"]), t, len(both)).decide()
            mark = "" if held is Verdict.AGREES else " ✗"
            cells.append(" / ".join(_sides(row, metric)) + mark)
        lines.append(cells)
    title = f"**{name('method', algorithm, FAMILY)}, N = {n_nodes:,}** (reference / ours)"
    return f"{title}\n\n" + markdown_table(["t", *found], lines)


# -- The abstract's claims and the reference's measured values ---------------------------

def cost_claims(results: Results, preset: str) -> list[Claim]:
    """Per-agent cost O(r) (C-ColME) and O(r log|A|) (B-ColME, at a fixed depth D: O(r)):
    the log–log slope of the compute time per agent and step against r over the degree
    preset's cells, held below 1 (:class:`Ordering`, z ≥ 2; the slope's standard error
    from the fit's residuals)."""
    records = cell_provenance(results, preset)
    rows = results.runs[preset]
    cells = rows.drop_duplicates("cell_id").set_index("cell_id")
    claims = []
    for algorithm, claim in (("c_colme", "C-ColME's per-agent cost is O(r)"),
                             ("b_colme", "B-ColME's per-agent cost is O(r log|A|)")):
        of = cells[cells.method == algorithm]
        if len(of) < 3:
            continue
        seconds = np.array([records[c]["wall_seconds"] for c in of.index])
        work = (of["graph.n_nodes"] * of["t_max"] * of["replicates"]).to_numpy(float)
        x = np.log(of["graph.degree"].to_numpy(float))
        y = np.log(seconds / work)
        fit = stats.linregress(x, y)
        degrees = of["graph.degree"].to_numpy()
        order = np.argsort(degrees)
        per_step = ", ".join(f"{sci(seconds[i] / work[i])} s at r = {degrees[i]:g}"
                             for i in order)
        case = (f"r = {degrees.min():g}–{degrees.max():g}"
                + (f", D = {of['depth'].iloc[0]:g}" if algorithm == "b_colme" else ""))
        claims.append(Claim(
            "abstract", claim,
            Ordering("log–log slope of compute time per agent-step against r − 1",
                     fit.slope - 1.0, fit.stderr, "<"),
            case=case,
            ours=f"compute time per agent-step (estimate, oracle and baselines): {per_step}",
            reading="" if fit.slope + 2 * fit.stderr < 1 else
            f"the slope is not below 1 at z ≥ 2: the time grows {GROWTH[fit.slope > 1]} r "
            "over these degrees; one timing per cell, and the memory's share of a step "
            "grows with the arrays, which outgrow the caches as r grows"))
    return claims


def convergence_claims(rows: pd.DataFrame) -> list[Claim]:
    """Convergence to the oracle: per algorithm and degree, the ratio of the estimate's
    mean squared error at the last step to its oracle's, against 1 read to the nearest
    decade (:class:`Factor`, over the runs' log ratios)."""
    claims = []
    for (algorithm, degree), cell, t_max in cells_by(
            rows, ["method", "graph.degree"], rows[rows.method.isin(ALGORITHMS)]):
        estimate = per_run(cell, algorithm, "mse")[t_max]
        oracle = per_run(cell, f"{algorithm}_oracle", "mse")[t_max]
        logs = np.log(estimate / oracle)
        se = float(logs.std(ddof=1) / math.sqrt(len(logs)))
        wrong = per_run(cell, algorithm, "wrong_links")[t_max]
        evidence = Factor.of_log(f"MSE ratio estimate / oracle at t = {t_max:,}",
                                 float(logs.mean()), se, "1")
        claims.append(Claim(
            "abstract", f"{name('method', algorithm, FAMILY)} converges to the oracle",
            evidence, case=f"r = {degree:g}",
            ours=(f"MSE {sci(estimate.mean())} against the oracle's {sci(oracle.mean())}; "
                  f"wrong links left {wrong.mean():.1f}"),
            reading="" if evidence.decide() is Verdict.AGREES else
            "the estimate has not reached its oracle's error by the last step (the degree "
            "table says when its wrong links are cut)"))
    return claims


def prediction(values: pd.Series) -> tuple[float, float, float]:
    """The mean of ``values`` (one per run) and the Student-t 95% prediction interval of
    one more run."""
    mean = float(values.mean())
    half = float(half_width(values.std(ddof=1), len(values), prediction=True))
    return mean, mean - half, mean + half


def reference_run_claims(rows: pd.DataFrame) -> list[Claim]:
    """The values the reference's code printed on one run (:data:`REFERENCE_RUN`) against
    the 95% prediction interval of one of our runs at the nearest checkpoint
    (:class:`Value`: the interval against the value's printed precision), at the
    reference's N = 10⁴ (or the largest N of the runs)."""
    sizes = set(rows["graph.n_nodes"])
    n_nodes = REFERENCE_N if REFERENCE_N in sizes else max(sizes)
    cell = cell_of(rows, method="c_colme", **{"graph.n_nodes": n_nodes})
    claims = []
    for (method, metric), iteration, printed in REFERENCE_RUN:
        runs = per_run(cell, method, metric)
        t = nearest(runs.columns, iteration + 1)
        mean, low, high = prediction(runs[t])
        what = "fraction within 0.1" if metric == "within" else "wrong links"
        evidence = Value(f"{what} of a run at t = {t:,}, 95% prediction interval", mean,
                         low, high, printed)
        claims.append(Claim(
            "code (seed 111)", f"{name('method', method, FAMILY)}: {what} {printed} at "
            f"iteration {iteration:,}", evidence, case=f"N = {n_nodes:,}",
            ours=f"mean of {len(runs)} runs {number(mean)}",
            reading="" if evidence.decide() is Verdict.AGREES else
            "the reference's run falls outside the range of ours at this step"))
    return claims


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


def privacy_values(rows: pd.DataFrame) -> Values:
    """``privacy_checks``: per mechanism, ε and degree, whether private C-ColME's mean
    squared error at the last step is below the local mean's (paired over the runs,
    which share their samples); ``private_summary`` says where, per mechanism;
    ``privacy_table``: the links it keeps and cuts."""
    checks, lines = [], []
    found: dict[str, dict[Verdict, list[str]]] = {}
    private = rows[rows["privacy.mechanism"] != "none"]
    keys = ["privacy.mechanism", "epsilon", "graph.degree"]
    for (mechanism, epsilon, degree), cell, t_max in cells_by(rows, keys, private):
        ours = per_run(cell, "c_colme", "mse")[t_max]
        local = per_run(cell, "local", "mse")[t_max]
        evidence = Ordering.paired_runs("MSE at T, private C-ColME − local", ours.to_numpy(),
                                        local.to_numpy())
        verdict = evidence.decide()
        label = name("privacy.mechanism", mechanism, FAMILY)
        setting = f"ε = {epsilon:g}, r = {degree:g}"
        found.setdefault(label, {v: [] for v in Verdict})[verdict].append(setting)
        checks.append(Claim(
            "ours", "private C-ColME's error is below the local mean's",
            evidence, case=f"{label}, {setting}",
            ours=f"MSE {sci(ours.mean())} against the local mean's {sci(local.mean())}",
            reading="" if verdict is Verdict.AGREES else BEATS[verdict]))
        wrong = interval(per_run(cell, "c_colme", "wrong_links")[t_max])
        lost = interval(per_run(cell, "c_colme", "lost_links")[t_max])
        lines.append([label, f"{epsilon:g}", f"{degree:g}",
                      f"{wrong[0]:.1f} ± {wrong[2] - wrong[0]:.1f}",
                      f"{lost[0]:.1f} ± {lost[2] - lost[0]:.1f}", BEATS[verdict]])
    first = private.iloc[0]
    return {"privacy_checks": checks, "private_summary": private_summary(found),
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
