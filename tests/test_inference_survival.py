"""The Cox partial likelihood of eq. (3) and its sensitivity (sweep.inference.survival).

References are independent of the module: lifelines' fitted ``CoxPHFitter`` (Efron ties;
its ``log_likelihood_`` is the unpenalized Efron partial log-likelihood at ``params_``,
computed on centred and scaled covariates, which changes nothing: a shift of x cancels
between numerator and risk sets, a scale is undone in ``params_``), and eq. (3) written
as a double loop over patients.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from lifelines import CoxPHFitter
from scipy.special import logsumexp

from sweep.errors import ConfigError
from sweep.inference.survival import (
    ARMS,
    Patients,
    actg175,
    extreme_data,
    neighbour,
    neighbour_change,
    partial_loglik,
    partial_score,
    profile_maximum,
    read_csv,
    resample,
    risk_set_sensitivity,
    sec12_sensitivity,
    split,
    worst_neighbour,
)

#: θ grid of the sensitivity searches, B_θ = B_x = 1.
GRID = np.linspace(-1.0, 1.0, 9)


def naive_loglik(patients: Patients, theta: float, ties: str = "breslow") -> float:
    """Eq. (3) by a double loop over patients (Efron: each of the d events tied at t
    takes k/d, k = 0, …, d − 1, of the tied events' share off its risk-set sum)."""
    t, d, x = patients.duration, patients.event, patients.covariate
    total = 0.0
    for time in sorted(set(t[d])):
        tied = [j for j in range(len(t)) if d[j] and t[j] == time]
        risk = [x[r] * theta for r in range(len(t)) if t[r] >= time]
        share = logsumexp([x[j] * theta for j in tied])
        for k, j in enumerate(tied):
            total += x[j] * theta
            if ties == "breslow" or k == 0:
                total -= logsumexp(risk)
            else:  # log(S − (k/d) T), T the tied events' sum
                total -= logsumexp([logsumexp(risk), math.log(k / len(tied)) + share],
                                   b=[1.0, -1.0])
    return total


def random_patients(rng: np.random.Generator, count: int, *, ties: bool) -> Patients:
    duration = rng.integers(1, 6, count).astype(float) if ties else rng.exponential(size=count)
    return Patients(duration, rng.random(count) < 0.7, rng.uniform(-1.0, 1.0, count))


def lifelines_fit(patients: Patients) -> CoxPHFitter:
    frame = pd.DataFrame({"days": patients.duration, "cens": patients.event.astype(int),
                          "x": patients.covariate})
    return CoxPHFitter(penalizer=0.0).fit(frame, "days", "cens")


@pytest.fixture(scope="module")
def actg() -> Patients:
    """ACTG 175, ddI (arm 3) against ZDV (arm 0), as in Sec. 2.1."""
    return Patients.from_arms(actg175(), 3)


@pytest.fixture(scope="module")
def centres(actg: Patients) -> list[Patients]:
    parts = split(len(actg), 5, "even", np.random.default_rng(2024))
    return [actg.take(part) for part in parts]


# --- data -------------------------------------------------------------------------------


def test_actg175_is_lifelines_file(actg: Patients) -> None:
    frame = actg175()
    assert frame.shape[0] == 2139 and {"arms", "days", "cens"} <= set(frame.columns)
    assert set(frame["arms"]) == set(ARMS)
    frame.loc[:, "days"] = -1  # a copy: the cached frame is untouched
    assert (actg175()["days"] > 0).all()
    assert len(actg) == 532 + 561 and actg.covariate.sum() == 561
    assert actg.event.sum() == 181 + 128


def test_patients_sorted_events_first_and_order_free() -> None:
    patients = Patients([3.0, 1.0, 3.0, 2.0, 3.0], [0, 1, 1, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5])
    assert list(patients.duration) == [1.0, 2.0, 3.0, 3.0, 3.0]
    assert list(patients.event) == [True, False, True, True, False]
    assert not patients.duration.flags.writeable
    shuffled = patients.take(np.random.default_rng(0).permutation(5))
    for ties in ("breslow", "efron"):
        assert partial_loglik(shuffled, [0.7], ties) == pytest.approx(
            partial_loglik(patients, [0.7], ties), rel=1e-14)


def test_from_arms_rejects_control_and_unknown_arms() -> None:
    for arm in (0, 4, -1, 1.5, "3", True):
        with pytest.raises(ConfigError, match=r"^dataset\.arm: must be one of 1 \(ZDV\+ddI\), 2"):
            Patients.from_arms(actg175(), arm)
    assert len(Patients.from_arms(actg175(), 1, control=2)) == 522 + 524


# --- likelihood -------------------------------------------------------------------------


def test_efron_matches_lifelines(actg: Patients, centres: list[Patients]) -> None:
    for patients in (actg, centres[0]):
        fit = lifelines_fit(patients)
        theta = fit.params_["x"]
        assert partial_loglik(patients, [theta], ties="efron")[0] == pytest.approx(
            fit.log_likelihood_, rel=1e-8)
        best, value = profile_maximum(patients, -5.0, 5.0, ties="efron")
        assert best == pytest.approx(theta, abs=1e-6)
        assert value >= fit.log_likelihood_ - 1e-9
        grid = np.linspace(-2.0, 2.0, 4001)
        values = partial_loglik(patients, grid, ties="efron")
        assert abs(grid[np.argmax(values)] - best) <= 1e-3 and value >= values.max()


def test_actg_fit_numbers(actg: Patients) -> None:
    """The centralized fit of Fig. 3(c) without the paper's penalty."""
    best, value = profile_maximum(actg, -5.0, 5.0, ties="efron")
    assert best == pytest.approx(-0.52826, abs=1e-5)
    assert value == pytest.approx(-2069.31297, abs=1e-4)
    best, value = profile_maximum(actg, -5.0, 5.0)  # Breslow: eq. (3)
    assert best == pytest.approx(-0.52813, abs=1e-5)


def test_breslow_is_naive_eq3_with_ties() -> None:
    rng = np.random.default_rng(1)
    thetas = np.array([-3.0, -0.4, 0.0, 1.3, 2.0])
    for _ in range(20):
        patients = random_patients(rng, int(rng.integers(1, 12)), ties=True)
        for ties in ("breslow", "efron"):
            expected = [naive_loglik(patients, t, ties) for t in thetas]
            np.testing.assert_allclose(partial_loglik(patients, thetas, ties), expected,
                                       rtol=1e-12, atol=1e-12)


def test_breslow_equals_efron_without_ties() -> None:
    patients = random_patients(np.random.default_rng(2), 300, ties=False)
    thetas = np.linspace(-3.0, 3.0, 13)
    np.testing.assert_allclose(partial_loglik(patients, thetas),
                               partial_loglik(patients, thetas, ties="efron"), rtol=1e-13)


def test_stable_for_large_theta_x() -> None:
    patients = random_patients(np.random.default_rng(3), 40, ties=True)
    patients = Patients(patients.duration, patients.event, patients.covariate * 50.0)
    for ties in ("breslow", "efron"):
        values = partial_loglik(patients, [-1.0, 1.0], ties)
        expected = [naive_loglik(patients, t, ties) for t in (-1.0, 1.0)]
        np.testing.assert_allclose(values, expected, rtol=1e-12)
        assert np.isfinite(partial_score(patients, [-1.0, 1.0], ties)).all()


def test_grid_shapes_and_blocks(actg: Patients) -> None:
    thetas = np.linspace(-1.0, 1.0, 2000).reshape(40, 50)  # several blocks of θ
    values = partial_loglik(actg, thetas)
    assert values.shape == (40, 50)
    assert values[3, 7] == pytest.approx(partial_loglik(actg, thetas[3, 7]), rel=1e-14)
    assert partial_loglik(actg, 0.5).shape == ()
    no_events = Patients([1.0, 2.0], [0, 0], [0.0, 1.0])
    assert (partial_loglik(no_events, [0.0, 1.0]) == 0).all()
    with pytest.raises(ConfigError, match=r"^model\.ties: "):
        partial_loglik(actg, [0.0], ties="exact")


def test_score_is_derivative() -> None:
    rng = np.random.default_rng(4)
    thetas, step = np.array([-2.0, -0.3, 0.0, 0.8, 2.5]), 1e-5
    for _ in range(5):
        patients = random_patients(rng, 60, ties=True)
        for ties in ("breslow", "efron"):
            central = (partial_loglik(patients, thetas + step, ties)
                       - partial_loglik(patients, thetas - step, ties)) / (2 * step)
            np.testing.assert_allclose(partial_score(patients, thetas, ties), central,
                                       rtol=1e-6, atol=1e-6)


def test_profile_maximum_at_interval_end(actg: Patients) -> None:
    theta, value = profile_maximum(actg, 0.0, 1.0)
    assert theta == 0.0 and value == pytest.approx(partial_loglik(actg, 0.0))


# --- split and resample -----------------------------------------------------------------


@pytest.mark.parametrize(("count", "centres"), [(1093, 5), (10, 3), (7, 7), (1, 1)])
def test_even_split(count: int, centres: int) -> None:
    parts = split(count, centres, "even", np.random.default_rng(5))
    sizes = [len(p) for p in parts]
    assert len(parts) == centres and max(sizes) - min(sizes) <= 1
    assert sorted(np.concatenate(parts)) == list(range(count))
    again = split(count, centres, "even", np.random.default_rng(5))
    assert all((a == b).all() for a, b in zip(parts, again, strict=True))


def test_even_split_is_random() -> None:
    first = split(100, 5, "even", np.random.default_rng(6))[0]
    assert not (first == split(100, 5, "even", np.random.default_rng(7))[0]).all()


@pytest.mark.parametrize(("count", "centres"), [(1093, 5), (150, 5), (10, 4), (5, 5),
                                                (6, 5)])
def test_skewed_split(count: int, centres: int) -> None:
    parts = split(count, centres, "skewed", np.random.default_rng(8))
    sizes = np.array([len(p) for p in parts])
    assert sizes.min() >= 1 and sorted(np.concatenate(parts)) == list(range(count))
    share = count * np.arange(1, centres + 1) / (centres * (centres + 1) / 2)  # 1 : … : n
    if share.min() >= 1:
        assert np.abs(sizes - share).max() < 1


def test_split_errors() -> None:
    with pytest.raises(ConfigError, match=r"^graph\.n_nodes: must be <= the number of "
                                          r"patients \(4\); got 5$"):
        split(4, 5, "even", np.random.default_rng(0))
    with pytest.raises(ConfigError, match=r"^dataset\.split: "):
        split(10, 2, "uneven", np.random.default_rng(0))


def test_resample(actg: Patients) -> None:
    sample = resample(actg, 4096, np.random.default_rng(9))
    assert len(sample) == 4096 and np.all(np.diff(sample.duration) >= 0)
    rows = set(zip(actg.duration, actg.event, actg.covariate, strict=True))
    assert set(zip(sample.duration, sample.event, sample.covariate, strict=True)) <= rows


# --- user CSV ---------------------------------------------------------------------------

GOOD = "time,status,group\n5,1,0\n3,0,1\n8,1,1\n"


@pytest.mark.parametrize(("text", "columns", "key"), [
    (GOOD, ("t", "status", "group"), "dataset.duration_col"),
    (GOOD, ("time", "dead", "group"), "dataset.event_col"),
    (GOOD, ("time", "status", "arm"), "dataset.covariate_col"),
    ("time,status,group\nabc,1,0\n3,0,1\n", None, "dataset.duration_col"),
    ("time,status,group\n5,yes,0\n3,0,1\n", None, "dataset.event_col"),
    ("time,status,group\n5,1,a\n3,0,1\n", None, "dataset.covariate_col"),
    ("time,status,group\n5,1,\n3,0,1\n", None, "dataset.covariate_col"),
    ("time,status,group\n0,1,0\n3,0,1\n", None, "dataset.duration_col"),
    ("time,status,group\n-2,1,0\n3,0,1\n", None, "dataset.duration_col"),
    ("time,status,group\n,1,0\n3,0,1\n", None, "dataset.duration_col"),
    ("time,status,group\n5,2,0\n3,0,1\n", None, "dataset.event_col"),
    ("time,status,group\n5,0.5,0\n3,0,1\n", None, "dataset.event_col"),
    ("time,status,group\n5,0,0\n3,0,1\n", None, "dataset.event_col"),
    ("", None, "dataset.csv_path"),
    ("time,status,group\n", None, "dataset.csv_path"),
    ('time,status,group\n5,1,0,9,9\n"3,0\n', None, "dataset.csv_path"),
])
def test_read_csv_errors(tmp_path, text: str, columns: tuple[str, str, str] | None,
                         key: str) -> None:
    path = tmp_path / "data.csv"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        read_csv(path, *(columns or ("time", "status", "group")))
    message = str(error.value)
    assert message.startswith(f"{key}: ") and "\n" not in message
    if columns:
        assert "(columns: time, status, group)" in message


def test_read_csv_unreadable(tmp_path) -> None:
    for path in (tmp_path / "missing.csv", tmp_path):
        with pytest.raises(ConfigError, match=r"^dataset\.csv_path: ") as error:
            read_csv(path, "time", "status", "group")
        assert "\n" not in str(error.value)
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"\xff\xfe\x00\x81" * 50)
    with pytest.raises(ConfigError, match=r"^dataset\.csv_path: "):
        read_csv(binary, "time", "status", "group")


