"""The results store's transactions: compaction and extension with more replicates (also
under SIGKILL at every step), ``recompute``, what plain readers see of a compacted or
mixed directory, and what a commit knows of a directory other sweeps write to."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analysis import load
from sweep.execute import Summary, execute
from sweep.plan import Cell, make_cell, plan
from sweep.store import INDEX, JOURNAL, LOCK, ResultsStore, family_directory

from .sweep_reference import ROOT, SMALL, run_cli

#: The engine's own family, so that these tests depend on no family of the paper.
FAMILY = "tests.minimal_family:FAMILY"
#: Where its files go.
FILES = f"{family_directory(FAMILY)}/*.parquet"
#: Tiny cells, each stored on its own (one task per cell): many small files.
CELLS = [{"family": FAMILY, "replicates": 2, "seed": seed} for seed in range(24)]
#: One cell, its rows committed by hand.
CELL = {"family": FAMILY, "replicates": 5, "seed": 0}


def _run(directory: Path, configs: list[dict], **settings: object) -> Summary:
    """The cells of ``configs`` computed into ``directory``, as the command line does
    (execution settings in every configuration)."""
    settings = {"results_dir": str(directory), "executor": "serial", **settings}
    cells, execution = plan([{**config, **settings} for config in configs])
    return execute(cells, execution, progress=False)


def _rows(directory: Path) -> pd.DataFrame:
    """Every row of the directory, cell by cell (the order files list them aside)."""
    return (pd.read_parquet(directory).sort_values("cell_id", kind="stable")
            .reset_index(drop=True))


@pytest.fixture(scope="module")
def small_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("store") / "results"
    _run(directory, CELLS, ray={"task_seconds": 1e-9})
    assert len(list(directory.glob(FILES))) == len(CELLS)
    return directory


def test_compaction_merges_files_and_every_reader_reads_the_same_rows(
    small_files: Path, tmp_path: Path
) -> None:
    compacted = tmp_path / "results"
    shutil.copytree(small_files, compacted)
    summary = ResultsStore(compacted).compact(cells=10)
    assert (summary.merged, summary.written, summary.cells) == (24, 3, 24)
    assert len(list(compacted.glob(FILES))) == 3
    pd.testing.assert_frame_equal(_rows(compacted), _rows(small_files), check_exact=True)
    table = pq.read_table(compacted).to_pandas().sort_values("cell_id", kind="stable")
    pd.testing.assert_frame_equal(table.reset_index(drop=True), _rows(small_files),
                                  check_exact=True)
    pd.testing.assert_frame_equal(*(load(d).sort_values("cell_id", kind="stable")
                                    .reset_index(drop=True) for d in (compacted, small_files)),
                                  check_exact=True)
    # A compacted directory resumes like any other: nothing is recomputed.
    store = ResultsStore(compacted)
    assert store.prepare() == ResultsStore(small_files).scan()
    assert str(store.compact(cells=10)) == "nothing to compact"


#: Kills a compaction at its K-th file operation (a rename or a removal), with SIGKILL.
KILLER = textwrap.dedent("""
    import os, signal, sys
    from sweep.store import ResultsStore

    calls, kill_at = [0], int(sys.argv[2])
    def deadly(function):
        def call(*args, **kwargs):
            calls[0] += 1
            if calls[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return function(*args, **kwargs)
        return call
    os.replace, os.unlink = deadly(os.replace), deadly(os.unlink)
    ResultsStore(sys.argv[1]).compact(cells=10)
""")


def test_compaction_killed_at_any_step_loses_and_doubles_nothing(
    small_files: Path, tmp_path: Path
) -> None:
    expected = _rows(small_files)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # A merge of k files: the journal's rename, k removals, the merged file's rename and
    # the journal's removal; merges of 10, 10 and 4 files make 33 operations.
    killed_mid_way = 0
    for kill_at in (1, 2, 7, 12, 13, 14, 20, 27, 29, 31, 33):
        directory = tmp_path / f"kill_{kill_at}"
        shutil.copytree(small_files, directory)
        done = subprocess.run([sys.executable, "-c", KILLER, str(directory), str(kill_at)],
                              env=env, capture_output=True, text=True)
        assert done.returncode == -signal.SIGKILL, done.stderr
        # Before any recovery, a plain reader never sees a cell twice.
        sizes = pd.read_parquet(directory).groupby("cell_id").size()
        assert sizes.le(expected.groupby("cell_id").size().reindex(sizes.index)).all()
        killed_mid_way += bool(list((directory / JOURNAL).glob("*.json")))
        # The next command that opens the directory completes the transaction.
        ResultsStore(directory).prepare()
        pd.testing.assert_frame_equal(_rows(directory), expected, check_exact=True)
        assert not list(directory.glob("**/.*.tmp")) and not list(directory.glob(f"{JOURNAL}/*"))
        ResultsStore(directory).compact(cells=10)
        pd.testing.assert_frame_equal(_rows(directory), expected, check_exact=True)
        assert len(list(directory.glob(FILES))) == 3
    assert killed_mid_way >= 4  # kills landed inside transactions, not only between them


def test_recompute_replaces_the_cells_it_names_and_keeps_the_others(
    small_files: Path, tmp_path: Path
) -> None:
    directory = tmp_path / "results"
    shutil.copytree(small_files, directory)
    ResultsStore(directory).compact(cells=100)  # one file: recomputing rewrites it
    [merged] = directory.glob(FILES)
    before = _rows(directory)
    _run(directory, CELLS, recompute={"seed": [3, 5]})
    after = _rows(directory)
    pd.testing.assert_frame_equal(after, before, check_exact=True)  # same numbers
    store = ResultsStore(directory)
    store.scan()
    # The recomputed cells in a new file, the old file rewritten without them.
    seeds = sorted((set(before[before.cell_id.isin(ids)].seed) for ids in store.files.values()),
                   key=len)
    *recomputed, rest = seeds
    assert set().union(*recomputed) == {3, 5} and rest == set(range(len(CELLS))) - {3, 5}
    assert not merged.exists()
    # A key that is no column of the family is refused before any work.
    from sweep.errors import ConfigError

    with pytest.raises(ConfigError, match=f"^recompute.sed: not a key of family "
                                          f"{re.escape(FAMILY)}"):
        plan([{**CELLS[0], "recompute": {"sed": 3}}])
    # An option recorded only when set (colme's welch_dof) is matched at its default
    # elsewhere.
    assert len(plan([{**SMALL, "recompute": {"welch_dof": "paper"}}])[0]) == 1


def test_recompute_true_reruns_every_cell(small_files: Path, tmp_path: Path) -> None:
    directory = tmp_path / "results"
    shutil.copytree(small_files, directory)
    def files() -> set[tuple[Path, int]]:
        return {(p, p.stat().st_ino) for p in directory.glob(FILES)}

    before = files()
    summary = _run(directory, CELLS[:3], recompute=True)
    assert (summary.done, summary.skipped) == (3, 0)
    assert len(before - files()) == 3 == len(files() - before)  # three files rewritten
    pd.testing.assert_frame_equal(_rows(directory), _rows(small_files), check_exact=True)


def test_the_compact_command(small_files: Path, tmp_path: Path) -> None:
    directory = tmp_path / "results"
    shutil.copytree(small_files, directory)
    done = run_cli(["compact", str(directory)], tmp_path)
    assert (done.returncode, done.stdout) == (0, "compacted 24 files holding 24 cells into "
                                                 "1 file\n"), done.stderr
    assert run_cli(["compact", str(directory)], tmp_path).stdout == "nothing to compact\n"
    missing = run_cli(["compact", str(tmp_path / "nowhere")], tmp_path)
    assert missing.returncode == 2
    assert missing.stderr == f"error: results_dir: {tmp_path / 'nowhere'} is not a directory\n"
    pd.testing.assert_frame_equal(_rows(directory), _rows(small_files), check_exact=True)


def test_directories_sharing_cells_in_different_files_read_each_cell_once(
    small_files: Path, tmp_path: Path
) -> None:
    merged, part = tmp_path / "merged", tmp_path / "part"
    shutil.copytree(small_files, merged)
    ResultsStore(merged).compact()  # every cell in one file
    shutil.copytree(small_files, part)
    for path in sorted(part.glob(FILES))[::2]:
        path.unlink()  # half the cells, one file each
    expected = load(small_files).sort_values("cell_id", kind="stable").reset_index(drop=True)
    for order in ([part, merged], [merged, part]):
        rows = load(order).sort_values("cell_id", kind="stable").reset_index(drop=True)
        pd.testing.assert_frame_equal(rows, expected, check_exact=True)


def test_a_rerun_with_nothing_to_do_writes_nothing(small_files: Path, tmp_path: Path) -> None:
    directory = tmp_path / "results"
    shutil.copytree(small_files, directory)
    (directory / LOCK).unlink()
    before = sorted(p.relative_to(directory) for p in directory.rglob("*"))
    summary = _run(directory, CELLS)
    assert (summary.done, summary.skipped) == (0, len(CELLS))
    assert sorted(p.relative_to(directory) for p in directory.rglob("*")) == before


#: Extends the cells of :data:`CELLS` to 4 replicates (one task, one transaction per
#: cell), killed with SIGKILL at its K-th file operation (a rename or a removal).
EXTENDER = KILLER.replace("ResultsStore(sys.argv[1]).compact(cells=10)\n", textwrap.dedent("""
    from sweep.execute import execute
    from sweep.plan import plan
    from tests.test_store import CELLS
    cells, execution = plan([{**c, "replicates": 4, "results_dir": sys.argv[1],
                              "executor": "serial", "ray": {"task_seconds": 1e-9}}
                             for c in CELLS])
    execute(cells, execution, progress=False)
"""))
assert EXTENDER != KILLER


def test_an_extension_killed_at_any_step_resumes_without_loss_or_duplication(
    small_files: Path, tmp_path: Path
) -> None:
    fresh = tmp_path / "fresh"
    _run(fresh, [{**c, "replicates": 4} for c in CELLS])
    expected = _rows(fresh)
    stored = tmp_path / "stored"
    shutil.copytree(small_files, stored)
    ResultsStore(stored).compact(cells=10)  # extending rewrites a file of other cells too
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed_mid_way = 0
    for kill_at in (2, 4, 9, 14, 35, 56):  # the 1st is the index's (prepare)
        directory = tmp_path / f"kill_{kill_at}"
        shutil.copytree(stored, directory)
        done = subprocess.run([sys.executable, "-c", EXTENDER, str(directory), str(kill_at)],
                              env=env, capture_output=True, text=True)
        assert done.returncode == -signal.SIGKILL, done.stderr
        # Before any recovery, a plain reader never sees a row twice, nor a cell in two
        # files, nor a cell partly extended.
        rows = pd.read_parquet(directory)
        assert not rows.duplicated(["cell_id", "method", "source", "replicate", "t"]).any()
        assert rows.groupby("cell_id").replicates.nunique().eq(1).all()
        sizes = rows.groupby("cell_id").replicate.nunique()
        assert sizes.isin([2, 4]).all()
        killed_mid_way += bool(list((directory / JOURNAL).glob("*.json")))
        # The next sweep completes the transaction, then extends what is left.
        summary = _run(directory, [{**c, "replicates": 4} for c in CELLS])
        assert summary.failed == [] and summary.done == summary.extended
        assert summary.done + summary.skipped == len(CELLS)
        pd.testing.assert_frame_equal(_rows(directory), expected, check_exact=True)
        assert not list(directory.glob("**/.*.tmp")) and not list(directory.glob(f"{JOURNAL}/*"))
    assert killed_mid_way >= 3  # kills landed inside transactions, not only between them


def test_a_resume_reads_the_index_not_the_footers_unless_a_file_changed(
    small_files: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep that stored cells leaves ``_index.json``: the next scan reads no footer of
    an unchanged file (a copy that keeps the times included); a file rewritten since, a
    damaged file and a damaged index are read as before."""
    import sweep.store as store_module

    directory = tmp_path / "results"
    shutil.copytree(small_files, directory)  # times kept: the index holds
    expected = ResultsStore(directory)
    expected.scan()
    read: list[Path] = []
    footer = store_module._footer_cells
    monkeypatch.setattr(store_module, "_footer_cells", lambda p: read.append(p) or footer(p))
    store = ResultsStore(directory)
    store.scan()
    assert read == [] and store.held == expected.held and store.files == expected.files
    # A file changed since (its time moved): read again.
    changed = sorted(directory.glob(FILES))[0]
    os.utime(changed, ns=(changed.stat().st_atime_ns, changed.stat().st_mtime_ns + 1))
    store = ResultsStore(directory)
    store.scan()
    assert read == [changed] and store.held == expected.held
    # A damaged index is an empty one.
    (directory / INDEX).write_text("{not json")
    read.clear()
    store = ResultsStore(directory)
    store.scan()
    assert len(read) == len(expected.files) and store.held == expected.held


def test_a_commit_knows_the_files_it_writes_and_sees_what_others_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit reads no footer of a file it writes (it knows its cells and counts), yet
    sees what another sweep stored, replaced or extended meanwhile, a file rewritten under
    its name included: it stores no replicate twice, and its store then holds what a
    fresh scan of the directory reads."""
    import sweep.store as store_module

    read: list[Path] = []
    footer = store_module._footer_cells
    monkeypatch.setattr(store_module, "_footer_cells", lambda p: read.append(p) or footer(p))

    def row(cell: Cell) -> tuple[Cell, pa.Table, dict]:
        replicates = list(range(cell.start, cell.replicates))
        return (cell, pa.table({"cell_id": [cell.cell_id] * len(replicates),
                                "replicate": replicates}),
                {"config": {"replicates": cell.replicates}, "family": FAMILY,
                 "family_version": 1})

    rows = [row(make_cell({**CELL, "seed": seed})) for seed in range(4)]
    ids = [cell.cell_id for cell, _, _ in rows]
    ours, theirs = ResultsStore(tmp_path), ResultsStore(tmp_path)
    ours.prepare()
    assert ours.commit(rows[:2]) == 2 and read == []
    assert theirs.commit(rows[2:3]) == 1 and read == [ours.where[ids[0]]]
    read.clear()
    # Seed 1 is ours, seed 2 theirs: only seed 3 is stored, and only theirs is read.
    assert ours.commit(rows[1:]) == 1 and read == [theirs.where[ids[2]]]
    # They recompute seed 0: the file of seeds 0 and 1 becomes one of seed 1, and one of 0.
    assert theirs.commit(rows[:1], replace={ids[0]}) == 1
    assert ours.commit(rows[:1]) == 0
    # They extend seed 3 to 8 replicates: its file keeps its name. Ours, asked the same,
    # finds them stored.
    extension = row(dataclasses.replace(make_cell({**CELL, "seed": 3, "replicates": 8}),
                                        start=CELL["replicates"]))
    assert theirs.commit([extension]) == 1
    assert ours.commit([extension]) == 0
    stored = pq.read_table(ours.where[ids[3]]).column("replicate").to_pylist()
    assert sorted(stored) == list(range(8))
    fresh = ResultsStore(tmp_path)
    assert fresh.scan() == set(ids) and not fresh.damaged and fresh.held[ids[3]] == 8
    for store in (ours, theirs):
        assert (store.files, store.held, store.where, store.stamps, store.known) == (
            fresh.files, fresh.held, fresh.where, fresh.stamps, fresh.known)
