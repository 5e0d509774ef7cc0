"""The command line: ``python -m sweep [-m] [key=value ...]`` (also ``dpsweep``).

Without ``-m`` it runs the one composed cell; with ``-m`` Hydra expands the grid and the
platform's sweeper (``hydra_plugins/dpsweep``) runs it. Exit codes: 0 when every cell is
present at the end, 1 when a cell failed, 2 on bad input, reported in one line that names
the key before any work starts. Two commands read or tidy a results directory: ``python
-m sweep failures DIR`` lists the cells that raised, ``python -m sweep compact DIR``
merges its small files.

Each command imports only what it uses: the engine loads to plan cells, the families'
kernels, scipy and pandas to run them; ``--help`` and a bad key's error load neither.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import sys
import textwrap
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .errors import ClusterError, ConfigError, StoreError

if TYPE_CHECKING:
    from .execute import Summary
    from .plan import Execution, Plan

#: The package of the Hydra configuration: ``conf/`` at the repository's root, installed as
#: ``sweep.conf`` (pyproject.toml). Every reader finds it through this name: Hydra at
#: ``pkg://sweep.conf``, others by :func:`importlib.resources.files`.
CONFIG_MODULE = "sweep.conf"


class CellsFailed(RuntimeError):
    """Some cells raised; the others were stored."""


def run_configs(configs: Iterable[Mapping[str, Any]], progress: bool = True) -> Summary:
    """Plan, validate and run resolved configurations; print the summary.

    This is the one path every entry point takes (single run, the platform's sweeper and
    launcher, and jobs of any other Hydra launcher).
    """
    # Imported here, not at the top: a bad key's error and --help never need the engine.
    import time

    from .estimate import process_age
    from .execute import execute
    from .plan import plan

    started = time.perf_counter() - process_age()  # the command's start-up counts too
    if iter(configs) is configs:  # read twice with replicates=auto
        configs = list(configs)
    cells, execution = plan(configs)
    summary = execute(cells, execution, progress=progress, started=started)
    if cells.targets:
        summary = _to_targets(configs, cells, execution, summary, progress)
    print(summary, flush=True)
    return summary


#: Cells stopped at ``target.max`` named one by one on the terminal; the rest are counted.
SHOWN = 10


def _to_targets(configs: Iterable[Mapping[str, Any]], cells: Plan, execution: Execution,
                pilot: Summary, progress: bool) -> Summary:
    """After the pilots of the ``replicates=auto`` cells (``pilot``), the rest of their
    replicates, as many as each pilot says it needs for its precision, at most
    ``target.max`` (:mod:`sweep.target`); the summary of that second stage. A dry run
    says what the second stage would cost: exactly once the pilots are stored, else at
    most (every cell to ``target.max``)."""
    from .execute import execute
    from .plan import plan
    from .store import ResultsStore
    from .target import needs

    store = ResultsStore(execution.results_dir)
    store.scan()
    targets = cells.targets
    if execution.dry_run and any(store.held.get(cell_id, 0) < target.pilot
                                 for cell_id, (_, target) in targets.items()):
        per = {f"{n:016x}": cost / max(count, 1) for n, cost, count in zip(
            cells.numbers, cells.costs, cells.replicates, strict=True)}
        most = sum(per[cell_id] * (target.max - target.pilot)
                   for cell_id, (_, target) in targets.items())
        pilot.note = (f"then, for their targets, at most {most:.2g} CPU-seconds more (every "
                      f"cell of replicates=auto to its target.max; their pilots' variances "
                      "decide)")
        return pilot
    print(f"pilot: {pilot}", flush=True)
    needed = needs(targets, store)
    limits = {cell_id: target.max for cell_id, (_, target) in targets.items()}
    # The plan's cells are its configurations' that are not repeats, in order.
    ids = iter(cells.ids)
    rest = [{**config, "target": None, "replicates": min(needed[cell_id], limits[cell_id])}
            for config, new in zip(configs, cells.new, strict=True) if new
            for cell_id in [next(ids)] if cell_id in targets]
    second, _ = plan(rest)
    summary = execute(second, execution, progress=progress, needed=needed)
    summary.failed = [*pilot.failed, *summary.failed]
    summary.capped = sorted(c for c, n in needed.items() if n > limits[c])
    for cell_id in summary.capped[:SHOWN]:
        print(f"cell {cell_id}: needs {needed[cell_id]} replicates for its target, stopped "
              f"at target.max={limits[cell_id]}", flush=True)
    if len(summary.capped) > SHOWN:
        print(f"... and {len(summary.capped) - SHOWN} more cells stopped at target.max",
              flush=True)
    return summary


def raise_for_failures(summary: Summary) -> Summary:
    """:class:`CellsFailed` if any cell of ``summary`` failed."""
    if summary.failed:
        raise CellsFailed(
            f"{len(summary.failed)} of {summary.cells} cells failed; their options and "
            f"tracebacks: python -m sweep failures {shlex.quote(summary.results_dir)}"
        )
    return summary


def _task(cfg: Any) -> None:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode
    from omegaconf import OmegaConf

    config = OmegaConf.to_container(cfg, resolve=True)
    # In a multirun, this runs only as a job of another Hydra launcher, which provides the
    # parallelism: the job computes its cell in its own process instead of starting a Ray
    # of its own, unless a cluster address is given.
    if HydraConfig.get().mode == RunMode.MULTIRUN and not (config.get("ray") or {}).get(
        "address"
    ):
        config["executor"] = "serial"
    # Reported here: Hydra would add its own line about the failed job.
    with reported():
        raise_for_failures(run_configs([config]))


def _one_line(error: BaseException) -> str:
    """A Hydra or OmegaConf composition error as ``key: message``; for an unknown key, the
    closest known key (a typo's fix) and the keys next to it."""
    import dataclasses

    from hydra.errors import MissingConfigException, OverrideParseException
    from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException

    from .family import renamed_option
    from .hydra_compat import root_of
    from .options import unknown_key
    from .schema import dotted_keys

    if isinstance(error, OverrideParseException):
        key, _, value = error.override.partition("=")
        detail = " ".join(error.message.split()).split(" See https://")[0]
        detail = detail.removeprefix(f"Error parsing override '{error.override}'").strip()
        return f"{key.lstrip('+~')}: cannot parse {value!r} ({detail})"
    if isinstance(error, MissingConfigException) and error.options is not None:
        group, _, choice = (error.missing_cfg_file or "").rpartition("/")
        return f"{group}: must be one of {', '.join(error.options)}; got {choice!r}"
    for source in (error.__cause__, error):  # Hydra wraps OmegaConf's error, or not
        if isinstance(source, OmegaConfBaseException) and getattr(source, "full_key", None):
            if isinstance(source, ConfigAttributeError | ConfigKeyError):
                # OmegaConf names the schema of the mapping the key is missing from: the
                # family's (whose name the same mapping holds), or a nested group's.
                schema, parent = source.object_type, source.parent_node
                if not dataclasses.is_dataclass(schema):  # a free-form mapping
                    return f"{source.full_key}: unknown option"
                family = root_of(parent).get("family") if parent is not None else None
                if isinstance(family, str) and (
                        moved := renamed_option(family, str(source.full_key))):
                    return moved
                prefix = source.full_key.removesuffix(str(source.key))
                group = prefix.rstrip(".") or f"family {parent.get('family')}"
                return unknown_key(str(source.key), dotted_keys(schema), prefix,
                                   f"keys of {group}")
            return f"{source.full_key}: {str(source.msg).splitlines()[0]}"
    overridden = re.match(r"Could not override '([^']+)'\. No match in the defaults list",
                          str(error))
    if overridden:
        # A group that only another choice brings in (dataset under model=cox, mechanism
        # under family=colme).
        return (f"{overridden[1]}: not a group of this configuration: another choice (of "
                "the family or of a group) brings it in")
    return " ".join(str(error).split())


@contextlib.contextmanager
def reported() -> Iterator[None]:
    """Bad input, failed cells, an unreachable cluster and Ctrl-C end the process with one
    line (exit 2, 1, 1, 130)."""
    try:
        yield
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except (CellsFailed, ClusterError, StoreError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("interrupted: finished cells are stored; rerun the command to resume",
              file=sys.stderr)
        sys.exit(130)
    except Exception as error:
        # Hydra's types, imported only now: the commands without Hydra do not load it.
        from hydra.errors import HydraException
        from omegaconf.errors import OmegaConfBaseException

        if not isinstance(error, HydraException | OmegaConfBaseException):
            raise
        print(f"error: {_one_line(error)}", file=sys.stderr)
        sys.exit(2)


def compact(argv: Sequence[str]) -> int:
    """``python -m sweep compact RESULTS_DIR [--rows N] [--cells N]``: merge the small
    files of a results directory (:meth:`~sweep.store.ResultsStore.compact`)."""
    import argparse

    from .store import COMPACT_CELLS, COMPACT_ROWS, ResultsStore

    parser = argparse.ArgumentParser(
        prog="python -m sweep compact",
        description="Merge the small files of a results directory into larger ones; "
                    "resume, atomicity and damage detection hold as for any file.")
    parser.add_argument("results_dir", help="the sweep's results_dir")
    parser.add_argument("--rows", type=int, default=COMPACT_ROWS,
                        help=f"at most this many rows per file (default {COMPACT_ROWS})")
    parser.add_argument("--cells", type=int, default=COMPACT_CELLS,
                        help=f"at most this many cells per file (default {COMPACT_CELLS})")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.results_dir):
        print(f"error: results_dir: {args.results_dir} is not a directory", file=sys.stderr)
        return 2
    for name in ("rows", "cells"):
        if getattr(args, name) < 2:
            print(f"error: --{name}: must be an integer >= 2; got {getattr(args, name)}",
                  file=sys.stderr)
            return 2
    with reported():
        print(ResultsStore(args.results_dir).compact(args.rows, args.cells))
    return 0


def failures(argv: Sequence[str]) -> int:
    """``python -m sweep failures RESULTS_DIR [--family NAME] [--cell ID] [--last N]``:
    each failed cell's id, family, time, options and traceback, oldest first.

    Exit code 0 when none is listed, 1 when some are (as a sweep with failed cells), 2
    on bad input.
    """
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m sweep failures",
        description="List the cells of a results directory that raised, oldest first: "
                    "each one's id, family, when it failed, the options its id is made of, "
                    "and its traceback.",
        epilog="A cell's record is removed once the cell is stored, so rerunning the sweep "
               "retries the listed cells. One marked 'stored' failed a recompute: its "
               "earlier rows are kept. Exit code 0 when no failure is listed, 1 when some "
               "are, 2 on bad input.")
    parser.add_argument("results_dir", help="the sweep's results_dir")
    parser.add_argument("--family", help="only the cells of this family")
    parser.add_argument("--cell", metavar="ID", help="only the cell whose id starts with ID")
    parser.add_argument("--last", type=int, metavar="N", help="only the N latest failures")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.results_dir):
        print(f"error: results_dir: {args.results_dir} is not a directory", file=sys.stderr)
        return 2
    if args.last is not None and args.last < 1:
        print(f"error: --last: must be an integer >= 1; got {args.last}", file=sys.stderr)
        return 2
    from .store import ResultsStore

    with reported():
        store = ResultsStore(args.results_dir)
        listed = [f for f in store.failed()
                  if args.family in (None, f.family) and f.cell_id.startswith(args.cell or "")]
        listed = listed[-args.last:] if args.last else listed
        if not listed:
            filters = " ".join(f"--{key} {value}" for key, value in vars(args).items()
                               if key != "results_dir" and value is not None)
            print(f"no failures recorded in {args.results_dir}"
                  + (f" matching {filters}" if filters else ""))
            return 0
        present = store.scan()
        for failure in listed:
            stored = (" (stored: a recompute failed, the earlier rows are kept)"
                      if failure.cell_id in present else "")
            print(f"cell {failure.cell_id}, family {failure.family}, failed "
                  f"{failure.time:%Y-%m-%d %H:%M:%S} UTC{stored}")
            print(textwrap.fill(" ".join(_overrides(failure.settings)), width=88,
                                initial_indent="  options: ", subsequent_indent=" " * 11,
                                break_long_words=False, break_on_hyphens=False))
            print(textwrap.indent(failure.traceback.rstrip(), "  "), end="\n\n")
        cells = "1 failed cell" if len(listed) == 1 else f"{len(listed)} failed cells"
        print(f"{cells} in {args.results_dir}; rerunning the sweep retries them")
    return 1


