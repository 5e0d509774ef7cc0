"""``python -m tests.imported RECORD TARGET [ARGUMENTS ...]``: run TARGET with ARGUMENTS
(a module, as ``python -m TARGET`` would, or a script's path) and, when the interpreter
exits, write the name of every module it imported to the file RECORD, one a line.

tests/test_startup.py runs the command line through it, in a fresh interpreter.
"""

import atexit
import runpy
import sys


def _write(record: str) -> None:
    with open(record, "w") as file:
        file.write("\n".join(sys.modules))


def main() -> None:
    record, target, *arguments = sys.argv[1:]
    atexit.register(_write, record)  # also after sys.exit, as the command line ends
    sys.argv = [target, *arguments]
    if target.endswith(".py"):
        runpy.run_path(target, run_name="__main__")
    else:
        runpy.run_module(target, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
