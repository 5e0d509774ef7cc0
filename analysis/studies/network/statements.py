"""The network paper's statements (Papachristou & Rahimian), declared: Fig. 7 against Rizk
et al. under each reading of their noise, Secs 3–6 and the captions of Figs 3–6, Laplace
noise's optimality, the two ablations, the bounds, and Appendix C (heterogeneous budgets,
time-varying graphs); and the project's own checks. Their numbers are the measures of
:class:`.document.Measures`; :func:`analysis.statements.evaluate` decides them.

Cells of the network family are simulated on independent random streams, so two cells are
compared on their means at T (``M.final``) with independent standard errors; two
quantities of one cell (the cost of privacy and the non-private run's error, or one error at
two rounds) on its runs (``M.runs``), paired. A statement whose section changes with its
case is declared once per case.
"""

from __future__ import annotations

from ...statements import Below, M, Near, NoRule, Rate, Select, Statement, cases

#: The first round of every fitted rate (Sec. 6's and Prop. C.2's; fixed before the runs
#: were seen: past the first checkpoints, where the start dominates).
RATE_START = 10
#: The data sets of Sec. 5, in the paper's words.
DATA = ("power grid", "German households")
GRID, HOUSEHOLDS = DATA
PRIVACY = ("signal", "network")

# -- Fig. 7 against Rizk et al. ---------------------------------------------------------------

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
#: Fig. 7's claim rows, one per data set, protection and reading (the paper's text, the
#: authors' code's combination), in order, with why a reading does not give the paper's
#: ≈ 1000×.
FIG7_WHY = {
    (GRID, "signal", "text"): "",
    (GRID, "signal", "code"): "started at ν₀ = ξ(s), as the authors' code does, Rizk et al.'s "
    "estimates carry no start bias; S* is tiny for signals around e¹⁰, so both methods' "
    "errors are the non-private error",
    (GRID, "network", "text"): "", (GRID, "network", "code"): "",
    (HOUSEHOLDS, "signal", "text"): "as printed, Rizk et al.'s per-round Signal-DP noise ηT·S*/ε "
    "is below the one-shot 2S*/ε ours adds; the households' small consumptions make S* "
    "large, so privacy noise dominates both",
    (HOUSEHOLDS, "signal", "code"): "at T = {T} the authors' code's noise, 2T times the printed "
    "one (S* at ε/T and the factor 2), grows as T²",
    (HOUSEHOLDS, "network", "text"): "as printed, Rizk et al.'s Network-DP noise T·max(a_i, "
    "ηS*)/ε is set by a_i ≈ 1/deg, while ours pays the households' large S*",
    (HOUSEHOLDS, "network", "code"): "at T = {T} the authors' code's noise, 2T times the printed "
    "one, grows as T²",
}
#: The preset of a data set under a reading: ``fig7`` (T = 100) or, for the authors' code on
#: the German households, ``fig7_long`` (T = 1096).
FIG7_PRESETS = {(HOUSEHOLDS, "code"): "fig7_long"}
#: Where Rizk et al.'s error is not privacy's: the power grid under Signal DP, as printed.
FIG7_START = {(GRID, "signal", "text"): "; Rizk et al.'s error here is the bias of their "
              "start ν₀ = 0 (they move {moved} of the way to the mean in T rounds), not "
              "privacy"}

_RATIOS = M.fig7_ratios("{data}", "{privacy}", "{reading}", "{preset}")
FIG7 = tuple(
    Statement(
        "2, 5; Fig. 7", "“our method is able to achieve significantly smaller MSE under the "
        "same total privacy budget; ≈ 1000× smaller for both datasets” (Sec. 2: “up to 1000× "
        "more” for Rizk et al.)",
        Near("Rizk et al.'s total error at T over ours, geometric mean over ε ∈ "
             "{{{epsilons}}}", "1000", factor=True),
        {"x": M.geometric_mean(_RATIOS), "epsilons": M.epsilons(_RATIOS),
         "ratios": M.span(_RATIOS), "T": M.rounds("{preset}"), "moved": M.start_bias()},
        cases=({"data": data, "privacy": privacy, "reading": reading,
                "words": FIG7_READINGS[reading][0],
                "preset": FIG7_PRESETS.get((data, reading), "fig7")},),
        case="{data}, {privacy:privacy}, T = {T}: {words}",
        ours="ratios {ratios} over ε" + FIG7_START.get((data, privacy, reading), ""),
        reading=why)
    for (data, privacy, reading), why in FIG7_WHY.items())

