"""Private-ColME (Algorithm 1 of the Private-ColME paper) as a simulation family.

:func:`simulate` runs one configuration and returns a tidy :class:`pandas.DataFrame`.
"""

from ..errors import ConfigError
from .config import ColmeConfig, DecisionConfig
from .simulate import BASELINES, simulate, tabulate

__all__ = ["BASELINES", "ColmeConfig", "ConfigError", "DecisionConfig", "simulate", "tabulate"]
