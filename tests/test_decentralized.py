"""The decentralized family (C-ColME, B-ColME on a sparse graph): the engine's contract,
exact agreement with an independent implementation of the reference's rules
(:mod:`tests.decentralized_reference`), closed forms, the graphs, and bad input."""

from __future__ import annotations

import math
from pathlib import Path

import numba
import numpy as np
import pytest

from sweep.decentralized import graph as graphs
from sweep.decentralized import simulate as simulate_module
from sweep.decentralized.config import DecentralizedConfig, GraphOptions
from sweep.decentralized.simulate import PARALLEL_ABOVE, replicate_rows, trajectories
from sweep.errors import ConfigError
from sweep.execute import simulate
from sweep.testing import check_family
from sweep.threads import cores, kernel_threads, limit_threads

from . import decentralized_reference as reference
from .pins import assert_pinned
from .sweep_reference import run_cli

SMALL = {"graph": {"n_nodes": 40, "degree": 4}, "t_max": 60, "checkpoints": 5}
BOUNDED = {"samples": "bernoulli", "class_means": [0.2, 0.8]}


@pytest.mark.parametrize("options", [
    {},
    {"method": "b_colme", "depth": 3},
    {"method": "local", "baselines": ["ideal"]},
    {"alpha_reset": "local", "precision": "float64", "decision": {"irrevocable": False}},
    {**BOUNDED, "privacy": {"mechanism": "pm1"}},
    {"method": "b_colme", "samples": "uniform", "sigma": 0.5,
     "epsilon": 2.0, "privacy": {"mechanism": "pm2", "noise": "laplace"}},
    {"graph": {"kind": "erdos_renyi", "n_nodes": 40, "edge_probability": 0.2, "seed": 3}},
    {"graph": {"kind": "tree", "n_nodes": 40, "branching": 3}, "method": "b_colme"},
], ids=["c_colme", "b_colme", "local", "local-reset-revocable", "pm1", "pm2-laplace",
        "fixed-gnp", "tree"])
def test_the_family_conforms(options: dict) -> None:
    check_family("decentralized", {**SMALL, **options},
                 bad={"class_proportions": [0.5, 0.6], "accuracy": 0.0, "t_max": 0})


# --------------------------------------------------- exact agreement with the reference


def reference_case(n: int, degree: int, t_max: int, seed: int):
    """A configuration-model graph in the reference's insertion order (with a
    self-entry: the seed is chosen so), classes and float32 samples N(μ, 2²)."""
    rng = np.random.default_rng(seed)
    nbrs = reference.regular_lists(n, degree, rng)
    classes = rng.integers(0, 2, n)
    means = np.array([0.0, 1.0], dtype=np.float32)[classes]
    samples = rng.standard_normal((t_max, n), dtype=np.float32) * np.float32(2.0) + means
    return nbrs, classes, samples


def config_for(method: str, n: int, t_max: int, **options) -> DecentralizedConfig:
    return DecentralizedConfig.from_options(method=method, t_max=t_max,
                                            graph={"n_nodes": n, "degree": 4}, **options)


def test_the_case_has_the_reference_quirks() -> None:
    nbrs, _, _ = reference_case(60, 4, 1, seed=3)
    degrees = [len(row) for row in nbrs]
    assert any(a in row for a, row in enumerate(nbrs))  # a self-entry
    assert min(degrees) < 4  # dropped pairs


#: Whether the kernels' float32 log is glibc's logf, which the reference calls: then the
#: two compute the same bits on any machine. Where Intel's SVML is installed, numba calls
#: its logf instead, and the floats are held to the rule of tests/pins.py off its arithmetic.
SAME_LOGF = not numba.config.USING_SVML


def test_c_colme_reproduces_the_reference_bit_for_bit() -> None:
    """Same graph (rows in the reference's order) and samples: every agent's local mean,
    consensus value and oracle at every step, and the wrong and lost links, are the
    reference's float32 values exactly (the global α reset, irrevocable tests)."""
    nbrs, classes, samples = reference_case(60, 4, 300, seed=3)
    ours = trajectories(config_for("c_colme", 60, 300), nbrs, classes, samples)
    history, wrong, lost = reference.c_colme(nbrs, classes, None, samples)
    for name, key in (("local", "x"), ("estimate", "y"), ("oracle", "oracle")):
        assert_pinned(getattr(ours, name), np.array(history[key], np.float32), SAME_LOGF, name)
    np.testing.assert_array_equal(ours.wrong, wrong)
    np.testing.assert_array_equal(ours.lost, lost)
    assert wrong[0] > wrong[-1] > 0 or wrong[-1] == 0  # the tests did exclude links


