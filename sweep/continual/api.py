"""What the analysis of the continual family reads of it (:mod:`analysis.studies.continual`).

The study of the family imports nothing else from :mod:`sweep.continual`: these are the
names its tables and figures are ordered by, and the facts of the family's options and
cell columns that its statistics need.

- :data:`METHODS`: the methods in the paper's order, the running mean first;
  :data:`PRIVATE` those that are user-level ε-DP (all but the running mean).
- :data:`ORDERS`: the arrival orders in the order the study shows them.
- :data:`DERIVED`: the cell columns the family derives from a cell's options and method
  (L, ε₀, μ̃ and whether |μ̃ − μ| <= 1/√m), beyond the options themselves.
- :func:`default_prior_offset`: μ̃ − μ where a cell leaves ``prior_offset`` unset.
"""

from __future__ import annotations

from .config import METHODS, ORDERS, default_prior_offset
from .family import ContinualFamily

#: The methods that release μ̂_t under user-level ε-DP: every method but the running mean.
PRIVATE: tuple[str, ...] = tuple(m for m in METHODS if m != "non_private")
#: The cell columns the family adds to a cell's options (``ContinualFamily.columns``).
DERIVED: tuple[str, ...] = tuple(ContinualFamily.schema.constants)

__all__ = ["DERIVED", "METHODS", "ORDERS", "PRIVATE", "default_prior_offset"]
