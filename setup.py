"""The packages, found rather than listed: a new family (``sweep/<name>/``) or study
(``analysis/studies/<name>/``) installs with no edit. Everything else is in pyproject.toml;
the configs in ``conf/`` install as ``sweep.conf`` (see its ``package-dir``), which no
discovery can place inside ``sweep``, so that one is named."""

from setuptools import find_namespace_packages, find_packages, setup

setup(packages=[*find_packages(include=["sweep", "sweep.*", "analysis", "analysis.*"]),
                *find_namespace_packages(include=["hydra_plugins", "hydra_plugins.*"],
                                         exclude=["*.__pycache__"]),
                "sweep.conf"])
