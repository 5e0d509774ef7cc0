"""Hydra structured configs, derived from the dataclasses that define the options.

The simulators and the engine define their options once, as (frozen) dataclasses. This
module turns them into the mutable, OmegaConf-typed dataclasses Hydra validates against,
so a new option appears on the command line, with its type checked, without being
declared twice. An integer option also takes an integral float (``t_max=1e4``) as that
integer (:class:`~sweep.hydra_compat.IntegralNode`).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import types
import typing
from dataclasses import MISSING, dataclass, field
from typing import Any, Optional, Union

from .family import get_family
from .hydra_compat import IntegralNode
from .target import Target

#: Config group of the families' schemas (see conf/family/).
SCHEMA_GROUP = "schema"


@dataclass
class CellKeys:
    """The engine's own keys of a cell (the family's options come next to them):
    ``replicates`` is a count, or ``auto`` for the precision ``target``
    (:mod:`sweep.target`)."""

    family: str = "colme"
    replicates: Any = 20
    seed: int = 0
    target: Target = field(default_factory=Target)


def _omegaconf_type(hint: Any) -> Any:
    """The closest type OmegaConf supports: tuples become lists, other unions ``Any``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if dataclasses.is_dataclass(hint):
        return structured(hint)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return list[_omegaconf_type(args[0])]
    if origin in (Union, types.UnionType):
        others = [a for a in args if a is not type(None)]
        if len(others) == 1 and len(others) < len(args):
            return Optional[_omegaconf_type(others[0])]  # noqa: UP045 (OmegaConf needs it)
        return Any
    if origin is dict:
        return dict[_omegaconf_type(args[0]), _omegaconf_type(args[1])]
    return hint


def _plain(value: Any, hint: Any) -> Any:
    """A default value (of type ``hint``) as the structured config holds it: an integer
    option's as an :class:`IntegralNode`, which OmegaConf then uses as the key's node."""
    if dataclasses.is_dataclass(value):
        hints = typing.get_type_hints(type(value))
        fields = {f.name: _plain(getattr(value, f.name), hints[f.name])
                  for f in dataclasses.fields(value)}
        return structured(type(value))(**fields)
    if isinstance(value, tuple):
        return [_plain(v, Any) for v in value]
    kind = _omegaconf_type(hint)
    if kind in (int, Optional[int]):  # noqa: UP045 (as _omegaconf_type spells it)
        return IntegralNode(value, is_optional=kind is not int)
    return value


@functools.cache
def structured(*classes: type) -> type:
    """One mutable dataclass with the fields of ``classes``, typed for OmegaConf."""
    specs = []
    for cls in classes:
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            default = _plain(f.default if f.default is not MISSING else f.default_factory(),
                             hints[f.name])
            if isinstance(default, list | dict | IntegralNode) or dataclasses.is_dataclass(
                default
            ):
                spec = field(default_factory=functools.partial(copy.deepcopy, default))
            else:
                spec = field(default=default)
            specs.append((f.name, _omegaconf_type(hints[f.name]), spec))
    name = "".join(c.__name__ for c in classes) + "Schema"
    return dataclasses.make_dataclass(name, specs)


def dotted_keys(schema: type) -> list[str]:
    """The keys of a structured ``schema``, a nested group's as dotted keys
    (``graph.n_nodes``), as the command line spells them."""
    found = []
    for f in dataclasses.fields(schema):
        group = isinstance(f.type, type) and dataclasses.is_dataclass(f.type)
        nested = dotted_keys(f.type) if group else []
        found += [f"{f.name}.{key}" for key in nested] or [f.name]
    return found


@functools.cache
def family_schema(spec: str) -> type:
    """The schema of the family ``spec`` (a name or ``module:attribute``): the engine's
    keys and the family's options, typed and with their defaults.

    The platform's Hydra config source (``hydra_plugins/dpsweep/schemas.py``) serves it
    as ``/schema/<spec>``, so a family outside the package gets its schema exactly as a
    built-in one does.
    """
    from .plan import Execution  # not at the top: the engine (numpy) loads only here

    return structured(CellKeys, Execution, get_family(spec).options)
