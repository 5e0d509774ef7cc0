"""The network paper's study (Papachristou & Rahimian, DP distributed estimation): its
words, Figs 3–7 and Appendix C, and its section of the reproduction document."""

from __future__ import annotations

from ...study import Preset, Section, Study, summary_view
from ...vocabulary import Vocabulary
from . import document, figures
from .appendix_c import BUDGET_NAMES, GRAPH_NAMES

VOCABULARY = Vocabulary(
    names={
        "method": {"mvue": "MVUE", "ol": "OL", "mvue_fresh_noise": "MVUE, noise every round",
                   "ol_alg4": "Alg. 4 under Network DP",
                   "ol_alg5": "Alg. 5's matrix under Signal DP", "rizk": "Rizk et al. (MVUE)",
                   "rizk_ol": "Rizk et al. (OL)"},
        "privacy": {"none": "non-private", "signal": "Signal DP", "network": "Network DP"},
        "source": {"bound": "bound (Thms 3.1, 4.1, 4.2)", "exact": "exact RMS cost of privacy"},
        "budgets": BUDGET_NAMES, "edge_keep": GRAPH_NAMES,
        "graph.kind": {"geometric": "random geometric",
                       "newman_watts_strogatz": "Newman–Watts–Strogatz",
                       "watts_strogatz": "Watts–Strogatz", "erdos_renyi": "Erdős–Rényi",
                       "barabasi_albert": "Barabási–Albert", "edgelist": "edge list"},
    },
    axes={"total_error": "total error E‖ν_t − m·1‖₂",
          "cost_of_privacy": "cost of privacy E‖ν_t − μ_t‖₂",
          "cost_of_decentralization": "cost of decentralization E‖μ_t − m·1‖₂"},
    symbols={"graph.n_nodes": "n", "rounds": "T"},
    curves=("mvue", "ol", "mvue_fresh_noise", "ol_alg4", "ol_alg5", "rizk", "rizk_ol"),
    scheme=("method", "privacy", "noise"),
    facets=("epsilon", "graph.kind", "graph.n_nodes", "rounds"),
    references=("bound", "exact"),
    metric="total_error",
    # One colour per method in every figure of the family (Okabe–Ito hues): ours in blue
    # and bluish green, their ablations in sky blue and orange, Rizk et al. in vermilion and
    # reddish purple, Alg. 5's matrix under Signal DP in wine (Tol's palette: apart from OL's
    # green, beside which it is compared); Appendix C's budget rules and graphs in hues no
    # drawn method takes.
    colours={"mvue": "#0072B2", "ol": "#009E73", "mvue_fresh_noise": "#56B4E9",
             "ol_alg4": "#E69F00", "ol_alg5": "#882255", "rizk": "#D55E00",
             "rizk_ol": "#CC79A7",
             "homogeneous": "#000000", "centralized": "#E69F00", "waterfilling": "#56B4E9",
             "static MH": "#000000", "q=1": "#E69F00", "q=0.5": "#56B4E9",
             "q=0.2": "#117733"},
)
STUDY = Study(
    family="network",
    vocabulary=VOCABULARY,
    views={name: summary_view(view) for name, view in figures.VIEWS.items()},
    figures=figures.FIGURES,
    section=Section(
        template=("analysis.studies.network", "reproduction.md"),
        paper="Papachristou and Rahimian, DP distributed estimation",
        presets=(
            Preset("fig7", figures.SIZES, ("fig7",)),
            # Fig. 7 on the German households over the data's 1,096 days.
            Preset("fig7_long", figures.SIZES),
            Preset("sample_paths", figures.SIZES, ("sample_paths",)),
            # Appendix C: heterogeneous budgets (C.3) and time-varying graphs (C.1), German
            # households only.
            Preset("appendix_c_budgets", figures.SIZES, ("appendix_c_budgets",), budget=200),
            Preset("appendix_c_dynamic", figures.SIZES, ("appendix_c_dynamic",), budget=500),
            # The two ablations of Secs 3.1 and 4.1, German households only.
            Preset("network_ablations", figures.SIZES, budget=200),
        ),
        values=document.values,
        sizes={"graph.n_nodes": "n", "rounds": "T"},
        # The claims compare quantities of the same runs (paired) and fit rates by
        # bootstrap over the runs.
        reads="rows",
    ),
)
