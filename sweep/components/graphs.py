"""Communication graphs and their doubly stochastic consensus weights.

Graphs come from networkx generators or from a user's edge-list file. The weight matrix
A is symmetric and doubly stochastic; the network paper's choice (dp-distributed-
estimation, Sec. 2.2) is the Metropolis–Hastings weights a_ij = 1/max(deg i, deg j) on
edges, a_ii = 1 − Σ_j a_ij. Everything a simulation needs is kept as arrays (a CSR
matrix and its spectrum), built once per graph and process.

:class:`GraphConfig` is the nested option group ``graph`` of a family's options
(``graph.kind``, ``graph.n_nodes``, ...); its checks name the dotted key. networkx and
scipy are imported by the functions that build graphs: validating the options needs
neither.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigError
from ..options import (
    FILE,
    choice,
    fail,
    file_digest,
    in_range,
    integer,
    nested,
    option,
    real,
)

if TYPE_CHECKING:
    import networkx as nx
    import scipy.sparse as sp

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
class GraphConfig:
    """A communication graph and its weights: the nested option group ``graph``.

    Defaults: the network paper's German-households graph (Sec. 5), a random geometric
    graph of 969 nodes and radius 0.1, which with seed 0 has the paper's 13,236 edges.

    Attributes
    ----------
    kind : str
        ``geometric`` (``radius``: n_nodes uniform in [0, 1]², linked within that
        distance), ``erdos_renyi`` (``edge_probability``), ``watts_strogatz`` and
        ``newman_watts_strogatz`` (``neighbors``, even, and ``rewire_probability``),
        ``barabasi_albert`` (``attachments`` edges per new node), ``grid``
        (``grid_rows`` × n_nodes/grid_rows), ``ring``, ``complete``, or ``edgelist``
        (``edgelist``: a file of ``u v`` lines, ``#`` comments).
    n_nodes : int or None
        Number of nodes (None for an edge list: the file says).
    radius, edge_probability, neighbors, rewire_probability, attachments, grid_rows
        Parameters of the generators above; those ``kind`` does not use are ignored and
        become None (:meth:`normalized`).
    edgelist : str or None
        Path of the edge-list file for ``kind="edgelist"``.
    seed : int
        Seed of the random generators (not of the simulation's draws).
    weights : str
        ``metropolis`` (a_ij = 1/max(deg i, deg j), Sec. 2.2), ``lazy_metropolis``
        ((I + A_MH)/2, aperiodic on every connected graph) or ``max_degree``
        (a_ij = 1/(max degree + 1); 1/n on the complete graph).
    """

    kind: str = option("geometric", group="graph")
    n_nodes: int | None = 969
    radius: float | None = 0.1
    edge_probability: float | None = 0.01
    neighbors: int | None = 4
    rewire_probability: float | None = 0.1
    attachments: int | None = 2
    grid_rows: int | None = 10
    edgelist: str | None = option(None, kind=FILE)
    seed: int = 0
    weights: str = "metropolis"

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | GraphConfig,
                     prefix: str = "graph.") -> GraphConfig:
        """Build, validate and normalize from a mapping of options (or a config).

        ``prefix`` is the group's key as errors name it (``graph.radius: must be ...``).
        """
        config = nested(cls, options, prefix)
        config.validate(prefix)
        return config.normalized()

    def validate(self, prefix: str = "graph.") -> None:
        """Raise :class:`ConfigError` on the first option outside its range."""
        def key(name: str) -> str:
            return prefix + name

        choice(key("kind"), self.kind, GRAPHS)
        if self.kind == "edgelist":
            if not isinstance(self.edgelist, str) or not self.edgelist:
                fail(key("edgelist"), f"the path of an edge-list file for {key('kind')}="
                     "edgelist", self.edgelist)
        else:
            integer(key("n_nodes"), self.n_nodes, 2)
        used = GENERATORS.get(self.kind, ())
        if "radius" in used:
            in_range(key("radius"), self.radius, 0.0, math.sqrt(2.0), "in (0, √2]")
        if "edge_probability" in used:
            in_range(key("edge_probability"), self.edge_probability, 0.0, 1.0, "in (0, 1]")
        if "rewire_probability" in used:
            if not real(self.rewire_probability) or not 0 <= self.rewire_probability <= 1:
                fail(key("rewire_probability"), "in [0, 1]", self.rewire_probability)
        if "neighbors" in used:
            integer(key("neighbors"), self.neighbors, 2)
            if self.neighbors % 2 or self.neighbors >= self.n_nodes:
                fail(key("neighbors"), f"an even integer < n_nodes = {self.n_nodes}",
                     self.neighbors)
        if "attachments" in used:
            integer(key("attachments"), self.attachments, 1)
            if self.attachments >= self.n_nodes:
                fail(key("attachments"), f"an integer in [1, n_nodes = {self.n_nodes})",
                     self.attachments)
        if "grid_rows" in used:
            integer(key("grid_rows"), self.grid_rows, 1)
            if self.n_nodes % self.grid_rows:
                fail(key("grid_rows"), f"a divisor of n_nodes = {self.n_nodes}",
                     self.grid_rows)
        if self.kind == "ring" and self.n_nodes < 3:
            fail(key("n_nodes"), f"an integer >= 3 for {key('kind')}=ring", self.n_nodes)
        integer(key("seed"), self.seed, 0)
        choice(key("weights"), self.weights, WEIGHTS)

    def normalized(self) -> GraphConfig:
        """This configuration with the options ``kind`` does not use set to None, so that
        they neither split cells nor show in the results."""
        used = set(GENERATORS.get(self.kind, ()))
        unused: dict[str, Any] = {name: None for name in GRAPH_PARAMETERS if name not in used}
        if self.kind == "edgelist":
            unused["n_nodes"] = None
        else:
            unused["edgelist"] = None
        return dataclasses.replace(self, **unused)

    def spec(self) -> GraphSpec:
        """What defines the graph (the file's content, for an edge list)."""
        parameters = tuple((name, getattr(self, name)) for name in GENERATORS.get(self.kind, ()))
        digest = (file_digest(self.edgelist, "graph.edgelist") if self.kind == "edgelist"
                  else None)
        return GraphSpec(self.kind, self.n_nodes, parameters, self.seed, self.weights,
                         self.edgelist, digest)


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
        import scipy.sparse as sp

        return sp.csr_array((self.data, self.indices, self.indptr), shape=(self.n, self.n))


def generate(spec: GraphSpec) -> nx.Graph:
    """The networkx graph of ``spec`` (nodes in the generator's order)."""
    import networkx as nx

    n, p, seed = spec.n_nodes, dict(spec.parameters), spec.seed
    if spec.graph == "edgelist":
        try:
            graph = nx.read_edgelist(spec.edgelist, comments="#", data=False)
        except (OSError, TypeError, ValueError, IndexError) as error:
            raise ConfigError(f"graph.edgelist: cannot read {spec.edgelist!r} as an edge "
                              f"list ({error})") from None
        graph.remove_edges_from(nx.selfloop_edges(graph))
        if graph.number_of_nodes() < 2:
            raise ConfigError(f"graph.edgelist: must list edges between at least 2 nodes; "
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


def edges(spec: GraphSpec) -> np.ndarray:
    """The edges of ``spec``'s graph as an (m, 2) int64 array of node positions 0..n−1
    (positions in networkx order, the rows and columns of :func:`weight_matrix`)."""
    graph = generate(spec)
    position = {node: i for i, node in enumerate(graph.nodes)}
    return np.array([(position[u], position[v]) for u, v in graph.edges],
                    dtype=np.int64).reshape(-1, 2)


def weight_matrix(graph: nx.Graph, weights: str) -> sp.csr_array:
    """Symmetric doubly stochastic weights on ``graph`` (nodes in networkx order).

    ``metropolis``: a_ij = 1/max(deg i, deg j) (Sec. 2.2, the paper's choice);
    ``lazy_metropolis``: (I + A_MH)/2, aperiodic on every connected graph;
    ``max_degree``: a_ij = 1/(max degree + 1), e.g. 1/n on the complete graph of the
    paper's tightness example.
    """
    import networkx as nx
    import scipy.sparse as sp

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
    """The network of ``spec``; :class:`ConfigError` if the graph is disconnected or its
    weights do not mix.

    The spectrum is computed densely (about 5 s for 5,000 nodes), once per graph and
    process: every cell of a sweep on the same graph shares it.
    """
    import networkx as nx
    import scipy.linalg
    import scipy.sparse as sp

    graph = generate(spec)
    if not nx.is_connected(graph):
        parts = nx.number_connected_components(graph)
        raise ConfigError(f"graph: must be connected; the {spec.graph} graph has {parts} "
                          "connected components (raise its density or change graph.seed)")
    matrix = weight_matrix(graph, spec.weights)
    off = matrix - sp.diags_array(matrix.diagonal())
    eigenvalues = scipy.linalg.eigvalsh(matrix.toarray())[::-1]
    network = Network(matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64),
                      matrix.data, matrix.diagonal().copy(),
                      np.asarray(off.max(axis=1).toarray()).ravel(), eigenvalues,
                      graph.number_of_edges())
    if network.beta_star >= 1.0 - 1e-12:
        raise ConfigError(f"graph.weights: must mix (β* < 1); {spec.weights} weights on "
                          f"this {spec.graph} graph are periodic (β* = 1), use "
                          "graph.weights=lazy_metropolis")
    return network


@functools.lru_cache(maxsize=2)
def eigendecomposition(spec: GraphSpec) -> tuple[np.ndarray, np.ndarray]:
    """(Λ, Q) with A = QΛQᵀ, eigenvalues in decreasing order."""
    import scipy.linalg

    values, vectors = scipy.linalg.eigh(build(spec).matrix().toarray())
    return values[::-1], vectors[:, ::-1]


__all__ = ["GENERATORS", "GRAPHS", "GRAPH_PARAMETERS", "WEIGHTS", "GraphConfig", "GraphSpec",
           "Network", "build", "edges", "eigendecomposition", "generate",
           "weight_matrix"]
