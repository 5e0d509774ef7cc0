"""Private-ColME's statements (Sec. VII on Figs 2–4, with the abstract's and Sec. VIII's),
one row per case, and the project's checks against the exact oracle: declared, and
decided by :func:`analysis.statements.evaluate` from the numbers of
:class:`~analysis.studies.colme.document.Measures`."""

from __future__ import annotations

from typing import Any

from ...statements import Below, Given, M, Near, NoRule, Select, Statement, cases

SCHEMES = (("pm1", "last"), ("pm1", "mom"), ("pm2", "last"), ("pm2", "mom"))
SCHEDULES = ("rr", "rrr")
#: Sec. VII-A's sections, as the rows cite them.
LEFT, MIDDLE, RIGHT = ("VII-A, Fig. 2 (left)", "VII-A, Fig. 2 (middle)",
                       "VII-A, Fig. 2 (right)")
FIG3, FIG3_RIGHT, FIG4 = "VII-B, Fig. 3", "VII-B, Fig. 3 (right)", "VII-C, Fig. 4 (left)"
#: A scheme in the paper's words: ``PM-II non-MoM rRR``.
SCHEME = "{m:mechanism} {w:weights}"
SCHEDULED = SCHEME + " {s:schedule}"
#: The best scheme of Fig. 2 (Sec. VII-B), and the exception of Sec. VII-A.
BEST = {"m": "pm1", "w": "last", "s": "rr"}
EXCEPTION = {"m": "pm2", "w": "last", "s": "rrr"}
EXCEPTION_CELL = {"mechanism": "pm2", "weights": "last", "schedule": "rrr"}
#: Fig. 3 (right) ends here: the paper reads its crossings up to this t.
ZOOM = 2000
#: Why "comparably" and "almost perfectly" are not decided (the rule "none").
NO_NUMBER = "the paper prints no number or precision for “{}”"
COMPARABLY = ("no band is invented for \"comparably\": the ratio is shown for the reader "
              "to judge")
#: Eq. (16) as printed, behind the readings of Fig. 3 (right).
BIAS = ("eq. (16) as printed is biased upward while its first p-sum, of the length of b's "
        "place in a's RR cycle, weighs in (see sweep/colme/variance.py); ")


def fig2(m: str = "{m}", w: str = "{w}", s: str = "{s}", **options: Any) -> Select:
    """A scheme of Fig. 2 (left), at t_max unless ``t`` is given."""
    return M.final("fig2_left", mechanism=m, weights=w, schedule=s, **options)


def oracle(m: str = "{m}", w: str = "{w}", **options: Any) -> Select:
    """The exact oracle's MSE (Prop. 3, RR) at t_max."""
    return M.oracle(mechanism=m, weights=w, schedule="rr", **options)


def fig3(variance: str) -> Select:
    """A variance scheme of Fig. 3 (PM-I, non-MoM, RR; eq. (16), the paper's prior)."""
    return M.final("fig3", variance=variance, weights="last", inferred_form="eq16",
                   prior="paper")


def fig4(noise: str = "{noise}", m: str = "{m}") -> Select:
    return M.final("fig4", noise=noise, mechanism=m)


#: The preset that compares the staircase mechanism with Lemma 2's Laplace noise.
STAIRCASE = "colme_staircase"


def staircase(noise: str) -> Select:
    return M.final(STAIRCASE, noise=noise, epsilon="{epsilon}")


FIG2_BASELINE = {"mechanism": "pm1", "weights": "last", "schedule": "rr"}
LOCAL, IDEAL = (M.analytic("fig2_left", method, **FIG2_BASELINE) for method in ("local", "ideal"))

