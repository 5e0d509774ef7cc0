"""The study of the DP distributed inference family (Papachristou & Rahimian,
"Differentially Private Distributed Inference"), ``family=inference``.

- :mod:`.selection`: which rows of a summary the study reads;
- :mod:`.statistics`: the critical budgets of Sec. 2, the best treatment, p-values, the
  ratios to Rizk et al., the theorems' bounds at T and the run times;
- :mod:`.actg`: ACTG 175 as the runs split it, and the Cox model's hazard ratios;
- :mod:`.figures`: the figures (Figs 1, 2, 4, 5, 6 and 14.2, the error rates) and the
  views that draw them from a :class:`~analysis.study.Source`;
- :mod:`.statements`: the paper's statements, declared, and the project's checks;
- :mod:`.document`: the section of ``docs/reproduction.md`` (``reproduction.md`` here),
  the numbers its statements read (:class:`.document.Measures`) from the presets' results.

The family's data are read through :mod:`sweep.inference.api` only.
"""

from __future__ import annotations

from ...study import Preset, Section, Study
from ...vocabulary import Vocabulary
from .document import inference_values
from .figures import FIGURES, VIEWS

VOCABULARY = Vocabulary(
    names={
        "method": {"mle": "Alg. 4 (non-private)", "am": "AM (Alg. 1)", "gm": "GM (Alg. 1)",
                   "threshold_1": "two thresholds, Θ̂^{thres,1} (Alg. 2)",
                   "threshold_2": "two thresholds, Θ̂^{thres,2} (Alg. 2)",
                   "ol": "Alg. 5 (non-private OL)", "private_ol": "private OL (Alg. 3)",
                   "test": "distributed test (Prop. 4.6)", "rizk": "Rizk et al.",
                   "centralized": "centralized (pooled)", "rr": "randomized response",
                   "laplace": "Laplace", "individual": "individual test (β_IND)"},
        "source": {"bound": "theorem's bound", "exact": "exact", "belief": "belief"},
        "model.kind": {"bernoulli": "Bernoulli", "gaussian": "Gaussian",
                       "cox": "proportional hazards (Cox)", "treatments": "best treatment"},
        "test": {"composite": "composite (Wilks)", "simple": "simple"},
    },
    axes={"type_i_error": "type I error P[Θ̂ ⊄ Θ*]",
          "type_ii_error": "type II error P[Θ* ⊄ Θ̂]",
          "exact_recovery": "exact recovery P[Θ̂ = Θ*]",
          "tvd_truth": "TVD of the beliefs to the ground truth",
          "tvd_private": "TVD of the beliefs to the non-private run",
          "reject": "power (rejection rate)", "statistic": "test statistic",
          "p_value": "p-value", "belief": "final belief", "state": "state",
          "critical_epsilon": "critical budget ε*", "graph.n_nodes": "number of centres n",
          "dataset.patients": "time points (patients)", "seconds": "time per run (s)"},
    symbols={"graph.n_nodes": "n", "dataset.patients": "time points", "rounds_k": "K",
             "iterations_t": "T", "alpha": "α", "beta": "β", "rho_am": "ϱ^AM",
             "rho_gm": "ϱ^GM", "rho_threshold": "ϱ^thres", "dataset.arm": "arm",
             "dataset.split_seed": "split seed"},
    curves=("mle", "am", "gm", "threshold_1", "threshold_2", "ol", "private_ol", "test",
            "rizk", "rr", "laplace"),
    baselines=("centralized", "individual"),
    scheme=("method",),
    facets=("epsilon", "graph.n_nodes", "dataset.patients"),
    # A method's theorem bound (Thms 4.2, 4.3, 4.7, Prop. 4.6) and, for the Sec. 2 toy,
    # its exact power.
    references=("bound", "exact"),
    metric="tvd_truth",
    # One hue per method across the family's figures; the methods drawn together (Fig. 6:
    # AM, GM, the two thresholds, private OL, Rizk et al.; Fig. 5 adds Alg. 4 and the
    # pooled baseline) get hues far apart.
    colours={"am": "#0072b2", "gm": "#009e73", "threshold_1": "#9b59b6",
             "threshold_2": "#8c564b", "private_ol": "#00b8d4", "rizk": "#d62728",
             "mle": "#000000", "ol": "#7f7f00", "centralized": "#7f7f7f",
             "test": "#e377c2", "rr": "#e69f00", "laplace": "#56449b",
             "individual": "#7f7f7f"},
)


#: The option that sets the size of a preset's runs: the number of agents (centres).
SIZES = ("graph.n_nodes",)
#: The reproduction document's section: Sec. 2 (Figs 1 and 2), Sec. 5 on ACTG 175 (Figs 4
#: and 5, the tests), Fig. 6, Sec. 14.3 (Fig. 14.2) and Sec. 14.1 (the quickstart), in the
#: order the document lists them; their sizes are the presets' files'.
SECTION = Section(
    template=("analysis.studies.inference", "reproduction.md"),
    paper="Papachristou and Rahimian, DP distributed inference",
    presets=(
        Preset("inference_fig1", SIZES, ("inference_fig1",)),
        Preset("inference_fig2", SIZES, ("inference_fig2",)),
        Preset("inference_actg", SIZES, ("inference_fig4", "inference_fig5")),
        Preset("inference_fig6", SIZES, ("inference_fig6", "inference_errors"), budget=320),
        # Fig. 14.2 times two data sizes at each n.
        Preset("inference_runtime", (*SIZES, "dataset.patients"), ("inference_fig14_2",)),
        Preset("inference_quickstart", SIZES, budget=300),
        # The theorems' guarantees on synthetic data, and Fig. 6 at the notebook's setting.
        Preset("inference_guarantees", SIZES),
        Preset("inference_fig6_notebook", SIZES, budget=400),
        # The notebook's other readings: Rizk et al.'s start and clipping, ZDV as a fourth
        # state of Fig. 5, arrivals by 10-day period online.
        Preset("inference_fig6_rizk", SIZES),
        Preset("inference_fig5_notebook", SIZES),
        Preset("inference_ol_notebook", SIZES, budget=200),
    ),
    values=inference_values,
    sizes={"graph.n_nodes": "n", "dataset.patients": "time points"},
)
STUDY = Study("inference", VOCABULARY, views=VIEWS, figures=FIGURES, section=SECTION)

__all__ = ["STUDY", "VOCABULARY"]
