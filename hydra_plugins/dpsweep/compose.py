"""Composing the configuration of many cells cheaply.

Hydra composes every job from its defaults list, which costs tens of milliseconds. Cells
of a grid differ mostly in plain values, so the composer builds the configuration once
per distinct set of config-group overrides (``mechanism=pm2``, ``+experiment=fig3``) and
applies each cell's value overrides to a copy with Hydra's own override semantics.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override
from hydra.types import HydraContext
from omegaconf import DictConfig, OmegaConf, open_dict


class CellComposer:
    """Resolved task configurations (without ``hydra``) from lists of override strings."""

    def __init__(self, hydra_context: HydraContext, config: DictConfig) -> None:
        self.loader = hydra_context.config_loader
        self.config = config
        self.parser = OverridesParser.create(config_loader=self.loader)
        self.parsed: dict[str, tuple[Override, bool]] = {}
        self.bases: dict[tuple[str, ...], DictConfig] = {}
        if not HydraConfig.initialized():  # for ${hydra:...} interpolations
            HydraConfig.instance().set_config(config)

    def _parse(self, line: str) -> tuple[Override, bool]:
        """The parsed override and whether it selects a config group."""
        if line not in self.parsed:
            override = self.parser.parse_override(line)
            repository = self.loader.repository  # type: ignore[attr-defined]
            group = override.package is not None or repository.group_exists(
                override.key_or_group
            )
            self.parsed[line] = override, group
        return self.parsed[line]

    def _base(self, groups: tuple[str, ...]) -> DictConfig:
        if groups not in self.bases:
            full = self.loader.load_sweep_config(self.config, list(groups))
            with open_dict(full):
                del full["hydra"]
            self.bases[groups] = full
        return self.bases[groups]

    def compose(self, overrides: Sequence[str]) -> dict[str, Any]:
        """The resolved configuration of one cell, as plain containers."""
        parsed = [self._parse(line) for line in overrides]
        groups = tuple(o.input_line for o, group in parsed if group)
        config = copy.deepcopy(self._base(groups))
        ConfigLoaderImpl._apply_overrides_to_config([o for o, group in parsed if not group], config)
        return OmegaConf.to_container(config, resolve=True)  # type: ignore[return-value]