CLAIMS = (
    Statement(
        LEFT, "\"As expected, for PM-I the non-MoM approach outperforms the MoM approach "
        "(cf. Lemma 5)\"", Below("MSE(non-MoM) − MSE(MoM) at t_max"),
        {"a": fig2("pm1", "last"), "b": fig2("pm1", "mom")}, cases(s=SCHEDULES),
        case="PM-I, {s:schedule}", ours="non-MoM {a:sci}, MoM {b:sci}"),
    Statement(
        LEFT, "\"there is still some gap to ideal performance\"",
        Below("MSE(best) − MSE(ideal) at t_max", ">"), {"a": fig2(), "b": IDEAL}, (BEST,),
        case=f"the best scheme, {SCHEDULED} (Sec. VII-B)",
        ours="{a:sci} against ideal {b:sci} (exact)"),
    Statement(
        "Abstract, Sec. I, Sec. VIII", "the best scheme \"performs comparably to ideal "
        "performance where all data is public\"", NoRule(NO_NUMBER.format("comparably")),
        {"a": fig2(), "b": IDEAL,
         "ratio": M.ratio_text("MSE(best) / MSE(ideal) at t_max", fig2(), IDEAL)}, (BEST,),
        case=f"known variance, {SCHEDULED}",
        ours="{a:sci} against ideal {b:sci} (exact): {ratio}", reading=COMPARABLY),
    Statement(
        LEFT, "\"PM-I with non-MoM weights outperforms PM-II for the range of squared errors "
        "shown\"", Below("MSE(PM-I non-MoM) − MSE(PM-II) at t_max"),
        {"a": fig2("pm1", "last"), "b": fig2("pm2")}, cases(s=SCHEDULES, w=("last", "mom")),
        case="against PM-II {w:weights}, {s:schedule}", ours="PM-I non-MoM {a:sci}, PM-II {b:sci}"),
    Statement(
        LEFT, "\"RR performs better than rRR\" (\"the gaps t_i − t_{i−1} are larger for RR\")",
        Below("MSE(RR) − MSE(rRR) at t_max"), {"a": fig2(s="rr"), "b": fig2(s="rrr")},
        tuple({"m": m, "w": w} for m, w in SCHEMES), case=SCHEME, ours="RR {a:sci}, rRR {b:sci}",
        reading="the gap argument is PM-I's (each query adds a p-sum noise). Under PM-II with "
        "MoM the very noisy first release keeps weight 1/κ, and rRR's shorter period dilutes "
        "it faster: it makes {first_rr_share} of a member's Var[T] at t_max under RR, "
        "{first_rrr_share} under rRR (below)"),
    Statement(
        LEFT, "RR performs better than rRR, \"which was not the case when privacy is "
        "ignored\" ([14, Fig. 1])", Below("MSE(rRR) − MSE(RR) at t_max"),
        {"a": M.final("fig2_no_privacy", schedule="rrr"),
         "b": M.final("fig2_no_privacy", schedule="rr"),
         "early": M.checkpoint("fig2_no_privacy", 300, schedule="rr"),
         "a_early": M.final("fig2_no_privacy", 300, schedule="rrr"),
         "b_early": M.final("fig2_no_privacy", 300, schedule="rr"),
         "a_excluded": M.final("fig2_no_privacy", metric="false_exclusion", schedule="rrr"),
         "b_excluded": M.final("fig2_no_privacy", metric="false_exclusion", schedule="rr")},
        case="no privacy (mechanism=none), non-MoM", ours="RR {b:sci}, rRR {a:sci}",
        reading="without noise rRR is below RR early on (t = {early:,}: rRR {a_early:sci}, "
        "RR {b_early:sci}), but an agent it excludes is never queried again, and its "
        "false-exclusion rate grows to {a_excluded.mean:percent} at t_max (RR "
        "{b_excluded.mean:percent}): RR ends lower"),
    Statement(
        LEFT, "\"The collaborative schemes (ultimately) perform significantly better than a "
        "pure local approach\"", Below("MSE(scheme) − MSE(local) at t_max"),
        {"a": fig2(), "b": LOCAL},
        tuple(c for c in ({"m": m, "w": w, "s": s} for m, w in SCHEMES for s in SCHEDULES)
              if c != EXCEPTION),
        case=SCHEDULED, ours="{a:sci} against local {b:sci}"),
    Statement(
        LEFT, "\"PM-II with non-MoM weights and rRR scheduling being a notable exception\" to "
        "\"significantly better than a pure local approach\" (read as: it ends above local; "
        "ending significantly below local contradicts the exception either way)",
        Below("MSE(scheme) − MSE(local) at t_max", ">"),
        {"a": fig2(), "b": LOCAL, "ratio": M.ratio(fig2(), LOCAL),
         "excluded": fig2(metric="false_exclusion")}, (EXCEPTION,),
        case=SCHEDULED, ours="{a:sci} against local {b:sci}, {ratio:number} times local",
        reading=f"{SCHEDULED} is the scheme that gains least, and its false exclusions keep "
        "growing ({excluded.mean:percent} at t_max), but at t_max it is still below local"),
    Statement(
        LEFT, "\"the decision rule type-I error increases over time rather than converging to "
        "a close-to-zero value\"",
        Below("false-exclusion rate at t = {late_t:,} − at t = {early_t:,}", ">"),
        {"a": M.runs("fig2_left", "false_exclusion", "{late}", **EXCEPTION_CELL),
         "b": M.runs("fig2_left", "false_exclusion", "{early}", **EXCEPTION_CELL),
         "early_t": M.checkpoint("fig2_left", "{early}", "false_exclusion", **EXCEPTION_CELL),
         "late_t": M.checkpoint("fig2_left", "{late}", "false_exclusion", **EXCEPTION_CELL),
         "early_rate": fig2(t="{early}", metric="false_exclusion"),
         "late_rate": fig2(t="{late}", metric="false_exclusion")},
        tuple(EXCEPTION | {"early": early, "late": late}
              for early, late in ((100, 1000), (1000, None))),
        case=SCHEDULED + ", t = {early_t:,} to {late_t:,}",
        ours="{early_rate.mean:percent} at t = {early_t:,}, {late_rate.mean:percent} at "
        "t = {late_t:,} (the same runs)"),
    Statement(
        MIDDLE, "the oracle \"shows qualitatively the same behavior as in the left plot\"",
        Below("MSE(A) − MSE(B), simulated at t_max"),
        {"a": fig2(s="rr"), "b": fig2("{m2}", "{w2}", "rr")}, M.oracle_order(SCHEMES),
        case="RR, the oracle's order: A = {m:mechanism} {w:weights} below B = "
        "{m2:mechanism} {w2:weights}", ours="simulated {a:sci} vs {b:sci}"),
    Statement(
        MIDDLE, "\"PM-I performs better than PM-II for the range of squared errors shown\"",
        Below("MSE(PM-I non-MoM) − MSE(PM-II wMoM), oracle at t_max"),
        {"a": oracle("pm1", "last"), "b": oracle("pm2", "wmom")},
        case="RR, against PM-II at its best (wMoM)",
        ours="oracle at t_max: PM-I non-MoM {a:sci}, PM-II wMoM {b:sci}"),
    Statement(
        MIDDLE, "\"asymptotically (for very low squared errors) the curves will cross (not "
        "shown)\"", Below("MSE(PM-II {w:weights}) − MSE(PM-I non-MoM), oracle at "
                          "t = {beyond:,}"),
        {"a": M.beyond("pm2", "{w}"), "b": M.beyond("pm1", "last")},
        cases(w=("last", "wmom")),
        case="PM-II {w:weights}, t = {beyond:,} (σ_DP of t_max = {t_max:,})",
        ours="oracle: PM-I non-MoM {b:sci}, PM-II {w:weights} {a:sci}"),
    Statement(
        MIDDLE, "\"PM-II with wMoM weights smoothens the corresponding curve with non-MoM "
        "weights (the oscillations are due to the factor w_H(κ)…)\"",
        Below("roughness(wMoM) − roughness(non-MoM)"),
        {"a": M.roughness("wmom"), "b": M.roughness("last")}, case="PM-II, RR, oracle",
        ours="roughness (mean |Δ² ln MSE| over the {roughness_points} checkpoints from "
        "t = M): non-MoM {b:number}, wMoM {a:number}"),
    Statement(
        MIDDLE, "wMoM \"shows that having non-MoM weights for PM-II is not optimal\"",
        Below("MSE(PM-II wMoM) − MSE(PM-II non-MoM), oracle at t_max"),
        {"a": oracle("pm2", "wmom"), "b": oracle("pm2", "last")}, case="PM-II, RR",
        ours="oracle at t_max: wMoM {a:sci}, non-MoM {b:sci}"),
    Statement(
        MIDDLE, "\"PM-II with wMoM weights performs significantly better than a pure MoM "
        "approach\"", Below("MSE(PM-II wMoM) − MSE(PM-II MoM), oracle at t_max"),
        {"a": oracle("pm2", "wmom"), "b": oracle("pm2", "mom")}, case="PM-II, RR",
        ours="oracle at t_max: wMoM {a:sci}, MoM {b:sci}"),
    Statement(
        RIGHT, "\"PM-II with wMoM weights shows the best performance for a low squared "
        "error\"", Below("MSE(PM-II wMoM) − MSE(best other), oracle at t_max"),
        {"a": oracle("pm2", "wmom", n_agents=30), "b": oracle(n_agents=30),
         "all": M.oracles_text(SCHEMES, 30)}, M.runner_up(SCHEMES, 30),
        case="M = 30, RR, against the best of the others ({m:mechanism} {w:weights})",
        ours="oracle at t_max, M = 30: {all}"),
    Statement(
        RIGHT, "\"compared to M = 200, the performance gap to ideal performance is far "
        "larger\"", Below("gap(M = 30) − gap(M = 200), best oracle / ideal at t_max", ">"),
        {"a": M.gap(SCHEMES, 30), "b": M.gap(SCHEMES)},
        case="M = 30 against M = 200, RR (the rule decides \"larger\", not \"far\")",
        ours="best oracle / ideal at t_max: M = 30 {a:number}; M = {n_agents} {b:number}"),
    Statement(
        FIG4, "\"the lower mean squared error that we observe with Laplace noise\"",
        Below("MSE(Laplace) − MSE(Gaussian) at t_max"),
        {"a": fig4("laplace"), "b": fig4("gaussian")}, cases(m=("pm1", "pm2")),
        case="M = 15, {m:mechanism}, non-MoM, RR",
        ours="Laplace {a:sci}, Gaussian {b:sci} ({fig4_runs} runs)"),
    Statement(
        FIG4, "\"for M = 15 agents, PM-II outperforms PM-I for low error values\"",
        Below("MSE(PM-II) − MSE(PM-I) at t_max"),
        {"a": fig4(m="pm2"), "b": fig4(m="pm1")}, cases(noise=("gaussian", "laplace")),
        case="{noise:noise}, non-MoM, RR",
        ours="PM-II {a:sci}, PM-I {b:sci} ({fig4_runs} runs)"),
    Statement(
        "VII-C, Fig. 4 (right)", "\"As the mean squared error decreases, the simulation "
        "results from the left plot align almost perfectly with the corresponding curves in "
        "the right plot\"", NoRule(NO_NUMBER.format("almost perfectly")),
        {"x": fig4("laplace"),
         "exact": M.analytic("fig4", "oracle", **FIG2_BASELINE | {"noise": "laplace",
                                                                  "mechanism": "{m}"}),
         "ratio": M.ratio_text("simulated / oracle at t_max", fig4("laplace"), M.analytic(
             "fig4", "oracle", **FIG2_BASELINE | {"noise": "laplace", "mechanism": "{m}"})),
         "off": M.off(fig4("laplace"), M.analytic(
             "fig4", "oracle", **FIG2_BASELINE | {"noise": "laplace", "mechanism": "{m}"}))},
        cases(m=("pm1", "pm2")), case="Laplace, {m:mechanism}, non-MoM, RR",
        ours="{x:sci} against the oracle {exact:sci}: {ratio}",
        reading="over {fig4_runs} runs the simulation is {off} the oracle at t_max; whether "
        "that is \"almost perfect\" the paper does not say in numbers"),
)

