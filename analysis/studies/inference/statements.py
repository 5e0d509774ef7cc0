"""The inference paper's statements (Papachristou & Rahimian), declared: where the paper
makes each, its words, the cases it covers, the numbers it reads (the measures of
:class:`.document.Measures`) and the rule that decides it (:mod:`analysis.statements`).

:data:`CLAIMS` are the paper's (Secs 2, 2.1, 5, 13, 14.1, 14.3 and the theorems) and
:data:`CHECKS` the project's own, never tallied; each in the order the document lists them.

Shares of runs ("identifies", "recovers", "P < 10⁻⁵") are read as *in most runs*: the
share's difference from one half (:data:`MOST`), with its Agresti–Coull standard error, is
an ordering. A value the data fix without runs (eq. (2), a pooled p-value) is an exact
ordering (standard error 0).

The cases the data decide carry the numbers their rows print; a rule's numbers are made of
them (``"{median}"``).
"""

from __future__ import annotations

from ...statements import Below, Given, M, Near, NoRule, Select, Statement
from .statistics import PAPER_RUNTIME, PAPER_RUNTIME_ACTG

#: A claim that an algorithm identifies (recovers) the answer: in most runs.
MOST = 0.5
#: The best treatment of ACTG 175, by the paper (Sec. 5, Fig. 4).
ARM_BEST = "ZDV+ddI"
#: The level at which a hospital "cannot detect" an effect (Sec. 2.1's two-sided 5%).
LEVEL = 0.05
#: The p that the left panels of Figs 1 and 2 draw (the results' nearest is read).
PANEL_P = 0.7


# -- Sec. 2 (Figs 1 and 2) ------------------------------------------------------------------

#: Why ε*_RR need not fall with every n.
STEP = ("ε*_RR is a step function of n: eq. (2) compares integer quantiles of Bin(n, p') "
        "and Bin(n, 1 − p'), which jump at different ε as n grows, so ε* need not fall "
        "with every n")


def next_n(toy: str) -> dict[str, Select]:
    """ε* of the cell (n, p) and of the next n."""
    return {"a": M.star(toy, "{next}", "{p}"), "b": M.star(toy, "{n}", "{p}")}


def runner_p(toy: str) -> dict[str, Select]:
    """ε* of the cell (n, p) and of the ``runner`` p, the next largest ε*."""
    return {"a": M.star(toy, "{n}", "{p}"), "b": M.star(toy, "{n}", "{runner}")}


