"""How the platform finds its plug-ins: where they are, never a list of them.

A built-in plug-in is a subpackage of a known package that holds a known module: a
family is ``sweep/<name>/family.py`` defining ``FAMILY``; a study is
``analysis/studies/<name>/`` defining ``STUDY``. Adding one adds files and edits none.
A plug-in installed from another distribution declares an entry point instead (groups
``dpsweep.families`` and ``dpsweep.studies``, ``name = "module:attribute"``): an entry
point would tie a built-in one to the package's metadata, which an editable install
reads only when it is installed again.

Finding them lists folders and imports nothing, so that the command line's help and a
bad key's error stay fast; entry points are read only when a name is not built in.
"""

from __future__ import annotations

import importlib.util
import pkgutil
from pathlib import Path


def in_package(package: str, attribute: str, module: str = "") -> dict[str, str]:
    """The import paths ``package.<name>[.module]:attribute`` of every public subpackage
    ``<name>`` of ``package`` that holds ``module`` (any subpackage if ``module`` is
    empty), by name, in alphabetical order."""
    spec = importlib.util.find_spec(package)
    found: dict[str, str] = {}
    for location in (spec.submodule_search_locations or []) if spec else []:
        for info in pkgutil.iter_modules([location]):
            if not info.ispkg or info.name.startswith("_"):
                continue
            if module and not (Path(location) / info.name / f"{module}.py").is_file():
                continue
            found[info.name] = f"{package}.{info.name}{'.' + module if module else ''}:{attribute}"
    return dict(sorted(found.items()))


def installed(group: str) -> dict[str, str]:
    """The entry points of ``group`` of every installed distribution, by name."""
    from importlib.metadata import entry_points

    return {point.name: point.value for point in entry_points(group=group)}


def plugins(package: str, attribute: str, module: str, group: str) -> dict[str, str]:
    """Every plug-in of a kind, by name: the installed ones, then the built-in ones (a
    built-in name wins)."""
    return {**installed(group), **in_package(package, attribute, module)}


__all__ = ["in_package", "installed", "plugins"]