def test_read_csv_and_from_columns(tmp_path) -> None:
    path = tmp_path / "data.csv"
    path.write_text(GOOD)
    frame = read_csv(path, "time", "status", "group")
    patients = Patients.from_columns(frame, "time", "status", "group")
    assert list(patients.duration) == [3.0, 5.0, 8.0]
    assert list(patients.event) == [False, True, True]
    assert list(patients.covariate) == [1.0, 0.0, 1.0]
    with pytest.raises(ConfigError, match=r"^dataset\.event_col: "):
        Patients.from_columns(frame, "time", "nothing", "group")


# --- sensitivity (Sec. 12) --------------------------------------------------------------


def test_neighbour_change_is_exact() -> None:
    patients = random_patients(np.random.default_rng(10), 8, ties=True)
    replacement = (2.0, 1, -0.5)
    changed = neighbour(patients, 3, replacement)
    keep = [i for i in range(8) if i != 3]
    rebuilt = Patients(np.append(patients.duration[keep], 2.0),
                       np.append(patients.event[keep], True),
                       np.append(patients.covariate[keep], -0.5))
    for ties in ("breslow", "efron"):
        np.testing.assert_allclose(
            neighbour_change(patients, 3, replacement, GRID, ties),
            [naive_loglik(rebuilt, t, ties) - naive_loglik(patients, t, ties) for t in GRID],
            rtol=1e-10, atol=1e-12)
    assert len(changed) == 8 and len(neighbour(patients, 3, None)) == 7
    assert len(neighbour(patients, None, replacement)) == 9