# -- Secs 5–6 and the captions of Figs 3–6 (sample_paths, ε = 1 and 10) ------------------------


def _paths(measure: str, metric: str, method: str = "{method}", privacy: str = "{privacy}",
           epsilon: str | float = "{epsilon}", **t: int) -> Select:
    """A number of the cell of ``sample_paths`` on the case's data set: its mean at T
    (``final``) or its runs (``runs``, at T or at round ``t``)."""
    return getattr(M, measure)("sample_paths", metric, data="{data}", method=method,
                               privacy=privacy, epsilon=epsilon, **t)


#: The privacy noise's share of a cell's error: its cost of privacy against its non-private
#: run's error, on the same runs.
SHARE = Below("cost of privacy − cost of decentralization at T (same runs)")
SHARE_RUNS = {"a": _paths("runs", "cost_of_privacy"),
              "b": _paths("runs", "cost_of_decentralization")}
SHARE_ABOVE = Below(SHARE.what, ">")
#: The cost of privacy at T under Network DP against Signal DP, on the case's method.
HARDER = Below("cost of privacy at T, Network DP − Signal DP", ">")
HARDER_CELLS = {"a": _paths("final", "cost_of_privacy", privacy="network"),
                "b": _paths("final", "cost_of_privacy", privacy="signal")}
#: Alg. 4 against Alg. 5 (one change: the mixing matrix) at ε = 10: Alg. 5 without noise
#: (the non-private runs of OL under Network DP), then Alg. 5's matrix under Alg. 4's own
#: Signal-DP noise (``ol_alg5``).
MATRICES = (
    {"error": "cost of decentralization", "metric": "cost_of_decentralization", "method": "ol",
     "privacy": "network", "compared": "Alg. 5", "setting": "without noise",
     "one_change": "the non-private runs of Alg. 4 and Alg. 5 (each cell's run on its own "
     "signals without noise): only the mixing matrix changes", "why": ""},
    {"error": "total error", "metric": "total_error", "method": "ol_alg5", "privacy": "signal",
     "compared": "Alg. 5's matrix", "setting": "under equal (Signal-DP) noise, ε = 10",
     "one_change": "Alg. 4 under Signal DP against Alg. 5's mixing matrix C(t) = ((t−2)/t) I "
     "+ A/t run with the same Signal-DP noise (ol_alg5): only the mixing matrix changes; "
     "independent cells",
     "why": "both matrices shrink the consensus direction alike ((t−1)/t) and differ only "
     "off it; where the noise along the consensus direction dominates the error at T, the "
     "runs may not separate the two"},
)
#: OL (Alg. 4 under Signal DP, Alg. 5 under Network DP) against MVUE (Alg. 3) at ε = 1,
#: without noise (the non-private runs) and with each protection's noise.
NOISES = (
    {"privacy": "signal", "metric": "cost_of_decentralization",
     "error": "cost of decentralization", "algorithm": "Alg. 4", "setting": "without noise"},
    {"privacy": "signal", "metric": "total_error", "error": "total error",
     "algorithm": "Alg. 4", "setting": "with Signal-DP noise, ε = 1"},
    {"privacy": "network", "metric": "total_error", "error": "total error",
     "algorithm": "Alg. 5", "setting": "with Network-DP noise, ε = 1"},
)

