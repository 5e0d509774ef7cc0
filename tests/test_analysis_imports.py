"""What reading results imports (issue 26): the data layer of ``analysis`` loads neither
the plotting stack nor scipy; the first figure does.

Each script runs in a fresh interpreter that records, at exit, every module it had
imported (:mod:`tests.imported`); no timing is asserted (see
benchmarks/bench_analysis.py for the times and memory).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sweep.execute import execute
from sweep.plan import Execution, plan

from .sweep_reference import SMALL
from .test_startup import _heavy, _imported

#: What only figures (and the families' own computations) need.
PLOTTING = ("matplotlib", "seaborn", "scipy", "lifelines", "numba", "networkx", "ray")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small Private-ColME cells, stored as a sweep stores them."""
    directory = tmp_path_factory.mktemp("imports") / "results"
    cells, _ = plan([{**SMALL, "seed": seed, "replicates": 2} for seed in (0, 1)])
    execute(cells, Execution(results_dir=str(directory), executor="serial"), progress=False)
    return directory


def _run(script: str, tmp_path: Path) -> set[str]:
    """The modules a fresh interpreter had imported when ``script`` ended."""
    path = tmp_path / "script.py"
    path.write_text(script)
    done, modules = _imported(str(path), [], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok"), done.stdout
    return modules


def test_importing_the_package_imports_no_library(tmp_path: Path) -> None:
    modules = _run("import analysis\nprint('ok')\n", tmp_path)
    assert "analysis" in modules
    assert _heavy(modules, (*PLOTTING, "pandas", "pyarrow")) == []


def test_reading_results_imports_no_plotting_stack(tmp_path: Path, results: Path) -> None:
    modules = _run("from analysis import load, summaries\n"
                   f"rows, summary = load({str(results)!r}), summaries({str(results)!r})\n"
                   "print('ok', len(rows), len(summary))\n", tmp_path)
    assert {"analysis.load", "pandas", "pyarrow.dataset"} <= modules
    assert _heavy(modules, PLOTTING) == []


@pytest.mark.parametrize("name", ["curves", "FIGURES", "report"])
def test_the_first_figure_loads_the_plotting_stack(tmp_path: Path, name: str) -> None:
    """The assertions above can fail: the names that draw bring matplotlib."""
    modules = _run(f"from analysis import {name}\nprint('ok', {name})\n", tmp_path)
    assert {"matplotlib", "seaborn"} <= modules


def test_exported_names_win_over_submodules_of_the_same_name(tmp_path: Path) -> None:
    # Importing analysis.load binds the module on the package; the package's ``load`` is
    # still the function.
    _run("import analysis.load, analysis.reporting\n"
         "from analysis import load, report, summaries\n"
         "assert callable(load) and callable(report) and callable(summaries)\n"
         "import analysis\n"
         "assert analysis.load is load and analysis.report is report\n"
         "print('ok')\n", tmp_path)


@pytest.mark.parametrize("arguments", [["--help"], ["figure"], ["report", "--out"]])
def test_the_command_lines_help_and_errors_import_no_library(
        tmp_path: Path, arguments: list[str]) -> None:
    """``python -m analysis --help`` and a wrong argument: the standard library and the
    names of the commands only (about a minimal argparse program's start-up)."""
    done, modules = _imported("analysis", arguments, tmp_path)
    if arguments == ["--help"]:
        assert done.returncode == 0 and "reproduce" in done.stdout, done.stderr
    else:
        assert done.returncode == 2 and done.stderr.startswith("usage:"), done.stderr
    assert _heavy(modules, (*PLOTTING, "numpy", "pandas", "pyarrow", "yaml", "sweep")) == []