def test_b_colme_agrees_with_the_reference_to_float32_precision() -> None:
    """B-ColME (D = 4): local means and decisions exact; the estimates within float32
    rounding (the kernel sums a row total less one row where the reference sums the
    other rows)."""
    nbrs, classes, samples = reference_case(60, 4, 300, seed=3)
    ours = trajectories(config_for("b_colme", 60, 300), nbrs, classes, samples)
    history, wrong, lost = reference.b_colme(nbrs, classes, None, samples, depth=4)
    assert_pinned(ours.local, np.array(history["x"], np.float32), SAME_LOGF, "local")
    for name, values in (("estimate", history["y"]), ("oracle", history["oracle"])):
        np.testing.assert_allclose(getattr(ours, name), np.array(values, np.float32),
                                   rtol=2e-6, atol=2e-6)
    np.testing.assert_array_equal(ours.wrong, wrong)
    np.testing.assert_array_equal(ours.lost, lost)


def test_float64_keeps_the_reference_decisions() -> None:
    nbrs, classes, samples = reference_case(60, 4, 300, seed=3)
    f32 = trajectories(config_for("c_colme", 60, 300), nbrs, classes, samples)
    f64 = trajectories(config_for("c_colme", 60, 300, precision="float64"), nbrs, classes,
                       samples)
    np.testing.assert_array_equal(f32.wrong, f64.wrong)
    np.testing.assert_allclose(f32.estimate, f64.estimate, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("private", [False, True], ids=["local-reset", "pm2"])
def test_c_colme_gives_the_same_bits_on_any_number_of_threads(private: bool) -> None:
    """Above PARALLEL_ABOVE agents a step's agents run in chunks on the threads the task
    may use (sweep.threads): every agent's local mean, release, estimate and oracle at
    every step, and the wrong and lost links, are those of one thread, bit for bit (the
    local α reset with links excluded; PM-II's releases)."""
    if cores() < 2:
        pytest.skip("one core: no second thread to compare")
    n, t_max = 3 * PARALLEL_ABOVE + 17, 40
    rng = np.random.default_rng(4)
    classes = rng.integers(0, 2, n)
    if private:
        config = config_for("c_colme", n, t_max, **BOUNDED,
                            privacy={"mechanism": "pm2", "allow_large_delta": True})
        samples = rng.random((t_max, n)) < np.array([0.2, 0.8])[classes]
        fresh = rng.standard_normal((t_max, n)) * 0.05
    else:
        # Classes far apart, so that the tests exclude links within the steps.
        config = config_for("c_colme", n, t_max, alpha_reset="local", class_means=[0, 10])
        samples, fresh = rng.standard_normal((t_max, n)) * 2 + 10 * classes, None
    graph = graphs.build(config.graph, rng)
    runs = []
    for granted in (1, 2):
        with limit_threads("one", granted):
            assert kernel_threads() == granted
            runs.append(trajectories(config, graph, classes, samples, fresh))
    one, two = runs
    assert private or one.wrong[0] > one.wrong[-1]  # the chunks' tallies were used
    for name in ("local", "release", "estimate", "oracle", "wrong", "lost", "kept"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name), name)


def test_a_replicates_rows_are_the_same_with_its_draws_ahead_on_a_thread() -> None:
    """On more than one thread a replicate draws each block of samples and noises on a
    thread while the kernels advance the block before: its rows are those of one
    thread, which draws each block when it needs it."""
    if cores() < 2:
        pytest.skip("one core: no second thread to compare")
    config = config_for("c_colme", 3 * PARALLEL_ABOVE + 17, 40, **BOUNDED, checkpoints=8,
                        privacy={"mechanism": "pm1", "allow_large_delta": True})
    rows = []
    for granted in (1, 2):
        with limit_threads("one", granted):
            rows.append(replicate_rows(config, np.random.SeedSequence(8), None))
    np.testing.assert_array_equal(*rows)


@pytest.mark.parametrize("options", [{}, {"alpha_reset": "local", "precision": "float64"}],
                         ids=["global-reset", "local-reset-float64"])
