"""Parameter sweeps of simulated differentially-private estimation algorithms.

The engine plans a grid of *cells* (:mod:`sweep.plan`: a family, its options, a replicate
count and a seed, with an id that hashes them), runs them in this process, on a pool of
worker processes or on Ray (:mod:`sweep.execute`) and keeps their rows in one resumable
Parquet dataset (:mod:`sweep.store`). What a cell computes is its *family*
(:class:`sweep.family.Family`), one subpackage each, found where it is
(:func:`sweep.family.families`: ``sweep/<name>/family.py``), never listed:

- :mod:`sweep.colme`: Private-ColME, collaborative online personalized mean estimation;
- :mod:`sweep.network`: distributed estimation and learning on networks;
- :mod:`sweep.continual`: continual mean estimation under user-level privacy;
- :mod:`sweep.inference`: distributed inference by exchanging noisy log-beliefs;
- :mod:`sweep.decentralized`: C-ColME and B-ColME, personalized mean estimation on a
  sparse graph.

A family from outside the package plugs in by an entry point of the group
``dpsweep.families``, or by its import path (``family=module:attribute``).
``python -m sweep`` is the command line (Hydra); the :mod:`analysis` package reads the
results into the papers' figures and reports.
"""

__version__ = "0.1.0"
