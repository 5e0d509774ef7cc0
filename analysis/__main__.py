"""``python -m analysis report RESULTS_DIR [RESULTS_DIR ...] --out OUT_DIR`` and
``python -m analysis figure NAME RESULTS_DIR [...] --out FILE_STEM``."""

from __future__ import annotations

import argparse
import sys

import matplotlib

matplotlib.use("Agg")  # the command writes files; it never opens a window

from .figures import FIGURES, VIEWS
from .load import summaries
from .plot import MissingData, save
from .report import report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="every figure the results allow, and index.html")
    rep.add_argument("results", nargs="+", help="results directories")
    rep.add_argument("--out", required=True, help="output directory")
    fig = sub.add_parser("figure", help="one figure as PNG and PDF")
    fig.add_argument("name", choices=[*FIGURES, *VIEWS])
    fig.add_argument("results", nargs="+", help="results directories")
    fig.add_argument("--out", required=True, help="output path without suffix")
    args = parser.parse_args(argv)
    try:
        if args.command == "report":
            done = report(args.results, args.out)
            for name, paths in done.drawn.items():
                print(f"drew {name}: {', '.join(str(p) for p in paths)}")
            for name, reason in done.skipped.items():
                print(f"could not draw {name}: {reason}")
            print(f"report: {done.out / 'index.html'}")
        else:
            summary = summaries(args.results)
            draw = FIGURES[args.name].draw if args.name in FIGURES else VIEWS[args.name]
            print("\n".join(str(p) for p in save(draw(summary), args.out)))
    except MissingData as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
