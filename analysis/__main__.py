"""``python -m analysis report RESULTS_DIR [RESULTS_DIR ...] --out OUT_DIR`` and
``python -m analysis figure NAME RESULTS_DIR [...] --out FILE_STEM``,
``python -m analysis reproduce ROOT --out docs``,
``python -m analysis continual ROOT --out docs``,
``python -m analysis decentralized ROOT --out docs`` and
``python -m analysis stability ROOT_A ROOT_B`` (the verdicts from two root seeds) and
``python -m analysis extend ROOT`` (the runs inconclusive claims need).

Exit codes: 0 drawn; 1 the results hold nothing to draw, or a figure of the report raised
an error (its traceback is on the report's page); 2 bad arguments; 3 a results path does
not exist; 4 a directory holds no results; 5 a results file is damaged.
"""

from __future__ import annotations

import argparse
import sys

from .commands import documents


def figure_names() -> list[str]:
    """What ``figure`` draws: the overview (of each family: ``overview_<family>`` in a
    directory of several), and every study's views and paper figures."""
    from .study import check, studies, views_of

    found = studies()
    check(found)
    return ["overview", *(name for study in found for name in views_of(study))]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in documents():
        # Its own parser reads every argument after its name (argparse's REMAINDER would
        # not take a leading option such as --help).
        from .document import command

        return command(argv[1:], name=argv[0])
    if argv[:1] == ["stability"]:
        from .stability import command as stability

        return stability(argv[1:])
    if argv[:1] == ["extend"]:
        from .extend import command as extend

        return extend(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m analysis", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="every figure the results allow, and index.html")
    rep.add_argument("results", nargs="+", help="results directories")
    rep.add_argument("--out", required=True, help="output directory")
    rep.add_argument("--verbose", action="store_true",
                     help="print why each figure was not drawn, not one line summing it up")
    fig = sub.add_parser("figure", help="one figure as PNG and PDF")
    fig.add_argument("name", help="a figure of a study, or overview (a wrong name lists them)")
    fig.add_argument("results", nargs="+", help="results directories")
    fig.add_argument("--out", required=True, help="output path without suffix")
    # Listed for the help; their own parsers read their arguments (above).
    for name, document in documents().items():
        sub.add_parser(name, help=f"docs/{document} and its figures from the presets' results")
    sub.add_parser("stability", help="every claim whose verdict differs between the results "
                   "of two root seeds")
    sub.add_parser("extend", help="the sweeps that give the presets the runs their "
                   "inconclusive claims need, within each preset's budget")
    for parsed in (rep, fig):
        parsed.add_argument("--any-size", action="store_true",
                             help="draw the paper's figures from runs of any size")
        parsed.add_argument("--keep", choices=["newest", "all"], default="newest",
                             help="cells that differ only in replicates or family version: "
                                  "the newest and largest (default), or all")
        parsed.add_argument("--study", action="append", default=[], metavar="MODULE:ATTR",
                             help="the study of a family outside the package (repeatable)")
    args = parser.parse_args(argv)
    # What drawing needs, once the arguments are read: --help and a wrong argument load
    # none of it.
    import matplotlib

    matplotlib.use("Agg")  # the command writes files; it never opens a window

    from .load import ResultsError, summaries
    from .plot import LayoutError, MissingData, hint, save
    from .reporting import draw, drawers, not_drawn, report
    from .study import from_path, studies, views_of

    try:
        for spec in args.study:
            from_path(spec)
    except ValueError as error:
        parser.error(str(error))
    if args.command == "figure" and not args.name.startswith("overview") and \
            args.name not in (names := figure_names()):
        parser.error(f"figure: unknown name {args.name!r}; one of {', '.join(names)}")
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
            for name, trace in done.errors.items():
                print(f"error: {name} raised {trace.strip().splitlines()[-1]} (its traceback: "
                      f"{done.out / 'index.html'})", file=sys.stderr)
            if done.errors:
                return 1
        else:
            summary = summaries(args.results, keep=args.keep)
            available = drawers(summary, paper=not args.any_size, results=args.results,
                                keep=args.keep)
            if args.name not in available:
                owner = next((s.family for s in studies() if args.name in views_of(s)), None)
                held = ("several families, an overview of each" if args.name == "overview"
                        else f"no rows of family {owner}" if owner else "no such family")
                raise MissingData(f"{args.name}: the results hold {held} "
                                  f"(figures: {', '.join(available)})")
            grid = draw(available[args.name], summary)
            print("\n".join(str(p) for p in save(grid, args.out)))
            print(grid.caption)
    except (MissingData, LayoutError) as error:
        print(f"error: {hint(error, command_line=True)}", file=sys.stderr)
        return 1
    except ResultsError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
