"""The project's structure: no import cycles among its modules (every import statement
counts, at the top of a module or inside a function: a cycle broken by a late import is
still a tangle), the analysis reads a family only through its api module, only the store
knows the results' layout, no compiled function takes more than eight arguments, and every
view of the studies has a name of its own."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sweep", "analysis", "hydra_plugins")


def modules(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """The modules of ``packages`` under ``root`` by dotted name."""
    found = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def source(node: ast.ImportFrom, name: str, path: Path) -> str:
    """The absolute name of the module a ``from ... import`` of module ``name`` (at
    ``path``) reads."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    if not node.level:
        return node.module or ""
    parent = package.split(".")[:len(package.split(".")) - (node.level - 1)]
    return ".".join(parent + ([node.module] if node.module else []))


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules that ``name`` imports (``from package import module`` names
    the module, ``from module import function`` the module)."""
    targets = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            candidates = [[alias.name] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = source(node, name, path)
            candidates = [[f"{base}.{alias.name}", base] for alias in node.names]
        else:
            continue
        for options in candidates:
            target = next((c for c in options if c in known), None)
            if target and target != name:
                targets.add(target)
    return targets


def cycles(root: Path, packages: tuple[str, ...]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    known = modules(root, packages)
    edges = {name: imports(name, path, known) for name, path in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in edges[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while (member := stack.pop()) != node:
                component.append(member)
            component.append(node)
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_project_has_no_import_cycle() -> None:
    assert cycles(ROOT, PACKAGES) == []


def test_a_cycle_through_a_late_import_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from .sub import b\n")
    (package / "sub" / "b.py").write_text("def f():\n    from ..c import g\n")
    (package / "c.py").write_text("import pkg.a\n")
    (package / "d.py").write_text("from . import a\n")  # imports into the cycle: not in it
    assert cycles(tmp_path, ("pkg",)) == [["pkg.a", "pkg.c", "pkg.sub.b"]]


#: The engine modules of sweep that any reader of results may use (``sweep.cli`` for where
#: the presets are, :data:`sweep.cli.CONFIG_MODULE`; ``sweep.target`` for what a preset's
#: ``replicates=auto`` means).
ENGINE = {"sweep.family", "sweep.results", "sweep.store", "sweep.errors", "sweep.cli",
          "sweep.options", "sweep.discovery", "sweep.target"}


def test_the_analysis_reads_a_family_only_through_its_api() -> None:
    known = modules(ROOT, PACKAGES)
    readers = {name: imports(name, path, known) for name, path in known.items()
               if name.startswith("analysis")}
    for name, targets in readers.items():
        for target in targets:
            if target.startswith("sweep"):
                assert target in ENGINE or target.endswith(".api"), (name, target)
    # The engine modules of the analysis name no study: the registry does, as paths.
    for name, targets in readers.items():
        if not name.startswith("analysis.studies"):
            assert not any(t.startswith("analysis.studies") for t in targets), name


def _imported_names(path: Path, name: str, module: str) -> set[str]:
    """The names ``path`` (the module ``name``) imports from ``module``."""
    return {alias.name for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path)))
            if isinstance(node, ast.ImportFrom) and source(node, name, path) == module
            for alias in node.names}


def test_only_the_store_knows_the_results_layout() -> None:
    """The layout of a results directory (its folders, suffix, metadata key) is encoded
    once, in :mod:`sweep.store`: every other module imports only its public names."""
    import sweep.store

    public = set(sweep.store.__all__)
    assert not public & {"FAILURES", "CORRUPT", "JOURNAL", "LOCK", "SUFFIX", "METADATA_KEY"}
    known = modules(ROOT, (*PACKAGES, "benchmarks"))
    for name, path in known.items():
        if name != "sweep.store":
            private = _imported_names(path, name, "sweep.store") - public
            assert not private, f"{name} imports the store's own {sorted(private)}"


#: The most arguments a compiled function takes: more is state that belongs in a structure
#: (a NamedTuple, as the kernels' Segment, Links, Tables ...).
MAX_KERNEL_ARGUMENTS = 8


def compiled_functions(path: Path) -> Iterator[tuple[str, int]]:
    """(name, argument count) of every function of ``path`` that numba compiles (decorated
    with ``njit``, ``jit``, ``vectorize`` ..., bare or called, however imported)."""
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.FunctionDef) and any(
                "jit" in ast.unparse(d) or "vectorize" in ast.unparse(d)
                for d in node.decorator_list):
            arguments = node.args
            yield node.name, len(arguments.posonlyargs + arguments.args + arguments.kwonlyargs)


def test_no_compiled_function_takes_more_than_eight_arguments(tmp_path: Path) -> None:
    wide = {f"{path.relative_to(ROOT)}:{name}": count
            for path in sorted((ROOT / "sweep").rglob("*.py"))
            for name, count in compiled_functions(path) if count > MAX_KERNEL_ARGUMENTS}
    assert not wide, f"compiled functions of more than {MAX_KERNEL_ARGUMENTS} arguments: {wide}"
    planted = tmp_path / "kernel.py"
    planted.write_text("import numba\n\n@numba.njit(cache=True)\n"
                       "def step(a, b, c, d, e, f, g, h, i):\n    return a\n")
    assert list(compiled_functions(planted)) == [("step", 9)]


def test_every_view_of_the_built_in_studies_has_its_own_name() -> None:
    from analysis.study import Study, check, studies

    check(studies())  # raises on a clash
    twice = Study("a", views={"v": print}, figures={"v": repr})
    with pytest.raises(ValueError, match="'v' is in both the views of the study of a and the "
                       "figures of the study of a"):
        check([twice])
