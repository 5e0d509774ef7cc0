"""Private-ColME's study (Yakimenka et al.): its words, the figures of Sec. VII, views of
Algorithm 1's results against its baselines, and its section of the reproduction
document."""

from __future__ import annotations

from ...study import Preset, Section, Study, summary_view
from ...vocabulary import Vocabulary
from . import document, figures

#: A scheme's colour (mostly seaborn's colour-blind palette), the same in every figure of
#: the family, and of a distinct hue from every scheme drawn beside it; PM-I non-MoM RR,
#: the scheme of Figs 3 and 4, keeps its blue as "known variance" and as Fig. 4's "PM-I".
SCHEME_COLOURS = {
    ("PM-I", "non-MoM"): "#0173b2", ("PM-I", "MoM"): "#cc78bc",
    ("PM-II", "non-MoM"): "#d55e00", ("PM-II", "MoM"): "#029e73",
    ("PM-II", "wMoM"): "#ca9161", ("PM-I", "wMoM"): "#56b4e9",
}
#: The variance schemes of Fig. 3 (non-MoM), by their names.
VARIANCE_COLOURS = {
    "known variance": "#0173b2", "Sch-Var-1": "#de8f05", "Sch-Var-2": "#6b8e23",
    "Sch-Var-2 (Bayesian)": "#000000", "Sch-Var-2 (Bayesian), Jeffreys prior": "#56b4e9",
}


def _colours() -> dict[str, str]:
    """Every label a figure of the family gives a scheme (``PM-I, non-MoM`` in Fig. 2,
    ``PM-I`` in Fig. 4, ``non-MoM, known variance`` in Fig. 3, ``MoM`` in the overview),
    with its fixed colour."""
    colours = {f"{m}, {w}": c for (m, w), c in SCHEME_COLOURS.items()}
    colours.update({m: SCHEME_COLOURS[m, "non-MoM"] for m in ("PM-I", "PM-II")})
    colours.update(VARIANCE_COLOURS)
    colours.update({f"non-MoM, {v}": c for v, c in VARIANCE_COLOURS.items()})
    colours["MoM, known variance"] = SCHEME_COLOURS["PM-I", "MoM"]
    # The weights alone (a figure whose line style is the mechanism): PM-I's, as in Fig. 3.
    colours.update({w: SCHEME_COLOURS["PM-I", w] for w in ("non-MoM", "MoM", "wMoM")})
    return colours


VOCABULARY = Vocabulary(
    names={
        "mechanism": {"pm1": "PM-I", "pm2": "PM-II", "none": "no privacy"},
        "weights": {"last": "non-MoM", "mom": "MoM", "wmom": "wMoM"},
        "schedule": {"rr": "RR", "rrr": "rRR"},
        "variance": {"known": "known variance", "shared": "Sch-Var-1",
                     "inferred": "Sch-Var-2", "inferred_bayes": "Sch-Var-2 (Bayesian)"},
        "method": {"colme": "Algorithm 1", "oracle": "oracle", "local": "local",
                   "ideal": "ideal"},
    },
    axes={"mse": "average mean squared error", "n_agents": "number of agents M",
          "t": "time t (samples per agent)",
          "false_exclusion": "false-exclusion rate (type I)",
          "false_inclusion": "false-inclusion rate (type II)"},
    symbols={"n_agents": "M", "t_max": "t_max", "sigma": "σ", "n_classes": "Γ"},
    curves=("colme",),
    # The oracle class estimator, simulated (class_estimator=oracle) or analytic (Prop. 3).
    schemed=("colme", "oracle"),
    baselines=("local", "ideal"),
    scheme=("noise", "mechanism", "weights", "schedule", "variance"),
    facets=("epsilon", "n_agents", "t_max", "sigma", "delta", "n_classes"),
    metric="mse",
    dashes={"local": (0, (1, 1)), "ideal": (0, (6, 2)), "oracle": (0, (3, 1, 1, 1))},
    colours=_colours(),
)



STUDY = Study(
    family="colme",
    vocabulary=VOCABULARY,
    views={name: summary_view(view) for name, view in figures.VIEWS.items()},
    figures=figures.FIGURES,
    section=Section(
        template=("analysis.studies.colme", "reproduction.md"),
        paper="Yakimenka et al., Private-ColME",
        presets=(
            Preset("fig2_left", figures.SIZES, ("fig2_left",)),
            Preset("fig2_no_privacy", figures.SIZES),
            Preset("fig2_oracle", figures.SIZES, ("fig2_middle", "fig2_right")),
            Preset("fig3", figures.SIZES,
                   ("fig3_left", "fig3_right", "fig3_forms", "fig3_forms_zoom")),
            Preset("fig3_paired", figures.SIZES),
            Preset("fig3_welch", figures.SIZES),
            Preset("fig4", figures.SIZES, ("fig4_left", "fig4_right")),
            Preset("colme_staircase", figures.SIZES),
        ),
        values=document.values,
        sizes={"n_agents": "M", "t_max": "t_max"},
    ),
)