SAMPLE_PATHS = (
    # Sec. 6: Signal DP on the power grid does not change the rate. A rate is an exponent,
    # read to its first decimal: the slopes with and without the noise, on the same runs.
    *(Statement(
        f"6; {figure}", "“In all cases of signal DP with the US power grid network, the DP "
        "noise did not affect the convergence rate in practice”",
        Rate("slope of log E[total error] − slope of log E[non-private error] on log t",
             "t ∈ [{start}, T] (fixed: from round 10)", theory=0.0),
        {"x": M.slope(RATE_START, "sample_paths", "total_error", "cost_of_decentralization",
                      data="{data}", method="{method}", privacy="signal",
                      epsilon="{epsilon}"),
         "start": RATE_START},
        cases=tuple({"data": GRID, "method": method, "epsilon": epsilon}
                    for epsilon in (1.0, 10.0)),
        case="power grid, {method:method}, Signal DP, ε = {epsilon:g}",
        ours="the rate with the privacy noise against the same runs' rate without it",
        reading="the noise changes the slope of the error over these rounds by more than "
                "0.05, or the runs cannot tell")
      for method, figure in (("mvue", "Fig. 3"), ("ol", "Fig. 5"))),
    # Fig. 6's caption: Signal DP on the power grid costs (almost) nothing at ε = 1.
    *(Statement(
        "6, Fig. 6's caption", "“almost perfect signal DP can be achieved with reasonable "
        "accuracy for the US power grid network (ε = 1 in Figure 5)”", SHARE, SHARE_RUNS,
        cases=({"data": GRID, "method": method, "privacy": "signal", "epsilon": 1.0},),
        case="power grid, {method:method}, Signal DP, ε = 1",
        ours="“reasonable accuracy” read as: the privacy noise is the smaller part of the "
             "error (the cost of privacy against the non-private run's error on the same "
             "signals)")
      for method in ("mvue", "ol")),
    # Fig. 6's caption and Sec. 6: Network DP is harder than Signal DP.
    *(Statement(
        f"6; {figures}", "“Protecting network neighborhoods is a harder task than protecting "
        "private signals”; “the increased difficulty of ensuring network DP”", HARDER,
        HARDER_CELLS, cases=({"data": data, "method": method, "epsilon": 1.0},),
        case="{data}, {method:method}, ε = 1", ours=ours,
        reading="on the German households the smooth sensitivity of the small "
                "consumptions, not a_i, sets both noises" if data == HOUSEHOLDS else "")
      for data in DATA
      for method, figures, ours in (
          ("mvue", "Figs 3–4", "Alg. 3 with the Network-DP noise against Alg. 3 with the "
           "Signal-DP noise"),
          ("ol", "Figs 5–6", "Alg. 5 under Network DP against Alg. 4 under Signal DP (the "
           "paper's pairing: the algorithm changes with the protection)"))),
    Statement(
        "5, Fig. 6's caption", "“even moderate protection of network neighborhoods (ε = 1) "
        "come at a noticeable cost to accuracy” (US power grid)", SHARE_ABOVE, SHARE_RUNS,
        cases=({"data": GRID, "method": "ol", "privacy": "network", "epsilon": 1.0},),
        case="power grid, OL (Alg. 5), Network DP, ε = 1",
        ours="“noticeable” read as: the cost of privacy exceeds the non-private run's error"),
    # The German households' captions.
    Statement(
        "5, Fig. 3's caption", "“the large error in the case of the German household dataset "
        "is because protecting households with low (near zero) consumption rates even at a "
        "relatively high privacy budget (ε = 10) comes at a huge cost to accuracy”",
        SHARE_ABOVE, SHARE_RUNS,
        cases=({"data": HOUSEHOLDS, "method": "mvue", "privacy": "signal", "epsilon": 10.0},),
        case="German households, MVUE, Signal DP, ε = 10",
        ours="the cost of privacy against the non-private run's error",
        reading="at ε = 10 the error is mostly the non-private run's (Alg. 3 mixing over the "
                "slow geometric graph, β* near 1): the cost of privacy is the smaller part; "
                "the authors' code, measuring MVUE against node 0's time average, adds a "
                "floor of σ√(1 + (n − 2)/T) whatever ε (Readings)"),
    Statement(
        "5, Fig. 4's caption", "“even requiring a moderate accuracy in the case of the German "
        "household dataset comes at a high cost to privacy (ε = 1)”", SHARE_ABOVE, SHARE_RUNS,
        cases=({"data": HOUSEHOLDS, "method": "mvue", "privacy": "network", "epsilon": 1.0},),
        case="German households, MVUE, Network DP, ε = 1",
        ours="at ε = 1 the privacy noise still dominates the error",
        reading="at ε = 1 the error is mostly the non-private run's"),
    Statement(
        "5, Fig. 5's caption", "“Choosing ε large enough leads to a convergent behavior for "
        "the German household dataset” (ε = 10)",
        Below("total error at T − total error at t = 10 (same runs)"),
        {"a": _paths("runs", "total_error"), "b": _paths("runs", "total_error", t=10)},
        cases=({"data": HOUSEHOLDS, "method": "ol", "privacy": "signal", "epsilon": 10.0},),
        case="German households, OL (Alg. 4), Signal DP, ε = 10",
        ours="the error falls from round 10 to T"),
    Statement(
        "5, Fig. 6's caption", "“Privacy protection for network neighborhoods in the case of "
        "German households is further complicated … no meaningful protections is accomplished "
        "(ε = 10). Privacy and accuracy, in this case, become conflicting criteria that cannot "
        "be reconciled”", SHARE_ABOVE, SHARE_RUNS,
        cases=({"data": HOUSEHOLDS, "method": "ol", "privacy": "network", "epsilon": 10.0},),
        case="German households, OL (Alg. 5), Network DP, ε = 10",
        ours="“cannot be reconciled” read as: even at ε = 10, a weak guarantee (a likelihood "
             "ratio up to e¹⁰ ≈ 2·10⁴, the paper's “no meaningful protection”), the privacy "
             "noise is still the larger part of the error",
        reading="at ε = 10 the privacy noise is not the larger part of the error"),
    # Sec. 6: Alg. 4 faster than Alg. 5 even without noise, and under equal noise.
    Statement(
        "6 (and 4.3)", "“Algorithm 4 converges faster than Algorithm 5 (even in the absence of "
        "DP noise) because of the underlying mixing matrices”",
        Below("{error} at T, Alg. 4 − {compared}"),
        {"a": _paths("final", "{metric}", "ol", "signal", 10.0),
         "b": _paths("final", "{metric}", "{method}", "{privacy}", 10.0)},
        cases=tuple({"data": data, **change} for data in DATA for change in MATRICES),
        case="{data}, {setting}", ours="{one_change}", reading="{why}"),
    # Sec. 6: both faster than Alg. 3.
    Statement(
        "6", "“both of these algorithms [Algs 4 and 5] converge faster (with and without DP "
        "noise) than Algorithm 3”", Below("{error} at T, {algorithm} − Alg. 3"),
        {"a": _paths("final", "{metric}", "ol", epsilon=1.0),
         "b": _paths("final", "{metric}", "mvue", epsilon=1.0)},
        cases=tuple({"data": data, **noise} for data in DATA for noise in NOISES),
        case="{data}, {setting}",
        ours="“faster” read as: a smaller error at T = 100, each against its own target (m̂ "
             "for Alg. 3, m_θ for OL)",
        reading="Alg. 3 mixes its n initial signals with β*ᵗ, fast on these graphs over 100 "
                "rounds, while OL's error falls as 1/√(nt) at best"),
)

