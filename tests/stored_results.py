"""A small stored results directory of every family, kept in the repository
(tests/data/stored/<family>/), so that a change of how cell ids are derived cannot go
unseen: :mod:`tests.test_stored_ids` recomputes each stored cell's id from its recorded
options.

Write the files of the families that have none (a new family), or again those of one
family (only after a deliberate change of its identity, with its version bumped)::

    python -m tests.stored_results
    python -m tests.stored_results --family NAME

A family's cells are its examples (:attr:`sweep.family.Family`'s ``examples``; its
defaults if it declares none), one replicate each at seed 3, run by the engine as the
command line runs them, compacted into one file. The other families' files are left as
they are.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from sweep.cli import run_configs
from sweep.family import families, get_family
from sweep.store import ResultsStore, family_directory

from .sweep_reference import ROOT

STORED = ROOT / "tests" / "data" / "stored"


def write(family: str) -> Path:
    """Run ``family``'s examples and store their compacted file under :data:`STORED`."""
    examples = getattr(get_family(family), "examples", None) or {"default": {}}
    with tempfile.TemporaryDirectory() as scratch:
        run_configs([{"family": family, **options, "replicates": 1, "seed": 3,
                      "executor": "serial", "results_dir": scratch}
                     for options in examples.values()], progress=False)
        ResultsStore(Path(scratch)).compact()
        directory = STORED / family_directory(family)
        shutil.rmtree(directory, ignore_errors=True)
        shutil.copytree(Path(scratch) / family_directory(family), directory)
    return directory


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.stored_results",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", help="write this family's files again")
    args = parser.parse_args(argv)
    chosen = [args.family] if args.family else [
        name for name in families() if not (STORED / family_directory(name)).is_dir()]
    for family in chosen:
        print(f"wrote {write(family).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