CHECKS = (
    Statement(
        "VI-C, Prop. 3", "the simulated RR scheme meets the exact oracle (known classes)",
        Near("MSE(simulated) at t_max", "oracle {exact:sci}"),
        {"x": fig2(), "exact": oracle(), "ratio": M.ratio(fig2(), oracle())},
        tuple({"m": m, "w": w, "s": "rr"} for m, w in SCHEMES), case=SCHEDULED,
        ours="{x:sci}, {ratio:number} times the oracle",
        reading="the oracle keeps every class member in with the analytic weights from t = 1; "
        "the decision rule first includes the other classes too"),
    Statement(
        "VI-C, Remark 3", "rRR's oracle (Remark 3, the classes known) is a reference the "
        "simulated rRR does not beat", Below("MSE(simulated) − MSE(oracle) at t_max", ">"),
        {"a": fig2(), "b": M.remark("{m}", "{w}", "paper"),
         "simulator": M.remark("{m}", "{w}", "simulator"), "misses": M.misses(SCHEMES)},
        tuple({"m": m, "w": w, "s": "rrr"} for m, w in SCHEMES), case=SCHEDULED,
        ours="{a:sci}; oracle {b:sci} (with the simulator's query times {simulator:sci})",
        reading="Remark 3 queries the members from t = 1; the simulated rRR first sweeps all "
        "M − 1 others (C_a^(0) = all agents), and the decision rule keeps other classes' "
        "agents in C_a for thousands of steps, which spaces the noisy early releases and "
        "shortens the period later. Ratios far above 1 are the decision rule's false "
        "exclusions, final under rRR (never re-queried): {misses}"),
    Statement(
        "beyond the paper", "the staircase mechanism (Geng & Viswanath), ε-DP for the "
        "p-sums' sensitivity 2L as Lemma 2's Laplace noise is, gives Algorithm 1 a smaller "
        "MSE", Below("MSE(staircase) − MSE(Laplace) at t_max"),
        {"a": staircase("staircase"), "b": staircase("laplace"),
         "exact_a": M.analytic(STAIRCASE, "oracle", noise="staircase", epsilon="{epsilon}"),
         "exact_b": M.analytic(STAIRCASE, "oracle", noise="laplace", epsilon="{epsilon}"),
         "share_a": M.noise_share(STAIRCASE, "staircase", "{epsilon}"),
         "share_b": M.noise_share(STAIRCASE, "laplace", "{epsilon}")},
        cases(epsilon=(1, 5)), case="M = 2, one class, PM-I non-MoM RR, ε = {epsilon}",
        ours="staircase {a:sci}, Laplace {b:sci}; the exact oracles {exact_a:sci} and "
             "{exact_b:sci}; a p-sum's noise variance σ_DP² is {share_a:number} σ² "
             "(staircase) and {share_b:number} σ² (Laplace)",
        reading="the oracle weighs the other agent's release by its noise: where σ_DP² is "
                "many times σ² (small ε) it nearly ignores it under either noise, and the "
                "two MSEs meet"),
)