# -- Thm 3.1, part 2: Laplace noise's optimality ----------------------------------------------

#: The budgets at which Laplace noise is compared with the staircase (pure ε-DP, global Δ):
#: integers or one decimal, which a template prints as the paper does (``{epsilon}`` → 1).
OPTIMALITY_EPSILONS = (0.1, 1, 10)
#: The budgets of the check against Gaussian noise of the same (ε, δ).
GAUSSIAN_EPSILONS = (1, 10)
SENSITIVITIES = ((False, "a global sensitivity Δ (Thm 3.1's setting)"),
                 (True, "the smooth sensitivity of log s (Sec. 5's setting)"))

#: The theorem's statement under its own privacy notion, pure ε-DP: against the staircase
#: mechanism (Geng & Viswanath, 2014), ε-DP with the least variance, in closed form
#: (sweep.components.staircase). Every linear recursion's exact RMS cost of privacy is the
#: noise's s.d. times a factor of the recursion, so the s.d.'s decide the claim.
OPTIMALITY = Statement(
    "1.1, 3.1 (Thms 3.1–4.2, part 2)", "“the noise that minimizes the convergence time to "
    "the best estimates is the Laplace noise” (the variance-minimizing distributions under "
    "ε-DP are the Laplace distributions with parameters Δ/ε)",
    Below("noise s.d. per unit sensitivity, Laplace − staircase ({a:.5g} − {b:.5g})"),
    {"a": M.noise_sd("laplace", "{epsilon}", 0.01, False),
     "b": M.noise_sd("staircase", "{epsilon}", 0.01, False)},
    cases=cases(epsilon=OPTIMALITY_EPSILONS),
    case="a global sensitivity Δ (Thm 3.1's setting), ε = {epsilon}",
    ours="both ε-DP; the exact RMS cost of privacy of every linear recursion is the noise's "
         "s.d. times a factor of the recursion; the staircase's variance is "
         "{b:.5g}² against Laplace's {a:.5g}²",
    reading="the staircase mechanism (Geng & Viswanath, 2014) is ε-DP and has a smaller "
            "variance at every ε, the more so the larger ε (the two meet only as ε → 0): "
            "the claim is false as printed (noise=staircase runs it here, in Private-ColME, "
            "whose checks show where it lowers the MSE, and in the continual, decentralized "
            "and inference families)")

