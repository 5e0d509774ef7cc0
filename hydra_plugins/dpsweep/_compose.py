"""Composing the configuration of many cells cheaply.

Hydra composes every job from its defaults list, which costs tens of milliseconds. Cells
of a grid differ mostly in plain values, so the composer builds the configuration once
per distinct set of config-group overrides (``mechanism=pm2``, ``+experiment=fig3``),
types each distinct ``key=value`` override once against it with Hydra's own override
semantics (so the structured config still checks types), and then assembles each cell
from plain containers. Overrides that add, delete or merge mappings, and configurations
with interpolations, take Hydra's full path for every cell.

The plugin's modules load this one only when a sweep runs (Hydra's plugin scan skips a
module whose name starts with an underscore); the private Hydra and OmegaConf calls it
needs are those of :mod:`sweep.hydra_compat`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override, OverrideType
from hydra.types import HydraContext
from omegaconf import DictConfig, OmegaConf, ValueNode, open_dict
from omegaconf.errors import OmegaConfBaseException

from sweep.hydra_compat import apply_overrides, child_node, plain_override

_UNSET = object()
_INTEGER = re.compile(r"([A-Za-z_][\w.]*)=(-?(?:0|[1-9]\d*))")


class CellComposer:
    """Resolved task configurations (without ``hydra``) from lists of override strings."""

    def __init__(self, hydra_context: HydraContext, config: DictConfig) -> None:
        self.loader = hydra_context.config_loader
        self.config = config
        self.parser = OverridesParser.create(config_loader=self.loader)
        self.parsed: dict[str, tuple[Override, bool]] = {}
        self.groups: dict[str, frozenset[str]] = {}  # the config groups under a parent
        self.nodes: dict[tuple[tuple[str, ...], str], ValueNode | None] = {}
        # Per set of group overrides: the composed config, its resolved containers, and
        # whether plain values may be set into those containers directly.
        self.bases: dict[tuple[str, ...], tuple[DictConfig, dict[str, Any], bool]] = {}
        self.master_groups: Any = _UNSET
        self.values: dict[tuple[tuple[str, ...], str], Any] = {}
        if not HydraConfig.initialized():  # for ${hydra:...} interpolations
            HydraConfig.instance().set_config(config)

    def _parse(self, line: str) -> tuple[Override, bool]:
        """The parsed override and whether it selects a config group.

        ``key=<integer>`` (a ``range()`` sweep makes one per cell) is read without the
        grammar, which costs a third of a millisecond a line, and is not kept: a grid of
        10⁵ seeds would keep 10⁵ of them.
        """
        if line in self.parsed:
            return self.parsed[line]
        plain = _INTEGER.fullmatch(line)
        if plain and not self._group(plain[1]):
            return plain_override(plain[1], int(plain[2]), line, self.loader), False
        if line not in self.parsed:
            override = self.parser.parse_override(line)
            group = override.package is not None or self._group(override.key_or_group)
            self.parsed[line] = override, group
        return self.parsed[line]

    def _group(self, key: str) -> bool:
        """Whether ``key`` names a config group (the groups under its parent looked up
        once: each lookup copies Hydra's config repository, tens of milliseconds)."""
        parent, _, name = key.rpartition("/")
        if parent not in self.groups:
            self.groups[parent] = frozenset(self.loader.list_groups(parent))
        return name in self.groups[parent]

    def _base(self, groups: tuple[str, ...]) -> tuple[DictConfig, dict[str, Any], bool]:
        if groups not in self.bases:
            full = (copy.deepcopy(self.config) if groups == self._master_groups()
                    else self.loader.load_sweep_config(self.config, list(groups)))
            with open_dict(full):
                del full["hydra"]
            resolved = OmegaConf.to_container(full, resolve=True)
            plain = resolved == OmegaConf.to_container(full, resolve=False)
            self.bases[groups] = full, resolved, plain  # type: ignore[assignment]
        return self.bases[groups]

    def _master_groups(self) -> tuple[str, ...] | None:
        """The group overrides of the configuration Hydra composed for the sweep, if it
        may serve as the base of the cells with those (None if not). It is composed with
        the command line's overrides but the sweeps; setting those plain values again in a
        cell changes nothing, so it saves one composition (about 0.1 s) unless one of them
        adds or deletes a key, which cannot be done twice."""
        if self.master_groups is _UNSET:
            fixed = [self._parse(line) for line in self.config.hydra.overrides.task]
            fixed = [(o, group) for o, group in fixed if not o.is_sweep_override()]
            simple = all(o.type == OverrideType.CHANGE for o, group in fixed if not group)
            self.master_groups = (tuple(o.input_line for o, group in fixed if group)
                                  if simple else None)
        return self.master_groups

    def _value(self, groups: tuple[str, ...], override: Override) -> Any:
        """The typed value a plain override sets, or ``_UNSET`` if it is not plain."""
        if isinstance(override.value(), int) and (value := self._scalar(groups, override)
                                                  ) is not _UNSET:
            return value  # cheap, and not kept (see _parse)
        key = (groups, override.input_line or "")
        if key not in self.values:
            self.values[key] = self._scalar(groups, override)
            if self.values[key] is _UNSET:
                config = copy.deepcopy(self._base(groups)[0])
                apply_overrides(config, [override])
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
        node = self._node(groups, override.key_or_group)
        if node is None:
            return _UNSET
        try:
            return node.validate_and_convert(value)
        except OmegaConfBaseException:
            return _UNSET  # the full path raises, with the key's context

    def _node(self, groups: tuple[str, ...], key: str) -> ValueNode | None:
        """The typed leaf ``key`` of the base config of ``groups`` (None if not a leaf)."""
        if (groups, key) not in self.nodes:
            parent, _, name = key.rpartition(".")
            base = self._base(groups)[0]
            container = OmegaConf.select(base, parent) if parent else base
            node = child_node(container, name) if isinstance(container, DictConfig) else None
            self.nodes[groups, key] = node if isinstance(node, ValueNode) else None
        return self.nodes[groups, key]

    def compose(self, overrides: Sequence[str]) -> dict[str, Any]:
        """The resolved configuration of one cell, as plain containers."""
        parsed = [self._parse(line) for line in overrides]
        groups = tuple(o.input_line for o, group in parsed if group)
        values = [o for o, group in parsed if not group]
        base, resolved, plain = self._base(groups)
        typed = [self._value(groups, o) for o in values] if plain else []
        if not plain or any(v is _UNSET for v in typed):
            config = copy.deepcopy(base)
            apply_overrides(config, values)
            return OmegaConf.to_container(config, resolve=True)  # type: ignore[return-value]
        # The cells share the base's unchanged values (nothing downstream changes a
        # configuration); only the mappings on an override's path are copied.
        cell = dict(resolved)
        for override, value in zip(values, typed, strict=True):
            *path, name = override.key_or_group.split(".")
            node = cell
            for part in path:
                node[part] = dict(node[part])
                node = node[part]
            node[name] = value if isinstance(value, int | float | str | None) else (
                copy.deepcopy(value))
        return cell
