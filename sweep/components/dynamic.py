"""Time-varying graphs with the modified Metropolis–Hastings weights (Appendix C.1).

The network paper lets the graph G(t) change every round (failed links, noisy
communications, agents not sharing) and mixes with the modified Metropolis–Hastings weights
of eq. (C.3): a_ij(t) = 1/(2 max(deg_t i, deg_t j)) on the round's edges and
a_ii(t) = 1 − Σ_j a_ij(t), symmetric and doubly stochastic with a_ii(t) >= 1/2 (an isolated
node keeps its estimate). The paper does not say how G(t) is drawn; here each edge of the
base graph is present independently with probability ``keep`` at every round
(:class:`EdgeFailures`), independently across replicates. With keep = 1 the graph is static
and the weights are (I + A_MH)/2, the ``lazy_metropolis`` weights.

The rounds of all replicates are one block-diagonal CSR matrix of size nR, so that a round
costs one sparse product whatever R, as the static graph does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp


def modified_metropolis(edges: np.ndarray, n: int, kept: np.ndarray
                        ) -> tuple[sp.csr_array, np.ndarray]:
    """The weights (C.3) of R graphs on n nodes: block-diagonal (nR, nR) CSR, and a_i(t).

    ``edges`` is the base graph's (m, 2) edge array and ``kept`` an (R, m) boolean mask of
    the edges present in each replicate's graph. Returns the matrix (replicate r's block in
    rows and columns r·n to r·n + n − 1) and a_i(t) = max_{j≠i} a_ij(t) as (n, R), 0 for an
    isolated node (the network part of the Network-DP sensitivity).
    """
    replicates = kept.shape[0]
    which, edge = np.nonzero(kept)
    u = edges[edge, 0] + which * n
    v = edges[edge, 1] + which * n
    size = n * replicates
    degree = np.bincount(u, minlength=size) + np.bincount(v, minlength=size)
    weight = 0.5 / np.maximum(degree[u], degree[v])
    rows, cols = np.concatenate([u, v]), np.concatenate([v, u])
    values = np.concatenate([weight, weight])
    neighbour = np.zeros(size)
    np.maximum.at(neighbour, rows, values)
    off = sp.coo_array((values, (rows, cols)), shape=(size, size)).tocsr()
    diagonal = 1.0 - np.asarray(off.sum(axis=1)).ravel()
    matrix = (off + sp.diags_array(diagonal)).tocsr()
    return matrix, neighbour.reshape(replicates, n).T


class Blocks:
    """R replicates' weights of one round, applied to (n, R) estimates as A_r x_r."""

    def __init__(self, matrix: sp.csr_array, n: int) -> None:
        self.matrix = matrix
        self.shape = (n, n)

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        n, replicates = x.shape
        stacked = np.ascontiguousarray(x.T).reshape(n * replicates)
        return (self.matrix @ stacked).reshape(replicates, n).T


class EdgeFailures:
    """G(t): every edge of the base graph present with probability ``keep``, independently
    per round and replicate, with the weights (C.3).

    ``rngs`` are one generator per replicate (the graph stream of the replicate's seed);
    rounds are drawn in order, t = 1, 2, ..., one uniform per base edge and replicate.
    :meth:`weights` and :meth:`neighbour` of a round t share its draw; round 0 (MVUE's
    noise, before any mixing) is given round 1's graph, the first to mix the noised x_0.
    """

    def __init__(self, edges: np.ndarray, n: int, keep: float,
                 rngs: Sequence[np.random.Generator]) -> None:
        self.edges, self.n, self.keep, self.rngs = edges, n, keep, rngs
        self._round = 0
        self._current: tuple[Blocks, np.ndarray] | None = None

    def _draw(self, t: int) -> tuple[Blocks, np.ndarray]:
        t = max(t, 1)
        if t != self._round:
            if t != self._round + 1:
                raise ValueError(f"rounds must be drawn in order: round {t} after "
                                 f"{self._round}")
            kept = np.stack([rng.random(len(self.edges)) < self.keep for rng in self.rngs])
            matrix, neighbour = modified_metropolis(self.edges, self.n, kept)
            self._current, self._round = (Blocks(matrix, self.n), neighbour), t
        return self._current

    def weights(self, t: int) -> Blocks:
        """A(t) of every replicate."""
        return self._draw(t)[0]

    def neighbour(self, t: int) -> np.ndarray:
        """a_i(t) = max_{j≠i} a_ij(t), (n, R)."""
        return self._draw(t)[1]


__all__ = ["Blocks", "EdgeFailures", "modified_metropolis"]
