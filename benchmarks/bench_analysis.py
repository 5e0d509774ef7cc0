"""Time and peak memory of reading results: ``analysis.summaries`` against a plain pyarrow
scan with a pandas groupby and against DuckDB's ``GROUP BY``, and the cost of importing
the data layer.

Run: ``python benchmarks/bench_analysis.py [--results DIR] [--cells N] [--many N]
[--repeat K] [--rows N]``. DuckDB is not a dependency of the project: ``pip install
duckdb`` to have its column (without it, the column says so).

The layouts, of the tiny cells ``n_agents=4 t_max=50 replicates=1 checkpoints=5`` (25
rows each) of the real command line, so that the files are exactly what a sweep writes:

* **as a sweep writes them**: ``--cells`` cells (10⁴) and ``--many`` cells (10⁵) of the
  sweep ``seed=range(0,N)``, which stores each task's cells in one file (about 660 cells
  a file, 15 to 17 files at 10⁴); computing 10⁵ takes a few minutes, once;
* **compacted**: the 10⁴ cells after ``python -m sweep compact`` (files of up to 4096
  cells);
* **one file per cell** (the layout before batched files): the 10⁴ cells, each written
  again alone by the store's own writer (a sweep whose tasks hold one cell each writes
  the same, at a quadratic cost in the directory's size);
* with ``--rows N`` (off by default), **few large cells**: N synthetic rows in 100 cell
  files (about 500 replicates × 100 checkpoints each).

``--results DIR`` keeps them in DIR (created if missing) for the next run: the sweeps
compute only the cells missing there, and the derived layouts are made once.

Each tool runs in its own process (its peak resident memory, ``ru_maxrss`` from
``os.wait4``, is its own), ``--repeat`` times (3), interleaved: all tools once, then all
again, so that a change in the machine's load touches every tool alike. Each prints the
time of its own work (imports excluded), and the process is timed whole too. The
tools:

* ``summaries``: ``analysis.summaries(DIR)``, the summary with every cell's options;
* ``pyarrow + pandas``: a ``pyarrow.dataset`` scan of the keys and metrics, ``to_pandas``
  and a groupby by cell, method, source and t: mean, standard deviation, count;
* ``DuckDB``: the same statistics by ``GROUP BY``, as a pandas frame.

The import cost is ``import analysis`` and ``from analysis import load, summaries`` in
a fresh process, above ``import pandas, pyarrow`` (time, and resident memory added).
Targets (issue 26): the imports at most 0.3 s and 60 MB; summaries within 1.2× of
DuckDB's time, under 500 MiB.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
#: The sweep of the tiny cells, but for its seeds and results directory.
TINY = ["n_agents=4", "t_max=50", "replicates=1", "checkpoints=5", "executor=serial"]
METRICS = ["mse", "false_exclusion", "false_inclusion"]
KEYS = ["cell_id", "method", "source", "t"]
TOOLS = {"summaries": "summaries", "pyarrow": "pyarrow + pandas", "duckdb": "DuckDB"}
#: What each import measurement imports, after ``import pandas, pyarrow``.
IMPORTS = {"import analysis": "import analysis",
           "from analysis import load, summaries": "from analysis import load, summaries"}

CHECKPOINTS = np.unique(np.rint(np.geomspace(1, 30_000, 100)).astype(np.int64))
OPTIONS = {"n_agents": 200, "t_max": 30_000, "n_classes": 3, "class_means": "0.2,0.4,0.8",
           "class_assignment": "random", "sigma": 0.5, "distribution": "uniform",
           "delta": 1e-6, "noise": "gaussian", "pm2_split": True, "weights": "last",
           "schedule": "rr", "class_estimator": "test", "variance": "known",
           "prior": "paper", "inferred_form": "eq16", "decision.theta0": 0.05,
           "decision.refresh": "on_query", "baselines": "local", "family": "colme"}


def write_cell(directory: Path, index: int, replicates: int, rng: np.random.Generator) -> int:
    """One synthetic cell file (seed ``index``); returns its number of rows."""
    t = np.tile(CHECKPOINTS, 2 * replicates)
    n = len(t)
    replicate = np.repeat(np.tile(np.arange(replicates), 2), len(CHECKPOINTS))
    method = np.repeat(["colme", "local"], replicates * len(CHECKPOINTS))
    columns = {
        "method": method, "source": np.full(n, "simulated"), "replicate": replicate,
        "t": t, "mse": rng.exponential(0.25, n) / t,
        "false_exclusion": rng.random(n) * 0.1, "false_inclusion": rng.random(n),
        **{k: np.full(n, v) for k, v in OPTIONS.items()},
        # Distinct seeds: the cells must not collapse into one cell id.
        "seed": np.full(n, index),
        "epsilon": np.full(n, (0.25, 0.5, 0.75, 1.0)[index % 4]),
        "mechanism": np.full(n, ("pm1", "pm2")[index // 4 % 2]),
        "replicates": np.full(n, replicates),
        "cell_id": np.full(n, f"{index:016x}"),
    }
    # With page checksums, as the sweep writes them: reading verifies them.
    pq.write_table(pa.table(columns), directory / f"{index:016x}.parquet",
                   write_page_checksum=True)
    return n


def large_cells(directory: Path, rows: int, cells: int = 100) -> None:
    """At least ``rows`` synthetic rows in ``cells`` files (once)."""
    if directory.is_dir():
        return
    scratch = directory.with_name(f".{directory.name}.tmp")
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    replicates = -(-rows // (cells * 2 * len(CHECKPOINTS)))
    rng = np.random.default_rng(0)
    for index in range(cells):
        write_cell(scratch, index, replicates, rng)
    scratch.rename(directory)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}


def _command(arguments: list[str]) -> None:
    """``python -m sweep ARGUMENTS``, run elsewhere (Hydra writes its own outputs into
    the working directory); exits with its error if it fails."""
    with tempfile.TemporaryDirectory(prefix="bench_analysis_") as scratch:
        done = subprocess.run([sys.executable, "-m", "sweep", *arguments], cwd=scratch,
                              env=_env(), capture_output=True, text=True)
    if done.returncode:
        sys.exit(done.stderr)


def tiny_cells(root: Path, cells: int) -> Path:
    """The tiny cells' sweep into ``root/tiny_CELLS`` (only the missing cells are
    computed, and the time it took is printed): that directory."""
    directory = root / f"tiny_{cells}"
    start = time.perf_counter()
    _command(["-m", f"seed=range(0,{cells})", *TINY, f"results_dir={directory}"])
    print(f"(the sweep of {cells:,} tiny cells, those missing in {directory}: "
          f"{time.perf_counter() - start:.0f} s)")
    return directory


def compacted(source: Path, directory: Path) -> None:
    """``source``'s files merged by ``python -m sweep compact`` into ``directory`` (once)."""
    if directory.is_dir():
        return
    scratch = directory.with_name(f".{directory.name}.tmp")
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(source, scratch)
    _command(["compact", str(scratch)])
    scratch.rename(directory)


