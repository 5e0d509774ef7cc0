"""Science components shared by the simulation families.

Each module does one job and knows nothing of any family's options:

* :mod:`~sweep.components.calibration`: sensitivities and noise calibrations, the
  Private-ColME lemmas, the classic and analytic Gaussian mechanisms, the Laplace
  mechanism and the smooth-sensitivity calibrations of the network paper;
* :mod:`~sweep.components.noise`: noise kinds and compiled draws from a
  :class:`numpy.random.Generator`;
* :mod:`~sweep.components.tree`: the binary (tree) mechanism over an array of levels
  (PM-II of Private-ColME, the continual counter of Chan, Shi & Song);
* :mod:`~sweep.components.graphs`: communication graphs, consensus weights, their spectrum,
  and the nested ``graph`` option group :class:`~sweep.components.graphs.GraphConfig`.

:mod:`~sweep.components.graphs` imports networkx and scipy only when it builds a graph, so
a family's options may hold a :class:`~sweep.components.graphs.GraphConfig` and still
validate without them.
"""