#: The comparison the theorem does not make: under (ε, δ)-DP, Gaussian noise of the same
#: (ε, δ) is admissible too.
GAUSSIAN = Statement(
    "1.1, 3.1 (Thm 3.1, part 2)", "under (ε, δ)-DP, where Gaussian noise is admissible, "
    "Laplace noise against Gaussian noise of the same (ε, δ)",
    Below("noise s.d. per unit sensitivity, Laplace − Gaussian ({a:.3g} − {b:.3g})"),
    {"a": M.noise_sd("laplace", "{epsilon}", "{delta}", "{smooth}"),
     "b": M.noise_sd("gaussian", "{epsilon}", "{delta}", "{smooth}")},
    cases=tuple({"smooth": smooth, "sensitivity": words, "epsilon": epsilon, "delta": 0.01}
                for smooth, words in SENSITIVITIES for epsilon in GAUSSIAN_EPSILONS),
    case="{sensitivity}, (ε, δ) = ({epsilon}, {delta})",
    ours="Gaussian noise: the analytic Gaussian mechanism (global Δ), Nissim et al.'s "
         "Gaussian smooth-sensitivity noise (smooth)",
    reading="under (ε, δ)-DP the Gaussian mechanism is admissible and can be the smaller: "
            "the theorem's optimality is under pure ε-DP")

# -- The two ablations (network_ablations, German households, ε = 1) ---------------------------

_ABLATION = {"method": "{method}", "privacy": "{privacy}"}
#: The claims are about the limit: the cost of privacy at T against at T/10, on the same runs.
GROWS = Below("cost of privacy at T − cost of privacy at t = {early} (same runs)", ">")
GROWS_RUNS = {"a": M.runs("network_ablations", "cost_of_privacy", **_ABLATION),
              "b": M.runs("network_ablations", "cost_of_privacy", t=M.tenth_round(),
                          **_ABLATION),
              "early": M.tenth_round()}

ABLATIONS = (
    Statement(
        "3.1, remark for Network DP", "adding fresh noise at each round of Algorithm 3 “is "
        "divergent, i.e. E‖ν̄_t‖² → ∞ … its mean squared error … grows linearly with n and t”",
        GROWS, GROWS_RUNS, cases=({"method": "mvue_fresh_noise", "privacy": "signal"},),
        case="German households, Signal DP, ε = 1: the error grows with t",
        ours="Alg. 3 with fresh noise every round (mvue_fresh_noise)"),
    Statement(
        "3.1, remark for Network DP", "“To avoid the accumulation of the DP noise, we should "
        "limit the DP noising to the initial step, which will achieve a bounded error”",
        Below("cost of privacy at T, noise once − fresh noise every round"),
        {"a": M.final("network_ablations", "cost_of_privacy", method="mvue", privacy="signal"),
         "b": M.final("network_ablations", "cost_of_privacy", method="mvue_fresh_noise",
                      privacy="signal")},
        case="German households, Signal DP, ε = 1",
        ours="Alg. 3 (noise once) against its ablation (mvue_fresh_noise)"),
    Statement(
        "4.1, 4.3", "using Algorithm 4 for Network DP, the sensitivity max{Δ/t, (t−1)/t·max "
        "a_ij} “approaches 1 and violates the consistency of the estimator”; “the dynamics "
        "become divergent in that case”",
        GROWS, GROWS_RUNS, cases=({"method": "ol_alg4", "privacy": "network"},),
        case="German households, Network DP, ε = 1: the error grows with t",
        ours="Alg. 4 run for Network DP (ol_alg4), its noise calibrated to that sensitivity",
        reading="the cost of privacy stops falling between T/10 and T (not consistent), but "
                "does not grow measurably by T: whether the dynamics diverge is not decided "
                "at this T"),
    Statement(
        "4.3", "Algorithm 5's weights make the Network-DP sensitivity go to zero, “instead of "
        "… which approaches 1” with Algorithm 4's",
        Below("cost of privacy at T, Alg. 5 − Alg. 4 (Network DP)"),
        {"a": M.final("network_ablations", "cost_of_privacy", method="ol", privacy="network"),
         "b": M.final("network_ablations", "cost_of_privacy", method="ol_alg4",
                      privacy="network")},
        case="German households, Network DP, ε = 1",
        ours="Alg. 5 (ol) against Alg. 4 run for Network DP (ol_alg4)"),
)

