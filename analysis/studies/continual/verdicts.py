"""The continual paper's claims and the project's checks, each decided by a declared rule
of :mod:`analysis.claims` from the presets' runs.

The paper (George, Ramesh, Singh & Tyagi) runs no experiment: its claims are rates
(slopes, :class:`~analysis.claims.Slope`), high-probability bounds
(:class:`~analysis.claims.Guarantee`) and the design arguments between its algorithms
(:class:`~analysis.claims.Ordering`). :func:`claims` gives the paper's, one row per case;
:func:`checks` the project's own (a control run without noise, the strawmen's bounds,
Algorithm 6 against Algorithm 2), never tallied.

Every slope is fitted over a range fixed here, with its reason, before the runs were read
(:data:`SCALING_FIT`, :data:`EPSILON_FIT`, :data:`DIMENSION_FIT`), the same for every
method. Comparisons pair the runs of two cells by replicate: the family draws a
replicate's arrivals and samples from the root seed, the data options and the replicate
alone (``sweep.continual.simulate.streams``), so two methods of a preset see the same data
(their noise is independent); the standard error of the paired differences is the right
one.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.claims import Claim, Guarantee, Ordering, Slope, Value
from analysis.labels import name
from analysis.study import Results
from sweep.continual.api import ORDERS

from .figures import FAMILY, SCALING_FIT, at_end, final, slopes

#: The range of ε over which every ε-slope is fitted: the three smallest ε of the preset,
#: where the privacy term, ∝ 1/ε, dominates most. Fixed for every method.
EPSILON_FIT = (0.25, 1.0)
#: The range of d over which the dimension slopes are fitted: every d of the preset, all
#: above 2 ln(1/δ̃) ≈ 27.6 (δ̃ = 1e-6), from which advanced composition gives ε₀ ∝ 1/√d.
DIMENSION_FIT = (32.0, 256.0)
#: A scaling slope's theory: the privacy term's power of m (or M_t), up to logs.
SCALING_THEORY = {
    "alg2": ("Sec. 3, eq. (1)", "the privacy error of the naive binary mechanism, "
             "(m/(tε))·√(log t)·log T·ln(1/δ), \"is linear in m\"", 1.0),
    "alg3": ("Sec. 3 (Alg. 3), App. B", "in the wishful scenario (contiguous arrivals, a "
             "prior within 1/√m) \"one obtains a privacy error of Õ(√m/tε)\"", 0.5),
    "alg4": ("Thm 3.1", "Algorithm 4: \"|μ̂_t − μ| = Õ(1/√t + √m/(tε))\" for a given t, "
             "w.p. at least 1 − 2δ", 0.5),
    "alg5": ("Thm 3.2", "Algorithm 5: \"|μ̂_t − μ| = Õ(1/√t + √M_t/(tε))\" w.p. at least "
             "1 − δ", 0.5),
    "alg6": ("Thm 3.4", "Algorithm 6, where the diversity condition (11) holds: "
             "\"|μ̂_t − μ| = Õ(1/√t + √M_t/(tε))\" w.p. at least 1 − δ", 0.5),
}
#: Where each private method's error is stated ∝ 1/ε (ε-slope −1).
EPSILON_THEORY = {
    "naive_laplace": ("Sec. 1.1", "per-step Laplace noise: privacy error O(M_t/(tε)), "
                      "rescaled over the releases"),
    "alg2": ("Sec. 3, eq. (1)", "privacy error (m/(tε))·√(log t)·log T·ln(1/δ)"),
    "alg4": ("Thm 3.1", "Õ(1/√t + √m/(tε))"),
    "alg5": ("Thm 3.2", "Õ(1/√t + √M_t/(tε))"),
    "alg6": ("Thm 3.4", "Õ(1/√t + √M_t/(tε)) where (11) holds"),
}
#: Each theorem's bound (``sweep/continual/bounds.py``, the last inequality of its proof,
#: c = 4) and the failure probability its statement allows, in units of δ: Thm 3.1 and
#: eq. (1) state 1 − 2δ, Thms 3.2 and 3.4 state 1 − δ, App. B's proof for Alg. 3 gives
#: 1 − 3δ.
GUARANTEES = {
    "alg2": ("Sec. 3, eq. (1)", "w.p. ≥ 1 − 2δ the error is within eq. (1)", 2),
    "alg3": ("App. B", "w.p. ≥ 1 − 3δ the error is within App. B's bound", 3),
    "alg4": ("Thm 3.1, App. C.2", "w.p. ≥ 1 − 2δ the error is within Thm 3.1's bound", 2),
    "alg5": ("Thm 3.2, App. D.1", "w.p. ≥ 1 − δ the error is within Thm 3.2's bound", 1),
    "alg6": ("Thm 3.4, App. E.2", "where (11) holds, w.p. ≥ 1 − δ the error is within "
             "Thm 3.4's bound", 1),
}
#: The strawmen's bounds (Hoeffding; its Laplace tail), which hold w.p. 1 − 2δ: checks.
STRAWMEN = ("non_private", "naive_laplace")
FINE_TUNED = ("Sec. 3, after eq. (7)", "\"using multiple binary mechanisms allows us to add "
              "noise with magnitude that is more fine-tuned to exponential withhold-release\": "
              "the largest noise level ∝ √M_t, not √m, and \"M_t can be much smaller than m\"; "
              "Algorithm 5 below Algorithm 4")


def _method(method: str) -> str:
    return name("method", method, FAMILY)


def _order(order: str) -> str:
    return name("order", order, FAMILY)


def at_t(rows: pd.DataFrame, y: str = "abs_error", **where: object) -> pd.Series:
    """The simulated ``y`` at T of the one cell selected by ``where`` (``noise_scale=None``
    selects the calibrated noise), by replicate."""
    chosen = final(rows)
    for column, value in where.items():
        chosen = chosen[chosen[column].isna()] if value is None else chosen[
            chosen[column] == value]
    if chosen.cell_id.nunique() != 1:
        raise ValueError(f"{where} selects {chosen.cell_id.nunique()} cells, not one")
    return chosen.set_index("replicate")[y].sort_index()


def paired(what: str, a: pd.Series, b: pd.Series, claimed: str = "<") -> Ordering:
    """A − B over the replicates both cells ran, paired on their common data."""
    common = a.index.intersection(b.index)
    return Ordering.paired_runs(what, a[common].to_numpy(), b[common].to_numpy(), claimed)


def _fit_text(symbol: str, fit: tuple[float, float], reason: str) -> str:
    return f"{symbol} = {fit[0]:g}–{fit[1]:g} ({reason})"


def scaling_claims(rows: pd.DataFrame) -> list[Claim]:
    """The slope of each method's mean error at T against M_T = m, over :data:`SCALING_FIT`."""
    fit = _fit_text("M_T", SCALING_FIT, "fixed: (11) holds at T up to m = 256")
    found = slopes(rows, "max_count", {"fit": SCALING_FIT}).set_index("method")
    out = []
    for method, (section, claim, theory) in SCALING_THEORY.items():
        if method not in found.index:
            continue
        r = found.loc[method]
        out.append(Claim(
            section, claim, Slope("log–log slope of the mean error at T on M_T", float(r.slope),
                                  float(r.ci_low), float(r.ci_high), theory, fit),
            case=f"{_method(method)}, contiguous arrivals, ε = 1",
            ours=f"slope of its own bound over the same cells: {r.bound:.2f}",
            reading=(f"its interval holds its own bound's slope, {r.bound:.2f}: the log "
                     "factors the Õ(·) hides (the L + 1 mechanisms share ε) steepen ½ at "
                     "these m" if r.ci_low <= r.bound <= r.ci_high else
                     f"its interval excludes its own bound's slope, {r.bound:.2f}, too: "
                     "the bound's log factors do not explain it")))
    return out