TOY = (
    Statement(
        "2, Fig. 1", "\"ε*_RR < 1 in all the cases we have tested\" (n = 25–100, p = 0.6–0.9)",
        Below("largest ε*_RR (eq. (2)) − 1"),
        {"a": M.star("rr", "{n}", "{p}"), "b": 1.0},
        cases=M.largest("rr"), case="largest of {cells} (n, p): n = {n}, p = {p:g}",
        ours="eq. (2): {all}"),
    Statement(
        "2, Fig. 1 (left)", "\"ε*_RR decreases with increasing n because the benefit of "
        "collective hypothesis testing is greater in larger groups\" (the panel draws p = 0.7)",
        Below("ε*_RR(n = {next}) − ε*_RR(n = {n})"), next_n("rr"), cases=M.steps("rr"),
        case="n = {n} → {next}, p = {p:g}", ours="eq. (2): {b.mean:number} → {a.mean:number}",
        reading=STEP),
    Statement(
        "2, Fig. 1 (middle)", "\"our simulations further suggest that ε*_RR increases as "
        "private signals become more informative with increasing p\" (largest at p = 0.9)",
        Below("ε*_RR(p = {p:g}) − ε*_RR(p = {runner:g})", ">"),
        runner_p("rr"), cases=M.top_p("rr"),
        case="n = {n} (the panel's n), against the next largest p",
        ours="eq. (2) at p = {by_p}", reading="the paper calls the variation with p small"),
    Statement(
        "2, Fig. 2", "\"ε*_Laplace < 1 in all our simulations\" (n = 25–100, p = 0.6–0.9)",
        Below("largest ε*_Laplace − 1"),
        {"a": M.star("laplace", "{n}", "{p}"), "b": 1.0, "source": M.crossings()},
        cases=M.largest("laplace"), case="largest of {cells} (n, p): n = {n}, p = {p:g}",
        ours="{source}: {all}", reading="the simulated power crosses β_IND above ε = 1"),
    Statement(
        "2, Fig. 2 (left)", "\"ε*_Laplace decreases with the increasing number of agents n\" "
        "(the panel draws p = 0.7)",
        Below("ε*_Laplace(n = {next}) − ε*_Laplace(n = {n})"),
        {**next_n("laplace"), "source": M.crossings(),
         "exact_a": M.star("laplace", "{next}", "{p}", exact=True),
         "exact_b": M.star("laplace", "{n}", "{p}", exact=True)},
        cases=M.steps("laplace"), case="n = {n} → {next}, p = {p:g}",
        ours="{source}: {b.mean:number} → {a.mean:number}; exact {exact_b.mean:number} → "
             "{exact_a.mean:number}",
        reading="the crossings of neighbouring n differ by less than the runs resolve"),
    Statement(
        "2, Fig. 2 (middle)", "\"ε*_Laplace is highest at high values of p where individuals "
        "alone can perform highly accurate tests\" (p = 0.9)",
        Below("ε*_Laplace(p = {p:g}) − ε*_Laplace(p = {runner:g})", ">"),
        {**runner_p("laplace"), "source": M.crossings()},
        cases=M.top_p("laplace"), case="n = {n}, against the next largest p",
        ours="{source} at p = {by_p}"),
)

EXACT_LAPLACE = Statement(
    "2, Fig. 2", "the exact ε*_Laplace (closed form of the Laplace sum) is below 1",
    Below("largest exact ε*_Laplace − 1"),
    {"a": M.star("laplace", "{n}", "{p}", exact=True), "b": 1.0},
    cases=M.largest("laplace", exact=True), case="largest of {cells} (n, p)", ours="exact {all}")

#: The cell of Fig. 1 where Thm 13.1 is tightest.
TIGHTEST = ("tightest of {cells} cells of Fig. 1: n = {n}, p = {p:g}, ε = {epsilon:g}, size "
            "α = {size:number}, power β = {power:number}")
#: Thm 13.1 on Sec. 2's randomized-response test (K = T = 1 on the complete graph: each
#: agent shares its one randomized response), at its tightest cell: the bound as printed
#: (|1 − α − β|) against K·T = 1.
LOWER_BOUND = Statement(
    "13, Thm 13.1", "any belief aggregation scheme with type I error α and type II error "
    "1 − β needs K·T ≥ |1 − α − β| diam(G) / (2 Σ_i D_KL(ℓ̂_i(·|1) | ℓ̂_i(·|0)))",
    Below("K·T − bound", ">"), {"a": 1.0, "b": "{printed}"},
    cases=M.tightest("printed"), case=TIGHTEST,
    ours="K = T = 1, diam = 1; Σ_i D_KL of the randomized responses {kl:sci}; the bound "
         "{printed:number}; above 1 in {above} of {cells} cells",
    reading="as printed the bound grows without limit as ε → 0 even for a test whose power "
            "is its size, which needs no data at all; with |β − α| for |1 − α − β| it still "
            "exceeds 1 in {corrected} of {cells} cells, because a bound linear in β − α "
            "cannot follow from the KL divergence near β = α (Pinsker gives (β − α)²); the "
            "data-processing inequality behind it holds (checks)")


#: The cases of :data:`EXCHANGES`: each theorem at a setting the paper runs (Sec. 14's ACTG
#: 175 for Alg. 1, the family's synthetic default for online learning), at ε = 1.
EXCHANGE_CASES = (
    {"theorem": "Thm 4.2", "method": "gm", "model": "cox", "epsilon": 1,
     "setting": "GM (Alg. 1) on ACTG 175, Sec. 14's setting"},
    {"theorem": "Thm 4.7", "method": "private_ol", "model": "bernoulli", "epsilon": 1,
     "setting": "private online learning (Alg. 3), Bernoulli signals"})


