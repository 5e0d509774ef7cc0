"""The small regression grid of the sweep platform and its key statistics, and what the
tests share to drive the platform: the one way to start a command line (:func:`start_cli`,
:func:`run_cli`, :func:`run_clis`), a small valid scenario (:data:`SMALL`) and a report
page (:class:`Page`).

Regenerate the stored reference values (after a deliberate change of results) with::

    python -m tests.sweep_reference

which runs the grid through the command line into a temporary directory and rewrites
tests/data/sweep_reference.json, with the arithmetic that computed it (:mod:`tests.pins`).
"""

from __future__ import annotations

import html.parser
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .pins import stamp

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = Path(__file__).resolve().parent / "data" / "sweep_reference.json"

#: A 2 × 2 × 2 grid (ε × mechanism × weights) of small, fast cells.
GRID = [
    "epsilon=0.5,1", "mechanism=pm1,pm2", "weights=last,mom",
    "n_agents=6", "t_max=300", "replicates=3", "checkpoints=4", "seed=7",
    "baselines=[local,oracle]",
]
KEYS = ["epsilon", "mechanism", "weights"]
#: A small Private-ColME scenario, for tests that need a valid cell and not its numbers.
SMALL = {"n_agents": 5, "t_max": 60, "checkpoints": 4}


def start_cli(arguments: list[str], cwd: Path, module: str = "sweep",
              path: Sequence[Path] = (), env: Mapping[str, str] | None = None,
              **options: Any) -> subprocess.Popen:
    """``python -m MODULE ARGUMENTS`` started in ``cwd``, with this checkout (and ``path``)
    importable by it and its workers.

    ``env`` is its environment (by default this process's, where tests/conftest.py keeps
    Ray's state private). ``options`` go to :class:`subprocess.Popen`; output is captured
    as text by default.
    """
    options = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, **options}
    env = {**(os.environ if env is None else env),
           "PYTHONPATH": os.pathsep.join(map(str, [ROOT, *path]))}
    return subprocess.Popen([sys.executable, "-m", module, *arguments], cwd=cwd, env=env,
                            **options)


def run_cli(arguments: list[str], cwd: Path, module: str = "sweep", path: Sequence[Path] = (),
            env: Mapping[str, str] | None = None, timeout: float = 600
            ) -> subprocess.CompletedProcess:
    """:func:`start_cli`, waited for: its exit code and captured output. Past ``timeout``
    seconds it is terminated (a sweep then shuts its local Ray down) before the error."""
    with start_cli(arguments, cwd, module, path, env) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.terminate()
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def run_clis(commands: list[list[str]], cwd: Path, timeout: float = 1800
             ) -> tuple[list[int], subprocess.CompletedProcess]:
    """Several ``python -m sweep`` command lines, one after another in one fresh interpreter
    (:mod:`tests.cli_batch`): their exit codes, and the process (its captured output)."""
    with start_cli([], cwd, module="tests.cli_batch", stdin=subprocess.PIPE) as process:
        try:
            stdout, stderr = process.communicate(json.dumps(commands), timeout=timeout)
        except subprocess.TimeoutExpired:
            process.terminate()
            raise
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    lines = stdout.strip().splitlines()
    assert process.returncode == 0 and lines, stderr[-3000:]
    return json.loads(lines[-1]), done


class Page(html.parser.HTMLParser):
    """The tags and image sources of a report's ``index.html``; its sections' headings
    (``headings``: section id -> text) and tables (``tables``: (section id, the table's
    last class) -> rows of cell texts, the header first)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.images: list[str] = []
        self.tags: list[str] = []
        self.headings: dict[str, str] = {}
        self.tables: dict[tuple[str, str], list[list[str]]] = {}
        self.root = path.parent
        self._section = ""
        self._table: list[list[str]] | None = None
        self._text: list[str] | None = None
        self.feed(path.read_text(encoding="utf-8"))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        given = dict(attrs)
        if tag == "img":
            self.images.append(given["src"] or "")
        elif tag == "section":
            self._section = given.get("id") or ""
        elif tag == "table":
            self._table = self.tables[self._section, (given.get("class") or "").split()[-1]] = []
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th", "h2"):
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._table is not None and self._text is not None:
            self._table[-1].append("".join(self._text).strip())
        elif tag == "h2" and self._text is not None:
            self.headings[self._section] = "".join(self._text).strip()
        elif tag == "table":
            self._table = None
        elif tag == "section":
            self._section = ""
        if tag in ("td", "th", "h2"):
            self._text = None

    def check_images(self) -> None:
        """Every image the page shows is a PNG next to it, with its PDF."""
        for image in self.images:
            path = self.root / image
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", image
            assert path.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-", image


def statistics(frame: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Per cell: mean final MSE of each simulated method, analytic values at t_max."""
    final = frame[frame.t == frame.t.max()]
    result: dict[str, dict[str, float]] = {}
    for values, rows in final.groupby(KEYS):
        key = ",".join(f"{k}={v}" for k, v in zip(KEYS, values, strict=True))
        stats = {}
        for (method, source), part in rows.groupby(["method", "source"]):
            stats[f"{method}_{source}_mse"] = float(part.mse.mean())
        colme = rows[rows.method == "colme"]
        stats["colme_false_inclusion"] = float(colme.false_inclusion.mean())
        stats["colme_false_exclusion"] = float(colme.false_exclusion.mean())
        result[key] = stats
    return result


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        done = run_cli(["-m", *GRID, "results_dir=results"], Path(directory))
        if done.returncode:
            sys.exit(done.stderr)
        stats = statistics(pd.read_parquet(Path(directory) / "results"))
    REFERENCE.write_text(json.dumps(stamp({"cells": stats}), indent=1, sort_keys=True) + "\n")
    print(f"wrote {REFERENCE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
