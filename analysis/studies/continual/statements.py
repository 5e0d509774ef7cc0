"""The continual paper's statements and the project's checks, declared: each decided by a
rule of :mod:`analysis.statements` from the numbers the study's measures
(:class:`~.document.Measures`) take of the presets' runs.

The paper (George, Ramesh, Singh & Tyagi) runs no experiment: its claims are rates
(slopes, evidence made whole by the measures), high-probability bounds (guarantees, the
same) and the design arguments between its algorithms (:class:`Below`, what they
release: :class:`Near`). :data:`CLAIMS` are the paper's, one row per case; :data:`CHECKS`
the project's own (a control run without noise, the strawmen's bounds, Algorithm 6
against Algorithm 2), never tallied. Where the data decide the cases (the methods fitted,
the arrival orders present, the orders where a theorem applies), a measure lists them.

Every slope is fitted over a range fixed here, with its reason, before the runs were read
(:data:`~.figures.SCALING_FIT`, :data:`EPSILON_FIT`, :data:`DIMENSION_FIT`), the same for
every method. A slope row's theory value is the slope of the theorem's own bound
(``sweep/continual/bounds.py``, with its constants and log factors) over the same cells
(:func:`_slope`): the theorems are Õ(·) bounds, and their log factors change the local
slope over a fixed range, so the bare exponent of the rate (1, ½, −1) is not the value the
theorem predicts there; it is shown beside the measurement, not judged.

Comparisons pair the runs of two cells by replicate (:class:`~analysis.statements.Below`
over the replicates both ran): the family draws a
replicate's arrivals and samples from the root seed, the data options and the replicate
alone (``sweep.continual.simulate.streams``), so two methods of a preset see the same
data (their noise is independent); the standard error of the paired differences is the
right one.

In the texts, a case's ``order`` is the arrival order in words, ``kind`` its value.
"""

from __future__ import annotations

from typing import Any

from analysis.statements import Below, Given, M, Near, NoRule, Select, Statement

from .figures import SCALING_FIT

