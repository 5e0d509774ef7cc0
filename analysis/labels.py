"""The papers' vocabulary for series and axes, one :class:`Vocabulary` per family.

Private-ColME (Secs. III-VII), DP distributed estimation on networks (Secs. 3-5),
continual mean estimation under user-level DP (Secs. 3-5) and DP distributed inference
(Secs. 2, 4, 5 and 14) have theirs in
:data:`VOCABULARIES`; a family without one is drawn with its own column and
value names. Lookups take the family (the ``family`` column of the results) so that the
same value can mean different things in two families.

The words are plain text with a light markup for symbols (``Θ̂^{thres,1}``, ``μ̂_t``,
``t_max``), as the Markdown documents print them; :func:`maths` gives the same words as
matplotlib mathtext, for figures.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd


@dataclass(frozen=True)
class Vocabulary:
    """How one family's results are named in its paper.

    ``names`` label values (column → value → label), ``axes`` label columns on axes,
    ``symbols`` name parameters in titles (``epsilon`` → ε). ``curves`` are the methods
    drawn as curves by default, the family's algorithm; ``schemed`` the methods whose
    series are named by their scheme (default: ``curves``); ``baselines`` those drawn as
    grey reference lines; ``scheme`` the options that name a series; ``facets`` the
    options drawn as panels before any other (numeric options are panels anyway);
    ``references`` the sources of an algorithm's rows drawn as its reference lines
    (e.g. a bound); ``metric`` the default quantity on the y axis.
    """

    names: dict[str, dict[str, str]] = field(default_factory=dict)
    axes: dict[str, str] = field(default_factory=dict)
    symbols: dict[str, str] = field(default_factory=dict)
    curves: tuple[str, ...] = ()
    schemed: tuple[str, ...] = ()
    baselines: tuple[str, ...] = ()
    scheme: tuple[str, ...] = ()
    facets: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    metric: str | None = None

    def __or__(self, other: Vocabulary) -> Vocabulary:
        """This vocabulary, with ``other``'s entries taking precedence."""
        names = {c: {**self.names.get(c, {}), **other.names.get(c, {})}
                 for c in {**self.names, **other.names}}
        return Vocabulary(names, {**self.axes, **other.axes}, {**self.symbols, **other.symbols},
                          other.curves or self.curves, other.schemed or self.schemed,
                          other.baselines or self.baselines, other.scheme or self.scheme,
                          other.facets or self.facets, other.references or self.references,
                          other.metric or self.metric)