def one_file_per_cell(source: Path, directory: Path) -> None:
    """Each cell of ``source`` written alone into ``directory`` by the store's writer,
    with its rows and provenance, as a sweep of one cell per task writes it (once)."""
    from sweep.store import ResultsStore, cell_records

    if directory.is_dir():
        return
    scratch = directory.with_name(f".{directory.name}.tmp")
    shutil.rmtree(scratch, ignore_errors=True)
    store = ResultsStore(scratch)
    store.prepare()
    for path in sorted(source.glob("*/*.parquet")):
        table = pq.read_table(path)
        records = cell_records(table.schema.metadata)
        ids = table.column("cell_id").to_numpy(zero_copy_only=False)
        starts = np.flatnonzero(np.append(True, ids[1:] != ids[:-1]))
        stops = np.append(starts[1:], len(ids))
        # The store's own writing of a file (commit's, without its search of the
        # directory for the cells already stored, which makes a file per cell quadratic).
        with store.locked():
            for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
                cell = ids[start]
                staged = store._stage(scratch / path.parent.name,
                                      table.slice(start, stop - start), {cell: records[cell]})
                store._transaction([staged], [])
    scratch.rename(directory)


def _files(results: Path) -> list[str]:
    """The results files under ``results``, as the store's readers see them."""
    return sorted(str(p) for p in results.rglob("*.parquet")
                  if not any(part.startswith(("_", ".")) for part in p.relative_to(results).parts))


def measure(tool: str, results: Path) -> None:
    """Run in a child: one tool; prints the seconds of its work and its summary's rows."""
    if tool == "summaries":
        from analysis import summaries

        start = time.perf_counter()
        summary = summaries(results)
    elif tool == "pyarrow":
        import pyarrow.dataset as ds

        start = time.perf_counter()
        frame = ds.dataset(results).to_table(columns=[*KEYS, *METRICS]).to_pandas()
        summary = frame.groupby(KEYS, dropna=False)[METRICS].agg(["mean", "std", "count"])
    else:
        import duckdb
        import pandas  # noqa: F401  (imported by the others before their time starts)

        start = time.perf_counter()
        aggregates = ", ".join(f"avg({m}), stddev_samp({m}), count({m})" for m in METRICS)
        summary = duckdb.sql(f"SELECT {', '.join(KEYS)}, {aggregates} FROM "
                             f"read_parquet({_files(results)!r}) GROUP BY ALL").df()
    print(time.perf_counter() - start, len(summary))


def imported(statement: str) -> None:
    """Run in a child: the seconds and MiB of resident memory ``statement`` adds."""
    import pandas  # noqa: F401
    import pyarrow  # noqa: F401

    before = _resident()
    start = time.perf_counter()
    exec(statement)
    print(time.perf_counter() - start, _resident() - before)