FIG3_CLAIMS = (
    Statement(
        FIG3, "Sch-Var-2's \"performance converges to the performance curve for the case "
        "when the data variance is known\"",
        Below("ln MSE ratio to known at t = {end:,} − at t = {zoom:,}"),
        {"a": M.gap_to_known(None), "b": M.gap_to_known(ZOOM), "end": M.fig3_checkpoint(None),
         "zoom": M.fig3_checkpoint(ZOOM), "ratios": M.gap_to_known_text()},
        case="eq. (16), on common random numbers, from the end of Fig. 3 (right) to t_max",
        ours="MSE ratio to known (geometric mean over the same runs): {ratios}",
        reading="the ratio to known variance does not shrink towards 1 between the end of "
        "Fig. 3 (right) and t_max"),
    Statement(
        FIG3, "\"Sch-Var-2 … performs the best\" (of the two estimation schemes)",
        Below("MSE(Sch-Var-2) − MSE(Sch-Var-1) at t_max"),
        {"a": fig3("inferred"), "b": fig3("shared")}, case="eq. (16), independent cells",
        ours="Sch-Var-2 {a:sci}, Sch-Var-1 {b:sci}"),
    Statement(
        FIG3, "\"Sch-Var-1, displays an asymptotic performance loss\" (ε split between the "
        "mean and the variance releases)", Below("MSE(Sch-Var-1) − MSE(known) at t_max", ">"),
        {"a": fig3("shared"), "b": fig3("known")}, case="independent cells",
        ours="Sch-Var-1 {a:sci}, known {b:sci}"),
    Statement(
        FIG3_RIGHT, "\"the Bayesian approach … performs worse than the non-Bayesian approach "
        "in the beginning\"", Given(),
        {"evidence": M.worse_in_the_beginning(), "first": M.fig3_first(),
         "said": M.crossing_text("eq16", "paper")},
        case="paper prior, eq. (16), paired bootstrap",
        ours="the Bayesian MSE is above the non-Bayesian one from t = {first:,} until the "
        "crossing at {said}",
        reading="the Bayesian form is not worse at any checkpoint from t = M on; " + BIAS),
    *(Statement(
        FIG3_RIGHT, f"\"there is a crossing at around t = {printed}\"" + quote,
        Near("crossing of the mean curves over {fig3_window}", printed),
        {"x": M.crossing("eq16", prior), "said": M.crossing_text("eq16", prior),
         "others": M.other_crossings(prior)},
        case=f"{prior_words}, eq. (16), paired bootstrap", ours="{said}",
        reading=BIAS + "{others}")
      for prior, printed, prior_words, quote in (
          ("paper", "600", "the prior as printed, shape (κ+2)/2", ""),
          ("jeffreys", "850", "the Jeffreys prior, shape (κ+1)/2",
           " (\"choosing the Jeffreys prior gives … a crossing at around t = 850; not "
           "shown\")"))),
    Statement(
        FIG3_RIGHT, "\"choosing the Jeffreys prior gives worse results\"",
        Below("mean ln MSE, Jeffreys − paper prior", ">"),
        {"a": M.window_log("jeffreys"), "b": M.window_log("paper"),
         "ratio": M.window_ratio(), "span": M.window_span()},
        case="Bayesian, eq. (16), {span}, paired",
        ours="MSE ratio Jeffreys / paper prior over the window: {ratio:number} (geometric "
        "mean over the runs)"),
    *(Statement(
        FIG3, quote, Near("first t at which another agent is weighed in", printed, unit=1),
        {"x": M.collaboration(variance), "local": M.local_until(variance)},
        ({"variance": variance},), case="{variance:variance}, M = {start}" + form,
        ours="every run's MSE equals its local MSE up to t = {local:,.0f} and leaves it by "
        "t = {x.high:,.0f} (checkpoints; the interval is their resolution)",
        reading="the preset's checkpoints (t = {local:,.0f} and {x.high:,.0f}) are too coarse "
                "to place the first collaboration within ± 0.5 of the paper's t")
      for variance, printed, quote, form in (
          ("shared", "2", "\"data variance estimation of other agents can start "
           "immediately at time t = 2\" (Sch-Var-1)", ""),
          ("inferred", "{start}", "\"for Sch-Var-2 data variance estimation of other agents "
           "can only start at time t = M\"", ", eq. (16)"))),
    Statement(
        "Abstract, Sec. VIII", "\"the best scheme (with and without variance estimation), "
        "performs comparably to an ideal scheme where all data is public\"",
        NoRule(NO_NUMBER.format("comparably")),
        {"a": fig3("inferred"), "b": M.analytic("fig3", "ideal", variance="known",
                                                weights="last"),
         "ratio": M.ratio_text("MSE(Sch-Var-2) / MSE(ideal) at t_max", fig3("inferred"),
                               M.analytic("fig3", "ideal", variance="known",
                                          weights="last"))},
        case="with variance estimation: Sch-Var-2, eq. (16)",
        ours="{a:sci} against ideal {b:sci} (exact): {ratio}", reading=COMPARABLY),
)
