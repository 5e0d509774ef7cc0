"""Communication graphs and their doubly stochastic weights (Sec. 2.2).

Graphs come from networkx generators or from a user's edge-list file. The weight matrix
A is symmetric and doubly stochastic; the paper's choice is the Metropolis–Hastings
weights a_ij = 1/max(deg i, deg j) on edges, a_ii = 1 − Σ_j a_ij. Everything the
simulation needs is kept as arrays (a CSR matrix and its spectrum), built once per graph
and process.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ..errors import ConfigError

#: Generated graphs and the options that parametrize each (besides ``n_nodes``).
GENERATORS = {
    "geometric": ("radius",),
    "erdos_renyi": ("edge_probability",),
    "watts_strogatz": ("neighbors", "rewire_probability"),
    "newman_watts_strogatz": ("neighbors", "rewire_probability"),
    "barabasi_albert": ("attachments",),
    "grid": ("grid_rows",),
    "ring": (),
    "complete": (),
}
GRAPHS = (*GENERATORS, "edgelist")
GRAPH_PARAMETERS = tuple(dict.fromkeys(p for names in GENERATORS.values() for p in names))
WEIGHTS = ("metropolis", "lazy_metropolis", "max_degree")


@dataclass(frozen=True)
class GraphSpec:
    """What defines a graph and its weights; hashable, so graphs are built once per spec."""

    graph: str
    n_nodes: int | None
    parameters: tuple[tuple[str, float | int], ...]
    seed: int
    weights: str
    edgelist: str | None = None  # path, when graph == "edgelist"
    edgelist_sha256: str | None = None


@dataclass(frozen=True)
class Network:
    """The weight matrix A as CSR arrays, and the quantities the paper's results use.

    ``a_self`` is a_ii; ``a_neighbor`` is max_{j ∈ N_i} a_ij (0 for no neighbour), the
    network part of agent i's Network-DP sensitivity; ``max_weight`` is
    a = max_{i≠j} a_ij of Table 1; ``eigenvalues`` are those of A in decreasing order and
    ``beta_star`` = max(λ2, |λn|).
    """

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    a_self: np.ndarray
    a_neighbor: np.ndarray
    eigenvalues: np.ndarray
    n_edges: int

    @property
    def n(self) -> int:
        return len(self.a_self)

    @property
    def beta_star(self) -> float:
        return float(max(self.eigenvalues[1], abs(self.eigenvalues[-1])))

    @property
    def max_weight(self) -> float:
        return float(self.a_neighbor.max())

    def matrix(self) -> sp.csr_array:
        return sp.csr_array((self.data, self.indices, self.indptr), shape=(self.n, self.n))


def file_digest(path: str) -> str:
    """sha256 of an edge-list file, so that a changed file changes the cell id."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as error:
        raise ConfigError(f"edgelist: cannot read {path!r} ({error.strerror})") from None


def _generate(spec: GraphSpec) -> nx.Graph:
    n, p, seed = spec.n_nodes, dict(spec.parameters), spec.seed
    if spec.graph == "edgelist":
        try:
            graph = nx.read_edgelist(spec.edgelist, comments="#", data=False)
        except (OSError, TypeError, ValueError, IndexError) as error:
            raise ConfigError(f"edgelist: cannot read {spec.edgelist!r} as an edge list "
                              f"({error})") from None
        graph.remove_edges_from(nx.selfloop_edges(graph))
        if graph.number_of_nodes() < 2:
            raise ConfigError(f"edgelist: must list edges between at least 2 nodes; "
                              f"got {graph.number_of_nodes()} in {spec.edgelist!r}")
        return graph
    if spec.graph == "geometric":
        return nx.random_geometric_graph(n, p["radius"], seed=seed)
    if spec.graph == "erdos_renyi":
        return nx.gnp_random_graph(n, p["edge_probability"], seed=seed)
    if spec.graph == "watts_strogatz":
        return nx.watts_strogatz_graph(n, p["neighbors"], p["rewire_probability"], seed=seed)
    if spec.graph == "newman_watts_strogatz":
        return nx.newman_watts_strogatz_graph(n, p["neighbors"], p["rewire_probability"],
                                              seed=seed)
    if spec.graph == "barabasi_albert":
        return nx.barabasi_albert_graph(n, p["attachments"], seed=seed)
    if spec.graph == "grid":
        return nx.grid_2d_graph(p["grid_rows"], n // p["grid_rows"])
    if spec.graph == "ring":
        return nx.cycle_graph(n)
    return nx.complete_graph(n)


def weight_matrix(graph: nx.Graph, weights: str) -> sp.csr_array:
    """Symmetric doubly stochastic weights on ``graph`` (nodes in networkx order).

    ``metropolis``: a_ij = 1/max(deg i, deg j) (Sec. 2.2, the paper's choice);
    ``lazy_metropolis``: (I + A_MH)/2, aperiodic on every connected graph;
    ``max_degree``: a_ij = 1/(max degree + 1), e.g. 1/n on the complete graph of the
    paper's tightness example.
    """
    adjacency = nx.to_scipy_sparse_array(graph, format="coo", dtype=np.float64)
    rows, cols = adjacency.row, adjacency.col
    degree = np.asarray(adjacency.sum(axis=1)).ravel()
    if weights == "max_degree":
        values = np.full(len(rows), 1.0 / (degree.max() + 1.0))
    else:
        values = 1.0 / np.maximum(degree[rows], degree[cols])
        if weights == "lazy_metropolis":
            values /= 2.0
    n = len(degree)
    off = sp.coo_array((values, (rows, cols)), shape=(n, n)).tocsr()
    diagonal = 1.0 - np.asarray(off.sum(axis=1)).ravel()
    return (off + sp.diags_array(diagonal)).tocsr()


@functools.lru_cache(maxsize=8)
def build(spec: GraphSpec) -> Network:
    """The network of ``spec``; :class:`ConfigError` if the graph is disconnected.

    The spectrum is computed densely (about 5 s for 5,000 nodes), once per graph and
    process: every cell of a sweep on the same graph shares it.
    """
    graph = _generate(spec)
    if not nx.is_connected(graph):
        parts = nx.number_connected_components(graph)
        raise ConfigError(f"graph: must be connected; the {spec.graph} graph has {parts} "
                          "connected components (raise its density or change graph_seed)")
    matrix = weight_matrix(graph, spec.weights)
    off = matrix - sp.diags_array(matrix.diagonal())
    eigenvalues = scipy.linalg.eigvalsh(matrix.toarray())[::-1]
    network = Network(matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64),
                      matrix.data, matrix.diagonal().copy(),
                      np.asarray(off.max(axis=1).toarray()).ravel(), eigenvalues,
                      graph.number_of_edges())
    if network.beta_star >= 1.0 - 1e-12:
        raise ConfigError(f"weights: must mix (β* < 1); {spec.weights} weights on this "
                          f"{spec.graph} graph are periodic (β* = 1), use "
                          "weights=lazy_metropolis")
    return network


@functools.lru_cache(maxsize=2)
def eigendecomposition(spec: GraphSpec) -> tuple[np.ndarray, np.ndarray]:
    """(Λ, Q) with A = QΛQᵀ, eigenvalues in decreasing order."""
    values, vectors = scipy.linalg.eigh(build(spec).matrix().toarray())
    return values[::-1], vectors[:, ::-1]
