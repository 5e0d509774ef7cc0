"""Hydra's shared plugin test suites (``hydra.test_utils.launcher_common_tests``), run
against the platform's launcher, alone and under the platform's sweeper (issue 28).

The suites compose Hydra's own test app (``hydra.test_utils.a_module``: keys ``foo``,
``bar``, config groups ``group1``, ``db``) and check what its task function returns in
each job's working directory. The platform's launcher and sweeper run cells of the
platform instead: they refuse any key that is not an option of a family before a job
starts, run no task function, and return cell ids (the launcher) or the sweep's summary
(the sweeper). Those cases cannot apply and are skipped, each with its reason; the cases
that hold for every launcher and sweeper run. The same scenarios on the platform's own
app (one cell, a grid, a config-group sweep, a bad key refused before any work) are
tests/test_sweep.py's, test_plan.py's and test_executors.py's.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hydra.test_utils.launcher_common_tests import (
    BatchedSweeperTestSuite,
    IntegrationTestSuite,
    LauncherTestSuite,
)

#: Why the suite's cases that run Hydra's test app do not apply.
NOT_A_CELL = ("the platform's launcher and sweeper run cells of the platform: they refuse "
              "Hydra's test app's keys (foo, bar) before any job and run no task function")


def _not_applicable(reason: str) -> Callable[..., None]:
    """A case of :class:`LauncherTestSuite`, replaced by a skip with ``reason``."""

    @pytest.mark.skip(reason=reason)
    def test(self: LauncherTestSuite, launcher_name: str, overrides: list[str]) -> None:
        """Skipped: see the reason."""

    return test


@pytest.mark.parametrize(("launcher_name", "overrides"), [
    pytest.param("dpsweep", [], id="launcher"),
    pytest.param("dpsweep", ["hydra/sweeper=dpsweep"], id="sweeper"),
])
class TestDpsweepLauncherSuite(LauncherTestSuite):
    """Run: ``test_not_sweeping_hydra_overrides`` (a sweep over Hydra's own config is
    refused) and ``test_sweep_1_job_strict_and_bad_key`` (an unknown key fails)."""

    test_sweep_1_job = _not_applicable(NOT_A_CELL)
    test_sweep_2_jobs = _not_applicable(NOT_A_CELL)
    test_sweep_1_job_strict = _not_applicable(NOT_A_CELL)
    test_sweep_2_optimizers = _not_applicable(NOT_A_CELL)
    test_sweep_over_unspecified_mandatory_default = _not_applicable(NOT_A_CELL)
    test_sweep_and_override = _not_applicable(NOT_A_CELL)
    test_sweep_with_custom_resolver = _not_applicable(NOT_A_CELL)


@pytest.mark.skip(reason="the platform's sweeper does not cut a grid into batches: it hands "
                  "every cell to the launcher at once, so that one sweep plans, resumes and "
                  "reports them all (hydra.sweeper.max_batch_size is the basic sweeper's)")
class TestDpsweepBatchedSweeperSuite(BatchedSweeperTestSuite):
    """Skipped as a whole (see the reason)."""


@pytest.mark.skip(reason=f"{NOT_A_CELL}; the suite checks each job's working directory and "
                  "task name, which the platform's launcher does not create")
class TestDpsweepIntegrationSuite(IntegrationTestSuite):
    """Skipped as a whole (see the reason)."""
