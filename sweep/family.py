"""Simulation families: what the engine runs, and how it finds them by name.

A family is a pure function from options to a tidy table. It knows nothing of Hydra, Ray
or Parquet; the engine plans, runs and stores its cells. Adding a family means writing
one object that satisfies :class:`Family`; nothing that exists is edited. It is found
(:func:`families`) where it is: a built-in one as ``FAMILY`` of ``sweep/<name>/family.py``,
one installed from another distribution by its entry point in the group
``dpsweep.families``, and any other by its import path ``module:attribute`` as the
``family`` key (:mod:`sweep.discovery`).
:func:`get_family` checks a family's declaration once, when it is first loaded;
:func:`sweep.testing.check_family` checks, on a small cell, what the engine assumes of its
cells (for a family's own tests).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .discovery import in_package, installed, plugins
from .errors import ConfigError, FamilyError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from .results import ResultSchema

#: The entry point group of families installed from other distributions.
ENTRY_POINTS = "dpsweep.families"


@functools.cache
def families() -> dict[str, str]:
    """Every family by name, as its import path (naming one imports only it): the
    installed ones, then the built-in ones, ``sweep/<name>/family.py``."""
    return plugins("sweep", "FAMILY", "family", ENTRY_POINTS)


@functools.cache
def _path(spec: str) -> str:
    """The import path of the family named ``spec`` (entry points read only when it is
    not built in), or ``spec`` itself."""
    return (in_package("sweep", "FAMILY", "family").get(spec)
            or installed(ENTRY_POINTS).get(spec, spec))


class Family(Protocol):
    """The interface between a simulation family and the engine.

    ``prepare`` validates; everything after it may assume valid input. The prepared value
    is sent to workers, so it must pickle.
    """

    name: str
    #: The version of the family's results: hashed into its cells' ids, so that bumping
    #: it (after a fix that changes results) recomputes this family's cells only.
    version: int
    #: Dataclass whose fields are the family's options, with their defaults; the command
    #: line's schema is derived from it (:mod:`sweep.schema`).
    options: type
    #: What the rows vary by and what they measure (:class:`sweep.results.ResultSchema`);
    #: the stored files mark these roles, so readers know them without the family.
    schema: ResultSchema

    def prepare(self, options: Mapping[str, Any], replicates: int) -> Any:
        """Validated, immutable form of ``options``; :class:`ConfigError` on bad input."""

    def identity(self, prepared: Any) -> dict[str, Any]:
        """Every option that can change a result, JSON-serializable: hashed into the cell id."""

    def columns(self, prepared: Any) -> dict[str, Any]:
        """The cell's option columns (flat names, scalar values); the engine repeats them
        on every row."""

    def cost(self, prepared: Any) -> float:
        """Estimated seconds to simulate one replicate, for sizing tasks.

        A family may also define ``shared(prepared) -> Mapping[Hashable, float]``: work a
        process does once and keeps for every cell that needs it (a graph's
        eigendecomposition), by key, and its seconds; the planner counts each key once,
        not once per cell (:func:`shared_work`).
        """

    def has_analytic(self, prepared: Any) -> bool:
        """Whether the table has rows that do not depend on replicates."""

    def run(
        self,
        prepared: Any,
        seeds: Sequence[np.random.SeedSequence],
        replicate_ids: Sequence[int],
        analytic: bool,
    ) -> pd.DataFrame | Mapping[str, Any]:
        """Rows of the given replicates (one per seed), plus analytic rows if asked.

        Must be deterministic in its arguments and must not depend on which other
        replicates are simulated, so that blocks of replicates concatenate to the table
        of the whole cell. Columns: exactly the index and metrics of :attr:`schema`, as a
        DataFrame or a mapping of column arrays; the engine adds the constant columns.
        """


def _renames(family: str) -> Mapping[int, Mapping[str, str]]:
    """``family``'s declared ``renamed`` (none for a family that is not found)."""
    try:
        return getattr(get_family(family), "renamed", {})
    except ConfigError:
        return {}


