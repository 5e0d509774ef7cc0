"""Hydra plugins of the dpsweep platform: a grid sweeper and a Ray launcher.

Hydra discovers them in the ``hydra_plugins`` namespace package, importing every module
whose name does not start with an underscore when any Hydra app starts: those import
only Hydra, and the engine loads when a sweep runs. Select them with
``hydra/sweeper=dpsweep`` and ``hydra/launcher=dpsweep`` (conf/config.yaml does).
"""