#: Thms 4.2 and 4.7: "the noise distributions that optimize the number of belief
#: exchanges are the Laplace distributions", because the theorems' T grow with V_{n,Θ}
#: and (their proofs) Laplace noise minimizes the variance under ε-DP. The staircase
#: mechanism (Geng & Viswanath, 2014) is ε-DP with less variance; the theorems ask nothing
#: else of the noise, so their T under it are the family's own (noise=staircase). The
#: claim is on T, an integer: a tie does not contradict it.
EXCHANGES = Statement(
    "1, 4 (Thms 4.2, 4.7)", "“The noise distributions that optimize the number of belief "
    "exchanges of an agent are the Laplace distributions” (scale K|Θ|Δ/ε; |Θ|Δ/ε online)",
    Below("the theorem's T, staircase − Laplace ({a:,} − {b:,})", ">"),
    {"a": M.exchanges("staircase", "{method}", "{model}", "{epsilon}"),
     "b": M.exchanges("laplace", "{method}", "{model}", "{epsilon}"),
     "v_laplace": M.deviations("laplace", "{method}", "{model}", "{epsilon}"),
     "v_staircase": M.deviations("staircase", "{method}", "{model}", "{epsilon}"),
     "budget": M.draw_budget("{method}", "{model}", "{epsilon}")},
    cases=EXCHANGE_CASES, case="{theorem}: {setting}, ε = {epsilon}",
    ours="both ε-DP, each draw at ε' = {budget:.3g}; V_{{n,Θ}} = Σ_i √V[d_i], which T grows "
         "with: {v_laplace:.6g} with Laplace noise, {v_staircase:.6g} with the staircase",
    reading="the theorems' T grow with the noises' standard deviations and ask nothing else "
            "of the noise (Sec. 11's proofs bound each draw by its variance); the staircase "
            "mechanism (Geng & Viswanath, 2014) is ε'-DP with a smaller variance at every ε', "
            "so its V is smaller in every case. T, an integer from a logarithm, moves only "
            "where that gain is large enough: online (Thm 4.7) it takes fewer exchanges, "
            "which contradicts the claim as printed; Thm 4.2's T on ACTG ties "
            "(noise=staircase runs both)")


#: The inequality Thm 13.1's bound rests on, kl(β ‖ α) ≤ K·T·Σ_i D_KL (data processing), at
#: its tightest cell.
DATA_PROCESSING = Statement(
    "13, Thm 13.1", "the test's kl(β ‖ α) is at most K·T·Σ_i D_KL (the inequality the lower "
    "bound rests on)",
    Below("K·T·Σ D_KL − kl(β ‖ α)", ">"), {"a": "{kl}", "b": "{decision_kl}"},
    cases=M.tightest("slack"), case=TIGHTEST, ours="Σ D_KL {kl:sci}, kl(β ‖ α) {decision_kl:sci}",
    reading="the exact power or size is wrong")


# -- Sec. 2.1 (Fig. 3) ------------------------------------------------------------------------