# -- Thms 3.1, 4.1 and 4.2: the bounds hold (sample_paths' bound rows) -------------------------

_TIGHTEST = M.tightest("{data}")
BOUNDS = Statement(
    "3.2, 4.2, 4.3", "Theorems 3.1, 4.1 and 4.2: the total error, the cost of privacy and the "
    "cost of decentralization lie below their bounds at every t",
    Below("simulated − bound, tightest case ({tight.method:method}, {tight.error}, "
          "t = {tight.t})"),
    {"tight": _TIGHTEST, "a": M.part(_TIGHTEST, "simulated"), "b": M.part(_TIGHTEST, "bound")},
    cases=cases(data=DATA), case="{data} (n = {tight.nodes:count}), every cell of Figs 3–6",
    ours="bound / simulated error from {tight.ratios} over every cell, method, round and "
         "error")

#: Sec. 3.1's tightness, which no preset runs yet.
TIGHTNESS = Statement(
    "3.1, Tightness of Analysis", "“there exists an instance for which the upper bound is "
    "precisely achieved (for any noise distribution)”: on the complete graph K_n with "
    "s_i ~ N(0, 1), “the total error (TE) converges to 1/ε as n → ∞”",
    NoRule("no preset runs the complete graph with Gaussian signals over growing n"),
    case="K_n, s_i ~ N(0, 1), n → ∞",
    reading="not run: a preset of the network family on complete graphs of growing n "
            "would decide it as a rate against n")
NETWORK = (*FIG7, *SAMPLE_PATHS, OPTIMALITY, *ABLATIONS, BOUNDS, TIGHTNESS)

#: The project's own checks on the network runs (not tallied).
NETWORK_CHECKS = (
    Statement(
        "App. B (reading)", "Rizk et al. under Signal DP: started at ν₀ = ξ(s) (the authors' "
        "code) their error loses the bias of ν₀ = 0",
        Below("total error at T, ν₀ = ξ(s) − ν₀ = 0"),
        {"a": M.last_round("fig7", "total_error", "{data}", 1.0, method="rizk", privacy="signal",
                           rizk_scale="printed", rizk_start="signal"),
         "b": M.last_round("fig7", "total_error", "{data}", 1.0, method="rizk", privacy="signal",
                           rizk_scale="printed", rizk_start="zero")},
        cases=cases(data=DATA), case="{data}, ε = 1, Appendix B's noise as printed"),
    GAUSSIAN,
)

# -- Appendix C.3: heterogeneous budgets (appendix_c_budgets, German households) ---------------

#: Draws of the German households' signals behind Prop. C.3's ratio.
ALLOCATION_DRAWS = 10
_BUDGETS = M.budgets("{method}", "{privacy}")
_BUDGET = {"method": "{method}", "privacy": "network", "epsilon": "{epsilon}"}
#: Where Prop. C.3's closed form is checked against the optimum (case, the ratio of their
#: Σ Δ_i/ε_i, ours): the German households' signals, and the tests' example
#: (tests/test_network_appendix_c.py). ``.6g`` is Python's ``g`` (``{x:g}`` would name x).
CLOSED_FORM = (
    ("German households (cap {cap:g}ε, Σ ε_i,max ≥ nε)",
     M.largest(M.ratio(M.allocation("printed"), M.allocation("optimum"))),
     "no cap binds (the largest nε√Δ_i/Σ_j√Δ_j is {share:number}ε < {cap:g}ε)"),
    ("Δ = (1, 4, 16), ε_i,max = 1.5ε (Σ ε_i,max = 4.5ε ≥ 3ε)",
     M.ratio(M.example("centralized"), M.example("waterfilling")),
     "the closed form spends {spent:number} of 3ε: Σ Δ_i/ε_i = {printed:number} against the "
     "optimum's {optimum:number}"),
)

