"""The notebooks in analysis/notebooks/ run from top to bottom on small sweeps."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from .sweep_reference import ROOT, run_cli

NOTEBOOKS = ROOT / "analysis" / "notebooks"
#: The notebooks' sweeps, at a scale that still shows their figures.
SCALE = ["t_max=300", "checkpoints=10", "executor=serial"]


def _sweep(cwd: Path, *arguments: str) -> None:
    done = run_cli(["-m", *SCALE, *arguments], cwd, timeout=900)
    assert done.returncode == 0, done.stderr


def _run(notebook: str, cwd: Path) -> nbformat.NotebookNode:
    book = nbformat.read(NOTEBOOKS / notebook, as_version=4)
    NotebookClient(book, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(cwd)}}).execute()
    return book


def _outputs(book: nbformat.NotebookNode) -> list[str]:
    return [output.get("output_type") for cell in book.cells if cell.cell_type == "code"
            for output in cell.outputs]


def test_tour_notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _sweep(tmp_path, "+experiment=quickstart", "n_agents=10", "replicates=2",
           "results_dir=results")
    monkeypatch.setenv("DPSWEEP_RESULTS", str(tmp_path / "results"))
    outputs = _outputs(_run("tour.ipynb", tmp_path))
    assert "error" not in outputs and outputs.count("display_data") >= 3  # three figures


@pytest.mark.slow
def test_paper_reproduction_notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for preset, replicates in (("fig2_left", 2), ("fig2_oracle", 0), ("fig3", 2), ("fig4", 2)):
        _sweep(tmp_path, f"+experiment={preset}", f"replicates={replicates}",
               f"results_dir=paper/{preset}")
    monkeypatch.setenv("DPSWEEP_PAPER", str(tmp_path / "paper"))
    monkeypatch.setenv("DPSWEEP_PAPER_SCALE", "small")
    outputs = _outputs(_run("paper_reproduction.ipynb", tmp_path))
    assert "error" not in outputs and outputs.count("display_data") == 7  # every panel