def test_dropping_the_dead_entries_changes_no_value(monkeypatch, options: dict) -> None:
    """Under irrevocable tests C-ColME drops the entries excluded to another class
    (``Run._drop_dead_entries``, each step here): every agent's values at every step,
    the wrong and lost links and every entry's kept flag are those of the run that
    visits every entry, bit for bit (with links to the same class lost, which the
    oracle still reads)."""
    nbrs, classes, samples = reference_case(400, 6, 400, seed=5)
    # A radius for σ = 0.5 on samples of σ = 2: links to the same class are lost too.
    config = config_for("c_colme", 400, 400, sigma=0.5, **options)
    samples = samples.astype(config.dtype)
    live = []
    drop = simulate_module.Run._drop_dead_entries

    def counted(run) -> None:
        drop(run)
        live.append(len(run.live.indices))

    monkeypatch.setattr(simulate_module.Run, "_drop_dead_entries", counted)
    runs = []
    for fraction in (0.0, math.inf):
        monkeypatch.setattr(simulate_module, "DEAD_FRACTION", fraction)
        runs.append(trajectories(config, nbrs, classes, samples))
    dropped, every = runs
    entries = sum(len(row) for row in nbrs)
    steps = config.t_max - 1  # a call after each step but the first
    assert min(live[:steps]) < 0.9 * entries and set(live[steps:]) == {entries}
    assert dropped.lost.max() > 0 and dropped.kept.sum() < entries
    for name in ("local", "release", "estimate", "oracle", "wrong", "lost", "kept"):
        np.testing.assert_array_equal(getattr(dropped, name), getattr(every, name), name)


# ------------------------------------------------------------------------ closed forms


@pytest.mark.parametrize(("samples", "variance"), [
    ("gaussian", 4.0), ("bernoulli", None), ("uniform", 0.25)])
def test_local_mse_is_sigma2_over_t(samples: str, variance: float | None) -> None:
    """E(x̄_t − μ)² = σ²/t (Bernoulli: p(1 − p)/t averaged over the classes); the
    simulated mean over N agents and R replicates has SE σ²/t √(2/(NR)) (Gaussian: the
    squared error is σ²/t χ²₁); 4 SE."""
    means = [0.2, 0.8] if samples == "bernoulli" else [0.0, 1.0]
    options = {"samples": samples, "class_means": means, "t_max": 100,
               "checkpoints": [1, 10, 100], "method": "local", "baselines": [],
               "graph": {"n_nodes": 500, "degree": 4}}
    if samples == "uniform":
        options["sigma"] = 0.5
    frame = simulate("decentralized", 8, 3, **options)
    if variance is None:
        variance = float(np.mean([m * (1 - m) for m in means]))
    for t, group in frame.groupby("t"):
        expected = variance / t
        se = expected * math.sqrt(2.0 / (500 * 8))
        assert abs(group["mse"].mean() - expected) < 4 * se, (t, group["mse"].mean())


def complete_one_class(method: str, n: int, t_max: int, **options):
    rng = np.random.default_rng(7)
    samples = rng.standard_normal((t_max, n)).astype(np.float64) * 2.0 + 0.5
    config = DecentralizedConfig.from_options(
        method=method, t_max=t_max, graph={"kind": "complete", "n_nodes": n},
        class_means=[0.5], class_proportions=[1.0], precision="float64", **options)
    return samples, trajectories(config, graphs.complete(n), np.zeros(n, dtype=int), samples)


def test_b_colme_oracle_on_a_complete_class_is_its_pooled_sample_mean() -> None:
    """D = 1 on a complete same-class graph: agent a's oracle at step t is the mean of
    all the class's samples it has seen, its own t and every other agent's t − 1."""
    n, t_max = 12, 40
    samples, ours = complete_one_class("b_colme", n, t_max, depth=1)
    sums = np.cumsum(samples, axis=0)
    for t in range(2, t_max + 1):
        others = sums[t - 2].sum() - sums[t - 2]
        pooled = (sums[t - 1] + others) / (t + (n - 1) * (t - 1))
        np.testing.assert_allclose(ours.oracle[t - 1], pooled, rtol=1e-12)