BUDGETS = (
    Statement(
        "C.3, Supp. Fig. 3", "“compared to the homogeneous case, using heterogeneous budgets "
        "reduces the MSE”; “the algorithm with the heterogeneous thresholds has smaller MSE "
        "compared to the homogeneous thresholds”",
        Below("log(Prop. C.3's error / homogeneous error) at T, mean over ε ∈ "
              "{{{epsilons}}}"),
        {"a": M.log_ratio(_BUDGETS), "b": 0.0, "epsilons": M.epsilons(_BUDGETS),
         "ratios": M.span(_BUDGETS)},
        cases=cases(method=("mvue", "ol"), privacy=PRIVACY),
        case="German households, {method:method}, {privacy:privacy}",
        ours="ratios {ratios} over ε (table below); independent cells",
        reading="at large ε the error is the cost of decentralization, which no allocation of "
                "the budgets changes"),
    Statement(
        "C.3, Supp. Figs 1–2", "with heterogeneous budgets (centralized solution) “the "
        "dynamics converge faster compared to the homogeneous case (cf. Figure 4)”",
        Below("total error at T, Prop. C.3 − homogeneous"),
        {"a": M.final("appendix_c_budgets", "total_error", budgets="centralized", **_BUDGET),
         "b": M.final("appendix_c_budgets", "total_error", budgets="homogeneous", **_BUDGET),
         "cost": M.final("appendix_c_budgets", "cost_of_privacy", budgets="homogeneous",
                         **_BUDGET)},
        cases=({"method": "mvue", "epsilon": 1.0}, {"method": "ol", "epsilon": 10.0}),
        case="German households, {method:method}, Network DP, {epsilon:epsilon}",
        ours="the total error at T of the two allocations",
        reading="the homogeneous cost of privacy, {cost}, is a small part of the total error "
                "{b}: the error is the cost of decentralization, which no allocation changes"),
    Statement(
        "C.3, Prop. C.3 (1)", "the improvement satisfies min Δ/max Δ ≤ Σ(Δ_i/ε_i*) / "
        "Σ(Δ_i/ε) ≤ 1", Below("largest Σ(Δ_i/ε_i*)/Σ(Δ_i/ε) over the draws − 1"),
        {"a": M.largest(M.allocation("{rule}")), "b": 1.0,
         "ratios": M.span(M.allocation("{rule}")), "floor": M.largest(M.allocation("floor"))},
        cases=({"rule": "printed", "words": "the closed form as printed"},
               {"rule": "optimum", "words": "the optimum of (C.6)"}),
        case=f"{{words}}; German households' signals, Signal DP, ε = 1, {ALLOCATION_DRAWS} "
             "draws",
        ours="ratio {ratios}, above min Δ/max Δ ≤ {floor:sci}"),
    *(Statement(
        "C.3, Prop. C.3 (1)", "if Σ_i ε_i,max ≥ nε, “the optimal solution to Equation (C.6) "
        "is ε_i* = min{ε_i,max, nε√Δ_i/Σ_j√Δ_j}”",
        Near("Σ Δ_i/ε_i of the closed form over the optimum's (waterfilling)", "1"),
        {"x": ratio, "exact": 1.0, "cap": M.budget_cap(),
         "share": M.largest(M.allocation("share")), "spent": M.example_spent(),
         "printed": M.example("centralized"), "optimum": M.example("waterfilling")},
        case=case, ours=ours,
        reading="the closed form leaves the capped agents' excess unspent; the KKT optimum is "
                "min(ε_i,max, λ√Δ_i) with λ such that Σ_i ε_i = nε (budgets=waterfilling)")
      for case, ratio, ours in CLOSED_FORM),
)

# -- Appendix C.1: time-varying graphs (appendix_c_dynamic, German households, Signal DP) ------

#: The time-varying graphs' edge_keep values q; each is compared with the control q = 1 (the
#: weights (C.3) on the static graph), so that only the time variation changes.
VARYING = (0.5, 0.2)


def _dynamic(measure: str, method: str, edge_keep: str | float | None = "{q}",
             **t: int | Select) -> Select:
    """The non-private error (cost of decentralization) of a cell of
    ``appendix_c_dynamic``: its mean at T (``final``) or its runs (``runs``, at T or at
    round ``t``)."""
    return getattr(M, measure)("appendix_c_dynamic", "cost_of_decentralization",
                               method=method, privacy="signal", edge_keep=edge_keep, **t)


