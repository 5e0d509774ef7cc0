"""Acceptance 7: bad input raises one clear, one-line error naming the field."""

import dataclasses

import numpy as np
import pytest

from sweep.colme import ConfigError
from sweep.colme.config import ColmeConfig
from sweep.components.graphs import GraphConfig
from sweep.continual.config import ORDERS, OrderConfig
from sweep.decentralized.config import GraphOptions
from sweep.execute import simulate
from sweep.inference.config import DATASETS, MODELS, DatasetConfig, ModelConfig
from sweep.options import FILE, PERMIT, declarations, describe, option, readings
from sweep.plan import make_cell

from .sweep_reference import SMALL


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"delta": 1.5}, "delta"),
        ({"noise": "gaussian", "epsilon": 1.5}, "epsilon"),
        ({"n_agents": 1}, "n_agents"),
        ({"t_max": 0}, "t_max"),
        ({"n_classes": 2}, "class_means"),
        ({"class_means": [0.1, 0.2]}, "class_means"),
        ({"class_means": [0.2, 0.2, 0.8]}, "class_means"),
        ({"mechanism": "pm2", "epsilon": 20.0}, "epsilon"),
        ({"color": "red"}, "color"),
        ({"decision": {"theta": 0.1}}, "decision.theta"),
        ({"decision": {"theta0": 2.0}}, "decision.theta0"),
        ({"decision": {"refresh": "sometimes"}}, "decision.refresh"),
        ({"mechanism": "pm3"}, "mechanism"),
        ({"weights": "median"}, "weights"),
        ({"schedule": "random"}, "schedule"),
        ({"distribution": "normal"}, "distribution"),
        ({"sigma": 0.0}, "sigma"),
        ({"checkpoints": [3, 2]}, "checkpoints"),
        ({"checkpoints": [1, 99]}, "checkpoints"),
    ],
)
def test_bad_option_names_its_field(options, field):
    with pytest.raises(ConfigError) as info:
        simulate("colme", **{**SMALL, **options})
    message = str(info.value)
    assert message.startswith(f"{field}:")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"replicates": 0, "baselines": []}, "replicates"),
        ({"seed": -1}, "seed"),
        ({"baselines": ["median"]}, "baselines"),
        ({"baselines": ["oracle"], "class_assignment": "balanced"}, "baselines"),
    ],
)
def test_bad_call_arguments_name_their_field(kwargs, field):
    with pytest.raises(ConfigError, match=rf"^{field}:"):
        simulate("colme", **SMALL, **kwargs)


def test_laplace_and_no_mechanism_accept_large_epsilon():
    ColmeConfig.from_options(noise="laplace", epsilon=5.0)
    ColmeConfig.from_options(mechanism="none", epsilon=5.0)


def test_pm2_split_checks_the_epsilon_each_p_sum_uses():
    # t_max = 30 000 splits ε into ⌊log2 t_max⌋ + 1 = 15 parts: ε = 10 gives 2/3 per p-sum.
    ColmeConfig.from_options(mechanism="pm2", epsilon=10.0)
    with pytest.raises(ConfigError, match=r"^epsilon:"):
        ColmeConfig.from_options(mechanism="pm2", epsilon=10.0, pm2_split=False)


def test_release_budget_follows_section_vii():
    config = ColmeConfig.from_options(mechanism="pm2", t_max=30_000)
    assert config.release_budget() == (1.0 / 15, 1e-6 / 15)
    assert ColmeConfig.from_options(mechanism="pm1").release_budget() == (1.0, 1e-6)


@pytest.mark.parametrize(("t_max", "count"), [(30_000, 100), (1000, 100), (50, 100), (7, 3)])
def test_checkpoints_are_log_spaced_and_include_both_ends(t_max, count):
    times = ColmeConfig.from_options(t_max=t_max, checkpoints=count).checkpoint_times()
    assert times[0] == 1 and times[-1] == t_max
    assert times.size == min(count, t_max)
    assert (times[1:] > times[:-1]).all()
    if t_max >= 100 * count:  # sparse enough for rounding not to matter at the top
        step = t_max ** (1 / (times.size - 1))
        assert times[-1] / times[-2] == pytest.approx(step, rel=0.01)


def test_numpy_values_are_accepted_like_python_values():
    config = ColmeConfig.from_options(
        t_max=np.int64(1000), n_agents=np.int32(5), epsilon=np.float64(0.5),
        mechanism="pm2", checkpoints=np.array([1, 10, 1000]),
        class_means=np.array([0.1, 0.5, 0.9]),
    )
    assert config.release_budget() == (0.05, 1e-7)
    assert config.checkpoint_times().tolist() == [1, 10, 1000]


def test_a_single_checkpoint_is_t_max():
    assert ColmeConfig.from_options(t_max=77, checkpoints=1).checkpoint_times().tolist() == [77]
    assert ColmeConfig.from_options(t_max=1, checkpoints=5).checkpoint_times().tolist() == [1]


def test_options_added_later_enter_the_identity_only_when_set():
    """``since``: an option added to a version's results is left out of the identity at
    its default (cells that do not set it keep their ids, streams and stored results) and
    kept when set; the options of the first results always."""
    later = {name for name, d in declarations(ColmeConfig).items() if d.since == 1}
    assert later == {"welch_dof", "oracle_start", "oracle_eq21", "stream"}
    default = describe(ColmeConfig()).identity
    assert not later & set(default) and default["schedule"] == "rr"
    assert default["prior"] == "paper" and default["decision"] == {
        "theta0": 0.05, "refresh": "on_query"}
    assert describe(ColmeConfig(welch_dof="releases")).identity == {
        **default, "welch_dof": "releases"}