#: The Cox model's log hazard ratio of ddI against ZDV at one hospital of the runs' split,
#: and pooled. The authors' notebook's 10-centre split by index is a check over all its
#: centres: neither the paper nor the notebook says which of the 10 its Fig. 3 shows, and
#: picking the centre whose p is nearest the paper's would agree by construction.
HOSPITALS = (
    Statement(
        "2.1, Fig. 3", "one hospital cannot detect the effect of ddI (p-value 0.9)",
        Below("p − 0.05 (Wald, lifelines)", ">"),
        {"a": M.p_value(1), "b": LEVEL, "centre": M.hazard(1),
         "split": M.split("runs"), "pooled": M.hazard()},
        case="centre 1 of 5 (the runs' even random split, seed 0)",
        ours="log HR {centre[coef]:number} [{centre[low]:number}, {centre[high]:number}], "
             "p = {a:pvalue}; all {split[count]} centres: p = {split[pvalues]}",
        reading="with {split[patients]} patients a centre detects an effect of the pooled "
                "size ({pooled[coef]:number}) at 5% in {split[detected]} of {split[count]} "
                "centres: which centre the paper shows, and its split, decide"),
    Statement(
        "2.1, Fig. 3", "pooled, ddI's log HR is significant at p < 0.001",
        Below("p − 0.001"), {"a": M.p_value(), "b": 1e-3, "pooled": M.hazard()},
        case="the 1,093 patients of ddI and ZDV",
        ours="log HR {pooled[coef]:number} [{pooled[low]:number}, {pooled[high]:number}], "
             "p = {a:sci} ({pooled[events]} events)",
        reading="the pooled effect is weaker than the paper's"),
)
NOTEBOOK_SPLIT = Statement(
    "2.1, Fig. 3", "under the notebook's split most centres cannot detect the effect of ddI "
    "(p > 0.05)",
    Below("share of centres with p > 0.05 − 0.5", ">"),
    {"a": M.undetected("modulo"), "b": MOST, "split": M.split("modulo")},
    case="all {split[count]} centres of the split by patient index mod {split[count]}",
    ours="p = {split[pvalues]}: {split[undetected]} of {split[count]} above 0.05, "
         "{split[near]} within 0.05 of the paper's 0.9; which centre the paper shows is not "
         "said, so none is picked",
    reading="most centres of the split detect the effect")


# -- Sec. 5: the tests, the best treatment (Figs 4 and 5) ----------------------------------------

TESTS = (
    Statement(
        "5", "\"The centralized test yields a p-value of P < 10⁻⁴\" (ddI against ZDV)",
        Below("P − 10⁻⁴"), {"a": "{median}", "b": 1e-4},
        cases=M.test("centralized"), case="pooled GLRT, χ²₁ by Wilks",
        ours="P = {median:pvalue} (statistic {statistic:number})",
        reading="the pooled likelihood ratio is smaller than the paper's"),
    Statement(
        "5", "\"the distributed hypothesis test produces a p-value of P < 10⁻⁵\" (5 centres, "
        "ε = 1)",
        Below("share of runs with P < 10⁻⁵ − 0.5", ">"),
        {"a": M.share("{below_1e5}", "{runs}"), "b": MOST},
        cases=M.test("test"), case="in most of {runs} runs (the paper reports one)",
        ours="median P {median:pvalue} [{low:pvalue}, {high:pvalue}] (95%); rejects at α = "
             "{alpha:g} in {reject:percent}",
        reading="each round adds Laplace noise of scale b = K·2Δ/ε = {scale:number} (K = "
                "{rounds} at α/2, Δ = {sensitivity:number} as printed) to "
                "every centre's log-likelihoods, against a pooled GLR statistic of "
                "{statistic:number}: P is below 10⁻⁵ in {below_1e5:percent} of runs"),
)

#: The ground truth of Fig. 4, from the pooled log hazard ratios (independent standard
#: errors from their 95% intervals: the arms share the ZDV controls, whose positive
#: covariance makes this conservative).
BEST_TREATMENT = Statement(
    "5, Fig. 4", "ZDV+ddI is the best treatment (ground truth)",
    Below("log HR(ZDV+ddI) − log HR({runner})"),
    {"a": M.log_hr(ARM_BEST), "b": M.log_hr("{runner}")},
    cases=M.runner_up(), case="pooled Cox fits against ZDV, against the next best arm",
    ours="log HR vs ZDV: {arms}; Θ* of the centres' GLR scores: {mle_set}",
    reading="the two best arms' hazard ratios are within their standard errors: the data do "
            "not single out one arm")


