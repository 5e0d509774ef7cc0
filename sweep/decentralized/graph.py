"""Communication graphs as CSR adjacency, built with numpy for a million agents.

A :class:`Graph` lists each agent's neighbours (``indices[indptr[a]:indptr[a + 1]]``)
and, for every directed entry e = (a → b), the position ``reverse[e]`` of (b → a): the
entry through which b hears from a, which belief propagation needs to leave a's own
contribution out of what b sends back. Rows may list an agent as its own neighbour (the
reference's self-loop quirk); such an entry is its own reverse.

The reference's random r-regular graph (``gnr_generator2`` of the public C++ code) draws
two stubs at a time, uniformly without replacement, and drops a pair that would repeat an
edge; a self-loop leaves its agent listed once as its own neighbour (its first insertion
succeeds, the second is refused). Its stub pairs form a uniformly random perfect
matching, so :func:`regular` draws one as a random permutation and keeps the distinct
pairs: the same graph distribution, in O(N r) vectorized work. (When the last-but-one
pair is invalid the reference restarts the matching without clearing the edges already
added, doubling degrees; that happens with probability about r/N per graph and is not
reproduced.) Each row is sorted by neighbour; the order only changes the order of
floating-point sums.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .config import GraphOptions


@dataclass(frozen=True)
class Graph:
    """Adjacency in CSR form, and the reverse of every directed entry when asked."""

    indptr: np.ndarray  # int64, n + 1
    indices: np.ndarray  # int32, one per directed entry

    @cached_property
    def reverse(self) -> np.ndarray:
        """The position (int64) of each entry's reverse entry: computed on first use, as
        only B-ColME needs it (about 2.5 s at 10⁷ entries). Entry e = (a, b) reverses to
        (b, a); the entries' reversed keys are their keys again, permuted, so the two
        sorts place each reverse: O(E) keys sorted, not E binary searches (a tenth of the
        time at 10⁷ entries). The first sort is linear on rows sorted by neighbour."""
        n, sources = self.n, self.sources().astype(np.int64)
        targets = self.indices.astype(np.int64)
        reverse = np.empty(self.n_entries, dtype=np.int64)
        reverse[np.argsort(targets * n + sources)] = np.argsort(sources * n + targets,
                                                                kind="stable")
        return reverse

    @property
    def n(self) -> int:
        return len(self.indptr) - 1

    @property
    def n_entries(self) -> int:
        """Directed entries (2 per edge, 1 per self-entry): the reference's
        ``num_directed_links``."""
        return len(self.indices)

    def degrees(self) -> np.ndarray:
        return np.diff(self.indptr)

    def sources(self) -> np.ndarray:
        """The agent a of every entry (a → b)."""
        return np.repeat(np.arange(self.n, dtype=np.int32), self.degrees())

    def n_components(self, keep: np.ndarray | None = None) -> tuple[int, np.ndarray]:
        """Connected components (count, label per agent) of the graph, or of its entries
        where ``keep`` is true."""
        import scipy.sparse as sp
        from scipy.sparse.csgraph import connected_components

        data = np.ones(self.n_entries, dtype=np.int8) if keep is None else keep.astype(np.int8)
        # Copies: scipy may share the arrays it is given and prunes them in place.
        matrix = sp.csr_array((data, self.indices.copy(), self.indptr.copy()),
                              shape=(self.n, self.n))
        matrix.eliminate_zeros()
        return connected_components(matrix, directed=False)


def from_entries(n: int, sources: np.ndarray, targets: np.ndarray) -> Graph:
    """The graph of directed entries (``sources[i]`` → ``targets[i]``), each listed once
    and symmetric, rows sorted by neighbour."""
    keys = np.sort(sources.astype(np.int64) * n + targets)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys // n, minlength=n), out=indptr[1:])
    return Graph(indptr, (keys % n).astype(np.int32))


def from_edges(n: int, u: np.ndarray, v: np.ndarray, self_entries: bool) -> Graph:
    """The simple graph of the pairs (u_i, v_i): a repeated pair counts once; a pair
    u = v lists u once as its own neighbour if ``self_entries``, else is dropped."""
    u, v = np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64)
    low, high = np.minimum(u, v), np.maximum(u, v)
    # np.unique's sort with a mask of the changes, without its bookkeeping.
    pairs = np.sort(low * n + high)
    pairs = pairs[np.append(True, pairs[1:] != pairs[:-1])]
    low, high = pairs // n, pairs % n
    loop = low == high
    if not self_entries:
        low, high, loop = low[~loop], high[~loop], loop[~loop]
    # Both directions of an edge, one entry for a self-entry.
    sources = np.concatenate([low, high[~loop]])
    targets = np.concatenate([high, low[~loop]])
    return from_entries(n, sources, targets)


def from_lists(neighbours: Sequence[Sequence[int]]) -> Graph:
    """The graph of given adjacency lists, rows kept in the given order (so that sums
    run as the lists say). Lists must be symmetric, without repeats."""
    n = len(neighbours)
    degrees = np.array([len(row) for row in neighbours], dtype=np.int64)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degrees, out=indptr[1:])
    indices = np.fromiter((b for row in neighbours for b in row), dtype=np.int64,
                          count=int(indptr[-1]))
    sources = np.repeat(np.arange(n, dtype=np.int64), degrees)
    keys = sources * n + indices
    sorted_keys = np.sort(keys)
    if np.any(np.diff(sorted_keys) == 0) or np.any((indices < 0) | (indices >= n)):
        raise ConfigError("graph: adjacency lists must name agents 0..n-1, each once per row")
    found = np.searchsorted(sorted_keys, indices * n + sources)
    found = np.minimum(found, len(keys) - 1)
    if not np.array_equal(sorted_keys[found], indices * n + sources):
        raise ConfigError("graph: adjacency lists must be symmetric (b in a's list iff a "
                          "in b's)")
    return Graph(indptr, indices.astype(np.int32))


def regular(n: int, degree: int, rng: np.random.Generator, self_entries: bool = True
            ) -> Graph:
    """The reference's random ``degree``-regular graph: a uniformly random matching of
    the n × degree stubs, repeated pairs dropped, a self-loop kept as a self-entry (or
    dropped without ``self_entries``: the erased configuration model)."""
    stubs = rng.permutation(n * degree)
    return from_edges(n, stubs[0::2] // degree, stubs[1::2] // degree, self_entries)


def erdos_renyi(n: int, p: float, rng: np.random.Generator) -> Graph:
    """G(n, p): a Binomial(n(n − 1)/2, p) number of distinct pairs, uniformly chosen."""
    pairs = n * (n - 1) // 2
    chosen = rng.choice(pairs, size=rng.binomial(pairs, p), replace=False)
    # Pair k = v(v − 1)/2 + u with u < v (pairs ordered by their larger end).
    high = ((1 + np.sqrt(1 + 8 * chosen.astype(np.float64))) / 2).astype(np.int64)
    high -= high * (high - 1) // 2 > chosen  # correct rounding of the square root
    high += (high + 1) * high // 2 <= chosen
    low = chosen - high * (high - 1) // 2
    return from_edges(n, low, high, self_entries=False)


def tree(n: int, branching: int) -> Graph:
    """The reference's regular tree: agent 0 the root, the others filled level by level,
    every agent with ``branching`` children (the last level possibly partial)."""
    child = np.arange(1, n, dtype=np.int64)
    return from_edges(n, (child - 1) // branching, child, self_entries=False)


def complete(n: int) -> Graph:
    low, high = np.triu_indices(n, k=1)
    return from_edges(n, low, high, self_entries=False)


def edgelist(path: str) -> Graph:
    """The graph of an edge-list file (``u v`` lines, ``#`` comments; self-loops
    dropped), its nodes numbered in the order the shared reader lists them."""
    from ..components import graphs
    from ..options import file_digest

    spec = graphs.GraphSpec("edgelist", None, (), 0, "metropolis", path,
                            file_digest(path, "graph.edgelist"))
    graph = graphs.generate(spec)
    edges = graphs.edges(spec)
    return from_edges(graph.number_of_nodes(), edges[:, 0], edges[:, 1], self_entries=False)


def build(options: GraphOptions, rng: np.random.Generator | None) -> Graph:
    """The graph ``options`` describe; ``rng`` draws a random one (None: from
    ``options.seed``)."""
    if rng is None:
        rng = np.random.default_rng(options.seed)
    kind, n = options.kind, options.n_nodes
    if kind == "regular":
        return regular(n, options.degree, rng, options.configuration == "reference")
    if kind == "erdos_renyi":
        return erdos_renyi(n, options.edge_probability, rng)
    if kind == "tree":
        return tree(n, options.branching)
    if kind == "complete":
        return complete(n)
    return edgelist(options.edgelist)


__all__ = ["Graph", "build", "complete", "edgelist", "erdos_renyi", "from_edges",
           "from_entries", "from_lists", "regular", "tree"]