def _overrides(settings: Mapping[str, Any]) -> Iterator[str]:
    """A cell's settings (replicates, seed, options) as ``key=value``, a nested option
    group's keys dotted (``decision.refresh=every_step``), as the command line spells them."""
    def flat(prefix: str, options: Mapping[str, Any]) -> Iterator[str]:
        for key, value in options.items():
            if isinstance(value, Mapping) and value:
                yield from flat(f"{prefix}{key}.", value)
            else:
                yield f"{prefix}{key}={_value(value)}"

    yield from flat("", {"replicates": settings.get("replicates"),
                         "seed": settings.get("seed"), **settings.get("options", {})})


def _value(value: Any) -> str:
    """``value`` in the command line's syntax."""
    if isinstance(value, list | tuple):
        return "[" + ",".join(_value(v) for v in value) + "]"
    if isinstance(value, str):
        return value if value and re.fullmatch(r"[\w.:/+-]+", value) else repr(value)
    return json.dumps(value)


#: ``python -m sweep <name> ...``: the commands besides running a configuration.
SUBCOMMANDS = {"compact": compact, "failures": failures}

#: The help's lists start under its other entries' text.
HELP_INDENT = " " * 19
PRESET_FAMILY = re.compile(r"^\s*- override /family: (\S+)", re.M)