def test_sec12_bound_is_exceeded_on_actg(actg: Patients) -> None:
    """Sec. 12's Δ = 2 B_θ B_x = 2 is exceeded 4.3-fold by one changed patient."""
    printed = sec12_sensitivity(1.0, 1.0)
    worst, where = worst_neighbour(actg, GRID, bound_x=1.0)
    assert printed == 2.0
    assert worst == pytest.approx(8.625, abs=1e-3) and worst / printed > 4.3
    assert where.startswith("replace") and "event=1, x=-1) at θ=1" in where
    assert worst <= risk_set_sensitivity(len(actg), 1.0, 1.0)
    # with the treatment indicator's values only: still 3.8 times the printed bound
    binary, _ = worst_neighbour(actg, GRID, bound_x=1.0, covariates=(0.0, 1.0))
    assert binary == pytest.approx(7.628, abs=1e-3)
    assert binary <= risk_set_sensitivity(len(actg), 1.0, 1.0, spread=1.0)


def test_sec12_bound_is_exceeded_in_each_centre(centres: list[Patients]) -> None:
    for patients in centres:
        worst, _ = worst_neighbour(patients, GRID, bound_x=1.0)
        assert 6.5 < worst <= risk_set_sensitivity(len(patients), 1.0, 1.0)


def test_removal_never_decreases_loglik(centres: list[Patients]) -> None:
    patients = centres[1]
    for index in range(len(patients)):
        assert neighbour_change(patients, index, None, GRID).min() >= -1e-12


