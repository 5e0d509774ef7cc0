"""The network paper's study (Papachristou & Rahimian, DP distributed estimation): its
words, Figs 3–7 and Appendix C, and its section of the reproduction document."""

from __future__ import annotations

from ...study import Preset, Section, Study, summary_view
from ...vocabulary import Vocabulary
from . import document, figures

VOCABULARY = Vocabulary(
    names={
        "method": {"mvue": "MVUE", "ol": "OL", "mvue_fresh_noise": "MVUE, noise every round",
                   "ol_alg4": "Alg. 4 under Network DP", "rizk": "Rizk et al. (MVUE)",
                   "rizk_ol": "Rizk et al. (OL)"},
        "privacy": {"none": "non-private", "signal": "Signal DP", "network": "Network DP"},
        "source": {"bound": "bound (Thms 3.1, 4.1, 4.2)", "exact": "exact RMS cost of privacy"},
        "graph.kind": {"geometric": "random geometric",
                       "newman_watts_strogatz": "Newman–Watts–Strogatz",
                       "watts_strogatz": "Watts–Strogatz", "erdos_renyi": "Erdős–Rényi",
                       "barabasi_albert": "Barabási–Albert", "edgelist": "edge list"},
    },
    axes={"total_error": "total error E‖ν_t − m·1‖₂",
          "cost_of_privacy": "cost of privacy E‖ν_t − μ_t‖₂",
          "cost_of_decentralization": "cost of decentralization E‖μ_t − m·1‖₂"},
    symbols={"graph.n_nodes": "n", "rounds": "T"},
    curves=("mvue", "ol", "mvue_fresh_noise", "ol_alg4", "rizk", "rizk_ol"),
    scheme=("method", "privacy", "noise"),
    facets=("epsilon", "graph.kind", "graph.n_nodes", "rounds"),
    references=("bound", "exact"),
    metric="total_error",
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
            Preset("appendix_c_budgets", figures.SIZES, ("appendix_c_budgets",)),
            Preset("appendix_c_dynamic", figures.SIZES, ("appendix_c_dynamic",)),
        ),
        values=document.values,
        sizes={"graph.n_nodes": "n", "rounds": "T"},
    ),
)