#: The range of ε over which every ε-slope is fitted: the three smallest ε of the preset,
#: where the privacy term, ∝ 1/ε, dominates most. Fixed for every method.
EPSILON_FIT = (0.25, 1.0)
#: The range of d over which the dimension slopes are fitted: every d of the preset, all
#: above 2 ln(1/δ̃) ≈ 27.6 (δ̃ = 1e-6), from which advanced composition gives ε₀ ∝ 1/√d.
DIMENSION_FIT = (32.0, 256.0)
#: A scaling slope's claim, the bare exponent of its Õ(·) rate in m (or M_t), shown
#: beside the measurement, and whether the rate is a worst case (an Õ(·) bound: judged
#: one-sided) or the error's own rate ("is linear in m"); the row is judged against its
#: bound's slope (:func:`_slope`).
SCALING_THEORY = {
    "alg2": ("Sec. 3, eq. (1)", "the privacy error of the naive binary mechanism, "
             "(m/(tε))·√(log t)·log T·ln(1/δ), \"is linear in m\"", 1.0, False),
    "alg3": ("Sec. 3 (Alg. 3), App. B", "in the wishful scenario (contiguous arrivals, a "
             "prior within 1/√m) \"one obtains a privacy error of Õ(√m/tε)\"", 0.5, True),
    "alg4": ("Thm 3.1", "Algorithm 4: \"|μ̂_t − μ| = Õ(1/√t + √m/(tε))\" for a given t, "
             "w.p. at least 1 − 2δ", 0.5, True),
    "alg5": ("Thm 3.2", "Algorithm 5: \"|μ̂_t − μ| = Õ(1/√t + √M_t/(tε))\" w.p. at least "
             "1 − δ", 0.5, True),
    "alg6": ("Thm 3.4", "Algorithm 6, where the diversity condition (11) holds: "
             "\"|μ̂_t − μ| = Õ(1/√t + √M_t/(tε))\" w.p. at least 1 − δ", 0.5, True),
}
#: Where each private method's error is stated ∝ 1/ε (bare exponent −1, shown; the row
#: is judged against its bound's slope).
EPSILON_THEORY = {
    "naive_laplace": ("Sec. 1.1", "per-step Laplace noise: privacy error O(M_t/(tε)), "
                      "rescaled over the releases"),
    "alg2": ("Sec. 3, eq. (1)", "privacy error (m/(tε))·√(log t)·log T·ln(1/δ)"),
    "alg4": ("Thm 3.1", "Õ(1/√t + √m/(tε))"),
    "alg5": ("Thm 3.2", "Õ(1/√t + √M_t/(tε))"),
    "alg6": ("Thm 3.4", "Õ(1/√t + √M_t/(tε)) where (11) holds"),
}
#: Sec. 4's compositions, as our checks: the bare exponent of the error's rate in d at a
#: fixed overall ε, and the check in words.
DIMENSION_THEORY = {
    "basic": (1.0, "Algorithm 5 per coordinate under basic composition (each coordinate at "
                   "ε/d, dε-DP overall by Sec. 4's argument): the ℓ∞ error at a fixed overall "
                   "ε grows as d, up to logs"),
    "advanced": (0.5, "Algorithm 5 per coordinate under advanced composition ((ε, δ̃)-DP "
                      "overall): the ℓ∞ error at a fixed overall ε grows as √d, up to logs "
                      "(Sec. 4's rate for Algorithm 6, where its proviso holds)"),
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
#: Where the paper argues that Algorithm 5's noise is fine-tuned to M_t (against Algorithm 4).
FINE_TUNED = "Sec. 3, after eq. (7)"
#: The orders of the noise preset whose control rows the checks show.
CONTROL_ORDERS = ("round_robin", "uniform", "contiguous")
ORDERS_PRESET, NOISE_PRESET, DIMENSION_PRESET = (
    "continual_orders", "continual_noise", "continual_dimension")


def _fit_text(symbol: str, fit: tuple[float, float], reason: str) -> str:
    return f"{symbol} = {fit[0]:g}–{fit[1]:g} ({reason})"


def _slope(section: str, quote: str, fits: Select, method: str, bare: float, *, what: str,
           fit: str, case: str, ours: str = "", cases: Select | None = None,
           bound: bool = False) -> Statement:
    """One slope row, the same reading for every slope of the study: ``method``'s measured
    slope (of ``fits``, :meth:`~.document.Measures.fits`) with its interval, against the
    slope of the theorem's own bound over the same cells (``sweep/continual/bounds.py``
    with its constants and the log factors the Õ(·) hides), one-sided where the paper
    states a worst case (``bound``: an Õ(·) rate in m, which a faster growth cannot
    contradict); the bare exponent ``bare`` of the Õ(·) rate is shown in ``ours``, not
    judged. One case if ``method`` was fitted, unless ``cases`` says otherwise."""
    return Statement(
        section, quote, Given(), cases=cases or M.fitted(fits, method),
        select={"evidence": M.slope(fits, method, bare, what, fit, bound)}, case=case,
        ours=ours + "bare exponent of the Õ(·) rate {evidence.bare}; its bound's slope "
                    "{evidence.bound_slope}",
        reading="the interval lies {evidence.side} the band of its bound's slope over these "
                "cells; it {evidence.held} the bare exponent {evidence.bare}")


def _at_t(preset: str, method: str, **where: Any) -> Select:
    """The runs at T of ``method``'s cell of ``preset`` under the case's arrival order."""
    return M.at_t(preset, method=method, order="{kind}", **where)


def _noise(method: str, noise_scale: float | Select | None, **where: Any) -> Select:
    """:func:`_at_t` of the noise preset at ``noise_scale``."""
    return _at_t(NOISE_PRESET, method, noise_scale=noise_scale, **where)


def _guarantee(section: str, quote: str, methods: tuple[str, ...], units: int, what: str,
               reading: str) -> Statement:
    """Each of ``methods``' bounds at T, per arrival order where its theorem applies in
    every run (orders preset), with the failure probability ``units`` × δ."""
    return Statement(
        section, quote, Given(), cases=M.applies(ORDERS_PRESET, methods),
        select={"evidence": M.guarantee(ORDERS_PRESET, "{method}", "{kind}", units, what)},
        case="{method:method}, {order}, t = T", reading=reading)


#: Every method's slope over its fixed range, fitted once for all its rows.
SCALING_FITS = M.fits("continual_scaling", "max_count", SCALING_FIT)
EPSILON_FITS = M.fits("continual_epsilon", "epsilon", EPSILON_FIT)
#: The noise preset's ``noise_scale``: unset, the paper's noise (calibrated to ε); and the
#: one η of every p-sum under equal noise.
CALIBRATED, EQUAL = None, M.equal_noise(NOISE_PRESET)

#: The privacy statements and Sec. 5's near-match: no run's error decides them.
PRIVACY_STATEMENTS = tuple(
    Statement(section, quote, NoRule(why), case=case, reading=reading)
    for section, quote, case, why, reading in (
        ("Thm 3.1", "\"Algorithm 4 is 2ε-DP\" (user-level)", "Algorithm 4",
         "a privacy statement: decided by audits of the code that runs, not by the runs' "
         "errors", "audited in tests/test_continual_privacy.py (its noise and an empirical "
         "ε lower bound), not measured here"),
        ("Thm 3.4", "\"the overall release is user-level ε-DP\" (Algorithm 6)", "Algorithm 6",
         "a privacy statement: decided by audits of the code that runs, not by the runs' "
         "errors", "audited in tests/test_continual_privacy.py (its noise and an empirical "
         "ε lower bound), not measured here"),
        ("Sec. 4", "\"the overall algorithm is dε-DP by basic composition\" (each "
         "coordinate released at ε)", "d coordinates", "a privacy statement (basic "
         "composition of d releases): decided by the accounting of the code that runs, "
         "not by the runs' errors", "not measured here: the dimension preset's error slopes "
         "are our checks below"),
        ("Sec. 4", "with advanced composition, Algorithm 6 on each coordinate gives error "
         "Õ(1/√t + √(dM_t)/(tε)) at (ε, δ̃)-DP overall, \"provided Σ_u min{m_u(t), M_t/2} ≥ "
         "Õ(√(dM_t)/ε)\"", "d = 32–256, overall ε = 1", "with the theorem's logs and "
         "constants the proviso is Algorithm 6's condition (11) at each coordinate's ε₀, "
         "which fails in the dimension preset: Algorithm 6's guarantee does not apply "
         "there", "the preset runs Algorithm 5 per coordinate instead, as our check below; "
         "(11) at ε₀ of a few hundredths needs far more users than a run here holds"),
        ("Sec. 5", "Theorem 3.4's guarantee \"matches the single-release lower bounds (on "
         "both accuracy and number of users) up to log factors\"", "N users with M samples "
         "each", "the paper bounds the gap by unstated log factors: no number to hold the "
         "ratio of the bounds against", "no number is given for \"up to log factors\"")))

#: The paper's statements, one row per case.
CLAIMS: tuple[Statement, ...] = (
    *(_slope(section, quote, SCALING_FITS, method, bare,
             what="log–log slope of the mean error at T on M_T",
             fit=_fit_text("M_T", SCALING_FIT, "fixed: (11) holds at T up to m = 256"),
             case="{method:method}, contiguous arrivals, ε = 1", bound=bound)
      for method, (section, quote, bare, bound) in SCALING_THEORY.items()),
    *(_slope(section, f"privacy error ∝ 1/ε: {quote}", EPSILON_FITS, method, -1.0,
             what="log–log slope of the mean error at T on ε",
             fit=_fit_text("ε", EPSILON_FIT, "fixed: the three smallest ε"),
             case="{method:method}, uniform arrivals, m = 64")
      for method, (section, quote) in EPSILON_THEORY.items()),
    # Algorithm 5 against Algorithm 4 at the paper's noise, where M_T is far below m.
    Statement(
        FINE_TUNED, "\"using multiple binary mechanisms allows us to add noise with "
        "magnitude that is more fine-tuned to exponential withhold-release\": the largest "
        "noise level ∝ √M_t, not √m, and \"M_t can be much smaller than m\"; Algorithm 5 "
        "below Algorithm 4",
        Below("Alg. 5 − Alg. 4, error at T"),
        select={"a": _noise("alg5", CALIBRATED), "b": _noise("alg4", CALIBRATED),
                "m_t": M.mean(_noise("alg5", CALIBRATED, y="max_count"))},
        cases=M.orders(NOISE_PRESET, ("round_robin", "uniform")),
        case="{order} (M_T = {m_t:.3g}, m = 64), ε = 1",
        ours="both at the paper's noise for ε = 1; the same data"),
    # Under round robin Algorithm 3 "would have to wait for time t = n(m − 1) to obtain m
    # samples from any given user", so it releases its prior μ̃ alone until then: what the
    # paper says of it, not an error ranking at T against the later algorithms (which it
    # introduces to avoid the wait, not compares at given sizes).
    Statement(
        "Sec. 3 (after Alg. 3)", "Algorithm 3 \"will perform very poorly in the general "
        "user ordering\": under round robin it \"would have to wait for time t = n(m − 1) "
        "to obtain m samples from any given user\"",
        Near("largest number of samples μ̂_t uses, over the runs and checkpoints "
             "t < n(m − 1)", "0", band=(0.0, 0.0)),
        select={"x": M.exact("{used}")}, cases=M.waiting(ORDERS_PRESET),
        case="round robin, n(m − 1) = {wait:,}, checkpoints t = {first:,} to {last:,}",
        ours="μ̂_t = μ̃ (the prior) throughout: error |μ̂_t − μ| from {low:.4g} to "
             "{high:.4g} over {runs} runs, the prior's offset",
        reading="Algorithm 3 updates μ̂_t before any user has given its m samples"),
    # Claim C.1, for Algorithms 4 and 5, whose levels are all active (Algorithm 6 buffers
    # an inactive level's samples, Sec. 3.4).
    Statement(
        "Sec. 3 (before Thm 3.1), Claim C.1", "with exponential withhold-release, \"at any "
        "time t, the estimate μ̂_t is computed using at least t/2 samples, no matter what "
        "the user ordering is\"",
        Near("smallest share of the t samples μ̂_t uses, over the runs, checkpoints and "
             "orders", "t/2 or more", band=(0.5, 1.0)),
        select={"x": M.exact("{least}")}, cases=M.shares_used(ORDERS_PRESET, ("alg4", "alg5")),
        case="{method:method}, every order of the preset", ours="least share by order: {shares}",
        reading="some μ̂_t averages fewer than t/2 samples"),
    *(_guarantee(section, quote, (method,), units,
                 "runs whose error at T exceeds the bound (c = 4)",
                 "too few runs to tell a rate from the allowed one")
      for method, (section, quote, units) in GUARANTEES.items()),
    *PRIVACY_STATEMENTS,
)

#: The project's checks: the control without noise and under equal noise (Algorithm 4
#: against 5), Algorithm 6 against Algorithm 2 per order, the strawmen's bounds.
CHECKS: tuple[Statement, ...] = (
    Statement(
        "Sec. 3, Algs 4–5", "without noise Algorithms 4 and 5 release the same μ̂_t (the "
        "same withhold-release and projections): their difference is the noise",
        Near("largest |error difference| at T over the runs", "0", band=(0.0, 1e-12)),
        select={"x": M.exact(M.largest_difference(_noise("alg5", 0.0), _noise("alg4", 0.0)))},
        cases=M.orders(NOISE_PRESET, CONTROL_ORDERS), case="{order}, noise_scale = 0",
        reading="the data paths of Algorithms 4 and 5 differ"),
    Statement(
        "Sec. 3, Algs 4–5", "under equal noise (every p-sum Lap(η)), Algorithm 5's L + 1 "
        "trees alone against Algorithm 4's one tree",
        Below("Alg. 5 − Alg. 4, error at T"),
        select={"a": _noise("alg5", EQUAL), "b": _noise("alg4", EQUAL), "eta": EQUAL},
        cases=M.orders(NOISE_PRESET, CONTROL_ORDERS), case="{order}, η = {eta:g} for both",
        reading="without the calibration, the L + 1 trees add up more p-sums than the one "
                "tree: the advantage is the calibration's"),
    # The paper claims the advantage where M_t is far below m; at M_T = m it states no
    # comparison, so no rule decides this row: the difference is shown.
    Statement(
        FINE_TUNED, "where M_t = m, Algorithm 5 keeps no advantage from M_t < m (the "
        "paper: \"M_t can be much smaller than m for large values of m\")",
        NoRule("the paper states no comparison of the two at M_T = m"),
        select={"difference": M.paired_difference(_noise("alg5", CALIBRATED),
                                                  _noise("alg4", CALIBRATED))},
        cases=M.orders(NOISE_PRESET, ("contiguous",)),
        case="contiguous (M_T = m), paper's noise, ε = 1",
        ours="Alg. 5 − Alg. 4 at T = {difference}",
        reading="no number to hold the difference against"),
    Statement(
        "Sec. 3 (its bounds: Thm 3.4, eq. (1))", "our comparison at one size: Algorithm 6's "
        "error at T below Algorithm 2's (the paper compares their bounds' rates, √M_t/(tε) "
        "against m/(tε), not their errors)",
        Below("Alg. 6 − Alg. 2, error at T"),
        select={"a": _at_t(ORDERS_PRESET, "alg6"), "b": _at_t(ORDERS_PRESET, "alg2")},
        cases=M.orders(ORDERS_PRESET), case="{order}, m = 64, ε = 1",
        reading="at m = 64 the constants of Algorithm 6's noise (its L + 1 mechanisms, "
                "PrivateMedian's share of ε) outweigh √m against m"),
    # Sec. 4, as our check: per-coordinate releases composed basically (dε) or advancedly
    # (ε√(d ln 1/δ̃)); at a fixed overall ε the ℓ∞ error grows as d or √d, up to logs. The
    # preset runs Algorithm 5 per coordinate where the paper says Algorithm 6: at each
    # coordinate's ε₀, (11) fails, outside the paper's proviso, so these are not its claims.
    *(_slope("Sec. 4", quote, M.fits(DIMENSION_PRESET, "dimension", DIMENSION_FIT,
                                     composition=composition), "alg5", bare,
             what="log–log slope of the mean ℓ∞ error at T on d",
             fit=_fit_text("d", DIMENSION_FIT, "fixed: every d, all > 2 ln(1/δ̃)"),
             case=composition + " composition, Algorithm 5 per coordinate, overall "
                                "{epsilon:epsilon}", ours="{proviso}; ",
             cases=M.proviso(DIMENSION_PRESET, composition=composition))
      for composition, (bare, quote) in DIMENSION_THEORY.items()),
    _guarantee("Sec. 1.1 (strawman)", "the strawman's bound (Hoeffding; and the Laplace "
               "tail) holds w.p. ≥ 1 − 2δ", STRAWMEN, 2,
               "runs whose error at T exceeds its bound",
               "the strawmen's bounds are nearly tight: their violations are close to the "
               "allowed 2δ"),
)