def help_lists(what: str) -> str:
    """The help header's list of ``families`` (each with the first words of its
    ``conf/family/<name>.yaml``) or of ``presets`` (``conf/experiment/``, by the family
    each chooses), as found: the resolver ``${dpsweep:...}`` of ``conf/config.yaml``."""
    from importlib import resources

    from .family import families

    conf = resources.files(CONFIG_MODULE)
    names = list(families())
    if what == "families":
        lines = []
        for name in names:
            group = conf / "family" / f"{name}.yaml"
            comment = " ".join(line.removeprefix("#").strip() for line in
                               (group.read_text(encoding="utf-8").splitlines()
                                if group.is_file() else [])
                               if line.startswith("# ") and "@package" not in line)
            entry = f"family={name:15}{comment.split(': ')[0].rstrip('.')}"
            lines.append(textwrap.fill(entry, width=92, initial_indent=HELP_INDENT,
                                       subsequent_indent=HELP_INDENT + " " * 22))
        return "\n".join(lines)
    # A preset that chooses no family runs the primary config's.
    default = re.search(r"^\s*- family: (\S+)", conf.joinpath("config.yaml").read_text(
        encoding="utf-8"), re.M)[1]
    by_family: dict[str, list[str]] = {name: [] for name in names}
    for preset in sorted(conf.joinpath("experiment").iterdir(), key=lambda p: p.name):
        if preset.name.endswith(".yaml"):
            chosen = PRESET_FAMILY.search(preset.read_text(encoding="utf-8"))
            by_family.setdefault(chosen[1] if chosen else default, []).append(
                preset.name.removesuffix(".yaml"))
    text = "; ".join(f"{family}: {', '.join(found)}" for family, found in by_family.items()
                     if found)
    return textwrap.fill(text, width=92, initial_indent=HELP_INDENT,
                         subsequent_indent=HELP_INDENT)


