"""Communication graphs and their doubly stochastic consensus weights.

Graphs come from networkx generators or from a user's edge-list file. The weight matrix
A is symmetric and doubly stochastic; the network paper's choice (dp-distributed-
estimation, Sec. 2.2) is the Metropolis–Hastings weights a_ij = 1/max(deg i, deg j) on
edges, a_ii = 1 − Σ_j a_ij. Everything a simulation needs is kept as arrays (a CSR
matrix and its spectrum), built once per graph and process.

:class:`GraphConfig` is the nested option group ``graph`` of a family's options
(``graph.kind``, ``graph.n_nodes``, ...); its checks name the dotted key. Its ``kind``
chooses a variant of the catalogue of kinds (:class:`GraphKind`: :data:`GRAPHS`), which
the decentralized family's group draws from too (:class:`GraphGroup`). networkx and
scipy are imported by the functions that build graphs: validating the options needs
neither.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np

from ..errors import ConfigError
from ..options import (
    FILE,
    as_dict,
    choice,
    fail,
    file_digest,
    in_range,
    integer,
    nested,
    option,
    real,
    variant,
    with_variant,
)

if TYPE_CHECKING:
    import networkx as nx
    import scipy.sparse as sp

WEIGHTS = ("metropolis", "lazy_metropolis", "max_degree")


# -- The kinds of graph (the ``graph`` group's variants) -------------------------------------

@dataclass(frozen=True)
class GraphKind:
    """A kind of graph (``graph.kind``): a variant of the ``graph`` group, holding the
    parameters that kind takes (besides ``n_nodes``) with their defaults. The families
    draw theirs from this catalogue; a kind of one family only is defined by it."""

    def validate(self, prefix: str, n_nodes: int | None) -> None:
        """Raise :class:`ConfigError` on the first parameter outside its range
        (``n_nodes`` already checked, None for an edge list)."""


@dataclass(frozen=True)
class Complete(GraphKind):
    """``complete``: every pair of nodes linked."""


@dataclass(frozen=True)
class Ring(GraphKind):
    """``ring``: the cycle of n_nodes >= 3."""

    def validate(self, prefix: str, n_nodes: int | None) -> None:
        if n_nodes < 3:
            fail(prefix + "n_nodes", f"an integer >= 3 for {prefix}kind=ring", n_nodes)


@dataclass(frozen=True)
class Geometric(GraphKind):
    """``geometric``: n_nodes uniform in [0, 1]², linked within distance ``radius``."""

    radius: float = 0.1

    def validate(self, prefix: str, n_nodes: int | None) -> None:
        in_range(prefix + "radius", self.radius, 0.0, math.sqrt(2.0), "in (0, √2]")


@dataclass(frozen=True)
class ErdosRenyi(GraphKind):
    """``erdos_renyi``: G(n, p), each pair linked with probability ``edge_probability``."""

    edge_probability: float = 0.01

    def validate(self, prefix: str, n_nodes: int | None) -> None:
        in_range(prefix + "edge_probability", self.edge_probability, 0.0, 1.0, "in (0, 1]")


@dataclass(frozen=True)
class WattsStrogatz(GraphKind):
    """``watts_strogatz`` (and :class:`NewmanWattsStrogatz`): a ring lattice of ``neighbors``
    (even) nearest neighbours, each edge rewired (or, Newman–Watts, a shortcut added) with
    probability ``rewire_probability``."""

    neighbors: int = 4
    rewire_probability: float = 0.1

    def validate(self, prefix: str, n_nodes: int | None) -> None:
        if not real(self.rewire_probability) or not 0 <= self.rewire_probability <= 1:
            fail(prefix + "rewire_probability", "in [0, 1]", self.rewire_probability)
        integer(prefix + "neighbors", self.neighbors, 2)
        if self.neighbors % 2 or self.neighbors >= n_nodes:
            fail(prefix + "neighbors", f"an even integer < n_nodes = {n_nodes}",
                 self.neighbors)


@dataclass(frozen=True)
class NewmanWattsStrogatz(WattsStrogatz):
    """``newman_watts_strogatz``: by default the US power grid's size (the network
    paper's Sec. 5): with 4,941 nodes, neighbours 2 and 0.3345 it has 6,594 edges on
    average."""

    neighbors: int = 2
    rewire_probability: float = 0.3345


@dataclass(frozen=True)
class BarabasiAlbert(GraphKind):
    """``barabasi_albert``: preferential attachment, ``attachments`` edges per new node."""

    attachments: int = 2

    def validate(self, prefix: str, n_nodes: int | None) -> None:
        integer(prefix + "attachments", self.attachments, 1)
        if self.attachments >= n_nodes:
            fail(prefix + "attachments", f"an integer in [1, n_nodes = {n_nodes})",
                 self.attachments)


@dataclass(frozen=True)
class Grid(GraphKind):
    """``grid``: the 2-D grid of ``grid_rows`` × n_nodes/grid_rows nodes."""

    grid_rows: int = 10

    def validate(self, prefix: str, n_nodes: int | None) -> None:
        integer(prefix + "grid_rows", self.grid_rows, 1)
        if n_nodes % self.grid_rows:
            fail(prefix + "grid_rows", f"a divisor of n_nodes = {n_nodes}", self.grid_rows)


@dataclass(frozen=True)
class EdgeList(GraphKind):
    """``edgelist``: the graph of a file of ``u v`` lines (``#`` comments), path
    ``edgelist``; the file gives the nodes (``n_nodes`` is None)."""

    edgelist: str | None = None

    def validate(self, prefix: str, n_nodes: int | None) -> None:
        if not isinstance(self.edgelist, str) or not self.edgelist:
            fail(prefix + "edgelist", f"the path of an edge-list file for {prefix}kind="
                 "edgelist", self.edgelist)


#: The network family's graphs (``graph.kind``) and their variants.
GRAPHS: dict[str, type[GraphKind]] = {
    "geometric": Geometric, "erdos_renyi": ErdosRenyi, "watts_strogatz": WattsStrogatz,
    "newman_watts_strogatz": NewmanWattsStrogatz, "barabasi_albert": BarabasiAlbert,
    "grid": Grid, "ring": Ring, "complete": Complete, "edgelist": EdgeList}


class GraphGroup:
    """What the families' ``graph`` groups share (:class:`GraphConfig`, the decentralized
    family's ``GraphOptions``): ``kind`` names a variant of the family's catalogue
    ``VARIANTS`` (:class:`GraphKind`); the group holds every variant's parameters, each
    None unless set, so that one set for a kind that does not take it is refused
    (:func:`~sweep.options.variant`), and the options ``COMMON`` that every kind takes,
    with the family's defaults. One of them is ``n_nodes``, which an edge list's file
    gives instead: it becomes None there (the family's default is no setting of the
    user's, so it is not refused)."""

    VARIANTS: ClassVar[Mapping[str, type[GraphKind]]]
    COMMON: ClassVar[tuple[str, ...]]
    kind: str
    n_nodes: int | None

    def variant(self, prefix: str = "graph.") -> GraphKind:
        """The variant of ``kind`` with the parameters set here (refusing the others)."""
        return variant(self, self.VARIANTS, prefix, self.COMMON)

    def validate_kind(self, prefix: str = "graph.") -> None:
        """Check ``kind``, ``n_nodes`` and the kind's parameters: :class:`ConfigError`
        naming the first bad key (``prefix``: the group's, ``graph.``)."""
        chosen = self.variant(prefix)
        if self.kind != "edgelist":
            integer(prefix + "n_nodes", self.n_nodes, 2)
        chosen.validate(prefix, self.n_nodes)

    def normalized(self) -> Self:
        """The kind's parameters with their defaults, None for the others (and for
        ``n_nodes`` of an edge list), so that they neither split cells nor show in the
        results."""
        group = with_variant(self, self.variant(), self.COMMON)
        return dataclasses.replace(group, n_nodes=None) if self.kind == "edgelist" else group


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
class GraphConfig(GraphGroup):
    """A communication graph and its weights: the nested option group ``graph``.

    Defaults: the network paper's German-households graph (Sec. 5), a random geometric
    graph of 969 nodes and radius 0.1, which with seed 0 has the paper's 13,236 edges.

    Attributes
    ----------
    kind : str
        One of :data:`GRAPHS`: ``geometric`` (``radius``: n_nodes uniform in [0, 1]²,
        linked within that distance), ``erdos_renyi`` (``edge_probability``),
        ``watts_strogatz`` and ``newman_watts_strogatz`` (``neighbors``, even, and
        ``rewire_probability``), ``barabasi_albert`` (``attachments`` edges per new
        node), ``grid`` (``grid_rows`` × n_nodes/grid_rows), ``ring``, ``complete``, or
        ``edgelist`` (``edgelist``: a file of ``u v`` lines, ``#`` comments).
    n_nodes : int or None
        Number of nodes (None for an edge list: the file says).
    radius, edge_probability, neighbors, rewire_probability, attachments, grid_rows
        Parameters of the generators above, each unset (None) unless given: the kind's
        variant (:class:`Geometric`, ...) holds their defaults, and one set for a kind
        that does not take it is refused.
    edgelist : str or None
        Path of the edge-list file for ``kind="edgelist"``.
    seed : int
        Seed of the random generators (not of the simulation's draws).
    weights : str
        ``metropolis`` (a_ij = 1/max(deg i, deg j), Sec. 2.2), ``lazy_metropolis``
        ((I + A_MH)/2, aperiodic on every connected graph) or ``max_degree``
        (a_ij = 1/(max degree + 1); 1/n on the complete graph).
    """

    VARIANTS: ClassVar[Mapping[str, type[GraphKind]]] = GRAPHS
    COMMON: ClassVar[tuple[str, ...]] = ("n_nodes", "seed", "weights")

    kind: str = option("geometric", group="graph")
    n_nodes: int | None = 969
    radius: float | None = None
    edge_probability: float | None = None
    neighbors: int | None = None
    rewire_probability: float | None = None
    attachments: int | None = None
    grid_rows: int | None = None
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
        self.validate_kind(prefix)
        integer(prefix + "seed", self.seed, 0)
        choice(prefix + "weights", self.weights, WEIGHTS)

    def spec(self) -> GraphSpec:
        """What defines the graph (the file's content, for an edge list)."""
        parameters = tuple((name, value) for name, value in as_dict(self.variant()).items()
                           if name != "edgelist")
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


__all__ = ["GRAPHS", "WEIGHTS", "BarabasiAlbert", "Complete", "EdgeList", "ErdosRenyi",
           "Geometric", "GraphConfig", "GraphGroup", "GraphKind", "GraphSpec", "Grid",
           "Network", "Ring", "WattsStrogatz", "build", "edges", "eigendecomposition",
           "generate", "weight_matrix"]
