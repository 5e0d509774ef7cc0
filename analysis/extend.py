"""``python -m analysis extend ROOT [--document NAME ...] [--run] [--any-size]``: each
document's table of the runs its inconclusive claims need (:mod:`analysis.needs`), and the
sweeps that extend its presets within their budgets, run one by one with ``--run``."""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from .needs import commands, needs, needs_table


def command(argv: Sequence[str]) -> int:
    """Print (and with ``--run``, run) the sweeps; 2 if a document's results are missing,
    a sweep's exit code if one fails."""
    from .commands import documents

    names = documents()
    parser = argparse.ArgumentParser(
        prog="python -m analysis extend",
        description="Print the sweeps that give each preset the runs its inconclusive "
                    "claims need, up to the budget it declares (--run: run them).")
    parser.add_argument("root", help="a directory holding one results directory per preset")
    parser.add_argument("--document", action="append", choices=sorted(names), default=[],
                        help="a document's command (repeatable; default: every document)")
    parser.add_argument("--run", action="store_true", help="run the sweeps, one by one")
    parser.add_argument("--any-size", action="store_true",
                        help="read runs of any size, not only the presets'")
    args = parser.parse_args(argv)
    root = Path(args.root)
    if not root.is_dir():
        parser.error(f"ROOT: {root} is not a directory")
    from .document import computed_sections, frame
    from .load import MissingData

    sweeps = []
    for name in args.document or sorted(names):
        try:
            studies, results, computed = computed_sections(frame(names[name]), root,
                                                           args.any_size)
        except MissingData as error:
            print(f"error: {names[name]}: {error}", file=sys.stderr)
            return 2
        found = needs(studies, results, computed)
        print(f"{names[name]}\n\n{needs_table(found)}\n")
        sweeps += commands(found, root)
    for sweep in sweeps:
        print(sweep)
        if args.run:
            done = subprocess.run([sys.executable, *shlex.split(sweep)[1:]], check=False)
            if done.returncode:
                return done.returncode
    return 0
