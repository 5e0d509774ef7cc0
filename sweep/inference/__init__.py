"""Differentially private distributed inference (Papachristou & Rahimian).

Agents on a graph hold private likelihoods over a finite set of states Θ and exchange
Laplace-noised log-beliefs to find the MLE set (Algs 1, 2, 4), test a hypothesis (Prop. 4.6,
Sec. 10.2) or learn online (Algs 3, 5); see :mod:`sweep.inference.family` for the rows.
"""

from .config import InferenceConfig

__all__ = ["InferenceConfig"]