def identify(setting: str, case: str = "{method:method}") -> Statement:
    """Fig. 5 under ``setting`` (the paper's Θ, or ``zdv``: ZDV as a fourth state at the
    notebook's ε): per private algorithm, the share of runs whose top final belief is
    ZDV+ddI, with the Laplace scales and the centres' spread of scores."""
    return Statement(
        "5, Fig. 5", "\"All algorithms are able to identify the best treatment that "
        "corresponds to ZDV+ddI\" (AM, GM, two thresholds; 5 centres, ε = 1)",
        Below("share of runs whose top final belief is ZDV+ddI − 0.5", ">"),
        {"a": M.share("{share}", "{runs}"), "b": MOST},
        cases=M.identified(setting), case=case,
        ours="{share:percent} of {runs} runs (chance {chance:percent}); mean final beliefs "
             "{means}",
        reading="Laplace noise of scale b = K|Θ|·2Δ/ε = {scale:number} per centre and arm "
                "against scores that differ between arms by at most {spread:number} at a "
                "centre: every round is decided by the noise")


# -- Sec. 5, Fig. 6: against Rizk et al. --------------------------------------------------------

def against_rizk(preset: str, setting: str = "") -> tuple[Statement, Statement]:
    """Fig. 6 of ``preset`` (the paper's setting, or another named by ``setting``): per
    method, ours below the better of Rizk et al.'s TVD and the uniform belief's (a belief
    that learned nothing; Fig. 6's reference line, exact) at the least favourable cell
    (independent cells); and the largest ratio (its bootstrap interval) against "up to
    100×"."""
    return (
        Statement(
            "5, Fig. 6", "\"Our MLE algorithms exhibit a smaller average total variation "
            "distance compared to the algorithm of Rizk et al.\"",
            Below("TVD ours − min(Rizk et al.'s, uniform's)"),
            {"a": M.estimate("{ours}", "{ours_se}"),
             "b": M.estimate("{reference}", "{reference_se}")},
            cases=M.least_favourable(preset),
            case="{method:method}: least favourable of {cells} (n, ε): n = {n}, ε = "
                 "{epsilon:g}" + setting,
            ours="ours {ours_span}, Rizk et al.'s {rizk_span}; held against the better of "
                 "Rizk et al.'s TVD and the uniform belief's {uniform:number} (exact), here "
                 "{which}",
            reading="at this cell our TVD is no lower than the uniform belief's (a belief "
                    "that learned nothing), which Rizk et al.'s exceeds: the noise decides, "
                    "and being below Rizk et al. says only that theirs is worse than "
                    "learning nothing"),
        Statement(
            "5 (details in 14.4)", "\"our algorithms yield answers closer to ground truth "
            "compared to the first-order method of Rizk et al. with up to 100 times smaller "
            "errors\"",
            Near("Rizk et al.'s TVD / ours, largest over the cells", "100", factor=True),
            {"x": M.interval("{estimate}", "{low}", "{high}")},
            cases=M.largest_ratio(preset),
            case="largest ratio of {cells} (method, n, ε): {method:method}, n = {n}, ε = "
                 "{epsilon:g}{unbounded}" + setting,
            ours="{rizk:number} against {ours:sci}; ratios {ratios}; interval of the "
                 "maximum: percentile bootstrap, {resamples:,} resamples of every cell's "
                 "runs (fixed seed), the maximum over the cells recomputed each time",
            reading="a TVD is at most 1 and Rizk et al.'s is {rizk_span} (from θ = 0 with "
                    "η = 0.001 their iterate stays nearest the state 0 ∉ Θ*), so 100× needs "
                    "ours at 0.01; ours is at least {ours_min:number}. The notebook's 100× "
                    "divides by its added jitter U(0, 0.05) (see below)"),
    )


RIZK_WORSE = Statement(
    "5, Fig. 6", "Rizk et al.'s beliefs are worse than the uniform belief",
    Below("TVD Rizk et al.'s − uniform's", ">"),
    {"a": M.estimate("{rizk}", "{rizk_se}"), "b": "{uniform}"},
    cases=M.rizk_worst("inference_fig6"),
    case="least favourable of {cells} (n, ε): n = {n}, ε = {epsilon:g}",
    ours="Rizk et al.'s {rizk_span}")


# -- Runtime (Sec. 5, Sec. 14.3) -------------------------------------------------------------

