"""What the analysis of the network family reads from it: a cell's configuration, the
noise calibration and the budget rules.

- :class:`NetworkConfig`: a cell's options (its readings declared as such:
  :func:`sweep.options.readings`);
- :func:`calibrate`: the consensus algorithms' noise (Thms 3.1, 4.1, 4.2);
- :func:`centralized` and :func:`waterfilling`: Appendix C's heterogeneous budgets,
  Prop. C.3 as printed and the optimum of (C.6).

The study (:mod:`analysis.studies.network`) imports nothing else from the family.
"""

from ..components.calibration import calibrate
from .budgets import centralized, waterfilling
from .config import NetworkConfig

__all__ = ["NetworkConfig", "calibrate", "centralized", "waterfilling"]
