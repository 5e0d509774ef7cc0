"""Noise kinds and their compiled draws.

A kind is an integer code, so that compiled loops can branch on it; the codes are this
module's own, and a family maps its option strings to them with :func:`kind_code`.

Two ways to name the size of a noise value, both used in the papers:

* its standard deviation σ (Private-ColME's σ_DP, Lemmas 1–3): Gaussian N(0, σ²), or
  Laplace of scale b = σ/√2, whose variance 2b² is σ²;
* its scale (the network paper, Thms 3.1, 4.1, 4.2): Laplace of scale b (variance 2b²),
  or Gaussian of standard deviation σ.

The staircase mechanism (:mod:`.staircase`), ε-DP like Laplace noise of scale Δ/ε and of
less variance, is drawn in the same units as that Laplace noise: a value of scale b =
Δ/ε is b times staircase noise of sensitivity ε (:func:`draw_unit`), so that its tails
in units of b are Laplace's (P(|X| > m b) = e^(−m) at the stairs); its variance is
``variance_factor(STAIRCASE, ε)`` b² = ε² V_1(ε) b², V_1 the variance at sensitivity 1.
It needs ε, and is drawn outside compiled code only.

numpy's Laplace takes the location first: ``rng.laplace(0.0, b)``. A public
implementation of a related paper passed b positionally as the location, which shifts
the noise instead of spreading it; the tests check the draws' mean, variance and shape.
"""

from __future__ import annotations

import math

import numba
import numpy as np

#: Noise kinds, by their option name; the index is the kind's code.
NOISE_KINDS = ("laplace", "gaussian", "staircase")
LAPLACE, GAUSSIAN, STAIRCASE = range(len(NOISE_KINDS))


def kind_code(name: str) -> int:
    """The code of the noise kind ``name`` (one of :data:`NOISE_KINDS`).

    Raises
    ------
    ValueError
        If ``name`` is not a noise kind (families validate their options first).
    """
    if name not in NOISE_KINDS:
        raise ValueError(f"noise kind must be one of {', '.join(NOISE_KINDS)}; got {name!r}")
    return NOISE_KINDS.index(name)


def variance_factor(kind: int, epsilon: float | None = None) -> float:
    """Variance of a noise value of scale 1: 2 for Laplace, 1 for Gaussian, ε² V_1(ε)
    for the staircase at ``epsilon`` (see the module)."""
    if kind == STAIRCASE:
        from .staircase import unit_variance

        return unit_variance(epsilon)
    return 2.0 if kind == LAPLACE else 1.0


@numba.njit(cache=True, inline="always")
def draw_scale(rng: np.random.Generator, kind: int, scale: float) -> float:
    """One zero-mean noise value of scale ``scale``: Laplace(0, b) or N(0, σ²).

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream to draw from; exactly one variate is consumed.
    kind : int
        :data:`GAUSSIAN` or :data:`LAPLACE`.
    scale : float
        b >= 0 for Laplace noise (variance 2b²), σ >= 0 for Gaussian noise.

    Returns
    -------
    float
    """
    if kind == GAUSSIAN:
        return scale * rng.standard_normal()
    return rng.laplace(0.0, scale)


@numba.njit(cache=True, inline="always")
def draw_std(rng: np.random.Generator, kind: int, std: float) -> float:
    """One zero-mean noise value with standard deviation ``std`` >= 0: N(0, σ²), or
    Laplace of scale σ/√2 (Private-ColME, Lemmas 1 and 2); one variate of ``rng``, as
    :func:`draw_scale`."""
    return draw_scale(rng, kind, std if kind == GAUSSIAN else std / math.sqrt(2.0))


def draw_unit(rng: np.random.Generator, kind: int, size: int | tuple[int, ...],
              epsilon: float | None = None) -> np.ndarray:
    """Noise of scale 1 (Laplace(0, 1), N(0, 1), or the staircase of sensitivity
    ``epsilon``: see the module), vectorized, outside compiled code.

    Multiplying by per-value scales gives noise of those scales, with the same draws
    whatever the scales are.
    """
    if kind == GAUSSIAN:
        return rng.standard_normal(size)
    if kind == STAIRCASE:
        from .staircase import draw_staircase

        return draw_staircase(rng, epsilon, size, sensitivity=epsilon)
    return rng.laplace(0.0, 1.0, size)


__all__ = [
    "GAUSSIAN",
    "LAPLACE",
    "NOISE_KINDS",
    "STAIRCASE",
    "draw_scale",
    "draw_std",
    "draw_unit",
    "kind_code",
    "variance_factor",
]