#: Each end of the paper's range of run times (it prints orders of magnitude, "∼10⁻²", so
#: each is read to the nearest decade) against our time of one whole run at that end: the
#: fastest cell (of the fewest centres, ``n_from`` None; else of at least ``n_from``) and
#: the slowest.
RUNTIME_QUOTES = (
    ("5", "\"our algorithm can run between ∼10⁻² and 10 seconds for values of n ranging "
     "from n = 3 to n = 96\"", PAPER_RUNTIME, None),
    ("14.3, Fig. 14.2", "\"Our reported runtimes range from ∼10⁻² s to ∼1 s\" (4,096 and "
     "8,192 time points, n = 6 to 96)", PAPER_RUNTIME_ACTG, 6),
)
#: The runtime preset's two privacy settings: Sec. 14.3's text (ε = 0.1, error bounds 0.1),
#: under which the text states its times, and Fig. 14.2's caption (ε = 1, α = 0.05).
RUNTIME_SETTINGS = ({"epsilon": 0.1, "setting": "Sec. 14.3's text: ε = 0.1, α = 0.1"},
                    {"epsilon": 1.0, "setting": "Fig. 14.2's caption: ε = 1, α = 0.05"})
RUNTIME = tuple(
    Statement(
        section, quote, Near("time per run / (1 s)", "{paper:g}", factor=True),
        {"x": M.run_time("{end}", "{n_from}", "{epsilon}"),
         "cell": M.timed_cell("{end}", "{n_from}", "{epsilon}")},
        cases=tuple({"end": end, "n_from": n_from if end == "fastest" else 0, "paper": printed,
                     **setting} for setting in RUNTIME_SETTINGS
                    for end, printed in zip(("fastest", "slowest"), paper, strict=True)),
        case="{setting}, {end} cell: n = {cell[n]}, {cell[patients]:,} time points, "
             "{cell[method]:method}: likelihoods {cell[prepare]:sci} s + exchange "
             "{cell[exchange]:sci} s",
        ours="one whole run: the centres' log-likelihoods on their patients, then the belief "
             "exchange (K rounds of T steps), one thread; {cell[repeats]} repetitions",
        reading="our run is faster than the paper's: the notebook computes each centre's "
                "likelihood with pandas (0.03–0.35 s a run), ours with sorted arrays; its "
                "exchange takes 1–3 ms, like ours; the paper's times are of its machine "
                "(Sec. 14.3 calls them the per-agent cost; the notebook times whole runs)")
    for section, quote, paper, n_from in RUNTIME_QUOTES)
FAMHE = Statement(
    "5, 14.3, abstract", "\"significantly faster (up to 1000×) than existing methods that "
    "rely on homomorphic encryption\"; \"a 10×−1000× improvement over the runtimes reported "
    "in Froelicher et al. (2021)\" (FAMHE)",
    NoRule("FAMHE's side cannot be run: no public implementation, and the paper compares "
           "with times printed in Froelicher et al.'s Fig. 2(c)"),
    {"times": M.run_times()}, case="n = 6 to 96, 4,096 and 8,192 time points",
    ours="ours {times} s per run",
    reading="what can be checked is our side: the time of one whole run, against the paper's "
            "own printed times (the rows above); what cannot is the ratio, since FAMHE has no "
            "public implementation (as the paper says) and the paper's 10×–1000× sets its "
            "times against those printed by Froelicher et al. (their Fig. 2(c)) for a "
            "different protection (encryption, not DP noise), other data sizes and other "
            "machines")


# -- Sec. 14.1 -----------------------------------------------------------------------------------

#: The noise each round adds against the gap Λ(θ*) − Λ(other) of the centres'
#: log-likelihoods.
NOISE = ("Laplace noise of scale {noise_scale:number} per centre, state and round against "
         "the gap Λ(−log 2) − Λ(0) = {gap:number}")
