"""The decentralized study's statements (:mod:`analysis.statements`) and what each selects
from :class:`.document.Measures`: :data:`CLAIMS`, the AAAI abstract's (per-agent cost O(r)
and O(r log|A|), convergence to the oracle) and the values the reference's code printed on
one run; the project's checks :data:`AGREEMENT` (our runs against the reference's) and
:data:`PRIVACY` (private C-ColME against the local mean). A cell is named by its
parameters (:data:`.document.PARAMETERS`).

``{x:g}`` is Python's ``{x:g}``: a template reads a format spec that is a name as a
column of the vocabulary.
"""

from __future__ import annotations

from analysis.claims import printed_band
from analysis.statements import Below, Given, Interval, M, Near, NoRule, Rate, Statement

from .figures import ALGORITHMS

# -- Our runs against the reference's ------------------------------------------------------

#: The quantities held against the reference's runs: (row of ours, metric, label); the
#: algorithm's rows are its estimate's, ``{algorithm}_oracle`` its oracle's.
QUANTITIES = (("{algorithm}", "within", "within 0.1: estimate"),
              ("local", "within", "within 0.1: local"),
              ("{algorithm}_oracle", "within", "within 0.1: oracle"),
              ("{algorithm}", "wrong_links", "wrong links"),
              ("{algorithm}", "lost_links", "lost links"))
#: The N of the reference's runs (``reference_runs.csv``).
REFERENCE_SIZES = (1_000, 10_000)


def _agreement(algorithm: str, n_nodes: int, method: str, metric: str, label: str
               ) -> Statement:
    """Our curve of ``label`` against the reference's runs (:class:`~analysis.claims.Curves`),
    of ``algorithm`` at N = ``n_nodes``: no case unless both have runs at that N."""
    both = M.compared("{algorithm}", "{n_nodes}", method, metric)
    return Statement(
        "code", f"the {label} curve agrees with the reference's runs", Given(),
        select={"evidence": M.curves(both, label), "both": both, "worst": M.sides(both)},
        cases=M.held(algorithm, n_nodes), case="{algorithm:method}, N = {n_nodes:,}",
        ours="{both.runs} runs against the reference's {both.their_runs}",
        reading=("largest difference at t = {worst.t}: reference {worst.theirs}, ours "
                 "{worst.ours}{worst.note}"))


AGREEMENT = tuple(_agreement(algorithm, n_nodes, *quantity) for algorithm in ALGORITHMS
                  for n_nodes in REFERENCE_SIZES for quantity in QUANTITIES)

# -- The abstract's claims ------------------------------------------------------------------

def _cost(algorithm: str, quote: str, case: str) -> Statement:
    """Per-agent cost O(r) (C-ColME) and O(r log|A|) (B-ColME, at a fixed depth D: O(r)):
    the log–log slope of the compute time per agent and step against r over the degree
    preset's cells (no case under three), against the bound's exponent 1, one-sided
    (:class:`~analysis.claims.Slope`: O(r) is a worst case, which a slower growth cannot
    contradict; the slope's Student-t interval from the fit's residuals)."""
    slope = M.cost_slope(algorithm)
    return Statement(
        "abstract", quote,
        Rate("log–log slope of compute time per agent-step on r", "r = {low:g}–{high:g} (every "
             "degree timed)", theory=1.0, bound=True),
        select={"x": slope, "per_step": M.per_step(algorithm), "growth": M.growth(slope)},
        cases=M.timed(algorithm), case=case,
        ours="compute time per agent-step (estimate, oracle and baselines): {per_step}",
        reading=("the slope's interval is not at or below 1.05: the time grows {growth} r "
                 "over these degrees; one timing per cell, and the memory's share of a step "
                 "grows with the arrays, which outgrow the caches as r grows"))


COST = (_cost("c_colme", "C-ColME's per-agent cost is O(r)", "r = {low:g}–{high:g}"),
        _cost("b_colme", "B-ColME's per-agent cost is O(r log|A|)",
              "r = {low:g}–{high:g}, D = {depth:g}"))


def _converges(algorithm: str, algorithm_name: str) -> Statement:
    """Convergence to the oracle, a limit the paper states without a number: decided by an
    ordering, per degree. The log ratio of the estimate's mean squared error to its
    oracle's at the last step is below the same at a tenth of the run
    (:class:`~analysis.claims.Ordering`, paired by run): the estimate still closes on its
    oracle. No band is read into "converges"; a finite run cannot contradict a limit, but
    it can show the gap widening."""
    cell = {"algorithm": "{algorithm}", "degree": "{degree}"}
    early = M.early_step("degree", **cell)

    def log_ratio(t: object = None) -> object:
        return M.log_ratio(M.runs("degree", "{algorithm}", "mse", t, **cell),
                           M.runs("degree", "{algorithm}_oracle", "mse", t, **cell))

    estimate = M.runs("degree", "{algorithm}", "mse", **cell)
    oracle = M.runs("degree", "{algorithm}_oracle", "mse", **cell)
    return Statement(
        "abstract", f"{algorithm_name} converges to the oracle",
        Below("ln(MSE estimate / oracle) at t = {t:,} − at t = {early:,}"),
        select={"a": log_ratio(), "b": log_ratio(early), "t": M.last_step("degree", **cell),
                "early": early, "estimate": M.mean(estimate), "oracle": M.mean(oracle),
                "wrong": M.mean(M.runs("degree", "{algorithm}", "wrong_links", **cell))},
        cases=M.degrees(algorithm), case="r = {degree:g}",
        ours=("MSE {estimate:sci} against the oracle's {oracle:sci} at t = {t:,}; wrong "
              "links left {wrong:.1f}"),
        reading=("the gap to the oracle is not seen to close between t = {early:,} and the "
                 "last step (the degree table says when the wrong links are cut)"))


