"""What the analysis of the decentralized family reads from it:

- :class:`DecentralizedConfig`: a cell's options, validated;
- :func:`sigma_dp`: the standard deviation of every p-sum's noise of the private
  releases;
- :func:`noise_radius`: the bound on a release's noise the test's radius adds.

The study imports nothing else from the family.
"""

from .config import DecentralizedConfig
from .kernel import noise_radius
from .privacy import sigma_dp

__all__ = ["DecentralizedConfig", "noise_radius", "sigma_dp"]
