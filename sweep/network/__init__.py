"""Differentially private distributed estimation and learning on networks.

The second simulation family of the platform: the consensus algorithms of Papachristou &
Rahimian, "Differentially Private Distributed Estimation and Learning" (offline MVUE,
Algorithms 1 and 3; online learning, Algorithms 2, 4 and 5), under Signal DP and Network
DP, the paper's two ablations and the first-order baseline of Rizk, Vlaski & Sayed
(Appendix B). See :mod:`sweep.network.family` for the rows it produces.
"""

from .config import NetworkConfig

__all__ = ["NetworkConfig"]
