"""The platform's Hydra sweeper and launcher.

``DpsweepSweeper`` expands the grid exactly as Hydra's basic sweeper does (comma lists,
``range``, ``glob``, ``hydra.sweeper.params``), or the union of several such grids
(``hydra.sweeper.grids``: a list of key-value maps, each crossed with ``params`` and the
command line), composes every cell cheaply, validates all of them, and then:

* with the ``dpsweep`` launcher, runs them all as one sweep (resume, progress, the
  executor of its choice);
* with another launcher (submitit, joblib, ...), hands it one Hydra job per cell, as the
  basic sweeper would; every job runs its cell through the same results store, so
  caching and resume still hold. Hydra's basic launcher is refused before any work: it
  would run those jobs one after the other in this process, each composing its
  configuration again (about 0.1 s a cell) and scanning the results, and the first
  failed cell would stop the rest; the platform's launcher with ``executor=serial`` does
  the same work as one sweep.

``DpsweepLauncher`` also serves other sweepers (Optuna, Ax, ...): each batch of jobs it
receives runs as one sweep.

Hydra loads plugin modules without registering them in ``sys.modules``, so this module
must not use ``from __future__ import annotations`` (dataclasses need real annotations).
Hydra imports every plugin module whenever any Hydra app starts: the engine is imported
only when a sweep runs.
"""

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.plugins import Plugins
from hydra.core.utils import JobReturn, JobStatus
from hydra.errors import HydraException
from hydra.plugins.launcher import Launcher
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig

from sweep.cli import CellsFailed, raise_for_failures, run_configs
from sweep.errors import ConfigError

from .compose import CellComposer


@dataclass
class DpsweepSweeperConf:
    _target_: str = "hydra_plugins.dpsweep.plugins.DpsweepSweeper"
    params: dict[str, str] | None = None
    #: Sub-grids: the sweep is the union, over the entries, of the product of ``params``,
    #: the entry's keys and the command line's (a preset whose parts take different keys).
    grids: list[dict[str, str]] | None = None


@dataclass
class DpsweepLauncherConf:
    _target_: str = "hydra_plugins.dpsweep.plugins.DpsweepLauncher"


ConfigStore.instance().store(
    group="hydra/sweeper", name="dpsweep", node=DpsweepSweeperConf, provider="dpsweep"
)
ConfigStore.instance().store(
    group="hydra/launcher", name="dpsweep", node=DpsweepLauncherConf, provider="dpsweep"
)


class Grid:
    """The cells of a grid: the product of each key's values, as Hydra's basic sweeper
    expands it, composed on every iteration rather than held (a grid of 10⁵ cells)."""

    def __init__(self, composer: CellComposer, lines: list[str]) -> None:
        parser = OverridesParser.create(config_loader=composer.loader)
        choices: dict[str, list[str]] = {}
        for override in parser.parse_overrides(lines):
            key = override.get_key_element()
            if not override.is_sweep_override():
                choices[key] = [f"{key}={override.get_value_element_as_str()}"]
            elif override.is_discrete_sweep():
                choices[key] = [f"{key}={value}" for value in override.sweep_string_iterator()]
            else:
                raise HydraException(f"{key}: only lists, range() and glob() sweeps are "
                                     "supported; got an interval")
        self.composer = composer
        self.choices = list(choices.values())

    def overrides(self) -> Iterator[list[str]]:
        return (list(job) for job in itertools.product(*self.choices))

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self.composer.compose(job) for job in self.overrides())


class Grids:
    """The union of several :class:`Grid`, in order (``hydra.sweeper.grids``)."""

    def __init__(self, grids: list[Grid]) -> None:
        self.grids = grids

    def overrides(self) -> Iterator[list[str]]:
        return itertools.chain.from_iterable(g.overrides() for g in self.grids)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return itertools.chain.from_iterable(iter(g) for g in self.grids)


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
        from sweep.plan import make_cell  # the engine loads when a sweep runs, not on import

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

    def __init__(self, params: dict[str, str] | None = None,
                 grids: list[dict[str, str]] | None = None) -> None:
        self.params = params or {}
        self.grids = grids or [{}]

    def setup(
        self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig
    ) -> None:
        self.hydra_context = hydra_context
        self.config = config
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=task_function, config=config
        )
        from hydra._internal.core_plugins.basic_launcher import BasicLauncher

        if isinstance(self.launcher, BasicLauncher):
            raise ConfigError(
                "hydra/launcher: basic is not supported: it would compose, run and store "
                "the cells one Hydra job at a time, and stop at the first failed cell; "
                "leave hydra/launcher out (executor=serial runs the sweep in this process)")

    def sweep(self, arguments: list[str]) -> Any:
        from sweep.plan import plan  # the engine loads when a sweep runs, not on import

        composer = CellComposer(self.hydra_context, self.config)
        grid = Grids([Grid(composer, [f"{key}={value}" for key, value in
                                      {**self.params, **part}.items()] + list(arguments))
                      for part in self.grids])
        if isinstance(self.launcher, DpsweepLauncher):
            return raise_for_failures(run_configs(grid))
        plan(grid)  # every cell is valid before the other launcher starts a job
        returns = self.launcher.launch(list(grid.overrides()), initial_job_idx=0)
        failed = sum(r.status == JobStatus.FAILED for r in returns)
        if failed:
            raise CellsFailed(f"{failed} of {len(returns)} jobs failed")
        return returns
