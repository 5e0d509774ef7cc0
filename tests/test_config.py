"""Acceptance 7: bad input raises one clear, one-line error naming the field."""

import pytest

from sweep.colme import ConfigError, simulate
from sweep.colme.config import ColmeConfig

SMALL = {"n_agents": 3, "t_max": 5}


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
        simulate(**{**SMALL, **options})
    message = str(info.value)
    assert message.startswith(f"{field}:")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"replicates": 0}, "replicates"),
        ({"seed": -1}, "seed"),
        ({"baselines": ["median"]}, "baselines"),
        ({"baselines": ["oracle"], "class_assignment": "balanced"}, "baselines"),
    ],
)
def test_bad_call_arguments_name_their_field(kwargs, field):
    with pytest.raises(ConfigError, match=rf"^{field}:"):
        simulate(**SMALL, **kwargs)


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


def test_checkpoints_are_log_spaced_and_include_both_ends():
    times = ColmeConfig.from_options(t_max=30_000).checkpoint_times()
    assert times[0] == 1 and times[-1] == 30_000
    assert 80 <= times.size <= 100
    assert (times[1:] > times[:-1]).all()


def test_a_single_checkpoint_is_t_max():
    assert ColmeConfig.from_options(t_max=77, checkpoints=1).checkpoint_times().tolist() == [77]
    assert ColmeConfig.from_options(t_max=1, checkpoints=5).checkpoint_times().tolist() == [1]
