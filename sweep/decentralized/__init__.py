"""Collaborative mean estimation on a sparse communication graph.

The fifth simulation family of the platform: C-ColME (consensus) and B-ColME (message
passing over D hops) of Galante, Neglia & Leonardi, "Scalable decentralized algorithms
for online personalized mean estimation" (AAAI 2025), as their public C++ code
implements them, with their oracles, the local and ideal baselines, and private
variants of this platform's own design (each agent releases its running mean through
Private-ColME's PM-I or PM-II; see :mod:`sweep.decentralized.privacy`). See
:mod:`sweep.decentralized.family` for the rows it produces and
:func:`sweep.decentralized.simulate.trajectories` to run given graphs and samples.
"""

from .config import DecentralizedConfig

__all__ = ["DecentralizedConfig"]
