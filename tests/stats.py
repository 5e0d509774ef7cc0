"""Monte-Carlo assertions with tolerances derived from the standard error.

Each check allows Z standard errors. With the fixed seeds of the tests a failure means a
real discrepancy; Z = 4.5 keeps the chance of a false alarm below 1e-5 per check.
"""

from __future__ import annotations

import numpy as np

Z = 4.5


def assert_close_mean(samples: np.ndarray, expected: float, z: float = Z) -> None:
    """The sample mean is within z standard errors of ``expected``."""
    samples = np.asarray(samples, dtype=np.float64)
    error = samples.std(ddof=1) / np.sqrt(samples.size)
    assert abs(samples.mean() - expected) <= z * error, (samples.mean(), expected, error)


def assert_close_variance(samples: np.ndarray, expected: float, z: float = Z) -> None:
    """The sample variance is within z standard errors of ``expected``.

    The standard error of the sample variance is √((m4 - s⁴)/n), with the fourth central
    moment m4 estimated from the samples, so heavy tails (Laplace) are accounted for.
    """
    samples = np.asarray(samples, dtype=np.float64)
    centred = samples - samples.mean()
    variance = centred.var(ddof=1)
    error = np.sqrt((np.mean(centred**4) - variance**2) / samples.size)
    assert abs(variance - expected) <= z * error, (variance, expected, error)


def assert_close_means(
    estimates: np.ndarray, expected: np.ndarray, z: float = Z
) -> None:
    """Per column: the mean over rows (replicates) is within z standard errors."""
    estimates = np.asarray(estimates, dtype=np.float64)
    mean = estimates.mean(axis=0)
    error = estimates.std(axis=0, ddof=1) / np.sqrt(estimates.shape[0])
    bad = np.abs(mean - expected) > z * error
    assert not bad.any(), list(zip(mean[bad], np.asarray(expected)[bad], error[bad], strict=True))
