"""The work of the platform's sweeper and launcher (:mod:`.plugins`), with the engine.

Imported only when a sweep runs: Hydra's plugin scan, which every Hydra app pays for,
skips a module whose name starts with an underscore.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override
from hydra.core.utils import JobReturn, JobStatus
from hydra.errors import HydraException
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext
from omegaconf import DictConfig

from sweep.cli import CellsFailed, raise_for_failures, run_configs
from sweep.errors import ConfigError
from sweep.hydra_compat import is_basic_launcher
from sweep.plan import Layout, make_cell, plan

from ._compose import CellComposer


class Grid:
    """The cells of a grid: the product of each key's values, as Hydra's basic sweeper
    expands it. :meth:`layout` gives them to the planner without composing a cell: one
    configuration per option set (every key but ``seed``) and the seeds as an array."""

    def __init__(self, composer: CellComposer, lines: list[str]) -> None:
        parser = OverridesParser.create(config_loader=composer.loader)
        choices: dict[str, list[str] | Override] = {}
        seeds: list[Any] | None = None
        for override in parser.parse_overrides(lines):
            key = override.get_key_element()
            if override.is_sweep_override() and not override.is_discrete_sweep():
                raise HydraException(f"{key}: only lists, range() and glob() sweeps are "
                                     "supported; got an interval")
            if key == "seed":  # typed as Hydra's grammar reads them; lines only if asked
                seeds = (list(override.sweep_iterator()) if override.is_sweep_override()
                         else [override.value()])
                choices[key] = override
            elif override.is_sweep_override():
                choices[key] = [f"{key}={value}" for value in override.sweep_string_iterator()]
            else:
                choices[key] = [f"{key}={override.get_value_element_as_str()}"]
        self.composer = composer
        self.keys = list(choices)
        self.choices = list(choices.values())
        self.seeds = seeds

    def overrides(self) -> Iterator[list[str]]:
        return (list(job) for job in itertools.product(*map(_lines, self.choices)))

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self.composer.compose(job) for job in self.overrides())

    def __len__(self) -> int:
        return math.prod(len(self.seeds) if isinstance(c, Override) else len(c)
                         for c in self.choices)

    def layout(self) -> Layout:
        """The grid's option sets, composed once each, and each cell's set and seed, in
        the product's order (the last key varying fastest)."""
        at = self.keys.index("seed") if self.seeds is not None else None
        other = [values for i, values in enumerate(self.choices) if i != at]
        configs = [self.composer.compose(list(job)) for job in itertools.product(*other)]
        shape = [len(self.seeds) if i == at else len(c) for i, c in enumerate(self.choices)]
        index = np.unravel_index(np.arange(len(self)), shape)
        sets = (np.ravel_multi_index([ix for i, ix in enumerate(index) if i != at],
                                     [n for i, n in enumerate(shape) if i != at])
                if len(other) else np.zeros(len(self), np.intp))
        own = np.array([config.get("seed", 0) for config in configs] or [0], dtype=object)
        seeds = np.array(self.seeds, dtype=object)[index[at]] if at is not None else own[sets]
        return Layout(configs, sets, seeds)


def _lines(choice: list[str] | Override) -> list[str]:
    """A key's override lines; the seed's are written only when asked."""
    if isinstance(choice, list):
        return choice
    values = (choice.sweep_string_iterator() if choice.is_sweep_override()
              else [choice.get_value_element_as_str()])
    return [f"{choice.get_key_element()}={value}" for value in values]


class Grids:
    """The union of several :class:`Grid`, in order (``hydra.sweeper.grids``)."""

    def __init__(self, grids: list[Grid]) -> None:
        self.grids = grids

    def overrides(self) -> Iterator[list[str]]:
        return itertools.chain.from_iterable(g.overrides() for g in self.grids)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return itertools.chain.from_iterable(iter(g) for g in self.grids)

    def layout(self) -> Layout:
        parts = [grid.layout() for grid in self.grids]
        offsets = np.cumsum([0] + [len(p.configs) for p in parts])
        return Layout([c for p in parts for c in p.configs],
                      np.concatenate([p.sets + o for p, o in zip(parts, offsets, strict=False)]),
                      np.concatenate([p.seeds for p in parts]))


def launch(hydra_context: HydraContext, config: DictConfig,
           job_overrides: Sequence[Sequence[str]]) -> list[JobReturn]:
    """The platform's launcher: the jobs run as one sweep; each job's return value is its
    cell id, or the error of its failed cell."""
    composer = CellComposer(hydra_context, config)
    configs = [composer.compose(list(overrides)) for overrides in job_overrides]
    failed = set(run_configs(configs).failed)
    returns = []
    for overrides, resolved in zip(job_overrides, configs, strict=True):
        cell_id = make_cell(resolved).cell_id
        error = CellsFailed(f"cell {cell_id} failed") if cell_id in failed else None
        job = JobReturn(overrides=list(overrides),
                        status=JobStatus.FAILED if error else JobStatus.COMPLETED)
        job.return_value = error or cell_id
        returns.append(job)
    return returns


def check_launcher(launcher: Launcher) -> None:
    """Refuse Hydra's basic launcher before any work (see :mod:`.plugins`)."""
    if is_basic_launcher(launcher):
        raise ConfigError(
            "hydra/launcher: basic is not supported: it would compose, run and store "
            "the cells one Hydra job at a time, and stop at the first failed cell; "
            "leave hydra/launcher out (executor=serial runs the sweep in this process)")


def sweep(hydra_context: HydraContext, config: DictConfig, grids: list[dict[str, str]],
          arguments: list[str], launcher: Launcher | None) -> Any:
    """The platform's sweeper: the union of ``grids`` (each a map of keys to values,
    crossed with ``arguments``) as one sweep, or, given another ``launcher``, as one job a
    cell of it once every cell is valid."""
    composer = CellComposer(hydra_context, config)
    grid = Grids([Grid(composer, [f"{key}={value}" for key, value in part.items()]
                       + list(arguments)) for part in grids])
    if launcher is None:
        return raise_for_failures(run_configs(grid))
    plan(grid)  # every cell is valid before the other launcher starts a job
    returns = launcher.launch(list(grid.overrides()), initial_job_idx=0)
    failed = sum(r.status == JobStatus.FAILED for r in returns)
    if failed:
        raise CellsFailed(f"{failed} of {len(returns)} jobs failed")
    return returns
