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

Hydra imports every plugin module whenever any Hydra app starts, so this module imports
only Hydra: the work is in :mod:`._core`, imported when a sweep runs (as Hydra's Ray
launcher does; Hydra's scan skips a module whose name starts with an underscore). Hydra
loads plugin modules before registering them in ``sys.modules``, so this module must not
use ``from __future__ import annotations`` (dataclasses need real annotations).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.core.plugins import Plugins
from hydra.core.utils import JobReturn
from hydra.plugins.launcher import Launcher
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig


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
        from . import _core

        return _core.launch(self.hydra_context, self.config, job_overrides)


class DpsweepSweeper(Sweeper):
    """Expands the grid, validates every cell, then runs them (see the module docstring)."""

    def __init__(self, params: dict[str, str] | None = None,
                 grids: list[dict[str, str]] | None = None) -> None:
        self.params = params or {}
        self.grids = grids or [{}]

    def setup(
        self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig
    ) -> None:
        from . import _core

        self.hydra_context = hydra_context
        self.config = config
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=task_function, config=config
        )
        _core.check_launcher(self.launcher)  # before any work

    def sweep(self, arguments: list[str]) -> Any:
        from . import _core

        ours = isinstance(self.launcher, DpsweepLauncher)
        return _core.sweep(self.hydra_context, self.config,
                           [{**self.params, **part} for part in self.grids], arguments,
                           launcher=None if ours else self.launcher)
