"""Sweep command lines run one after another in one interpreter, for tests that need many
(:func:`tests.sweep_reference.run_clis`): each is ``python -m sweep ARGUMENTS`` but for
the interpreter's start and its libraries' imports, paid once.

``python -m tests.cli_batch`` reads a JSON list of argument lists on standard input, runs
each, and prints their exit codes as a JSON list on its last line.
"""

from __future__ import annotations

import json
import sys

from sweep.cli import main


def run_all(commands: list[list[str]]) -> list[int]:
    """Each command's exit code (as ``python -m sweep`` would exit with it)."""
    codes = []
    for arguments in commands:
        sys.argv = ["sweep", *arguments]
        try:
            main()
            codes.append(0)
        except SystemExit as done:
            codes.append(done.code if isinstance(done.code, int) else int(done.code is not None))
        sys.stdout.flush()
        sys.stderr.flush()
    return codes


if __name__ == "__main__":
    print(json.dumps(run_all(json.load(sys.stdin))))