@pytest.mark.parametrize("ties", ["breslow", "efron"])
def test_risk_set_bound_holds_on_small_data(ties: str) -> None:
    """Every replacement (durations at, between and beyond the data's, both flags, five
    covariates) of every patient of 80 random data sets of 1 to 6 patients, ties
    included, on a θ grid. The proof is for Breslow; Efron stays within it here too."""
    rng = np.random.default_rng(11)
    thetas = np.linspace(-1.0, 1.0, 5)
    largest = 0.0
    for _ in range(80):
        count = int(rng.integers(1, 7))
        patients = Patients(rng.integers(1, 4, count).astype(float), rng.random(count) < 0.7,
                            rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], count))
        bound = risk_set_sensitivity(count, 1.0, 1.0)
        base = partial_loglik(patients, thetas, ties)
        for index, time, event, x in itertools.product(
                range(count), (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5), (0, 1), (-1, -0.5, 0, 0.5, 1)):
            changed = partial_loglik(neighbour(patients, index, (time, event, x)), thetas, ties)
            change = np.abs(changed - base).max()
            assert change <= bound + 1e-12  # bound 0 for one patient: log ℓ is always 0
            largest = max(largest, change / bound) if bound else largest
    assert 0.5 < largest <= 1.0 + 1e-12


@pytest.mark.parametrize(("count", "bound_theta", "spread"), [
    (1, 1.0, None), (2, 1.0, None), (5, 1.0, None), (219, 1.0, None), (1093, 1.0, None),
    (1093, 1.0, 1.0), (50, 0.0, None), (30, 3.0, None)])
