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
Its shape depends on ε: compiled draws take it as :func:`stairs` (a tuple or an array
row, unused by the other kinds). A value is four variates (sign, G, U, B;
:func:`draw_stair`); the vectorized :func:`draw_staircase` draws them as four arrays, and
both compute the magnitude with :func:`stair_magnitude`.

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


#: :func:`stairs` of the kinds that have none.
NO_STAIRS = (0.0, 0.0, 0.0, 1.0, 0.0)
#: The number of values in a shape (:func:`stairs`).
STAIR_VALUES = len(NO_STAIRS)
Stairs = tuple[float, float, float, float, float]


def stairs(kind: int, epsilon: float) -> Stairs:
    """The shape a compiled draw of ``kind`` at ``epsilon`` needs: the staircase's
    :func:`~sweep.components.staircase.stair_parameters` (b, γ*, P(B = 1), √V_1(ε)) and
    ε, or :data:`NO_STAIRS`."""
    if kind != STAIRCASE:
        return NO_STAIRS
    from .staircase import stair_parameters

    return (*stair_parameters(epsilon), epsilon)


def variance_factor(kind: int, epsilon: float | None = None) -> float:
    """Variance of a noise value of scale 1: 2 for Laplace, 1 for Gaussian, ε² V_1(ε)
    for the staircase at ``epsilon`` (see the module)."""
    from .calibration import unit_noise_variance

    return unit_noise_variance(NOISE_KINDS[kind], epsilon)


@numba.njit(cache=True, inline="always")
def draw_scale(rng: np.random.Generator, kind: int, scale: float, shape: Stairs) -> float:
    """One zero-mean noise value of scale ``scale``: Laplace(0, b), N(0, σ²), or the
    staircase of ``shape`` (:func:`stairs`) in Laplace's units (see the module).

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream to draw from: one variate (Laplace, Gaussian) or four (staircase).
    kind : int
        :data:`GAUSSIAN`, :data:`LAPLACE` or :data:`STAIRCASE`.
    scale : float
        b >= 0 for Laplace noise (variance 2b²) and the staircase (of sensitivity bε),
        σ >= 0 for Gaussian noise.
    shape : tuple or array
        The staircase's :func:`stairs`; unused by the other kinds.

    Returns
    -------
    float
    """
    if kind == STAIRCASE:
        return scale * shape[4] * draw_stair(rng, shape)
    if kind == GAUSSIAN:
        return scale * rng.standard_normal()
    return rng.laplace(0.0, scale)


@numba.njit(cache=True, inline="always")
def stair_magnitude(g: float, u: float, low: bool, gamma: float) -> float:
    """|X|/Δ of a staircase draw: G + γU on the high step of stair G, G + γ + (1 − γ)U on
    its low step (Geng & Viswanath, Sec. III-D)."""
    return g + gamma + (1.0 - gamma) * u if low else g + gamma * u


@numba.njit(cache=True, inline="always")
def draw_stair(rng: np.random.Generator, shape: Stairs) -> float:
    """One value of the staircase of sensitivity 1 of ``shape`` (:func:`stairs`): four
    variates of ``rng``, the sign, G, U and B."""
    decay, gamma, low = shape[0], shape[1], shape[2]
    sign = -1.0 if rng.random() < 0.5 else 1.0
    # numpy's geometric counts trials from 1: G = trials − 1 failures before a success.
    g = rng.geometric(1.0 - decay) - 1.0
    u = rng.random()
    return sign * stair_magnitude(g, u, rng.random() < low, gamma)


@numba.njit(cache=True, inline="always")
def draw_std(rng: np.random.Generator, kind: int, std: float, shape: Stairs) -> float:
    """One zero-mean noise value with standard deviation ``std`` >= 0: N(0, σ²), Laplace
    of scale σ/√2 (Private-ColME, Lemmas 1 and 2), one variate of ``rng`` as
    :func:`draw_scale`; or the staircase of ``shape`` (:func:`stairs`) scaled to σ, four
    variates (:func:`draw_stair`)."""
    if kind == STAIRCASE:
        return std / shape[3] * draw_stair(rng, shape)
    return draw_scale(rng, kind, std if kind == GAUSSIAN else std / math.sqrt(2.0), shape)


@numba.njit(cache=True)
def _stair_magnitudes(g: np.ndarray, u: np.ndarray, low: np.ndarray,
                      gamma: float) -> np.ndarray:
    out = np.empty(g.size)
    for i in range(g.size):
        out[i] = stair_magnitude(g.flat[i], u.flat[i], low.flat[i], gamma)
    return out.reshape(g.shape)


def draw_staircase(rng: np.random.Generator, epsilon: float, size: int | tuple[int, ...],
                   sensitivity: float = 1.0, gamma: float | None = None) -> np.ndarray:
    """Staircase noise of ``epsilon`` and ``sensitivity`` (γ* by default), ``size``
    values: four variates of ``rng`` each (sign, G, U, B, in that order, as arrays)."""
    from .staircase import stair_parameters

    decay, gamma, low, _ = stair_parameters(epsilon, gamma)
    sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    g = rng.geometric(1.0 - decay, size) - 1.0
    u = rng.random(size)
    magnitude = _stair_magnitudes(np.asarray(g, dtype=np.float64), np.asarray(u),
                                  np.asarray(rng.random(size) < low), gamma)
    return sign * magnitude * sensitivity


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
        return draw_staircase(rng, epsilon, size, sensitivity=epsilon)
    return rng.laplace(0.0, 1.0, size)


__all__ = [
    "GAUSSIAN",
    "LAPLACE",
    "NOISE_KINDS",
    "NO_STAIRS",
    "STAIRCASE",
    "STAIR_VALUES",
    "Stairs",
    "draw_scale",
    "draw_stair",
    "draw_staircase",
    "draw_std",
    "draw_unit",
    "kind_code",
    "stair_magnitude",
    "stairs",
    "variance_factor",
]
