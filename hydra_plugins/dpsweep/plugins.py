"""The platform's Hydra sweeper and launcher.

``DpsweepSweeper`` expands the grid exactly as Hydra's basic sweeper does (comma lists,
``range``, ``glob``, ``hydra.sweeper.params``), composes every cell cheaply, validates all
of them, and then:

* with the ``dpsweep`` launcher, runs them all as one sweep (Ray, resume, progress);
* with any other launcher, hands it one Hydra job per cell, as the basic sweeper would;
  every job runs its cell through the same results store, so caching and resume still
  hold.

``DpsweepLauncher`` also serves other sweepers (Optuna, Ax, ...): each batch of jobs it
receives runs as one sweep.

Hydra loads plugin modules without registering them in ``sys.modules``, so this module
must not use ``from __future__ import annotations`` (dataclasses need real annotations).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.config_store import ConfigStore
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.plugins import Plugins
from hydra.core.utils import JobReturn, JobStatus
from hydra.plugins.launcher import Launcher
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig

from sweep.cli import CellsFailed, raise_for_failures, run_configs
from sweep.plan import make_cell, plan

from .compose import CellComposer


@dataclass
class DpsweepSweeperConf:
    _target_: str = "hydra_plugins.dpsweep.plugins.DpsweepSweeper"
    params: dict[str, str] | None = None


@dataclass
class DpsweepLauncherConf:
    _target_: str = "hydra_plugins.dpsweep.plugins.DpsweepLauncher"


ConfigStore.instance().store(
    group="hydra/sweeper", name="dpsweep", node=DpsweepSweeperConf, provider="dpsweep"
)
ConfigStore.instance().store(
    group="hydra/launcher", name="dpsweep", node=DpsweepLauncherConf, provider="dpsweep"
)


class DpsweepLauncher(Launcher):
    """Runs batches of Hydra jobs as one sweep of the platform."""

    def setup(
        self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig
    ) -> None:
        self.hydra_context = hydra_context
        self.config = config

    def launch(
        self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int
    ) -> Sequence[JobReturn]:
        composer = CellComposer(self.hydra_context, self.config)
        configs = [composer.compose(list(overrides)) for overrides in job_overrides]
        failed = set(run_configs(configs).failed)
        returns = []
        for overrides, config in zip(job_overrides, configs, strict=True):
            cell_id = make_cell(config).cell_id
            error = CellsFailed(f"cell {cell_id} failed") if cell_id in failed else None
            returns.append(JobReturn(
                overrides=list(overrides),
                status=JobStatus.FAILED if error else JobStatus.COMPLETED,
                _return_value=error or cell_id,
            ))
        return returns


class DpsweepSweeper(Sweeper):
    """Expands the grid, validates every cell, then runs them (see the module docstring)."""

    def __init__(self, params: dict[str, str] | None = None) -> None:
        self.params = params or {}

    def setup(
        self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig
    ) -> None:
        self.hydra_context = hydra_context
        self.config = config
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=task_function, config=config
        )

    def sweep(self, arguments: list[str]) -> Any:
        lines = [f"{key}={value}" for key, value in self.params.items()] + list(arguments)
        parser = OverridesParser.create(config_loader=self.hydra_context.config_loader)
        jobs = BasicSweeper.split_arguments(parser.parse_overrides(lines), None)[0]
        composer = CellComposer(self.hydra_context, self.config)
        configs = [composer.compose(job) for job in jobs]
        if isinstance(self.launcher, DpsweepLauncher):
            return raise_for_failures(run_configs(configs))
        plan(configs)  # every cell is valid before the other launcher starts a job
        returns = self.launcher.launch(jobs, initial_job_idx=0)
        failed = sum(r.status == JobStatus.FAILED for r in returns)
        if failed:
            raise CellsFailed(f"{failed} of {len(returns)} jobs failed")
        return returns
