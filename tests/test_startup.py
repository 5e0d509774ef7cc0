"""What the command line imports before it does any work (issue 25).

A bad key's error, ``--help``, a dry run and the failures listing must not pay for the
libraries that only computing a cell needs: numba (compiling kernels), scipy.stats,
pandas, and the plotting or cluster libraries. Each command runs in a fresh interpreter
that records, at exit, every module it had imported; no timing is asserted (see
benchmarks/bench_startup.py for the times).

What each path may import, and why:

* a bad key and ``--help`` compose the configuration: Hydra, OmegaConf and numpy (the
  options' checks); nothing else heavy, for every family (a family's result declaration
  names its Arrow types: no pyarrow);
* a dry run validates every cell and looks for them in the store (its index: a footer is
  read, with pyarrow, only for a file the index does not know); besides, only what a
  family's ``prepare`` truly computes with: the graph of a network or inference cell
  (networkx, scipy's sparse and dense linear algebra), the data set of an inference cell
  (pandas reads it), the mode codes and tree depth continual's parameters take from its
  compiled modules (numba);
* Hydra imports every plugin module whenever any Hydra app starts: the platform's import
  Hydra only, and load neither the engine nor numpy, pandas or pyarrow; the app reads
  where the platform's configurations are from the command line's module (standard
  library only).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .sweep_reference import run_cli

#: Never needed before a cell runs, whatever the command or family.
NEVER = ("numba", "scipy.stats", "scipy.optimize", "scipy.integrate", "pandas", "matplotlib",
         "seaborn", "ray", "lifelines")
#: What composing a configuration leaves out besides: graphs and the engine.
CONFIG_ONLY = (*NEVER, "networkx", "scipy", "pyarrow", "sweep.execute", "sweep.store")


def _imported(target: str, arguments: list[str], cwd: Path
              ) -> tuple[subprocess.CompletedProcess, set[str]]:
    """``python -m TARGET ARGUMENTS`` (or the script TARGET) in a fresh interpreter: its
    outcome, and every module it had imported when it exited (:mod:`tests.imported`)."""
    record = cwd / "modules.txt"
    done = run_cli([str(record), target, *arguments], cwd, module="tests.imported")
    return done, set(record.read_text().split())


def _heavy(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    """The modules of ``modules`` that are, or are inside, one of ``forbidden``."""
    return sorted(m for m in modules if any(m == f or m.startswith(f"{f}.") for f in forbidden))


@pytest.mark.parametrize(("family", "key", "guess"), [
    ("colme", "epsilonn", "epsilon"), ("network", "epsilonn", "epsilon"),
    ("continual", "epsilonn", "epsilon"), ("inference", "epsilonn", "epsilon"),
    ("decentralized", "epsilonn", "epsilon"),
])
def test_a_bad_key_is_reported_without_the_families_libraries(
        tmp_path: Path, family: str, key: str, guess: str) -> None:
    done, modules = _imported("sweep", [f"family={family}", f"{key}=1"], tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: {key}: unknown option; did you mean {guess}?")
    assert f"sweep.{family}.family" in modules  # its schema was derived from its options
    assert _heavy(modules, CONFIG_ONLY) == []


def test_help_composes_without_the_families_libraries(tmp_path: Path) -> None:
    done, modules = _imported("sweep", ["--help"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "python -m sweep failures results" in done.stdout
    assert "n_agents: 200" in done.stdout  # the composed configuration is shown
    assert _heavy(modules, CONFIG_ONLY) == []


@pytest.mark.parametrize(("arguments", "allowed"), [
    # The paper's scenario, its δ = 1e-6 above 1/(n_agents × t_max) acknowledged.
    (["family=colme", "allow_large_delta=true"], ()),
    (["family=colme", "allow_large_delta=true", "baselines=[local,oracle]"], ()),  # cheap
    (["family=network", "graph=complete", "graph.n_nodes=10"], ("networkx", "scipy")),
    # numba brings scipy's package, not its modules.
    (["family=continual", "t_max=100"], ("numba", "scipy")),
    # pandas, which reads the data set, loads pyarrow.
    (["family=inference", "method=am"], ("pandas", "networkx", "scipy", "pyarrow")),
    # A random graph is drawn per replicate, when the cell runs.
    (["family=decentralized", "graph.n_nodes=100"], ()),
])
def test_a_dry_run_validates_every_cell_without_running_libraries(
        tmp_path: Path, arguments: list[str], allowed: tuple[str, ...]) -> None:
    done, modules = _imported("sweep", ["-m", *arguments, "seed=range(0,20)",
                                        "dry_run=true"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("20 cells: 0 present, 20 to compute")
    assert "sweep.store" in modules  # it looked for the cells in the store
    forbidden = tuple(f for f in (*NEVER, "networkx", "scipy", "pyarrow") if f not in allowed)
    assert _heavy(modules, forbidden) == []


def test_a_dry_run_over_stored_cells_reads_the_index_only(tmp_path: Path) -> None:
    cells = ["-m", "n_agents=4", "t_max=20", "replicates=1", "checkpoints=2", "seed=0,1,2"]
    done = run_cli([*cells, "executor=serial"], tmp_path)
    assert done.returncode == 0, done.stderr
    done, modules = _imported("sweep", [*cells, "dry_run=true"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("3 cells: 3 present, 0 to compute")
    assert _heavy(modules, (*NEVER, "pyarrow")) == []  # no footer was read


def test_the_failures_listing_reads_arrow_only(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    done, modules = _imported("sweep", ["failures", "results"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "no failures recorded in results\n"
    assert "pyarrow.parquet" in modules
    assert _heavy(modules, (*NEVER, "hydra", "networkx", "scipy")) == []
    done, modules = _imported("sweep", ["failures", "--help"], tmp_path)
    assert done.returncode == 0 and "usage: python -m sweep failures" in done.stdout
    assert _heavy(modules, (*CONFIG_ONLY, "hydra", "numpy", "pyarrow")) == []


def test_any_hydra_app_loads_the_plugins_without_numpy_or_arrow(tmp_path: Path) -> None:
    # Hydra imports every plugin module of the environment when any of its apps starts.
    app = tmp_path / "app.py"
    app.write_text("import hydra\n\n\n@hydra.main(version_base=None)\n"
                   "def app(cfg):\n    print('ran')\n\n\napp()\n")
    done, modules = _imported(str(app), [], tmp_path)
    assert done.returncode == 0 and done.stdout == "ran\n", done.stderr
    assert {"hydra_plugins.dpsweep.plugins", "hydra_plugins.dpsweep.schemas"} <= modules
    assert _heavy(modules, (*CONFIG_ONLY, "numpy", "pyarrow")) == []
    assert {m for m in modules if m.split(".")[0] == "sweep"} <= {"sweep", "sweep.cli",
                                                                 "sweep.errors"}


def test_importing_the_plugin_modules_loads_hydra_only() -> None:
    # Every module Hydra's plugin scan imports: those whose name has no leading "_".
    code = ("import importlib, pkgutil, sys\n"
            "import hydra_plugins.dpsweep as plugin\n"
            "names = [m.name for m in pkgutil.iter_modules(plugin.__path__, 'hydra_plugins."
            "dpsweep.') if not m.name.rpartition('.')[2].startswith('_')]\n"
            "for name in names:\n"
            "    importlib.import_module(name)\n"
            "print(' '.join(names))\n"
            "print(' '.join(sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    scanned, modules = (set(line.split()) for line in done.stdout.splitlines())
    assert scanned == {"hydra_plugins.dpsweep.plugins", "hydra_plugins.dpsweep.schemas"}
    assert _heavy(modules, ("numpy", "pandas", "pyarrow", "sweep")) == []


def test_the_record_holds_what_a_run_imports(tmp_path: Path) -> None:
    """The assertions above can fail: a cell that runs imports what it computes with."""
    done, modules = _imported("sweep", ["n_agents=4", "t_max=20", "replicates=1",
                                        "checkpoints=2", "executor=serial"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert _heavy(modules, ("numba", "sweep.colme.kernel", "sweep.store")) != []
    assert {"numba", "sweep.colme.kernel", "sweep.store"} <= modules