def current_names(family: str, version: int) -> dict[str, str]:
    """The columns of results of ``family`` made by ``version`` that a later version
    renamed, and their names now (old: new).

    A family may declare ``renamed``: by version, the columns it renamed (old: new, all
    at once, so that two names may swap). A file of an earlier version is read under the
    names of the newest (:func:`analysis.load`). An unknown family renames nothing.
    """
    steps = _renames(family)
    names: dict[str, str] = {}
    for step in sorted(v for v in steps if v > version):
        moved = steps[step]
        names = {old: moved.get(new, new) for old, new in names.items()}
        names.update({old: new for old, new in moved.items() if old not in names.values()
                      and old not in names})
    return {old: new for old, new in names.items() if old != new}


def renamed_option(family: str, name: str) -> str | None:
    """"``name``: renamed ``new`` in version N" if ``family`` renamed its column (and
    option) ``name``, for the error of an unknown option; else None."""
    steps = _renames(family)
    if not steps:
        return None
    from .results import option_columns

    current = option_columns(get_family(family).options)
    for version in sorted(steps, reverse=True):
        if name in steps[version] and name not in current:
            new = current_names(family, version - 1).get(name, steps[version][name])
            return (f"{name}: renamed {new} in version {version} of family {family} "
                    f"(use {new}=...)")
    return None


def shared_work(family: Family, prepared: Any) -> Mapping[Any, float]:
    """The work, by key, and its seconds, that a process does once for all the cells
    that need it (the family's optional ``shared``; none by default)."""
    shared = getattr(family, "shared", None)
    return shared(prepared) if shared is not None else {}


@functools.cache
def get_family(spec: str) -> Family:
    """The family named ``spec``: a name of :func:`families` or ``module:attribute``.

    Its declaration is checked on first load: :class:`~sweep.errors.FamilyError` if it
    lacks a member, declares a column twice, or has an option named like a metric or a
    column the engine or the analysis adds (``n``, ``seed``, ``cell_id``, a band, ...).
    """
    path = _path(spec)
    module_name, sep, attribute = path.partition(":")
    if not sep:
        raise ConfigError(
            f"family: must be one of {', '.join(families())} or module:attribute; "
            f"got {spec!r}")
    try:
        family = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise ConfigError(f"family: cannot load {spec!r} ({error})") from None
    if path != spec and getattr(family, "name", spec) != spec:
        raise FamilyError(f"family {spec}: is named {family.name!r}; a family found by the "
                          "name of its folder or entry point must have that name")
    check_declaration(spec, family)
    return family


def check_declaration(spec: str, family: Family) -> None:
    """:class:`~sweep.errors.FamilyError` if ``family`` does not declare what the engine
    needs (see :func:`get_family`). What its cells must do besides is checked by
    :func:`sweep.testing.check_family`."""
    for member in ("version", "options", "schema", "prepare", "identity", "columns", "cost",
                   "has_analytic", "run"):
        if not hasattr(family, member):
            raise FamilyError(f"family {spec}: has no {member!r} (see sweep.family.Family)")
    if isinstance(family.version, bool) or not isinstance(family.version, int):
        raise FamilyError(f"family {spec}: version must be an integer; got "
                          f"{family.version!r}")
    renamed = getattr(family, "renamed", {})
    if not isinstance(renamed, Mapping) or not all(
            isinstance(v, int) and 0 < v <= family.version and isinstance(names, Mapping)
            and all(isinstance(n, str) for pair in names.items() for n in pair)
            for v, names in renamed.items()):
        raise FamilyError(f"family {spec}: renamed must map versions 1 to {family.version} "
                          f"to the columns they renamed (old: new); got {renamed!r}")
    # Imported here: this module is read by every Hydra start (the platform's config
    # source names the families), which needs no Arrow.
    from .results import EXECUTION_KEYS, check_schema, option_columns

    check_schema(spec, family.schema)

    reserved = family.schema.reserved() | set(EXECUTION_KEYS)
    for name in option_columns(family.options):
        if name in reserved:
            raise FamilyError(f"family {spec}: option {name!r} collides with a result column "
                              "of that name (index, metric, engine or summary column); "
                              "rename the option")
