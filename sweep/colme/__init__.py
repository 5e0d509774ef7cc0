"""Private-ColME (Algorithm 1 of the Private-ColME paper) as a simulation family.

``sweep.execute.simulate("colme", replicates, seed, **options)`` runs one configuration
and returns a tidy :class:`pandas.DataFrame`; :func:`tabulate` lays out given replicates.
"""

from ..errors import ConfigError
from .config import ColmeConfig, DecisionConfig
from .simulate import BASELINES, tabulate

__all__ = ["BASELINES", "ColmeConfig", "ConfigError", "DecisionConfig", "tabulate"]
