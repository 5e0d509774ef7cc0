"""Loading, aggregation and seaborn figures over sweep results.

>>> from analysis import summaries, curves, FIGURES
>>> summary = summaries("results", mechanism="pm1")   # filters applied while reading
>>> grid = curves(summary)            # every curve one cell; what varies set out in panels
>>> print(grid.caption)               # what it shows
>>> FIGURES["fig2_left"].draw(summary)                 # a paper figure

``python -m analysis report RESULTS_DIR --out OUT_DIR`` draws everything the results
allow; ``python -m analysis figure NAME RESULTS_DIR --out STEM`` draws one figure;
``python -m analysis continual ROOT --out docs`` renders ``docs/continual.md``, the study
of continual mean estimation (:mod:`analysis.studies.continual`).
"""

from .figures import FIGURES, VIEWS, class_errors, privacy_utility, ratio, time_to_target
from .labels import add_scheme, name
from .load import load, summaries, summarize, swept
from .plot import MissingData, SharedCurve, curves, save
from .report import report

__all__ = [
    "FIGURES", "VIEWS", "MissingData", "SharedCurve", "add_scheme", "class_errors", "curves",
    "load", "name", "privacy_utility", "ratio", "report", "save", "summaries", "summarize",
    "swept", "time_to_target",
]
