"""A non-editable install runs every command from any directory: the wheel, built from
this checkout, installed into a fresh virtual environment, runs the quickstart grid, the
one-cell runner and the report outside the checkout."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.mark.slow
def test_the_wheel_runs_the_quickstart_from_anywhere(tmp_path: Path) -> None:
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path),
          str(ROOT)], tmp_path)
    wheel = next(tmp_path.glob("dpsweep-*.whl"))
    venv.create(tmp_path / "env", with_pip=True)
    python = str(tmp_path / "env" / "bin" / "python")
    _run([python, "-m", "pip", "install", "-q", str(wheel)], tmp_path)
    work = tmp_path / "elsewhere"
    work.mkdir()
    # The installed package, not this checkout, answers (no checkout on the path).
    where = _run([python, "-c", "import sweep; print(sweep.__file__)"], work).stdout
    assert str(tmp_path / "env") in where
    _run([str(tmp_path / "env" / "bin" / "dpsweep"), "-m", "+experiment=quickstart",
          "executor=serial"], work)
    frame = pd.read_parquet(work / "results")
    assert frame.cell_id.nunique() == 8 and set(frame.family) == {"colme"}
    assert "Mean squared error" in _run([python, "-m", "sweep.colme", "t_max=100",
                                         "replicates=2"], work).stdout
    _run([python, "-m", "analysis", "report", "results", "--out", "report"], work)
    assert (work / "report" / "index.html").is_file()
