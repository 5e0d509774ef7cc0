"""Composing the configuration of many cells cheaply.

Hydra composes every job from its defaults list, which costs tens of milliseconds. Cells
of a grid differ mostly in plain values, so the composer builds the configuration once
per distinct set of config-group overrides (``mechanism=pm2``, ``+experiment=fig3``),
types each distinct ``key=value`` override once against it with Hydra's own override
semantics (so the structured config still checks types), and then assembles each cell
from plain containers. Overrides that add, delete or merge mappings, and configurations
with interpolations, take Hydra's full path for every cell.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override, OverrideType
from hydra.types import HydraContext
from omegaconf import DictConfig, OmegaConf, ValueNode, open_dict
from omegaconf.errors import OmegaConfBaseException

_UNSET = object()


class CellComposer:
    """Resolved task configurations (without ``hydra``) from lists of override strings."""

    def __init__(self, hydra_context: HydraContext, config: DictConfig) -> None:
        self.loader = hydra_context.config_loader
        self.config = config
        self.parser = OverridesParser.create(config_loader=self.loader)
        self.parsed: dict[str, tuple[Override, bool]] = {}
        # Per set of group overrides: the composed config, its resolved containers, and
        # whether plain values may be set into those containers directly.
        self.bases: dict[tuple[str, ...], tuple[DictConfig, dict[str, Any], bool]] = {}
        self.values: dict[tuple[tuple[str, ...], str], Any] = {}
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

    def _base(self, groups: tuple[str, ...]) -> tuple[DictConfig, dict[str, Any], bool]:
        if groups not in self.bases:
            full = self.loader.load_sweep_config(self.config, list(groups))
            with open_dict(full):
                del full["hydra"]
            resolved = OmegaConf.to_container(full, resolve=True)
            plain = resolved == OmegaConf.to_container(full, resolve=False)
            self.bases[groups] = full, resolved, plain  # type: ignore[assignment]
        return self.bases[groups]

    def _value(self, groups: tuple[str, ...], override: Override) -> Any:
        """The typed value a plain override sets, or ``_UNSET`` if it is not plain."""
        key = (groups, override.input_line or "")
        if key not in self.values:
            self.values[key] = self._scalar(groups, override)
            if self.values[key] is _UNSET:
                config = copy.deepcopy(self._base(groups)[0])
                ConfigLoaderImpl._apply_overrides_to_config([override], config)
                value = OmegaConf.select(config, override.key_or_group)
                if OmegaConf.is_config(value):
                    value = OmegaConf.to_container(value, resolve=True)
                simple = override.type == OverrideType.CHANGE and not isinstance(value, dict)
                self.values[key] = value if simple else _UNSET
        return self.values[key]

    def _scalar(self, groups: tuple[str, ...], override: Override) -> Any:
        """A scalar set on a typed leaf, converted by the schema's node (no config copy)."""
        value = override.value()
        if override.type != OverrideType.CHANGE or not isinstance(value, int | float | str) or (
            isinstance(value, str) and "${" in value
        ):
            return _UNSET
        parent, _, name = override.key_or_group.rpartition(".")
        base = self._base(groups)[0]
        container = OmegaConf.select(base, parent) if parent else base
        node = container._get_node(name) if isinstance(container, DictConfig) else None
        if not isinstance(node, ValueNode):
            return _UNSET
        try:
            return node.validate_and_convert(value)
        except OmegaConfBaseException:
            return _UNSET  # the full path raises, with the key's context

    def compose(self, overrides: Sequence[str]) -> dict[str, Any]:
        """The resolved configuration of one cell, as plain containers."""
        parsed = [self._parse(line) for line in overrides]
        groups = tuple(o.input_line for o, group in parsed if group)
        values = [o for o, group in parsed if not group]
        base, resolved, plain = self._base(groups)
        typed = [self._value(groups, o) for o in values] if plain else []
        if not plain or any(v is _UNSET for v in typed):
            config = copy.deepcopy(base)
            ConfigLoaderImpl._apply_overrides_to_config(values, config)
            return OmegaConf.to_container(config, resolve=True)  # type: ignore[return-value]
        cell = copy.deepcopy(resolved)
        for override, value in zip(values, typed, strict=True):
            *path, name = override.key_or_group.split(".")
            node = cell
            for part in path:
                node = node[part]
            node[name] = copy.deepcopy(value)
        return cell