def test_c_colme_oracle_on_a_complete_class_averages_the_class_means_over_time() -> None:
    """On a complete same-class graph the oracle's weights are all 1/N, so with
    α = (t − 1)/t its value is y_a(t) = [x_a(t) + Σ_{s<t} m(s)]/t, m(s) the class's
    sample mean at s: a time average of the class means, not the class mean itself
    (whose variance it doubles: Var ≈ 2σ²/(Nt))."""
    n, t_max = 12, 40
    samples, ours = complete_one_class("c_colme", n, t_max)
    local = np.cumsum(samples, axis=0) / np.arange(1, t_max + 1)[:, None]
    class_means = local.mean(axis=1)
    for t in range(1, t_max + 1):
        expected = (local[t - 1] + class_means[:t - 1].sum()) / t
        np.testing.assert_allclose(ours.oracle[t - 1], expected, rtol=1e-12)


def test_the_ideal_is_the_component_mean() -> None:
    """With one class on a connected graph, the ideal is the pooled sample mean of all
    agents: MSE σ²/(Nt), within 4 SE over replicates."""
    frame = simulate("decentralized", 10, 1, method="local", baselines=["ideal"], t_max=20,
                     checkpoints=[5, 20], class_means=[0.0], class_proportions=[1.0],
                     graph={"n_nodes": 100, "degree": 4, "seed": 1})
    ideal = frame[frame["method"] == "ideal"]
    for t, group in ideal.groupby("t"):
        expected = 4.0 / (100 * t)
        assert abs(group["mse"].mean() - expected) < 4 * expected * math.sqrt(2 / 10)


def test_the_default_experiment_learns_the_graph() -> None:
    """A smaller default experiment (N = 1,000): every wrong link goes, none is lost,
    and the estimate beats the local mean at the end (the reference's behaviour)."""
    config = DecentralizedConfig.from_options(graph={"n_nodes": 1000}, checkpoints=[500, 2000])
    rows = replicate_rows(config, np.random.SeedSequence(11), None)
    estimate, local = rows[0, -1], rows[1, -1]
    assert estimate[2] == 0 and estimate[3] == 0
    assert estimate[1] > local[1] and estimate[0] < local[0]


# ---------------------------------------------------------------------------- graphs


def test_regular_graph_has_the_reference_degrees() -> None:
    g = graphs.regular(2000, 10, np.random.default_rng(0))
    degrees = g.degrees()
    assert degrees.max() == 10 and 0.99 < degrees.mean() / 10 <= 1.0
    assert g.n_entries == degrees.sum()
    np.testing.assert_array_equal(g.reverse[g.reverse], np.arange(g.n_entries))
    np.testing.assert_array_equal(g.sources()[g.reverse], g.indices)
    erased = graphs.regular(2000, 10, np.random.default_rng(0), self_entries=False)
    assert not np.any(erased.sources() == erased.indices)


def test_erdos_renyi_has_its_edge_count() -> None:
    n, p = 3000, 0.002
    g = graphs.erdos_renyi(n, p, np.random.default_rng(1))
    edges = g.n_entries / 2
    expected = p * n * (n - 1) / 2
    assert abs(edges - expected) < 4 * math.sqrt(expected)
    assert not np.any(g.sources() == g.indices)
    np.testing.assert_array_equal(g.sources()[g.reverse], g.indices)


def test_the_tree_is_the_references() -> None:
    g = graphs.tree(13, 3)  # root, 3 children, 9 grandchildren
    assert list(g.indices[g.indptr[0]:g.indptr[1]]) == [1, 2, 3]
    assert list(g.indices[g.indptr[1]:g.indptr[2]]) == [0, 4, 5, 6]
    assert g.degrees()[12] == 1


# -------------------------------------------------------------------------- bad input


def test_a_disconnected_edge_list_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "two.txt"
    path.write_text("0 1\n1 2\n3 4\n")
    with pytest.raises(ConfigError, match=r"^graph: must be connected for method=c_colme"):
        simulate("decentralized", 1, 0, graph={"kind": "edgelist", "edgelist": str(path)},
                 t_max=5)
    frame = simulate("decentralized", 1, 0, method="local", baselines=[], t_max=5,
                     graph={"kind": "edgelist", "edgelist": str(path)})
    assert len(frame) > 0


