"""Sweeps for differentially-private collaborative mean estimation.

Each simulation family lives in its own subpackage and is a pure function from a
configuration to a tidy :class:`pandas.DataFrame`; :mod:`sweep.colme` is Private-ColME.
"""

__version__ = "0.1.0"