def epsilon_claims(rows: pd.DataFrame) -> list[Claim]:
    """The slope of each private method's mean error at T against ε, over
    :data:`EPSILON_FIT`."""
    fit = _fit_text("ε", EPSILON_FIT, "fixed: the three smallest ε")
    found = slopes(rows, "epsilon", {"fit": EPSILON_FIT}).set_index("method")
    out = []
    for method, (section, claim) in EPSILON_THEORY.items():
        if method not in found.index:
            continue
        r = found.loc[method]
        out.append(Claim(
            section, f"privacy error ∝ 1/ε: {claim}",
            Slope("log–log slope of the mean error at T on ε", float(r.slope),
                  float(r.ci_low), float(r.ci_high), -1.0, fit),
            case=f"{_method(method)}, uniform arrivals, m = 64",
            reading=("the statistical error, constant in ε, flattens the slope"
                     if r.slope > -1 else
                     "steeper than 1/ε: ε also sets the activation thresholds k_ℓ ∝ 1/ε "
                     "(Alg. 6), which withhold more samples at small ε")))
    return out


def _guarantee(cells: pd.DataFrame, last: pd.DataFrame, method: str, order: str,
               allowed: float, what: str) -> Guarantee:
    cell = cells[(cells.method == method) & (cells.order == order)].iloc[0]
    within = last[last.cell_id == cell.cell_id].within_bound.dropna()
    return Guarantee(what, int((within == 0).sum()), int(within.size), allowed,
                     f"1 − δ quantile at {cell.q_error / cell.bound:.2g}× the bound")