def test_risk_set_bound_is_attained(count: int, bound_theta: float,
                                    spread: float | None) -> None:
    bound = risk_set_sensitivity(count, bound_theta, 1.0, spread=spread)
    patients, index = extreme_data(count, bound_theta, 1.0, spread=spread)
    assert np.abs(patients.covariate).max() <= 1.0
    removed = neighbour_change(patients, index, None, [bound_theta])[0]
    replaced = neighbour_change(patients, index, (0.5, 0, 1.0), [bound_theta])[0]
    assert removed == pytest.approx(bound, rel=1e-11, abs=1e-12)
    assert replaced == pytest.approx(bound, rel=1e-11, abs=1e-12)
    assert neighbour_change(patients, index, None, [bound_theta], "efron")[0] <= bound


def test_risk_set_bound_numbers() -> None:
    assert risk_set_sensitivity(1093, 1.0, 1.0) == pytest.approx(42.528, abs=1e-3)
    assert risk_set_sensitivity(219, 1.0, 1.0) == pytest.approx(30.734, abs=1e-3)
    assert risk_set_sensitivity(1093, 1.0, 1.0, spread=1.0) == pytest.approx(17.885,
                                                                             abs=1e-3)
    assert risk_set_sensitivity(50, 0.0, 1.0) == pytest.approx(4.902, abs=1e-3)
    assert risk_set_sensitivity(1, 1.0, 1.0) == 0.0