@pytest.mark.parametrize(("options", "key"), [
    ({"graph": {"n_nodes": 10, "degree": 10}}, "graph.degree"),
    ({"graph": {"n_nodes": 11, "degree": 3}}, "graph.degree"),  # odd n × degree
    ({"class_proportions": [0.5, 0.6]}, "class_proportions"),
    ({"class_proportions": [1.0]}, "class_proportions"),
    ({"method": "b_colme", "depth": 0}, "depth"),
    ({"accuracy": 0.0}, "accuracy"),
    ({**BOUNDED, "epsilon": 0.0, "privacy": {"mechanism": "pm1"}}, "epsilon"),
    ({**BOUNDED, "epsilon": -1.0, "privacy": {"mechanism": "pm1"}}, "epsilon"),
    ({**BOUNDED, "epsilon": 2.0, "privacy": {"mechanism": "pm1"}}, "epsilon"),  # Lemma 1
    ({"epsilon": -1.0}, "epsilon"),  # checked without a mechanism too
    ({"delta": 1.0}, "delta"),
    # The privacy budget is top-level, as in every family; decision.delta was the test's.
    ({"privacy": {"epsilon": 1.0}}, "privacy.epsilon"),
    ({"privacy": {"delta": 1e-6}}, "privacy.delta"),
    ({"privacy": {"mechanism": "pm1"}}, "samples"),  # Gaussian samples are unbounded
    ({"samples": "bernoulli", "class_means": [0.2, 1.5]}, "class_means"),
    ({"method": "local"}, "baselines"),
    ({"graph": {"kind": "star"}}, "graph.kind"),
    ({"graph": {"radius": 0.1}}, "graph.radius"),
    # Another kind's parameter, or a seed for a graph that is not random: refused.
    ({"graph": {"kind": "tree", "degree": 4}}, "graph.degree"),
    ({"graph": {"kind": "complete", "n_nodes": 30, "configuration": "erased"}},
     "graph.configuration"),
    ({"graph": {"edge_probability": 0.1}}, "graph.edge_probability"),  # regular
    ({"graph": {"kind": "erdos_renyi", "branching": 3}}, "graph.branching"),
    ({"graph": {"kind": "tree", "seed": 3}}, "graph.seed"),
    ({"graph": {"kind": "tree", "branching": 0}}, "graph.branching"),
    ({"graph": {"kind": "erdos_renyi", "edge_probability": 0.0}}, "graph.edge_probability"),
    ({"graph": {"kind": "edgelist"}}, "graph.edgelist"),
    ({"graph": {"configuration": "exact"}}, "graph.configuration"),
    ({"decision": {"failure_probability": 1.0}}, "decision.failure_probability"),
    ({"decision": {"delta": 0.1}}, "decision.delta"),
])
def test_bad_input_is_refused_naming_the_key(options: dict, key: str) -> None:
    with pytest.raises(ConfigError) as error:
        DecentralizedConfig.from_options(**options)
    message = str(error.value)
    assert message.startswith(f"{key}:") and "\n" not in message, message


def test_graph_kinds_take_their_own_parameters() -> None:
    """The group ``graph`` on the shared graph component's variants: a kind's parameters
    take the kind's defaults (G(n, p) at this family's p = 0.001), the other kinds' stay
    None, and one set for a kind that does not take it is refused."""
    with pytest.raises(ConfigError, match=r"^graph\.degree: must be unset for graph\.kind="
                                          r"tree \(only regular takes it\); got 4$"):
        DecentralizedConfig.from_options(graph={"kind": "tree", "degree": 4})
    with pytest.raises(ConfigError, match=r"^graph\.seed: must be unset for graph\.kind="
                                          r"complete \(only regular, erdos_renyi take it\)"):
        DecentralizedConfig.from_options(graph={"kind": "complete", "seed": 1})
    assert DecentralizedConfig.from_options().graph == GraphOptions(
        kind="regular", n_nodes=10_000, degree=10, configuration="reference")
    assert DecentralizedConfig.from_options(graph={"kind": "erdos_renyi"}).graph == (
        GraphOptions(kind="erdos_renyi", n_nodes=10_000, edge_probability=0.001))
    tree = DecentralizedConfig.from_options(graph={"kind": "tree", "n_nodes": 40}).graph
    assert tree == GraphOptions(kind="tree", n_nodes=40, branching=10) and tree.fixed
    assert not DecentralizedConfig.from_options().graph.fixed


@pytest.mark.parametrize(("arguments", "key"), [
    (["graph.degree=10000"], "graph.degree"),
    (["graph=tree", "graph.degree=4"], "graph.degree"),
    (["method=b_colme", "depth=0"], "depth"),
])
def test_the_command_line_refuses_bad_input(tmp_path: Path, arguments: list[str],
                                            key: str) -> None:
    done = run_cli(["family=decentralized", *arguments], tmp_path)
    assert done.returncode != 0
    assert f"error: {key}:" in done.stderr, done.stderr
