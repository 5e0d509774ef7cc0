"""``python -m analysis report RESULTS_DIR [RESULTS_DIR ...] --out OUT_DIR`` and
``python -m analysis figure NAME RESULTS_DIR [...] --out FILE_STEM``,
``python -m analysis reproduce ROOT --out docs`` and
``python -m analysis continual ROOT --out docs``.

Exit codes: 0 drawn; 1 the results hold nothing to draw; 2 bad arguments; 3 a results
path does not exist; 4 a directory holds no results; 5 a results file is damaged.
"""

from __future__ import annotations

import argparse
import sys

import matplotlib

matplotlib.use("Agg")  # the command writes files; it never opens a window

from . import continual, inference, reproduce
from .figures import FIGURES, VIEWS
from .load import ResultsError, summaries
from .plot import MissingData, SharedCurve, hint, save
from .report import draw, drawers, not_drawn, report

#: What ``figure`` draws: the paper's figures, the views and the overview (of each
#: family: ``overview_<family>`` in a directory of several).
FIGURE_NAMES = ["overview", *FIGURES, *VIEWS, *continual.VIEWS, *inference.views(".")]
#: The commands whose own parser reads every argument after their name (argparse's
#: REMAINDER would not take a leading option such as --help).
DELEGATED = {"reproduce": reproduce.main, "continual": continual.main}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in DELEGATED:
        return DELEGATED[argv[0]](argv[1:])
    parser = argparse.ArgumentParser(prog="python -m analysis", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="every figure the results allow, and index.html")
    rep.add_argument("results", nargs="+", help="results directories")
    rep.add_argument("--out", required=True, help="output directory")
    rep.add_argument("--verbose", action="store_true",
                     help="print why each figure was not drawn, not one line summing it up")
    fig = sub.add_parser("figure", help="one figure as PNG and PDF")
    fig.add_argument("name", help=f"one of {', '.join(FIGURE_NAMES)}")
    fig.add_argument("results", nargs="+", help="results directories")
    fig.add_argument("--out", required=True, help="output path without suffix")
    # Listed for the help; their own parsers read their arguments (DELEGATED).
    sub.add_parser("reproduce", help="docs/reproduction.md and its figures from the presets' "
                   "results")
    sub.add_parser("continual", help="docs/continual.md and its figures from the continual "
                   "presets' results")
    for command in (rep, fig):
        command.add_argument("--any-size", action="store_true",
                             help="draw the paper's figures from runs of any size")
        command.add_argument("--keep", choices=["newest", "all"], default="newest",
                             help="cells that differ only in replicates or family version: "
                                  "the newest and largest (default), or all")
    args = parser.parse_args(argv)
    if args.command == "figure" and args.name not in FIGURE_NAMES and not \
            args.name.startswith("overview"):
        parser.error(f"figure: unknown name {args.name!r}; one of {', '.join(FIGURE_NAMES)}")
    try:
        if args.command == "report":
            done = report(args.results, args.out, paper=not args.any_size, keep=args.keep,
                          command_line=True)
            for name, paths in done.drawn.items():
                print(f"drew {name}: {', '.join(str(p) for p in paths)}")
            if args.verbose:
                for name, reason in done.skipped.items():
                    print(f"could not draw {name}: {reason}")
            elif done.skipped:
                print(f"not drawn: {not_drawn(done, command_line=True)} (--verbose says why)")
            print(f"report: {done.out / 'index.html'}")
        else:
            summary = summaries(args.results, keep=args.keep)
            available = drawers(summary, paper=not args.any_size, results=args.results,
                                keep=args.keep)
            if args.name not in available:
                held = ("several families, an overview of each" if args.name == "overview"
                        else "no such family")
                raise MissingData(f"{args.name}: the results hold {held} "
                                  f"(figures: {', '.join(available)})")
            grid = draw(available[args.name], summary)
            print("\n".join(str(p) for p in save(grid, args.out)))
            print(grid.caption)
    except (MissingData, SharedCurve) as error:
        print(f"error: {hint(error, command_line=True)}", file=sys.stderr)
        return 1
    except ResultsError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