def test_every_option_is_a_column_except_the_rows_options():
    """The columns hold every option, a nested group's as ``group.key`` and a tuple as
    exact text, whatever its version; ``checkpoints`` (kind ``rows``) is the t column,
    and the acknowledgements (kind ``permit``) are in neither the columns nor the
    identity."""
    config = ColmeConfig(class_means=(0.1, 1 / 3), n_classes=2)
    columns = describe(config).columns
    permits = {name for name, d in declarations(ColmeConfig).items() if d.kind == PERMIT}
    assert permits == {"allow_large_delta", "allow_pm2_unsplit"}
    names = set(declarations(ColmeConfig)) - {"checkpoints"} - permits
    assert set(columns) == names
    acknowledged = ColmeConfig(class_means=(0.1, 1 / 3), n_classes=2,
                               allow_large_delta=True, allow_pm2_unsplit=True)
    assert describe(acknowledged).identity == describe(config).identity
    assert not permits & set(describe(config).identity)
    assert columns["class_means"] == "0.1,0.3333333333333333"
    assert [float(v) for v in columns["class_means"].split(",")] == [0.1, 1 / 3]
    assert columns["decision.refresh"] == "on_query" and columns["welch_dof"] == "paper"
    assert readings(ColmeConfig) == {
        "prior": "paper", "inferred_form": "eq16", "welch_dof": "paper",
        "oracle_start": "paper", "oracle_eq21": "exact", "decision.refresh": "on_query"}


def test_a_file_option_counts_by_its_content(tmp_path):
    """A ``file`` option: the identity holds the file's sha256 (moving the file keeps the
    cell, changing it makes a new one), the column its path; an unreadable file is
    refused naming the key."""
    @dataclasses.dataclass(frozen=True)
    class Holder:
        path: str | None = option(None, kind=FILE)

    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("1 2\n")
    second.write_text("1 2\n")
    one, two = describe(Holder(str(first))), describe(Holder(str(second)))
    assert one.identity == two.identity and one.columns == {"path": str(first)}
    second.write_text("1 3\n")
    assert describe(Holder(str(second))).identity != one.identity
    with pytest.raises(ConfigError, match=r"^path: cannot read "):
        assert describe(Holder(str(tmp_path / "absent.txt"))).identity


@pytest.mark.parametrize("reading, where", [
    ({"inferred_form": "drop_first"}, {"variance": "shared"}),
    ({"oracle_start": "simulator"}, {"schedule": "rr", "baselines": ["oracle"]}),
    ({"oracle_start": "simulator"}, {"schedule": "rrr", "baselines": ["local"]}),
    ({"oracle_eq21": "printed"}, {"mechanism": "pm1", "baselines": ["oracle"]}),
])
def test_readings_that_do_not_apply_leave_the_cell_unchanged(reading, where):
    """A reading set where it changes nothing (drop_first outside Sch-Var-2; the oracle's
    start outside rRR, eq. (21) outside PM-II, either without the oracle) is the cell
    without it: one identity, one set of random streams, bit-identical rows."""
    options = {"n_agents": 8, "t_max": 40, "checkpoints": 3, **where}
    plain, read = (make_cell({**options, **extra, "replicates": 2})
                   for extra in ({}, reading))
    assert plain.cell_id == read.cell_id and plain.stream == read.stream
    np.testing.assert_array_equal(simulate("colme", replicates=2, **options).mse,
                                  simulate("colme", replicates=2, **options, **reading).mse)


@pytest.mark.parametrize(("group", "variants"), [
    (ModelConfig, MODELS), (DatasetConfig, DATASETS), (OrderConfig, ORDERS),
    (GraphConfig, GraphConfig.VARIANTS), (GraphOptions, GraphOptions.VARIANTS)],
    ids=["model", "dataset", "order", "graph", "decentralized graph"])
def test_a_nested_group_holds_its_variants_options(group, variants):
    """A group whose ``kind`` chooses a variant (``model``, ``dataset``, ``order``,
    ``graph``) has every variant's options and no other (but those every kind takes, a
    graph's ``COMMON``), each unset by default: a variant's own defaults stand for
    them."""
    names = {f.name for cls in variants.values() for f in dataclasses.fields(cls)}
    common = set(getattr(group, "COMMON", ()))
    assert not names & common
    assert {f.name for f in dataclasses.fields(group)} == {"kind", *names, *common}
    assert all(getattr(group(), name) is None for name in names)


def test_a_variant_refuses_another_kinds_options_and_fills_its_own():
    with pytest.raises(ConfigError, match=r"^order\.zipf_exponent: must be unset for "
                                          r"order\.kind=uniform \(only zipf takes it\); "
                                          r"got 1\.5$"):
        OrderConfig(kind="uniform", zipf_exponent=1.5).variant()
    with pytest.raises(ConfigError, match=r"^model\.bound_x: must be unset for "
                                          r"model\.kind=bernoulli \(only gaussian, cox, "
                                          r"treatments take it\); got 2\.0$"):
        ModelConfig(kind="bernoulli", bound_x=2.0).variant()
    assert OrderConfig(kind="zipf").normalized() == OrderConfig(kind="zipf", zipf_exponent=1.0)
    # Unset options of the kind take its defaults (for the method), the others stay None.
    assert ModelConfig(kind="gaussian").normalized("gm") == ModelConfig(
        kind="gaussian", states=(-1.0, 0.0, 1.0), truth=1.0, samples=20, sigma=1.0,
        bound_x=3.0)
    assert ModelConfig(kind="gaussian").normalized("private_ol").rate == 1.0
    assert DatasetConfig(split_seed=2).normalized("cox") == DatasetConfig(
        kind="actg175", split="even", split_seed=2, arm=3)
    assert DatasetConfig().normalized("bernoulli") == DatasetConfig()
