"""The continual family's ``noise_scale`` control: validated, in the cell's identity, the
Laplace scale of every p-sum when set, and no noise at 0 (where Algorithms 4 and 5, which
withhold and project alike, release the same μ̂_t)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sweep.continual.config import ContinualConfig
from sweep.continual.parameters import parameters
from sweep.errors import ConfigError
from sweep.options import describe

from .test_continual import NOISE_TIMES, check_binary_noise, config, family_rows, repeat


@pytest.mark.parametrize("bad", [-1.0, math.inf, math.nan, "big"])
def test_a_bad_noise_scale_is_refused_naming_the_field(bad: object) -> None:
    with pytest.raises(ConfigError, match="noise_scale"):
        ContinualConfig.from_options(noise_scale=bad)


def test_the_noise_scale_is_in_the_cell_identity() -> None:
    """Every option of version 2 is in the identity: unset (the paper's η), the noise
    scale is None there, and a set one is another cell."""
    assert describe(config(method="alg5")).identity["noise_scale"] is None
    assert describe(config(method="alg5", noise_scale=0.0)).identity["noise_scale"] == 0.0


@pytest.mark.parametrize("method", ["alg2", "alg4", "alg5", "alg6"])
def test_the_noise_scale_replaces_every_level_eta(method: str) -> None:
    p = parameters(config(method=method, noise_scale=7.5))
    assert p.eta.size >= 1 and (p.eta == 7.5).all()


def test_a_set_noise_scale_is_the_laplace_scale_of_each_psum() -> None:
    """Alg. 2 with μ = 0 and η = noise_scale = 3: S_t = tμ̂_t is the noise alone, of
    variance 2η² popcount(t) (Sec. 2.3), whatever ε."""
    cfg = config(n_users=8, max_samples=8, t_max=64, order={"kind": "round_robin"},
                 method="alg2", epsilon=0.01, noise_scale=3.0)
    users = np.arange(64) % 8
    estimates, _, _ = repeat(parameters(cfg), users, 8, 8, 0.0, NOISE_TIMES, 6000, seed=41)
    check_binary_noise(estimates * np.array(NOISE_TIMES), 3.0)


@pytest.mark.parametrize("order", ["round_robin", "uniform", "contiguous"])
def test_without_noise_algorithms_4_and_5_release_the_same_estimates(order: str) -> None:
    options = {"n_users": 50, "max_samples": 16, "t_max": 600, "order": {"kind": order},
               "noise_scale": 0.0, "checkpoints": 10}
    errors = []
    for method in ("alg4", "alg5"):
        _, rows = family_rows({**options, "method": method}, replicates=6, seed=3)
        errors.append(rows[rows.source == "simulated"].error.to_numpy())
    np.testing.assert_array_equal(*errors)
    # With noise they differ: the control is what separates them.
    noisy = [family_rows({**options, "noise_scale": None, "method": m}, 6, 3)[1]
             for m in ("alg4", "alg5")]
    assert not np.array_equal(*(r[r.source == "simulated"].error.to_numpy() for r in noisy))