#: Sec. 14.1 (n = 5, ddI against ZDV, Θ = {0, −log 2}) per method: where, the paper's
#: words, and the reading of a share short of most runs.
RECOVERS = {
    "am": ("14.1, Fig. 14.1(a)", "Alg. 1 (AM, GM) recovers Θ* = {−log 2}",
           "AM returns a superset (type I error {type_i_error:percent}): it controls type II only; "
           + NOISE),
    "gm": ("14.1, Fig. 14.1(a)", "Alg. 1 (AM, GM) recovers Θ* = {−log 2}", NOISE),
    "threshold_1": ("14.1, Fig. 14.1(b)", "the two-threshold algorithm recovers Θ*",
                    "with the printed counting p₁ = 1 − 1/|Θ*| = 0, τ^{{thres,1}} = 0 and "
                    "Θ̂^{{thres,1}} is every state (type I error {type_i_error:percent}); " + NOISE),
    "threshold_2": ("14.1, Fig. 14.1(b)", "the two-threshold algorithm recovers Θ*", NOISE),
    "private_ol": ("14.1, Fig. 14.1(c)", "private online learning (Alg. 3) identifies "
                   "θ° = −log 2", NOISE),
}


def recovery(preset: str, setting: str = "") -> tuple[Statement, ...]:
    """Sec. 14.1's exact recovery at T at ε = 1, one row per method of ``preset`` (the
    quickstart's, or another named by ``setting``), in most runs."""
    return tuple(Statement(
        section, f"{words} (5 centres, ε = 1)",
        Below("share of runs with exact recovery at T − 0.5", ">"),
        {"a": M.share("{exact_recovery}", "{n}"), "b": MOST},
        cases=M.recovered(preset, method), case="{method:method}" + setting,
        ours="{exact_recovery:percent} of {n} runs", reading=reading)
        for method, (section, words, reading) in RECOVERS.items())


# -- The theorems --------------------------------------------------------------------------------

THM_4_1 = ("as ϱ, T → ∞, with K ≥ |Θ*| log(|Θ̄|/α) GM's type I error ≤ α, and with "
           "K ≥ |Θ̄| log(|Θ*|/(1 − β)) AM's type II error ≤ 1 − β")
#: The theorems' guarantees by theorem and method: the paper's words, and the error they
#: bound (exact recovery from below).
GUARANTEES = {
    ("Thm 4.1", "am"): (THM_4_1, "type_ii_error"),
    ("Thm 4.1", "gm"): (THM_4_1, "type_i_error"),
    ("Thm 4.2", "am"): ("AM's type II error ≤ 2(1 − β) at the theorem's K and T",
                        "type_ii_error"),
    ("Thm 4.2", "gm"): ("GM's type I error ≤ 2α at the theorem's K and T", "type_i_error"),
    ("Thm 4.3", "threshold_1"): ("Alg. 2: type I error of Θ̂^{thres,1} ≤ |Θ̄|e^{−2Kπ₁²}",
                                 "type_i_error"),
    ("Thm 4.3", "threshold_2"): ("Alg. 2: type II error of Θ̂^{thres,2} ≤ |Θ*|e^{−2Kπ₂²}",
                                 "type_ii_error"),
    ("Prop. 4.6", "test"): ("the distributed test has size ≤ α (rejects the true null with "
                            "probability at most α)", "reject"),
    ("Thm 4.7", "private_ol"): ("at its T, private online learning recovers θ° with "
                                "probability ≥ 1 − 2η", "exact_recovery"),
}


def bounded(metric: str) -> str:
    """What a guarantee says of ``metric``: "type i error ≤ bound"."""
    return f"{metric.replace('_', ' ')} {'≥' if metric == 'exact_recovery' else '≤'} bound"


