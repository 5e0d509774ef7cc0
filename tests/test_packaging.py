"""Every install runs every command from any directory.

The Hydra configs live in ``conf/`` at the root and install as the package ``sweep.conf``
(pyproject.toml). The wheel, built from this checkout, holds every config and module; the
editable install of this checkout, and the wheel installed into a fresh virtual
environment, run a sweep and ``--help`` outside the checkout (the wheel also the Python
API and the report)."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "conf"
#: The packages whose every module the wheel holds.
PACKAGES = ("sweep", "analysis", "hydra_plugins")
#: A sweep that composes a preset and lists its 8 cells without computing them.
DRY_RUN = ["-m", "+experiment=quickstart", "dry_run=true"]


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    # Without PYTHONPATH: the install answers, not this checkout.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _runs_a_sweep_and_help(python: str, cwd: Path) -> None:
    """``python -m sweep`` in ``cwd`` lists the quickstart grid (the platform's sweeper
    composed it from the installed configs) and prints its help with every config group."""
    listing = _run([python, "-m", "sweep", *DRY_RUN, f"results_dir={cwd / 'results'}"],
                   cwd).stdout
    assert "8 cells: 0 present, 8 to compute" in listing
    groups = _run([python, "-m", "sweep", "--help"], cwd).stdout
    groups = groups.split("== Configuration groups ==")[1]
    for group in (path.name for path in CONF.iterdir() if path.is_dir()):
        assert f"\n{group}: " in groups, group


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout."""
    directory = tmp_path_factory.mktemp("wheel")
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(directory),
          str(ROOT)], directory)
    return next(directory.glob("dpsweep-*.whl"))


def test_conf_is_at_the_root() -> None:
    assert (CONF / "config.yaml").is_file() and (CONF / "__init__.py").is_file()
    assert not (ROOT / "sweep" / "conf").exists()


def test_the_wheel_holds_every_config_and_module(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    configs = {f"sweep/conf/{path.relative_to(CONF).as_posix()}"
               for path in CONF.rglob("*") if path.suffix in (".yaml", ".py", ".md")}
    modules = {path.relative_to(ROOT).as_posix()
               for package in PACKAGES for path in (ROOT / package).rglob("*.py")}
    assert configs <= names, sorted(configs - names)
    assert modules <= names, sorted(modules - names)


def test_the_editable_install_runs_a_sweep_from_anywhere(tmp_path: Path) -> None:
    # This checkout's editable install (tasks.py makes one) answers from elsewhere: its
    # package, and the configs at the root as sweep.conf.
    where = _run([sys.executable, "-c", "import sweep, sweep.conf; "
                  "print(sweep.__file__); print(sweep.conf.__file__)"], tmp_path).stdout
    assert where.split() == [str(ROOT / "sweep" / "__init__.py"), str(CONF / "__init__.py")]
    _runs_a_sweep_and_help(sys.executable, tmp_path)


@pytest.mark.slow
def test_the_wheel_runs_the_quickstart_from_anywhere(wheel: Path, tmp_path: Path) -> None:
    venv.create(tmp_path / "env", with_pip=True)
    python = str(tmp_path / "env" / "bin" / "python")
    _run([python, "-m", "pip", "install", "-q", str(wheel)], tmp_path)
    work = tmp_path / "elsewhere"
    work.mkdir()
    # The installed package, not this checkout, answers (no checkout on the path).
    where = _run([python, "-c", "import sweep.conf; print(sweep.conf.__file__)"], work).stdout
    assert str(tmp_path / "env") in where
    _runs_a_sweep_and_help(python, work)
    _run([str(tmp_path / "env" / "bin" / "dpsweep"), "-m", "+experiment=quickstart",
          "executor=serial"], work)
    frame = pd.read_parquet(work / "results")
    assert frame.cell_id.nunique() == 8 and set(frame.family) == {"colme"}
    one = _run([python, "-c", "import sweep.execute; print(len(sweep.execute.simulate("
                "'colme', t_max=100, replicates=2)))"], work).stdout
    assert int(one) > 0
    _run([python, "-m", "analysis", "report", "results", "--out", "report"], work)
    assert (work / "report" / "index.html").is_file()
