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

Reading results (``load``, ``summaries``) does not import the plotting stack: the other
names are imported when first used.
"""

from __future__ import annotations

import importlib
from typing import Any

# The data layer is what the package is for: imported with it (pandas and pyarrow).
from .load import load, summaries, summarize, swept

#: Where each name imported when first used lives.
EXPORTS = {
    "MissingData": "analysis.plot", "SharedCurve": "analysis.plot", "curves": "analysis.plot",
    "save": "analysis.plot",
    "add_scheme": "analysis.labels", "name": "analysis.labels",
    "FIGURES": "analysis.figures", "VIEWS": "analysis.figures",
    "report": "analysis.reporting",
    "register": "analysis.study",
    "class_errors": "analysis.studies.colme.figures",
    "privacy_utility": "analysis.studies.colme.figures",
    "ratio": "analysis.studies.colme.figures",
    "time_to_target": "analysis.studies.colme.figures",
}
__all__ = ["load", "summaries", "summarize", "swept", *EXPORTS]


def __getattr__(attribute: str) -> Any:
    if attribute not in EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")
    return getattr(importlib.import_module(EXPORTS[attribute]), attribute)


def __dir__() -> list[str]:
    return sorted({*globals(), *EXPORTS})