# B-ColME first: the cells in the order of their method.
CONVERGENCE = (_converges("b_colme", "B-ColME"), _converges("c_colme", "C-ColME"))

# -- The values the reference's code printed --------------------------------------------------

#: The values the reference's code printed on one run (seed 111, N = 10⁴, C-ColME, the
#: first run of its process): (who, its row of ours, metric, iteration, printed), where
#: ``iteration`` + 1 samples.
REFERENCE_RUN = (("C-ColME", "c_colme", "within", 500, "0.227"),
                 ("C-ColME", "c_colme", "within", 1000, "0.978"),
                 ("C-ColME", "c_colme", "wrong_links", 1000, "146"),
                 ("C-ColME", "c_colme", "within", 1500, "1.0"),
                 ("C-ColME", "c_colme", "wrong_links", 1500, "0"),
                 ("local mean", "local", "within", 500, "0.736"),
                 ("local mean", "local", "within", 1999, "0.975"))
#: The quantities the reference prints, by metric.
PRINTED = {"within": "fraction within 0.1", "wrong_links": "wrong links"}


def _printed(who: str, method: str, metric: str, iteration: int, printed: str) -> Statement:
    """A value the reference's code printed, with the numbers that print as it, against
    the 95% prediction interval of one of our runs at the nearest checkpoint
    (:class:`~analysis.claims.Value`: it agrees when the printed value lies inside our
    runs' range, disagrees when outside, and is inconclusive when its rounding straddles an
    end), of C-ColME's cell at the reference's N = 10⁴ (or the largest N of the runs)."""
    t = M.checkpoint(iteration)
    runs = M.runs("reference", method, metric, t, algorithm="c_colme",
                  n_nodes=M.reference_size())
    low, high = printed_band(printed)
    return Statement(
        "code (seed 111)", f"{who}: {PRINTED[metric]} {printed} at iteration {iteration:,}",
        Near(f"the reference's {PRINTED[metric]}", "one of our runs at t = {t:,}"),
        select={"x": Interval(float(printed), low, high), "band": M.prediction(runs), "t": t,
                "runs": M.count(runs), "n_nodes": M.reference_size(),
                "ours": M.mean(runs)},
        case="N = {n_nodes:,}", ours="mean of {runs} runs {ours:number}",
        reading="the reference's run falls outside the range of ours at this step")


#: The abstract's per-agent cost "independent of |A|": the degree preset fixes N.
SIZE_FREE = Statement(
    "abstract", "the per-agent cost does not depend on the number of agents |A| (C-ColME: "
    "O(r); B-ColME: O(r log|A|) through the depth only)",
    NoRule("no preset times cells of one degree at several N: the degree preset fixes N = "
           "10⁴, and the reference preset's two N are not timed per agent-step"),
    case="C-ColME and B-ColME",
    reading="not measured: a preset over N at a fixed degree would decide it by a rate "
            "against N (exponent 0)")
CLAIMS = (*COST, *CONVERGENCE, SIZE_FREE)
#: The reference's printed values: checks of our code against one of its runs, not the
#: paper's claims.
PRINTED_RUN = tuple(_printed(*value) for value in REFERENCE_RUN)

# -- Private collaboration (this project's design) ---------------------------------------------

_CELL = {"mechanism": "{mechanism}", "epsilon": "{epsilon}", "degree": "{degree}"}
_PRIVATE = M.runs("private", "c_colme", "mse", **_CELL)
_LOCAL = M.runs("private", "local", "mse", **_CELL)
#: Per mechanism, ε and degree, whether private C-ColME's mean squared error at the last
#: step is below the local mean's (paired over the runs, which share their samples).
PRIVACY = (Statement(
    "ours", "private C-ColME's error is below the local mean's",
    Below("MSE at T, private C-ColME − local"),
    select={"a": _PRIVATE, "b": _LOCAL, "private": M.mean(_PRIVATE), "local": M.mean(_LOCAL),
            "beats": M.beats(_PRIVATE, _LOCAL)},
    cases=M.private_cells(), case="{mechanism:privacy.mechanism}, ε = {epsilon:g}, "
    "r = {degree:g}",
    ours="MSE {private:sci} against the local mean's {local:sci}", reading="{beats}"),)
