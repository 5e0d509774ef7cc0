"""What the analysis of the network family reads from it: a cell's configuration, the
readings added after its first results, the noise calibration and the budget rules.

- :class:`NetworkConfig` and :data:`LATER_OPTIONS`: a cell's options, and those that
  results predating them lack (at their defaults, the paper's readings);
- :func:`calibrate`: the consensus algorithms' noise (Thms 3.1, 4.1, 4.2);
- :func:`centralized` and :func:`waterfilling`: Appendix C's heterogeneous budgets,
  Prop. C.3 as printed and the optimum of (C.6).

The study (:mod:`analysis.studies.network`) imports nothing else from the family.
"""

from ..components.calibration import calibrate
from .budgets import centralized, waterfilling
from .config import LATER_OPTIONS, NetworkConfig

__all__ = ["LATER_OPTIONS", "NetworkConfig", "calibrate", "centralized", "waterfilling"]