#: The non-private error at T below the error at round ``start``, on the same runs.
CONVERGES = Below("non-private error at T − at t = {start} (same runs)")
_FIRST = M.first_round("appendix_c_dynamic")

DYNAMIC = (
    Statement(
        "C.1, Prop. C.1", "“If G_t contains no isolated nodes …, the dynamics with the "
        "modified MH weights of Equation (C.3) will converge to the MVUE”", CONVERGES,
        {"a": _dynamic("runs", "mvue"), "b": _dynamic("runs", "mvue", t=_FIRST),
         "start": _FIRST},
        cases=cases(q=VARYING), case="German households, edges kept with probability q = {q}",
        ours="MVUE's non-private error ‖μ_t − m̂1‖ (A(t) doubly stochastic: the average is "
             "preserved, tests/test_network_appendix_c.py)"),
    Statement(
        "C.1, after Prop. C.1", "the convergence time on time-varying graphs “is "
        "exponentially worse than the … convergence time that we obtain for static "
        "networks”", Below("non-private error at T, q = {q} − q = 1", ">"),
        {"a": _dynamic("final", "mvue"), "b": _dynamic("final", "mvue", 1.0)},
        cases=cases(q=VARYING),
        case="German households, MVUE, q = {q} against the control q = 1 (the same weights "
             "(C.3), static)",
        ours="one change: the time variation, the weights (C.3) on both sides",
        reading="with edges failing independently every round, E[A(t)] is a fixed mixing "
                "matrix; the bound is a worst case over graph sequences"),
    Statement(
        "C.1, Prop. C.2", "the dynamics (C.4) with the weights (C.3) “converge to 1m_θ almost "
        "surely”", CONVERGES,
        {"a": _dynamic("runs", "ol"), "b": _dynamic("runs", "ol", t=RATE_START),
         "start": RATE_START},
        cases=cases(q=VARYING), case="German households, OL, q = {q}",
        ours="OL's non-private error ‖μ_t − 1m_θ‖, with A(t) in place of A"),
    Statement(
        "C.1, Prop. C.2", "“the dependence on t becomes slower, i.e., from t^(−1/2) when the "
        "network is static to t^(−1/n³) when the network is dynamic”",
        Rate("slope of log E‖μ_t − 1m_θ‖ on log t (bootstrap SE)",
             "t ∈ [{start}, T] (fixed: from round 10)", bound=True),
        {"x": M.slope(RATE_START, edge_keep="{q}", method="ol", privacy="signal"),
         "theory": M.worst_rate("{q}"), "start": RATE_START},
        cases=cases(q=(1.0, *VARYING)),
        case="German households, OL, q = {q:g} (q = 1: static, worst case t^(−1/2); "
             "q < 1: dynamic, t^(−1/n³))",
        ours="one change across the cases: the time variation (q = 1: the same weights (C.3), "
             "static)",
        reading="the runs cannot place the slope at or below the worst-case rate's band"),
)

#: Supplementary Figure 2: the decentralized allocation of the budgets (C.7), which the
#: family does not implement.
DECENTRALIZED_ALLOCATION = Statement(
    "C.3, Supp. Fig. 2", "with heterogeneous budgets allocated by the decentralized scheme "
    "(C.7), the sample paths of MVUE and OL on the German households converge faster than "
    "with homogeneous budgets",
    NoRule("the family implements the centralized allocation (C.6) and its optimum, not the "
           "decentralized scheme (C.7)"),
    case="German households, MVUE and OL",
    reading="not run: budgets=decentralized is not a value of the family yet")
APPENDIX_C = (*BUDGETS, *DYNAMIC, DECENTRALIZED_ALLOCATION)

#: The weights' own effect: static MH against the static graph with the weights (C.3); this,
#: not the time variation, is what comparing the time-varying graphs with static MH measures.
APPENDIX_C_CHECKS = (
    Statement(
        "C.1 (control)", "the weights (C.3), half the MH weights on every edge, slow MVUE's "
        "mixing on the static graph",
        Below("non-private error at T, q = 1 (weights (C.3)) − static MH", ">"),
        {"a": _dynamic("final", "mvue", 1.0), "b": _dynamic("final", "mvue", None)},
        case="German households, MVUE, static graph",
        ours="one change: the weights; this, not the time variation, is what a comparison of "
             "the time-varying graphs with static MH would measure"),
)
