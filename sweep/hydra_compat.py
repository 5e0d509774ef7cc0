"""Every private Hydra and OmegaConf API the platform uses, each behind one small function.

Neither library offers these services publicly; each is used the way Hydra's own code
uses it. They may change in any release, so they sit here and nowhere else, and
tests/test_hydra_compat.py pins each one: an upgrade that changes one fails there, naming
the API and the installed versions, rather than deep inside a sweep. A private API that
cannot be found raises :class:`PrivateApiError` with the same names.

Hydra's modules are imported when a function first needs them, not on import: the
command line's ``--help`` and the plugin's modules stay as light as Hydra itself.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator, Sequence
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

from omegaconf.errors import ValidationError
from omegaconf.nodes import IntegerNode

if TYPE_CHECKING:
    import argparse

    from hydra.core.config_loader import ConfigLoader
    from hydra.core.override_parser.types import Override
    from hydra.plugins.launcher import Launcher
    from omegaconf import DictConfig, Node


class PrivateApiError(RuntimeError):
    """A private Hydra or OmegaConf API the platform relies on is gone or changed."""


def versions() -> str:
    """The installed versions of the two libraries, as the errors name them."""
    return f"hydra-core {version('hydra-core')}, omegaconf {version('omegaconf')}"


def private(module: str, name: str) -> Any:
    """``module.name`` (``name`` may be dotted), or :class:`PrivateApiError` naming it."""
    try:
        found: Any = importlib.import_module(module)
        for part in name.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as error:
        raise PrivateApiError(f"{module}.{name} is gone in {versions()} ({error}); the "
                              "platform's sweeper needs it: see sweep/hydra_compat.py") from None
    return found


def apply_overrides(config: DictConfig, overrides: Sequence[Override]) -> None:
    """Apply parsed overrides to a composed ``config`` in place, with Hydra's semantics
    (``+``, ``++``, ``~``, the structured config's types): Hydra applies them only while
    it composes a whole configuration."""
    loader = private("hydra._internal.config_loader_impl", "ConfigLoaderImpl")
    loader._apply_overrides_to_config(list(overrides), config)


def plain_override(key: str, value: Any, line: str, loader: ConfigLoader) -> Override:
    """The override ``key=value`` of a plain value, as Hydra's grammar would parse
    ``line``, built without the grammar (which costs a third of a millisecond a line).

    Its value is the dataclass's private field ``_value``, which only the parser sets.
    """
    from hydra.core.override_parser.types import Override, OverrideType, ValueType

    if "_value" not in getattr(Override, "__dataclass_fields__", {}):
        raise PrivateApiError(f"hydra.core.override_parser.types.Override has no field "
                              f"_value in {versions()}: see sweep/hydra_compat.py")
    return Override(type=OverrideType.CHANGE, key_or_group=key, value_type=ValueType.ELEMENT,
                    _value=value, input_line=line, config_loader=loader)


def child_node(container: DictConfig, key: str) -> Node | None:
    """The node of ``container``'s own key ``key`` (not its value): OmegaConf's public
    API gives values only. An absent key is None, or, in a structured or struct-mode
    ``container``, OmegaConf's error naming the key."""
    try:
        get_node = container._get_node
    except AttributeError:
        raise PrivateApiError(f"omegaconf.DictConfig._get_node is gone in {versions()}: "
                              "see sweep/hydra_compat.py") from None
    return get_node(key)  # type: ignore[no-any-return]


def root_of(node: Node) -> Node:
    """The configuration ``node`` belongs to, from its root (OmegaConf's public API
    gives a node's parent only through its private root walk)."""
    try:
        get_root = node._get_root
    except AttributeError:
        raise PrivateApiError(f"omegaconf.Node._get_root is gone in {versions()}: "
                              "see sweep/hydra_compat.py") from None
    return get_root()  # type: ignore[no-any-return]


def is_basic_launcher(launcher: Launcher) -> bool:
    """Whether ``launcher`` is Hydra's basic launcher (which has no public name)."""
    basic = private("hydra._internal.core_plugins.basic_launcher", "BasicLauncher")
    return isinstance(launcher, basic)


def args_parser() -> argparse.ArgumentParser:
    """Hydra's own command-line parser (``-m``, ``--cfg``, ...), to read the arguments
    exactly as Hydra will."""
    return private("hydra._internal.utils", "get_args_parser")()  # type: ignore[no-any-return]


@contextlib.contextmanager
def one_repository_per_listing() -> Iterator[None]:
    """While the block runs, Hydra lists config groups (its ``--help``) from one copy of
    the config repository per listing, instead of one per group.

    For each group it lists, Hydra copies the whole repository, every config source
    and the ConfigStore: about a hundred copies for the platform's groups, which made
    ``--help`` take twice the start-up of a minimal Hydra app. A listing only reads its
    copy, so the copies of the same configuration and overrides are one.
    """
    loader = private("hydra._internal.config_loader_impl", "ConfigLoaderImpl")
    original = loader._parse_overrides_and_create_caching_repo
    copies: dict[tuple[int, str | None, tuple[str, ...]], Any] = {}

    def shared(self: Any, config_name: str | None, overrides: list[str]) -> Any:
        key = (id(self), config_name, tuple(overrides))
        if key not in copies:
            copies[key] = original(self, config_name, overrides)
        return copies[key]

    loader._parse_overrides_and_create_caching_repo = shared
    try:
        yield
    finally:
        loader._parse_overrides_and_create_caching_repo = original


class IntegralNode(IntegerNode):
    """An integer key that also takes an integral float (``t_max=1e4``) as that integer.

    OmegaConf's integer node refuses every float. This one converts 1e4 and 200.0, so
    they reach the family, and its cell id, as the int they spell, for an outside family
    too. It still refuses 1.5 and ``abc``, in one line worded as the families word theirs.
    It overrides OmegaConf's private conversion hook, the one place a node can convert
    (``validate_and_convert`` is its public wrapper), hence its place here.
    """

    def _validate_and_convert_impl(self, value: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        try:
            return super()._validate_and_convert_impl(value)
        except ValidationError:
            raise ValidationError("must be an integer; got $VALUE") from None

    def __deepcopy__(self, memo: dict[int, Any]) -> IntegralNode:
        # IntegerNode's copy would be an IntegerNode: Hydra copies the schema's nodes.
        copied = IntegralNode()
        self._deepcopy_impl(copied, memo)
        return copied
