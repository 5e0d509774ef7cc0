"""Fig. 3's measurements: the Bayesian estimator's crossing and its standard error, and
the y zoom that goes with an x zoom."""

import math

import numpy as np
import pandas as pd
import pytest

from analysis.plot import _span
from analysis.studies.colme.document import crossing, crossings, near

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


def test_crossing_standard_error_from_the_bootstrap_and_the_checkpoints():
    """Runs whose Bayesian curve is far below the other from t = 400 on (and far above
    before) cross at 400 in every resample: the bootstrap spread is 0 and the SE is the
    rounding to checkpoints alone, (400 - 300)/√12 ≈ 28.9. 400 is neither within a factor
    1.25 of 600 nor within two SE; 480 (600/1.25) is."""
    rng = np.random.default_rng(1)
    shape = np.where(TIMES >= 400, 0.5, 2.0)
    bayes = pd.DataFrame(shape * (1 + 0.01 * rng.standard_normal((20, TIMES.size))),
                         columns=TIMES)
    plain = pd.DataFrame(1 + 0.01 * rng.standard_normal((20, TIMES.size)), columns=TIMES)
    t, se, missing = crossings(bayes, plain)
    assert (t, missing) == (400, 0.0)
    assert se == pytest.approx(100 / math.sqrt(12))
    assert not near(t, se, 600) and near(480.0, se, 600)
    # 600 against 850 is a factor 1.42, beyond 1.25: near only within two SE (250).
    assert near(600.0, 130.0, 850) and not near(600.0, 120.0, 850)
    assert not near(math.nan, se, 600)


def test_a_noisy_crossing_has_a_bootstrap_spread():
    """With overlapping curves (a drift of ±5 % under 20 % noise per run) the crossing
    moves between resamples: its SE exceeds the rounding term, and some resamples find
    none."""
    rng = np.random.default_rng(2)
    drift = np.linspace(0.05, -0.05, TIMES.size)
    bayes = pd.DataFrame(1 + drift + 0.2 * rng.standard_normal((20, TIMES.size)),
                         columns=TIMES)
    plain = pd.DataFrame(1 + 0.2 * rng.standard_normal((20, TIMES.size)), columns=TIMES)
    t, se, missing = crossings(bayes, plain)
    i = int(np.searchsorted(TIMES, t))
    assert se > (TIMES[max(i, 1)] - TIMES[max(i, 1) - 1]) / math.sqrt(12)
    assert 0 < missing < 1


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
