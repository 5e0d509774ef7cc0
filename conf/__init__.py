"""The Hydra configuration of ``python -m sweep`` (see README.md here).

The directory sits at the repository's root and is installed as the package
``sweep.conf`` (``package-dir`` in pyproject.toml), so that every install, editable or
from a wheel, finds it at ``pkg://sweep.conf`` (:data:`sweep.cli.CONFIG_MODULE`).
"""
