"""The papers' words for series and axes: each study's vocabulary
(:attr:`analysis.study.Study.vocabulary`), over the words every family shares.

A family without a study is drawn with its own column and value names. Lookups take the
family (the ``family`` column of the results) so that the same value can mean different
things in two families.

The words are plain text with a light markup for symbols (``Θ̂^{thres,1}``, ``μ̂_t``,
``t_max``), as the Markdown documents print them; :func:`maths` gives the same words as
matplotlib mathtext, for figures.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from .study import get_study, known
from .vocabulary import Vocabulary

#: Words every family shares.
SHARED = Vocabulary(
    names={"source": {"simulated": "simulated", "analytic": "analytic"},
           "noise": {"gaussian": "Gaussian", "laplace": "Laplace"}},
    axes={"t": "time t", "epsilon": "privacy level ε", "ratio": "MSE ratio"},
    symbols={"epsilon": "ε", "delta": "δ"},
    dashes={"bound": (0, (5, 1, 1, 1)), "exact": (0, (1, 1))},
)


def vocabulary(family: str | Sequence[str] | None = None) -> Vocabulary:
    """The words of ``family`` (or of several, the first taking precedence), with the
    shared ones; every known study's when ``family`` is None."""
    families = known() if family is None else [family] if isinstance(family, str) else family
    merged = SHARED
    for name in reversed(list(families)):
        study = get_study(name)
        if study is not None:
            merged = merged | study.vocabulary
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
