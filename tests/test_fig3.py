"""The section's measurements: Fig. 3's crossing of the Bayesian estimator on paired runs,
its window log ratio and the start of collaboration; the oracle's roughness (Fig. 2,
middle); and the y zoom that goes with an x zoom."""

import math

import numpy as np
import pandas as pd
import pytest

from analysis.plot import _span
from analysis.studies.colme.document import (
    crossing,
    paired_crossing,
    roughness,
    start_of_collaboration,
    window_log_ratio,
)

TIMES = np.array([200, 250, 300, 400, 600, 800])


def test_crossing_is_where_the_bayesian_curve_goes_below_for_good():
    """Bayesian minus non-Bayesian MSE at t = 200, ..., 800:
    (+, -, +, -, -, -): below for good from t = 400 (the dip at 250 does not last);
    (-, ...): never worse, the first time; (-, -, -, -, -, +): no crossing (NaN)."""
    plain = np.ones(TIMES.size)
    signs = np.array([[1, -1, 1, -1, -1, -1], [-1] * 6, [-1, -1, -1, -1, -1, 1]])
    found = crossing(plain + 0.1 * signs, plain, TIMES)
    assert found[0] == 400 and found[1] == 200 and math.isnan(found[2])
    # Equal means count as not below.
    assert crossing(np.array([1.0, 1.0, 0.5]), np.ones(3), TIMES[:3]) == 300


def test_a_clear_paired_crossing_has_the_rounding_as_its_only_error():
    """Runs whose Bayesian curve is far below the other from t = 400 on (and far above
    before) cross at 400 in every paired resample: the 95% interval runs from one step
    after the checkpoint before (301) to 400, and the SE is the rounding to checkpoints
    alone, (400 − 300)/√12 ≈ 28.9."""
    rng = np.random.default_rng(1)
    shape = np.where(TIMES >= 400, 0.5, 2.0)
    bayes = pd.DataFrame(shape * (1 + 0.01 * rng.standard_normal((20, TIMES.size))),
                         columns=TIMES)
    plain = pd.DataFrame(1 + 0.01 * rng.standard_normal((20, TIMES.size)), columns=TIMES)
    t, low, high, se, missing = paired_crossing(bayes, plain)
    assert (t, low, high, missing) == (400, 301, 400, 0.0)
    assert se == pytest.approx(100 / math.sqrt(12))


def test_pairing_removes_the_noise_the_two_cells_share():
    """Two cells on common random numbers: each run's curves share a noise of 50 % (the
    data) and differ by a drift from +10 % to −10 % and a private noise of 1 %. Paired,
    the crossing is where the drift changes sign (between 300 and 400) in every resample;
    resampled apart (a different permutation of one cell's runs), the shared noise moves
    it and some resamples find none."""
    rng = np.random.default_rng(2)
    shared = 1 + 0.5 * rng.standard_normal((20, TIMES.size)) ** 2
    drift = np.linspace(0.1, -0.1, TIMES.size)
    bayes = pd.DataFrame(shared * (1 + drift + 0.01 * rng.standard_normal((20, TIMES.size))),
                         columns=TIMES)
    plain = pd.DataFrame(shared * (1 + 0.01 * rng.standard_normal((20, TIMES.size))),
                         columns=TIMES)
    t, low, high, _, missing = paired_crossing(bayes, plain)
    assert (t, low, high, missing) == (400, 301, 400, 0.0)
    apart = plain.set_axis(rng.permutation(plain.index))
    spread = paired_crossing(bayes, apart)
    assert spread[2] - spread[1] > high - low


def test_a_window_log_ratio_is_the_mean_log_ratio_over_its_checkpoints():
    """Per run, the mean of ln MSE over the checkpoints from start to before stop: two
    cells in the fixed ratio 2 differ by ln 2 in every run."""
    rng = np.random.default_rng(3)
    b = pd.DataFrame(np.exp(rng.standard_normal((5, TIMES.size))), columns=TIMES)
    a_mean, b_mean, text = window_log_ratio(2 * b, b, 250, 800)
    np.testing.assert_allclose(a_mean - b_mean, math.log(2))
    assert text == "t = 250–600 (4 checkpoints)"


def test_collaboration_starts_where_the_mse_leaves_the_local_one():
    """Runs equal to local up to their start (250 or 300) and apart after: the latest
    departure is 300, the interval from one step after the checkpoint before the earliest
    departure (201) to 300."""
    local = pd.DataFrame(np.ones((3, TIMES.size)), columns=TIMES)
    mse = local.copy()
    mse.loc[0, 250:] = 0.5
    mse.loc[1:, 300:] = 0.4
    assert start_of_collaboration(mse, local) == (300, 201, 300)
    # Rounding alone (a relative 1e-12) is not a departure.
    assert start_of_collaboration(mse + 1e-12 * (mse == 1), local) == (300, 201, 300)


def test_roughness_of_a_power_law_is_zero_and_grows_with_oscillations():
    """The mean |Δ² ln MSE| over the checkpoints from ``start``: 0 for 1/t at log-spaced
    times; a factor alternating 1, 2 (ln 2 apart) gives second differences 2 ln 2 in
    absolute value. The checkpoints before ``start`` do not count."""
    times = np.geomspace(1, 1e4, 9)
    assert roughness(pd.Series(1 / times, index=times), 1) == (pytest.approx(0, abs=1e-12), 9)
    wobble = pd.Series(np.where(np.arange(9) % 2, 2.0, 1.0) / times, index=times)
    assert roughness(wobble, 1)[0] == pytest.approx(2 * math.log(2))
    assert roughness(wobble, 10)[1] == 7


def test_an_x_zoom_zooms_y_to_what_is_drawn_there():
    """Curves 1/t with bands ±10 % and a reference 0.1/t over t = 1..1000, zoomed to
    t in [10, 100]: the data there span 0.1/100 = 10⁻³ (reference) to 1.1/10 = 0.11 (band),
    and the limits add 5 % of that span's logarithm on each side (log axes) or of the
    span itself (linear)."""
    t = np.array([1.0, 10.0, 100.0, 1000.0])
    lines = pd.DataFrame({"t": t, "mse": 1 / t, "mse_low": 0.9 / t, "mse_high": 1.1 / t})
    refs = pd.DataFrame({"t": t, "mse": 0.1 / t})
    low, high = math.log(1e-3), math.log(0.11)
    margin = 0.05 * (high - low)
    span, clipped = _span(lines, refs, "t", "mse", (10, 100), True)
    assert span == pytest.approx((math.exp(low - margin), math.exp(high + margin)))
    assert not clipped
    span, clipped = _span(lines, refs, "t", "mse", (10, 100), False)
    assert span == pytest.approx((1e-3 - 0.05 * 0.109, 0.11 + 0.05 * 0.109))
    assert not clipped
    assert _span(lines, refs, "t", "mse", (2000, 3000), True) == (None, False)
