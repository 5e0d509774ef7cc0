"""A built-in family is added without editing anything that exists (issue 37).

The toy family of ``tests/external/`` (a family, its config group file and preset, its
study and the study's section) is copied into the package's places of a scratch copy of
the project: ``sweep/toy/family.py``, ``conf/family/toy.yaml``,
``conf/experiment/toy_coverage.yaml`` and ``analysis/studies/toy/``, its outside import
path ``toy_family:FAMILY`` becoming the name ``toy``. The copy is installed as the README
installs the project (editable), and then, with no other file changed: the conformance
suite finds and checks it, the command line lists it, runs it and its preset, and the
report draws its study's view.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTERNAL = ROOT / "tests" / "external"
#: What a working tree holds that is not the project.
NOT_THE_PROJECT = (".venv", ".git", "__pycache__", "*.egg-info", "build", "results",
                   "figures", "report", ".pytest_cache", "*.nbi", "*.nbc")

pytestmark = pytest.mark.slow  # an install, about a minute


def _package_places(tree: Path) -> list[Path]:
    """Copy the toy family into the package's places of ``tree``; the files added."""
    name = "toy"

    def named(text: str) -> str:
        return text.replace("toy_family:FAMILY", name)

    study = named((EXTERNAL / "toy_study.py").read_text())
    # A built-in preset is in conf/experiment, where the study finds it by default.
    study = re.sub(r',\s*HERE / "conf" / "experiment"\)', ")", study)
    added = {
        tree / "sweep" / name / "__init__.py": '"""The toy family, built in."""\n',
        tree / "sweep" / name / "family.py": (EXTERNAL / "toy_family.py").read_text(),
        tree / "conf" / "family" / f"{name}.yaml": named(
            (EXTERNAL / "conf" / "family" / "toy.yaml").read_text()),
        tree / "conf" / "experiment" / "toy_coverage.yaml": (
            EXTERNAL / "conf" / "experiment" / "toy_coverage.yaml").read_text(),
        tree / "analysis" / "studies" / name / "__init__.py": study,
        tree / "analysis" / "studies" / name / "toy.md": (EXTERNAL / "toy.md").read_text(),
    }
    for path, text in added.items():
        assert not path.exists(), path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return list(added)


def _digests(tree: Path) -> dict[str, str]:
    return {str(p.relative_to(tree)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(tree.rglob("*")) if p.is_file()
            and not any(part.endswith(".egg-info") or part == "__pycache__"
                        for part in p.relative_to(tree).parts)}


def _environment(tree: Path, where: Path) -> Path:
    """A virtual environment with this one's packages and ``tree`` installed editable
    into it; its Python."""
    venv.create(where, with_pip=False)
    python = where / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True, check=True)
    # This environment's dependencies, without its own install of the project.
    Path(site.stdout.strip(), "dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                           "-q", "--no-deps", "-e", str(tree)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return python


def _run(python: Path, arguments: list[str], cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(python), *arguments], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=1200)
    assert done.returncode == 0, (arguments, done.stdout[-2000:], done.stderr[-3000:])
    return done.stdout


def test_a_family_copied_into_the_package_plugs_in(tmp_path: Path) -> None:
    tree = tmp_path / "project"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(*NOT_THE_PROJECT))
    before = _digests(tree)
    added = _package_places(tree)
    python = _environment(tree, tmp_path / "env")

    checked = _run(python, ["-m", "pytest", "tests/test_conformance.py", "-q", "-k",
                            "families_found and toy", "-p", "no:cacheprovider", "-p",
                            "no:xdist"], tree)
    assert re.search(r"\b1 passed\b", checked), checked
    assert "family=toy " in _run(python, ["-m", "sweep", "--help"], tmp_path)
    results = tmp_path / "results"
    ran = _run(python, ["-m", "sweep", "-m", "family=toy", "p=0.3,0.5", "replicates=40",
                        "n_nodes=2", f"results_dir={results}"], tmp_path)
    assert "2 cells: 2 done" in ran, ran
    preset = _run(python, ["-m", "sweep", "-m", "+experiment=toy_coverage", "dry_run=true",
                           f"results_dir={tmp_path / 'preset'}"], tmp_path)
    assert "2 cells" in preset, preset
    _run(python, ["-m", "analysis", "report", str(results), "--out", str(tmp_path / "report")],
         tmp_path)
    assert (tmp_path / "report" / "toy_coverage.png").is_file()  # the study's view, found

    after = _digests(tree)
    changed = [path for path, digest in before.items() if after.get(path) != digest]
    assert not changed, f"existing files changed: {changed}"
    assert set(after) - set(before) >= {str(p.relative_to(tree)) for p in added}