#: Words every family shares.
SHARED = Vocabulary(
    names={"source": {"simulated": "simulated", "analytic": "analytic"},
           "noise": {"gaussian": "Gaussian", "laplace": "Laplace"}},
    axes={"t": "time t", "epsilon": "privacy level ε", "ratio": "MSE ratio"},
    symbols={"epsilon": "ε", "delta": "δ"},
)
COLME = Vocabulary(
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
)
NETWORK = Vocabulary(
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
CONTINUAL = Vocabulary(
    names={
        "method": {"non_private": "running mean", "naive_laplace": "per-step Laplace",
                   "alg2": "Algorithm 2", "alg3": "Algorithm 3", "alg4": "Algorithm 4",
                   "alg5": "Algorithm 5", "alg6": "Algorithm 6",
                   "lower_bound": "lower bound (Sec. 5)"},
        "source": {"bound": "bound", "lower_bound": "lower bound (Sec. 5)"},
        "order": {"contiguous": "contiguous", "round_robin": "round robin",
                  "uniform": "uniform", "zipf": "Zipf", "one_heavy": "one heavy user",
                  "staggered": "staggered", "few_heavy": "few heavy users"},
        "statistic": {"mean": "mean", "quantile": "1 − δ quantile"},
    },
    axes={"abs_error": "error |μ̂_t − μ|", "error": "signed error μ̂_t − μ (coordinate 0)",
          "max_count": "largest user count M_t", "max_samples": "samples per user m = M_T",
          "n_users_seen": "users seen", "samples_used": "samples used by μ̂_t",
          "clipped": "elements clipped by the projection", "active_levels":
          "active binary mechanisms (Alg. 6)", "diversity": "diversity condition (11) holds",
          "within_bound": "error within the theorem's bound", "level": "level ℓ"},
    symbols={"n_users": "n", "max_samples": "m", "t_max": "T", "mu": "μ",
             "dimension": "d"},
    curves=("non_private", "naive_laplace", "alg2", "alg3", "alg4", "alg5", "alg6"),
    scheme=("method", "composition", "level_count"),
    facets=("epsilon", "order", "max_samples", "n_users", "t_max", "delta", "dimension"),
    # A method's bound; and Sec. 5's lower bound where analysis.continual files it under
    # the cell's method (the results give it as method "lower_bound", source "bound").
    references=("bound", "lower_bound"),
    metric="abs_error",
)
INFERENCE = Vocabulary(
    names={
        "method": {"mle": "Alg. 4 (non-private)", "am": "AM (Alg. 1)", "gm": "GM (Alg. 1)",
                   "threshold_1": "two thresholds, Θ̂^{thres,1} (Alg. 2)",
                   "threshold_2": "two thresholds, Θ̂^{thres,2} (Alg. 2)",
                   "ol": "Alg. 5 (non-private OL)", "private_ol": "private OL (Alg. 3)",
                   "test": "distributed test (Prop. 4.6)", "rizk": "Rizk et al.",
                   "centralized": "centralized (pooled)", "rr": "randomized response",
                   "laplace": "Laplace", "individual": "individual test (β_IND)"},
        "source": {"bound": "theorem's bound", "exact": "exact", "belief": "belief"},
        "model": {"bernoulli": "Bernoulli", "gaussian": "Gaussian",
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
          "patients": "time points (patients)", "seconds": "time per run (s)"},
    symbols={"graph.n_nodes": "n", "patients": "time points", "rounds_k": "K",
             "iterations_t": "T", "alpha": "α", "beta": "β", "rho_am": "ϱ^AM",
             "rho_gm": "ϱ^GM", "rho_threshold": "ϱ^thres", "arm": "arm",
             "split_seed": "split seed"},
    curves=("mle", "am", "gm", "threshold_1", "threshold_2", "ol", "private_ol", "test",
            "rizk", "rr", "laplace"),
    baselines=("centralized", "individual"),
    scheme=("method",),
    facets=("epsilon", "graph.n_nodes", "patients"),
    # A method's theorem bound (Thms 4.2, 4.3, 4.7, Prop. 4.6) and, for the Sec. 2 toy,
    # its exact power.
    references=("bound", "exact"),
    metric="tvd_truth",
)
#: The vocabularies of the families that have one, by family name.
VOCABULARIES: dict[str, Vocabulary] = {"colme": COLME, "network": NETWORK,
                                       "continual": CONTINUAL, "inference": INFERENCE}


def vocabulary(family: str | Sequence[str] | None = None) -> Vocabulary:
    """The words of ``family`` (or of several, the first taking precedence), with the
    shared ones; every family's when ``family`` is None."""
    if family is None:
        family = list(VOCABULARIES)
    families = [family] if isinstance(family, str) else list(family)
    merged = SHARED
    for name in reversed(families):
        merged = merged | VOCABULARIES.get(name, Vocabulary())
    return merged


def families_of(frame: pd.DataFrame) -> list[str] | None:
    """The families whose rows ``frame`` holds (None if it does not say)."""
    return list(pd.unique(frame["family"].dropna())) if "family" in frame else None


def name(column: str, value: object, family: str | Sequence[str] | None = None) -> str:
    """A value in the paper's words (``pm1`` -> ``PM-I``, ε = 0.5), or ``column=value``."""
    words = vocabulary(family)
    if column in words.names:
        return words.names[column].get(str(value), str(value))
    if column in words.symbols:
        return f"{words.symbols[column]} = {value:g}" if isinstance(value, float) else (
            f"{words.symbols[column]} = {value}")
    return f"{column}={value}"


def axis(column: str, family: str | Sequence[str] | None = None) -> str:
    """The axis label of ``column`` (the column's own name if the family has none)."""
    return vocabulary(family).axes.get(column, column)


def add_scheme(frame: pd.DataFrame, parts: Sequence[str] | None = None) -> pd.DataFrame:
    """A ``scheme`` column naming each series with the parts that vary in ``frame``.

    Series of a scheme are the family's curves (for Private-ColME, Algorithm 1 and the
    simulated oracle estimator) and their analytic rows (the oracle of Prop. 3). They
    are named by the ``parts`` (default: the family's scheme) that take more than one
    value among them (e.g. ``PM-I, non-MoM, RR``); analytic rows of a curve get the
    method's name as a prefix when simulated rows are there too. Baselines are named by
    their method, with ``(analytic)`` for analytic rows.
    """
    family = families_of(frame)
    words = vocabulary(family)
    parts = words.scheme if parts is None else parts

    def label(column: str) -> pd.Series:
        words = {v: name(column, v, family) for v in pd.unique(frame[column])}
        return frame[column].map(words).astype(str)

    simulated = frame.source == "simulated"
    # A family without a vocabulary: every method is one of its algorithms.
    schemed = frame.method.isin(words.schemed or words.curves or frame.method.unique())
    algorithm = schemed & simulated
    reference = schemed & ~simulated
    varying = [p for p in parts if p in frame and frame.loc[schemed, p].nunique() > 1]
    methods = label("method")
    joined = methods
    if varying:
        joined = label(varying[0])
        for part in varying[1:]:
            joined = joined + ", " + label(part)
    # A reference row says what it is: its method, and its source unless it is the
    # paper's exact curve ("analytic": Private-ColME's oracle reads "oracle").
    analytic = frame.source == "analytic"
    what = methods.where(analytic, methods + ", " + label("source"))
    labels = methods.where(simulated, (methods + " (analytic)").where(analytic, what))
    labels[algorithm] = joined[algorithm]
    kinds = frame.loc[reference, ["method", "source"]].drop_duplicates()
    if varying and (algorithm.any() or len(kinds) > 1):
        labels[reference] = what[reference] + ": " + joined[reference]
    else:
        labels[reference] = (joined if varying else what)[reference]
    # A reference named like a simulated series (e.g. the analytic oracle next to the
    # simulated oracle estimator) says its source, or the two would be drawn as one.
    clash = reference & labels.isin(set(labels[algorithm]))
    labels[clash] = labels[clash] + " (" + label("source")[clash] + ")"
    return frame.assign(scheme=labels)


#: Combining accents of the vocabulary, by the mathtext command that draws them.
ACCENTS = {"\u0302": "hat", "\u0304": "bar", "\u0303": "tilde", "\u0307": "dot"}
#: A symbol in the vocabulary's markup: one letter that starts a word, an optional
#: accent or star, and sub- and superscripts, braced (``^{thres,1}``) or bare. A bare
#: subscript is one character, capitals (``β_IND``, ``ε*_RR``) or ``max``/``min``, so
#: that identifiers such as ``n_agents`` stay words.
SYMBOL = re.compile(
    r"(?<![\w.$\\])(?P<base>[^\W\d_])(?P<accent>[\u0300-\u036f]?)(?P<star>\*?)"
    r"(?P<scripts>(?:\^(?:\{[^{}$\\]*\}|[^\W_]+)"
    r"|_(?:\{[^{}$\\]*\}|[A-Z]+|max|min|[^\W_]))*)(?![\w\u0300-\u036f])")
SCRIPT = re.compile(r"([_^])(\{[^{}]*\}|[^\W_]+)")


def _symbol(match: re.Match[str]) -> str:
    accent, scripts = match["accent"], match["scripts"]
    if not accent and not scripts:
        return match[0]
    command = ACCENTS.get(accent)
    if accent and command is None:
        return match[0]
    if command == "hat" and match["base"].isupper():
        command = "widehat"  # \hat sits small and askew on a capital
    base = (f"\\{command}{{{match['base']}}}" if accent else match["base"]) + match["star"]
    braced = SCRIPT.sub(lambda s: s[1] + (s[2] if s[2].startswith("{") else f"{{{s[2]}}}"),
                        scripts)
    return f"$\\mathregular{{{base}{braced}}}$"


def maths(text: str) -> str:
    r"""``text`` with each symbol of the vocabulary's markup as mathtext in the text's
    upright font (``two thresholds, Θ̂^{thres,1}`` gives ``two thresholds,
    $\mathregular{\hat{Θ}^{thres,1}}$``); text that holds mathtext already as it is."""
    return text if "$" in text else SYMBOL.sub(_symbol, text)
