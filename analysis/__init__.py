"""Loading, aggregation and seaborn figures over sweep results.

>>> from analysis import summaries, curves, FIGURES
>>> summary = summaries("results", mechanism="pm1")   # filters applied while reading
>>> grid = curves(summary)            # every curve one cell; what varies set out in panels
>>> print(grid.caption)               # what it shows
>>> FIGURES["fig2_left"].draw(summary)                 # a paper figure

``python -m analysis report RESULTS_DIR --out OUT_DIR`` draws everything the results
allow; ``python -m analysis figure NAME RESULTS_DIR --out STEM`` draws one figure;
``python -m analysis reproduce ROOT --out docs`` and ``python -m analysis continual ROOT
--out docs`` render the documents (:mod:`analysis.document`). Each family's figures, views
and document section are its study's (:mod:`analysis.study`, :mod:`analysis.studies`).

Each name is imported from its module when first used: reading results
(``from analysis import load, summaries``) does not pay for the plotting stack
(matplotlib, seaborn, scipy), which loads with the first figure.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

#: Each exported name and the module that defines it.
EXPORTS: dict[str, str] = {
    "FIGURES": "analysis.figures",
    "VIEWS": "analysis.figures",
    "add_scheme": "analysis.labels",
    "name": "analysis.labels",
    "load": "analysis.load",
    "summaries": "analysis.load",
    "summarize": "analysis.load",
    "swept": "analysis.load",
    "MissingData": "analysis.plot",
    "SharedCurve": "analysis.plot",
    "curves": "analysis.plot",
    "save": "analysis.plot",
    "report": "analysis.reporting",
    "register": "analysis.study",
}

__all__ = sorted(EXPORTS)


def __getattr__(name: str) -> Any:
    """An exported name, imported from its module on first use (then kept here)."""
    if name not in EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *EXPORTS})


class _Package(types.ModuleType):
    """This package, whose exported names win over its submodules of the same name."""

    def __setattr__(self, name: str, value: Any) -> None:
        # Importing a submodule binds it on the package under its own name: ``load`` is
        # a function of the module of the same name, which that would hide.
        if isinstance(value, types.ModuleType) and EXPORTS.get(name) == value.__name__:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
