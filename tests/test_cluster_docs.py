"""The commands of docs/cluster.md, run as written on a cluster on this machine.

``ray start`` starts a head and a worker node on 127.0.0.1; the sweep command shown in the
document runs against it; ``ray stop`` ends it (and any other Ray of this user on this
machine, so this module runs after the in-process cluster tests).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from .sweep_reference import ROOT

pytestmark = pytest.mark.slow
DOC = ROOT / "docs" / "cluster.md"


def commands() -> list[str]:
    """The shell commands of the document's ``sh`` blocks, in order, comments left out."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", DOC.read_text(), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                lines.append(line.split(" # ")[0].strip())
    return lines


def test_the_documented_cluster_commands_work(tmp_path: Path) -> None:
    listed = commands()
    assert [c.split()[0] for c in listed] == [
        ".venv/bin/ray", "export", ".venv/bin/ray", ".venv/bin/ray", ".venv/bin/python",
        ".venv/bin/ray"]
    bin_dir = f"{Path(sys.executable).parent}/"
    script = "set -e\n" + "\n".join(listed).replace(".venv/bin/", bin_dir)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    finally:
        subprocess.run([f"{bin_dir}ray", "stop"], capture_output=True, timeout=120)
    frame = pd.read_parquet(tmp_path / "results")
    assert frame.cell_id.nunique() == 8  # the quickstart grid, computed on the cluster