def on_actg(theorem: str, method: str) -> Statement:
    """Thm 4.2 or 4.3 on ACTG 175 over every cell with a bound row, for one estimator: the
    cell furthest past its bound (a guarantee holds in every cell, so the least favourable
    decides), with the likelihood gaps by n."""
    words, metric = GUARANTEES[theorem, method]
    counting = ("; and under the printed counting p₁ = 1 − 1/|Θ*| = 0, so Θ̂^{{thres,1}} "
                "keeps every state" if method == "threshold_1" else "")
    return Statement(
        theorem, words, Given(),
        {"evidence": M.guarantee(bounded(metric), "{rate}", "{runs}", "{bound}", False)},
        cases=M.least_favourable_bound(method, metric),
        case="ACTG 175, least favourable of {cells} cells ({presets}): n = {n}, ε = {epsilon:g}",
        ours="within the bound in {holds} of {cells} cells",
        reading="the theorems take K from α and β alone; with Laplace noise of scale {scales} "
                "per centre, state and round against likelihood gaps of {gaps} (n = "
                "{centres}), the rounds' answers are close to coin flips, whatever K and T"
                + counting)


ACTG_BOUNDS = tuple(on_actg(theorem, method) for theorem, method in (
    ("Thm 4.2", "gm"), ("Thm 4.2", "am"), ("Thm 4.3", "threshold_1"), ("Thm 4.3", "threshold_2")))


def synthetic(corrected: bool) -> tuple[Statement, ...]:
    """The guarantees on synthetic data (``inference_guarantees``): Thms 4.1, 4.2, 4.3,
    Prop. 4.6 and Thm 4.7, one row per theorem, estimator and setting; Alg. 2 with the
    ``corrected`` counting (not the paper's) is the project's check."""
    return tuple(Statement(
        theorem, words, Given(),
        {"evidence": M.guarantee(bounded(metric), "{rate}", "{runs}", "{bound}", "{lower}")},
        cases=M.guarantees(theorem, method, corrected), case="{method:method}; {setting}",
        ours="{rate:percent} of {runs:,} runs; b = {noise_scale:number}, K = {rounds_k}, "
             "T = {iterations_t:,}",
        reading="{reading}")
        for (theorem, method), (words, metric) in GUARANTEES.items()
        if not corrected or method.startswith("threshold"))


# -- The section's tables ------------------------------------------------------------------------

#: Fig. 5 at the notebook's setting: ZDV a fourth state, ε = 0.1, K = 10, T = 1000.
ZDV = ("{method:method}; Θ with ZDV as a fourth state, ε = {epsilon:g}, K = 10, T = 1000 (the "
       "notebook's setting of the figure)")
#: Sec. 14.5 and Fig. 14.2(a): the cancer study's results, which need data this project
#: cannot obtain.
CANCER_DATA = ("Samstein et al.'s (2019) cancer cohort (1,662 patients, tumor mutational "
               "burden) is not public in the form the paper uses and ships with no library "
               "here: the claim cannot be run")
CANCER = tuple(
    Statement("14.5" if figure != "14.2(a)" else "14.3", quote, NoRule(CANCER_DATA),
              case=f"Fig. {figure}", reading="the data are not available")
    for figure, quote in (
        ("14.5", "\"The resulting estimators yield {log(0.15)} as the MLE set\" (n = 5 "
                 "fully connected centres, TMB, Algorithm 2, ε = 1)"),
        ("14.3", "the cancer study's beliefs under Algorithm 1 (AM and GM) single out the "
                 "MLE state"),
        ("14.6", "the cancer study's beliefs under online learning single out the MLE "
                 "state"),
        ("14.2(a)", "the cancer study's run times, as for ACTG in Fig. 14.2(b)")))
CLAIMS = (
    *TOY, *HOSPITALS, *TESTS, BEST_TREATMENT, identify("paper"), identify("zdv", ZDV),
    *against_rizk("inference_fig6"),
    *against_rizk("inference_fig6_notebook", "; the notebook's setting α = 0.1, ϱ = 0.1"),
    *RUNTIME, FAMHE, *recovery("inference_quickstart"),
    *recovery("inference_ol_notebook", "; patients arriving by 10-day period (the "
              "notebook's), T = {t_max}"),
    *ACTG_BOUNDS, *synthetic(corrected=False), EXCHANGES, LOWER_BOUND, *CANCER,
)
CHECKS = (EXACT_LAPLACE, NOTEBOOK_SPLIT, RIZK_WORSE, *synthetic(corrected=True), DATA_PROCESSING)
