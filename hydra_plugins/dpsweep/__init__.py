"""Hydra plugins of the dpsweep platform: a grid sweeper and a Ray launcher.

Hydra discovers them in the ``hydra_plugins`` namespace package; select them with
``hydra/sweeper=dpsweep`` and ``hydra/launcher=dpsweep`` (conf/config.yaml does).
"""
