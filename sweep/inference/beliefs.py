"""Belief dynamics of the paper's algorithms, in a stable form, vectorized over replicates,
rounds and states.

**MLE (Algs 1, 2 and 4, eqs (12), (14), (18)).** The log-belief ratios obey
φ_t = (A + I) φ_{t−1}, so they grow like 2^t (the dominant eigenvalue of A + I is 2). The
simulation keeps ψ̃_t = ((A + I)/2)^t ψ_0, which converges to the agents' average, and
forms beliefs as ν_t(θ) ∝ exp(2^t (ψ̃_t(θ) − max_θ' ψ̃_t(θ'))) with :func:`numpy.ldexp`:
the exponent is 0 for the leading state and −∞ at worst, never inf − inf, whatever T.
Agents of every replicate, round and state are columns of one (n, R·K·|Θ|) block, so an
iteration is one matrix product.

**Online learning (Algs 3 and 5, eqs (17), (19)).** ψ_t = A ψ_{t−1} + ζ_t with ζ_t the
round's (noisy) log-likelihoods; the log-beliefs grow linearly in t and are re-centred per
agent at every step (a constant per agent cancels in the beliefs).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import NamedTuple

import numba
import numpy as np

from .models import TIE_TOLERANCE


def mixing(matrix: np.ndarray) -> np.ndarray:
    """(A + I)/2, the matrix that maps ψ̃_{t−1} to ψ̃_t."""
    return (matrix + np.eye(len(matrix))) / 2.0


def propagate(half: np.ndarray, initial: np.ndarray, times: np.ndarray
              ) -> Iterator[tuple[int, np.ndarray]]:
    """(t, ψ̃_t) at each checkpoint t of ``times`` (increasing, >= 1), from ψ̃_0 =
    ``initial`` of shape (n, ...): every iteration is ``half @ ψ̃``."""
    shape = initial.shape
    state = initial.reshape(shape[0], -1)
    done = 0
    for t in times:
        for _ in range(int(t) - done):
            state = half @ state
        done = int(t)
        yield done, state.reshape(shape)


def beliefs(scaled: np.ndarray, t: int) -> np.ndarray:
    """ν_t = softmax over the last axis of 2^t ψ̃_t (stable for any t, see above).

    States whose ψ̃ is within :data:`~sweep.inference.models.TIE_TOLERANCE` of the
    leader's (relative to its magnitude) are tied with it, as Θ* counts ties: 2^t would
    otherwise turn rounding differences of 10⁻¹⁶ into a choice between tied states.
    """
    top = scaled.max(axis=-1, keepdims=True)
    centred = scaled - top
    centred[centred >= -TIE_TOLERANCE * np.maximum(np.abs(top), 1.0)] = 0.0
    with np.errstate(over="ignore"):  # −inf for the states far behind: belief 0
        weights = np.exp(np.ldexp(centred, t))
    return weights / weights.sum(axis=-1, keepdims=True)


def point_mass(index: np.ndarray, states: int) -> np.ndarray:
    """One-hot beliefs on the states ``index`` (any shape) over ``states`` states."""
    return (index[..., None] == np.arange(states)).astype(np.float64)


#: :class:`LogBeliefs`' ``released`` in a sweep: no coupling.
NOT_AUDITED = np.empty((0, 0, 0))


# The structures the kernel takes live in this module: numba's cache of it is keyed on
# this file, and a field changed elsewhere would leave a stale kernel in use.
class LogBeliefs(NamedTuple):
    """The agents' log-beliefs (n, |Θ|), re-centred per agent, updated in place round
    after round: the private ψ_t of Alg. 3 and the non-private φ_t of Alg. 5 on the same
    signals; and the privacy audit's coupling (empty in a sweep): the released values
    ζ_{i,t} + d_{i,t} of every round t (rounds, n, |Θ|), recorded where NaN, handed in
    where finite, which ψ then adds as they are (:func:`online`)."""

    psi: np.ndarray
    phi: np.ndarray
    released: np.ndarray = NOT_AUDITED


class Checkpoints(NamedTuple):
    """The checkpoints t of ``times`` and what :func:`online` writes at each, averaged over
    the agents: whether argmax ν_{i,t} = θ° (``truth``, the index of θ° in Θ), the total
    variation distance of ν_{i,t} to the point mass on θ° (1 − ν_{i,t}(θ°)) and to the
    non-private μ_{i,t}, and ν_{i,t} itself (checkpoints, |Θ|)."""

    times: np.ndarray
    truth: int
    exact_recovery: np.ndarray
    tvd_truth: np.ndarray
    tvd_private: np.ndarray
    belief: np.ndarray


@numba.njit(cache=True)
def online(matrix: np.ndarray, signals: np.ndarray, noise: np.ndarray, first: int,
           beliefs: LogBeliefs, checkpoints: Checkpoints, k: int) -> int:
    """Algs 3 (private) and 5 (``noise`` all zero) for one replicate, over rounds
    ``first`` .. ``first`` + len(signals) − 1 (a chunk: long runs are fed in pieces).

    ``signals`` (rounds, n, |Θ|) are the rounds' log-likelihoods log γ_{i,t}(θ) (0 where
    no signal arrived), ``noise`` the Laplace draws d_{i,t}(θ): eq. (17) updates ψ_t =
    A ψ_{t−1} + signals + noise, and φ_t the same without the noise. The ``checkpoints``
    from index ``k`` on receive their metrics. Returns the index of the next checkpoint.

    With ``beliefs.released`` (the coupling of neighbouring runs), ψ adds the released
    ζ_t + d_t of round t itself, handed in (or recorded), and no noise on top (+ 0.0 is
    exact): two runs handed the same releases update ψ alike, bit for bit, whatever their
    signals; φ keeps each run's own.
    """
    psi, phi, released = beliefs.psi, beliefs.phi, beliefs.released
    times, truth = checkpoints.times, checkpoints.truth
    out_correct, out_truth = checkpoints.exact_recovery, checkpoints.tvd_truth
    out_private, out_beliefs = checkpoints.tvd_private, checkpoints.belief
    rounds, n, states = signals.shape
    nu = np.empty(states)
    mu = np.empty(states)
    # What ψ adds at round t = first + row (eq. (17)): own[offset + row] + drawn[row], the
    # round's log-likelihoods and noise; under the coupling the releases and zeros, so
    # that the update below is the one line a sweep runs.
    own, drawn, offset = signals, noise, 0
    if released.size:
        for row in range(rounds):
            sent = released[first + row]
            for i in range(n):
                for s in range(states):
                    if math.isnan(sent[i, s]):
                        sent[i, s] = signals[row, i, s] + noise[row, i, s]
        own, drawn, offset = released, np.zeros_like(noise), first
    for row in range(rounds):
        t = first + row
        if t == 0:
            psi[:] = own[offset + row] + drawn[row]
            phi[:] = signals[row]
            continue
        psi[:] = matrix @ psi + own[offset + row] + drawn[row]
        phi[:] = matrix @ phi + signals[row]
        for i in range(n):
            psi[i] -= psi[i].max()
            phi[i] -= phi[i].max()
        if k < times.size and times[k] == t:
            correct = 0.0
            to_truth = 0.0
            to_private = 0.0
            for s in range(states):
                out_beliefs[k, s] = 0.0
            for i in range(n):
                nu[:] = np.exp(psi[i])
                nu /= nu.sum()
                mu[:] = np.exp(phi[i])
                mu /= mu.sum()
                if np.argmax(nu) == truth:
                    correct += 1.0
                to_truth += 1.0 - nu[truth]
                to_private += 0.5 * np.abs(nu - mu).sum()
                out_beliefs[k] += nu
            out_correct[k] = correct / n
            out_truth[k] = to_truth / n
            out_private[k] = to_private / n
            out_beliefs[k] /= n
            k += 1
    return k


__all__ = ["NOT_AUDITED", "Checkpoints", "LogBeliefs", "beliefs", "mixing", "online",
           "point_mass", "propagate"]
