"""What the analysis of Private-ColME reads from the family: the configuration of a
cell, the exact baselines and the noise scale.

- :class:`ColmeConfig` and :data:`INFERRED_FORMS`: a cell's options, validated, and the
  readings of eq. (16) in the order the figures show them;
- :func:`oracle_mse`: Prop. 3 (RR) and Remark 3 (rRR), the MSE of Algorithm 1 with an
  oracle class estimator;
- :func:`member_variances`: Var[T_{ℓ→a}] of a class's members (Appendix A), with the
  first release's share;
- :func:`sigma_dp`: the standard deviation of the noise on every p-sum (Sec. IV).

The study (:mod:`analysis.studies.colme`) imports nothing else from the family.
"""

from .baselines import member_variances, oracle_mse
from .config import INFERRED_FORMS, ColmeConfig
from .privacy import sigma_dp

__all__ = ["INFERRED_FORMS", "ColmeConfig", "member_variances", "oracle_mse", "sigma_dp"]