def guarantee_rows(rows: pd.DataFrame, methods: Sequence[str]
                   ) -> list[tuple[str, str, Guarantee]]:
    """(method, order, :class:`Guarantee`) at T for each method and order of the orders
    preset where the method's theorem applies in every run."""
    cells, last = at_end(rows), final(rows)
    out = []
    for method in methods:
        applies = set(cells[(cells.method == method) & cells.applies].order)
        for order in [o for o in ORDERS if o in applies]:
            units = GUARANTEES[method][2] if method in GUARANTEES else 2
            delta = float(cells.delta.iloc[0])
            what = ("runs whose error at T exceeds its bound" if method in STRAWMEN else
                    "runs whose error at T exceeds the bound (c = 4)")
            out.append((method, order, _guarantee(cells, last, method, order, units * delta,
                                                  what)))
    return out


def guarantee_claims(rows: pd.DataFrame) -> list[Claim]:
    """Each theorem's bound at T, per arrival order where it applies (orders preset)."""
    return [Claim(GUARANTEES[m][0], GUARANTEES[m][1], g,
                  case=f"{_method(m)}, {_order(o)}, t = T",
                  reading="too few runs to tell a rate from the allowed one")
            for m, o, g in guarantee_rows(rows, list(GUARANTEES))]


def noise_claims(rows: pd.DataFrame) -> list[Claim]:
    """Algorithm 5 against Algorithm 4 at the paper's noise, where M_T is far below m."""
    out = []
    for order in [o for o in ("round_robin", "uniform") if o in set(rows.order)]:
        a5 = at_t(rows, method="alg5", order=order, noise_scale=None)
        a4 = at_t(rows, method="alg4", order=order, noise_scale=None)
        m_t = at_t(rows, "max_count", method="alg5", order=order, noise_scale=None).mean()
        out.append(Claim(FINE_TUNED[0], FINE_TUNED[1],
                         paired("Alg. 5 − Alg. 4, error at T", a5, a4),
                         case=f"{_order(order)} (M_T = {m_t:.3g}, m = 64), ε = 1",
                         ours="both at the paper's noise for ε = 1; the same data"))
    return out


def wishful_claims(rows: pd.DataFrame) -> list[Claim]:
    """Algorithm 3 "will perform very poorly" under round robin (Sec. 3): against the
    algorithms made for arbitrary orders."""
    if not {"round_robin"} <= set(rows.order) or "alg3" not in set(rows.method):
        return []
    a3 = at_t(rows, method="alg3", order="round_robin")
    return [Claim("Sec. 3 (after Alg. 3)", "Algorithm 3 \"will perform very poorly in the "
                  "general user ordering\", e.g. round robin: it waits until t = n(m − 1); "
                  "exponential withhold-release overcomes this",
                  paired(f"{_method(other)} − Algorithm 3, error at T",
                          at_t(rows, method=other, order="round_robin"), a3),
                  case=f"round robin, against {_method(other)}",
                  ours="Algorithm 3 releases its prior μ̃ = μ + 1/16 until T",
                  reading="Algorithm 3 releases its prior, 1/16 from μ, and at T Algorithm 4's "
                          "noise (η of eq. (5), calibrated to m) is larger still at these sizes")
            for other in ("alg4", "alg5")]


def dimension_claims(rows: pd.DataFrame) -> list[Claim]:
    """Sec. 4: per-coordinate releases composed basically (dε) or advancedly (ε√(d ln
    1/δ̃)); at a fixed overall ε the privacy error of a coordinate grows as d or √d."""
    rows = rows.assign(coordinate_error=rows.error.abs())
    fit = _fit_text("d", DIMENSION_FIT, "fixed: every d, all > 2 ln(1/δ̃)")
    out = []
    for composition, theory, claim in (
            ("basic", 1.0, "\"the overall algorithm is dε-DP by basic composition\": at a "
                           "fixed overall ε, each coordinate at ε/d"),
            ("advanced", 0.5, "with advanced composition, error Õ(1/√t + √(dM_t)/(tε)) at "
                              "(ε, δ̃)-DP overall")):
        part = rows[rows.composition == composition]
        if part.empty:
            continue
        found = slopes(part, "dimension", {"fit": DIMENSION_FIT},
                       y="coordinate_error").set_index("method")
        r = found.iloc[0]
        out.append(Claim("Sec. 4", claim, Slope(
            "log–log slope of a coordinate's mean error at T on d", float(r.slope),
            float(r.ci_low), float(r.ci_high), theory, fit),
            case=f"{composition} composition, Algorithm 5 per coordinate, overall ε = 2",
            ours="|μ̂_T − μ| of coordinate 0 (the largest coordinate's adds a max over d)",
            reading="the Õ(·) hides the log factors of each coordinate's noise"))
    return out