def _resident() -> float:
    """This process's resident memory in MiB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def child(command: list[str]) -> tuple[float, float, str | None]:
    """Run ``command``: its wall time in seconds, peak memory in MiB and output (None if
    it failed, with its error printed)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, env=_env(), stdout=out, stderr=err, text=True)
        # wait4 gives this child's own resource usage (RUSAGE_CHILDREN: the largest of all).
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status):
            print(f"  ({' '.join(command[2:])} failed: {err.read().strip().splitlines()[-1]})")
            return seconds, usage.ru_maxrss / 1024, None
        return seconds, usage.ru_maxrss / 1024, out.read()


def _spread(values: list[float], unit: str, digits: int) -> str:
    """The smallest of ``values`` and, after it, their range."""
    low, high = min(values), max(values)
    return f"{low:.{digits}f}{unit} (–{high:.{digits}f})" if len(values) > 1 else \
        f"{low:.{digits}f}{unit}"


def imports(repeat: int) -> None:
    """Print the import costs, ``repeat`` interleaved runs each."""
    print("Import cost, above `import pandas, pyarrow` (target ≤ 0.3 s and 60 MB):")
    runs: dict[str, list[tuple[float, float]]] = {label: [] for label in IMPORTS}
    for _ in range(repeat):
        for label, statement in IMPORTS.items():
            _, _, out = child([sys.executable, __file__, "--imported", statement])
            if out is not None:
                seconds, mib = map(float, out.split())
                runs[label].append((seconds, mib))
    for label, done in runs.items():
        if done:
            print(f"  {label:<40} {_spread([s for s, _ in done], ' s', 3):>18}  "
                  f"{_spread([m for _, m in done], ' MiB', 0):>16}")


def bench(title: str, results: Path, repeat: int, tools: list[str]) -> None:
    """Print every tool's time and peak memory on ``results``: the smallest of ``repeat``
    interleaved runs, and the range."""
    files = _files(results)
    rows = sum(pq.read_metadata(p).num_rows for p in files)
    print(f"\n{title}: {len(files):,} file{'s' * (len(files) > 1)}, {rows:,} rows")
    runs: dict[str, list[tuple[float, float, float]]] = {tool: [] for tool in tools}
    count = {}
    for _ in range(repeat):
        for tool in tools:
            whole, peak, out = child([sys.executable, __file__, "--measure", tool, str(results)])
            if out is not None:
                seconds, count[tool] = out.split()
                runs[tool].append((float(seconds), whole, peak))
    print(f"  {'':<18} {'work':>18} {'process':>18} {'peak memory':>20}  summary rows")
    for tool, done in runs.items():
        if done:
            print(f"  {TOOLS[tool]:<18} {_spread([r[0] for r in done], ' s', 2):>18} "
                  f"{_spread([r[1] for r in done], ' s', 2):>18} "
                  f"{_spread([r[2] for r in done], ' MiB', 0):>20}  {int(count[tool]):,}")
    if runs["summaries"] and "duckdb" in runs and runs["duckdb"]:
        ratio = [min(r[i] for r in runs["summaries"]) / min(r[i] for r in runs["duckdb"])
                 for i in (0, 1)]
        print(f"  summaries / DuckDB: {ratio[0]:.2f} × (work), {ratio[1]:.2f} × (process); "
              "target ≤ 1.2, and under 500 MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path,
                        help="directory of the results, kept for the next run")
    parser.add_argument("--cells", type=int, default=10_000, help="tiny cells")
    parser.add_argument("--many", type=int, default=100_000,
                        help="tiny cells of the larger sweep (0: none)")
    parser.add_argument("--rows", type=int, default=0,
                        help="rows of the large cells (0: none; 10⁷ measures issue 13's)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="interleaved runs of each measurement")
    parser.add_argument("--measure", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--imported", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure[0], Path(args.measure[1]))
        return
    if args.imported:
        imported(args.imported)
        return
    tools = list(TOOLS)
    if importlib.util.find_spec("duckdb") is None:
        print("(DuckDB is not installed: `pip install duckdb` to compare with it)")
        tools.remove("duckdb")
    imports(args.repeat)
    with tempfile.TemporaryDirectory(prefix="bench_analysis_") as scratch:
        root = (args.results or Path(scratch)).resolve()
        print()
        sweep = tiny_cells(root, args.cells)
        compacted(sweep, root / f"tiny_{args.cells}_compacted")
        layouts = [(f"{args.cells:,} tiny cells, as a sweep writes them", sweep),
                   (f"{args.cells:,} tiny cells, compacted", root / f"tiny_{args.cells}_compacted")]
        if args.many:
            layouts.append((f"{args.many:,} tiny cells, as a sweep writes them",
                            tiny_cells(root, args.many)))
        one_file_per_cell(sweep, root / f"tiny_{args.cells}_one_per_file")
        layouts.append((f"{args.cells:,} tiny cells, one file per cell",
                        root / f"tiny_{args.cells}_one_per_file"))
        if args.rows:
            large_cells(root / f"large_{args.rows}", args.rows)
            layouts.append((f"Large cells ({args.rows:,} synthetic rows)",
                            root / f"large_{args.rows}"))
        for title, results in layouts:
            bench(title, results, args.repeat, tools)


if __name__ == "__main__":
    main()
