"""Errors the platform reports to its users in one line."""


class ConfigError(ValueError):
    """An option is unknown or outside its allowed range.

    The message is one line that starts with the option's name (``key: must be ...``).
    """


class StoreError(RuntimeError):
    """The results directory cannot be written (missing, unwritable or full).

    Nothing partial is left behind: the cells stored before the error stay, and a rerun
    resumes from them.
    """


class FamilyError(ConfigError):
    """A family breaks the engine's contract: its declaration, or the rows it returned.

    The message names the family and the offending column or option.
    """


class ClusterError(RuntimeError):
    """The Ray cluster ``ray.address`` names cannot be reached, or refuses this driver.

    The message is one line that names the address, the cause and its fix; nothing has
    been computed or stored.
    """
