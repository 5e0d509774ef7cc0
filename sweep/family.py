"""Simulation families: what the engine runs, and how it finds them by name.

A family is a pure function from options to a tidy table. It knows nothing of Hydra, Ray
or Parquet; the engine plans, runs and stores its cells. Adding a family means writing
one object that satisfies :class:`Family` and naming it in :data:`FAMILIES` (or passing
its import path ``module:attribute`` as the ``family`` key); the engine does not change.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from .errors import ConfigError

#: Built-in families by name, as import paths so that naming one imports only it.
FAMILIES: dict[str, str] = {
    "colme": "sweep.colme.family:FAMILY",
    "network": "sweep.network.family:FAMILY",
}


class Family(Protocol):
    """The interface between a simulation family and the engine.

    ``prepare`` validates; everything after it may assume valid input. The prepared value
    is sent to workers, so it must pickle.
    """

    name: str
    #: Dataclass whose fields are the family's options, with their defaults; the command
    #: line's schema is derived from it (:mod:`sweep.schema`).
    options: type
    #: The result columns that are measurements (they vary within a cell, like ``method``,
    #: ``source``, ``replicate`` and ``t``); the stored files mark them, so readers know
    #: them without importing the family.
    metrics: tuple[str, ...]

    def prepare(self, options: Mapping[str, Any], replicates: int) -> Any:
        """Validated, immutable form of ``options``; :class:`ConfigError` on bad input."""

    def identity(self, prepared: Any) -> dict[str, Any]:
        """Every option that can change a result, JSON-serializable: hashed into the cell id."""

    def columns(self, prepared: Any) -> dict[str, Any]:
        """Option columns repeated on every result row (flat names, scalar values)."""

    def cost(self, prepared: Any) -> float:
        """Estimated seconds to simulate one replicate, for sizing tasks."""

    def has_analytic(self, prepared: Any) -> bool:
        """Whether the table has rows that do not depend on replicates."""

    def run(
        self,
        prepared: Any,
        seeds: Sequence[np.random.SeedSequence],
        replicate_ids: Sequence[int],
        analytic: bool,
    ) -> pd.DataFrame:
        """Rows of the given replicates (one per seed), plus analytic rows if asked.

        Must be deterministic in its arguments and must not depend on which other
        replicates are simulated, so that blocks of replicates concatenate to the table
        of the whole cell. Columns: ``method``, ``source``, ``replicate``, ``t``, the
        family's :attr:`metrics` and every column of :meth:`columns`.
        """


def with_constants(frame: pd.DataFrame, columns: Mapping[str, Any]) -> pd.DataFrame:
    """``frame`` with one more column per item of ``columns``, each repeating its value.

    Built in one step: adding columns one at a time costs pandas a copy each, which
    dominates the time of small cells.
    """
    return pd.concat([frame, pd.DataFrame(dict(columns), index=frame.index)], axis=1)


def get_family(spec: str) -> Family:
    """The family named ``spec``: a key of :data:`FAMILIES` or ``module:attribute``."""
    path = FAMILIES.get(spec, spec)
    module_name, sep, attribute = path.partition(":")
    if not sep:
        raise ConfigError(
            f"family: must be one of {', '.join(FAMILIES)} or module:attribute; got {spec!r}"
        )
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise ConfigError(f"family: cannot load {spec!r} ({error})") from None
