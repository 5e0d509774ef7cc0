"""Project tasks, runnable with only the standard library.

Usage::

    python3 tasks.py quickstart      # install into .venv, run the quick start, draw it
    python3 tasks.py test [--quick] [PYTEST_ARGS...]   # on every core (pytest-xdist)
    python3 tasks.py lint

Every subcommand creates ``.venv`` if it is missing and installs the project
(``pip install -e ".[test]"``, printing pip's progress) into it; set
``DPSWEEP_SKIP_INSTALL=1`` to skip the install.
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PY = VENV / "bin" / "python"
#: Where the quick start draws its figure (PNG and PDF), relative to the repository root.
QUICKSTART_FIGURE = "figures/quickstart"
#: The suite on one worker process per core (pytest-xdist), a test file per worker at a
#: time: a file's tests share its fixtures (a rendered document, a cluster). A later
#: ``-n 0`` on the command line runs it in one process.
PARALLEL = ["-n", "auto", "--dist", "loadfile"]


def run(cmd: list[str]) -> int:
    """Print ``cmd``, run it from the repository root and return its exit code."""
    print("+", " ".join(cmd), flush=True)
    return subprocess.call(cmd, cwd=ROOT)


def ensure_env() -> int:
    """Create ``.venv`` if needed and install the project into it."""
    if not PY.exists():
        if (code := run([sys.executable, "-m", "venv", str(VENV)])) != 0:
            return code
    if os.environ.get("DPSWEEP_SKIP_INSTALL") == "1":
        return 0
    # pip's own lines (each package as it is collected, downloaded and installed) show
    # the install's progress: a first install takes minutes.
    return run([str(PY), "-m", "pip", "install", "-e", ".[test]"])


def quickstart() -> int:
    """Run the quick start sweep, draw its overview figure and say what to do next."""
    code = run([str(PY), "-m", "sweep", "-m", "+experiment=quickstart"])
    if code == 0:
        code = run([str(PY), "-m", "analysis", "figure", "overview", "results",
                    "--out", QUICKSTART_FIGURE])
    if code == 0:
        print(f"""
Results: results/colme (pandas.read_parquet("results/colme"), or analysis.load("results")).
Figure:  {QUICKSTART_FIGURE}.png (and .pdf): the 8 cells' curves with their baselines.
Next, activate the environment and draw every figure these results allow:
  source .venv/bin/activate
  python -m analysis report results --out report""")
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="task", required=True)
    sub.add_parser("quickstart", help="install, run the quick start sweep and draw its figure")
    test = sub.add_parser("test", help="install and run the test suite (slow tests included)")
    test.add_argument("--quick", action="store_true", help="skip tests marked slow")
    sub.add_parser("lint", help="install and run ruff")
    args, extra = parser.parse_known_args(argv)
    if extra and args.task != "test":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")

    if (code := ensure_env()) != 0:
        return code
    if args.task == "quickstart":
        return quickstart()
    if args.task == "test":
        marker = "not slow" if args.quick else "slow or not slow"
        return run([str(PY), "-m", "pytest", "-m", marker, *PARALLEL, *extra])
    return run([str(PY), "-m", "ruff", "check", "."])


if __name__ == "__main__":
    sys.exit(main())