def main() -> None:
    """Entry point of ``python -m sweep`` and of the ``dpsweep`` script."""
    if sys.argv[1:2] and sys.argv[1] in SUBCOMMANDS:
        sys.exit(SUBCOMMANDS[sys.argv[1]](sys.argv[2:]))
    import hydra

    from .hydra_compat import args_parser, one_repository_per_listing

    # Hydra then raises instead of printing its own multi-line report, so that bad input
    # gets one line naming the key; unexpected errors keep their full traceback.
    os.environ["HYDRA_FULL_ERROR"] = "1"
    from omegaconf import OmegaConf

    OmegaConf.register_new_resolver("dpsweep", help_lists, replace=True)
    entry = hydra.main(version_base="1.3", config_path=f"pkg://{CONFIG_MODULE}",
                       config_name="config")(_task)
    # Read as Hydra reads it (-c, --cfg=job, ...): Hydra refuses --cfg with -m with a
    # traceback, and would print one cell's configuration out of a whole grid anyway.
    args = args_parser().parse_args()
    listing = args.help or args.hydra_help  # the config groups
    with reported(), one_repository_per_listing() if listing else contextlib.nullcontext():
        if args.cfg and args.multirun:
            raise ConfigError("--cfg with -m: --cfg shows the configuration of one run (drop "
                              "-m); use dry_run=true to list the cells of a grid")
        entry()