def claims(results: Results) -> list[Claim]:
    """The paper's claims, one row per case, from every preset present."""
    runs = results.runs
    out: list[Claim] = []
    if "continual_scaling" in runs:
        out += scaling_claims(runs["continual_scaling"])
    if "continual_epsilon" in runs:
        out += epsilon_claims(runs["continual_epsilon"])
    if "continual_noise" in runs:
        out += noise_claims(runs["continual_noise"])
    if "continual_orders" in runs:
        out += wishful_claims(runs["continual_orders"])
        out += guarantee_claims(runs["continual_orders"])
    if "continual_dimension" in runs:
        out += dimension_claims(runs["continual_dimension"])
    return out


def checks(results: Results) -> list[Claim]:
    """The project's checks: the control without noise and under equal noise (Algorithm 4
    against 5), Algorithm 6 against Algorithm 2 per order, the strawmen's bounds."""
    runs = results.runs
    out: list[Claim] = []
    if "continual_noise" in runs:
        rows = runs["continual_noise"]
        orders = [o for o in ("round_robin", "uniform", "contiguous") if o in set(rows.order)]
        for order in orders:
            a5 = at_t(rows, method="alg5", order=order, noise_scale=0.0)
            a4 = at_t(rows, method="alg4", order=order, noise_scale=0.0)
            gap = float((a5 - a4).abs().max())
            out.append(Claim(
                "Sec. 3, Algs 4–5", "without noise Algorithms 4 and 5 release the same μ̂_t "
                "(the same withhold-release and projections): their difference is the noise",
                Value("largest |error difference| at T over the runs", gap, gap, gap, "0",
                      band=(0.0, 1e-12)),
                case=f"{_order(order)}, noise_scale = 0",
                reading="the data paths of Algorithms 4 and 5 differ"))
        scale = rows.noise_scale.dropna()
        equal = float(scale[scale > 0].iloc[0])
        for order in orders:
            out.append(Claim(
                "Sec. 3, Algs 4–5", "under equal noise (every p-sum Lap(η)), Algorithm 5's "
                "L + 1 trees alone against Algorithm 4's one tree",
                paired("Alg. 5 − Alg. 4, error at T",
                        at_t(rows, method="alg5", order=order, noise_scale=equal),
                        at_t(rows, method="alg4", order=order, noise_scale=equal)),
                case=f"{_order(order)}, η = {equal:g} for both",
                reading="without the calibration, the L + 1 trees add up more p-sums "
                        "than the one tree: the advantage is the calibration's"))
        out += [Claim(
            FINE_TUNED[0], "the advantage of per-level noise is tied to M_t < m",
            paired("Alg. 5 − Alg. 4, error at T",
                    at_t(rows, method="alg5", order="contiguous", noise_scale=None),
                    at_t(rows, method="alg4", order="contiguous", noise_scale=None)),
            case="contiguous (M_T = m), paper's noise, ε = 1",
            reading="at M_T = m the paper claims no advantage")] if "contiguous" in orders else []
    if "continual_orders" in runs:
        rows = runs["continual_orders"]
        for order in [o for o in ORDERS if o in set(rows.order)]:
            out.append(Claim(
                "Sec. 3", "Algorithm 6's privacy error √M_t/(tε) (Thm 3.4) improves on "
                "Algorithm 2's m/(tε) (eq. (1)), up to logs",
                paired("Alg. 6 − Alg. 2, error at T", at_t(rows, method="alg6", order=order),
                        at_t(rows, method="alg2", order=order)),
                case=f"{_order(order)}, m = 64, ε = 1",
                reading="at m = 64 the constants of Algorithm 6's noise (its L + 1 "
                        "mechanisms, PrivateMedian's share of ε) outweigh √m against m"))
        out += [Claim("Sec. 1.1 (strawman)", "the strawman's bound (Hoeffding; and the "
                      "Laplace tail) holds w.p. ≥ 1 − 2δ", g,
                      case=f"{_method(m)}, {_order(o)}, t = T",
                      reading="the strawmen's bounds are nearly tight: their violations "
                              "are close to the allowed 2δ")
                for m, o, g in guarantee_rows(rows, STRAWMEN)]
    return out


__all__ = ["DIMENSION_FIT", "EPSILON_FIT", "SCALING_FIT", "checks", "claims"]
