"""Reading results (analysis.load): one implementation of the statistics for rows read and
rows in memory, reading in chunks, which cells are kept (and saying so), and one error
per way a results path can fail."""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import load, summaries, summarize
from analysis.load import Z95, DamagedResults, NoResults, ResultsError, ResultsNotFound
from sweep.execute import execute, simulate
from sweep.family import get_family
from sweep.plan import Cell, Execution, plan
from sweep.store import family_directory

#: The module itself (the package exports a function of the same name).
LOAD = importlib.import_module("analysis.load")
KEYS = ["cell_id", "method", "source", "t"]
#: The engine's own test family (tests/minimal_family.py): reading needs no family of
#: the paper.
FAMILY = "tests.minimal_family:FAMILY"
#: A small cell of it, with simulated and analytic rows.
CELL = {"family": FAMILY, "samples": 30, "checkpoints": [5, 10, 30]}


def _sweep(directory: Path, *configs: dict) -> list[Cell]:
    """Real cells, computed and stored as a sweep stores them (serially, in process)."""
    cells, _ = plan(configs)
    execute(cells, Execution(results_dir=str(directory), executor="serial"), progress=False)
    return list(cells)


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four cells of three replicates: scale × samples."""
    directory = tmp_path_factory.mktemp("grid") / "results"
    _sweep(directory, *({**CELL, "scale": scale, "samples": samples, "replicates": 3}
                        for scale in (0.5, 1.0) for samples in (30, 40)))
    return directory


def test_summaries_equal_summarize_of_the_rows_read_or_simulated(grid: Path) -> None:
    streamed = summaries(grid)
    direct = summarize(load(grid))
    pd.testing.assert_frame_equal(streamed, direct, check_exact=True)
    assert streamed.attrs == direct.attrs == {
        "index": ["method", "source", "replicate", "t"],
        "metrics": ["error", "mean"], "kinds": {"error": "continuous", "mean": "continuous"},
        "interval": "se", "kept": []}
    # Sorted by cell, index value and t.
    order = streamed[KEYS].sort_values(KEYS, kind="stable").index
    assert (order == streamed.index).all()
    # The rows of simulate() are a cell's, bit for bit, and summarize to the same table.
    config = {**CELL, "scale": 1.0, "samples": 40, "replicates": 3}
    alone = summarize(simulate(**config))
    stored = streamed[streamed.cell_id == alone.cell_id.iloc[0]].reset_index(drop=True)
    # The cells' constants are categories: a summary of one cell has fewer of them.
    text = stored.select_dtypes("category").columns
    pd.testing.assert_frame_equal(stored.astype(dict.fromkeys(text, str)),
                                  alone.astype(dict.fromkeys(text, str)), check_exact=True)


def test_reading_in_chunks_gives_the_table_of_one_chunk(grid: Path,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    whole, rows = summaries(grid), load(grid)
    # Every file its own chunk.
    monkeypatch.setattr(LOAD, "CHUNK_ROWS", 1)
    pd.testing.assert_frame_equal(summaries(grid), whole, check_exact=True)
    pd.testing.assert_frame_equal(load(grid), rows, check_exact=True)


def test_a_cells_statistics_are_those_of_its_rows_alone(tmp_path: Path) -> None:
    # 36,000 rows in one file: past one batch of Arrow's grouping (2^15 rows), whose
    # statistics it merges with the next batch's, rounding otherwise than in one pass.
    configs = [{**CELL, "replicates": 4000, "seed": seed} for seed in range(3)]
    _sweep(tmp_path / "results", *configs)
    read = summaries(tmp_path / "results")
    for config in configs:
        alone = summarize(simulate(**config))
        stored = read[read.cell_id == alone.cell_id.iloc[0]].reset_index(drop=True)
        text = stored.select_dtypes("category").columns
        pd.testing.assert_frame_equal(stored.astype(dict.fromkeys(text, str)),
                                      alone.astype(dict.fromkeys(text, str)), check_exact=True)


def test_the_band_is_the_standard_error_over_replicates(grid: Path) -> None:
    rows = load(grid)
    summary = summaries(grid).set_index(KEYS)
    wide = summaries(grid, interval="ci95").set_index(KEYS)
    simulated = rows[rows.source == "simulated"]
    for key, group in simulated.groupby(KEYS):
        values = group.error.to_numpy()
        mean, se = np.mean(values), np.std(values, ddof=1) / np.sqrt(values.size)
        line = summary.loc[key]
        assert line.n == values.size == 3
        np.testing.assert_allclose(line.error, mean, rtol=1e-12)
        np.testing.assert_allclose([line.error_low, line.error_high], [mean - se, mean + se],
                                   rtol=1e-12)
        np.testing.assert_allclose(wide.loc[key].error_high, mean + Z95 * se, rtol=1e-12)
    analytic = summary[summary.index.get_level_values("source") == "analytic"]
    assert len(analytic) and (analytic.error_low == analytic.error).all()
    assert (analytic.error_high == analytic.error).all() and (analytic.n == 1).all()


def test_a_cell_asked_for_more_replicates_is_read_with_all_of_them(tmp_path: Path) -> None:
    """One directory: the cell is extended, and read once with its 6 replicates; several
    directories: each cell is read from the one that holds most of its replicates."""
    for replicates in (5, 6):
        _sweep(tmp_path / "a", *({**CELL, "scale": scale, "replicates": replicates}
                                 for scale in (0.5, 1.0)))
    _sweep(tmp_path / "b", *({**CELL, "scale": scale, "replicates": 3}
                             for scale in (0.5, 1.0)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing left out, nothing said
        for read in (tmp_path / "a", [tmp_path / "b", tmp_path / "a"]):
            summary = summaries(read)
            assert set(summary.replicates) == {6} and summary.cell_id.nunique() == 2
            assert set(summary[summary.source == "simulated"].n) == {6}
    rows = load([tmp_path / "b", tmp_path / "a"], columns=["replicate"])
    assert rows.groupby("cell_id").replicate.nunique().eq(6).all()


def test_of_cells_that_differ_only_in_replicates_the_largest_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files of format 2, whose cell ids hashed the replicate count, may hold cells that
    differ only in it: of those, the one with most replicates is read, and said."""
    for replicates in (5, 6):
        with monkeypatch.context() as patch:
            if replicates == 5:  # an id of before, beside today's
                patch.setattr("sweep.plan.FORMAT_VERSION", 2)
            _sweep(tmp_path, *({**CELL, "scale": scale, "replicates": replicates}
                               for scale in (0.5, 1.0)))
    said = ("kept replicates = 6 over 5 for 2 cells that differ only in replicates "
            "(keep='all' shows both)")
    with pytest.warns(UserWarning, match=r"kept replicates = 6 over 5 for 2 cells"):
        summary = summaries(tmp_path)
    assert set(summary.replicates) == {6} and summary.cell_id.nunique() == 2
    assert set(summary[summary.source == "simulated"].n) == {6}
    assert summary.attrs["kept"] == [said]
    with pytest.warns(UserWarning, match=r"kept replicates = 6 over 5"):
        rows = load(tmp_path, columns=["t", "error"])
    assert rows.cell_id.nunique() == 2 and rows.attrs["kept"] == [said]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing left out, nothing said
        every = summaries(tmp_path, keep="all")
        assert load(tmp_path, keep="all").cell_id.nunique() == 4
    assert set(every.replicates) == {5, 6} and every.attrs["kept"] == []
    # A filter that selects the smaller cells reads them.
    assert set(summaries(tmp_path, replicates=5).replicates) == {5}


def test_older_versions_of_a_family_are_left_out_and_said(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    family = get_family(FAMILY)
    _sweep(tmp_path, {**CELL, "replicates": 2})
    monkeypatch.setattr(family, "version", family.version + 1)
    _sweep(tmp_path, {**CELL, "replicates": 2})
    with pytest.warns(UserWarning, match=f"left out 1 cell of family {re.escape(FAMILY)}"):
        summary = summaries(tmp_path)
    assert summary.attrs["kept"] == [
        f"left out 1 cell of family {FAMILY} made by older version {family.version - 1} "
        f"(newest: {family.version}; keep='all' reads it)"]
    assert set(summary.family_version) == {family.version}
    assert summaries(tmp_path, keep="all").cell_id.nunique() == 2
    with pytest.raises(ValueError, match="keep: must be 'newest' or 'all'"):
        summaries(tmp_path, keep="largest")


def test_a_filter_that_matches_nothing_gives_an_empty_frame(grid: Path) -> None:
    summary = summaries(grid, scale=0.25)
    assert summary.empty
    assert {"cell_id", "method", "t", "error", "error_low", "n", "scale"} <= set(summary)
    rows = load(grid, scale=0.25)
    assert rows.empty and {"cell_id", "error", "scale"} <= set(rows)


@pytest.mark.parametrize("read", [summaries, load])
def test_each_way_a_results_path_fails_has_its_error(tmp_path: Path, grid: Path,
                                                     read: object) -> None:
    with pytest.raises(ResultsNotFound, match=r"results path .*nowhere does not exist; "
                                              "check the path") as missing:
        read(tmp_path / "nowhere")
    assert "rerun" not in str(missing.value) and missing.value.exit_code == 3
    (tmp_path / "file").write_text("")
    with pytest.raises(ResultsNotFound, match="is not a directory"):
        read(tmp_path / "file")
    (tmp_path / "empty").mkdir()
    with pytest.raises(NoResults, match=r"empty.*: the directory is empty") as empty:
        read(tmp_path / "empty")
    assert empty.value.exit_code == 4
    failed = tmp_path / "failed"
    (failed / "_failures").mkdir(parents=True)
    (failed / ".0123.host.1.tmp").write_text("")
    with pytest.raises(NoResults, match=r"no results files \(<family>/\*.parquet\), only "
                                        r".0123.host.1.tmp, _failures \(the cells"):
        read(failed)
    # A path that does not exist is not taken for a damaged one, even among others.
    with pytest.raises(ResultsNotFound):
        read([grid, tmp_path / "nowhere"])


@pytest.mark.parametrize("damage", ["truncated", "flipped"])
def test_a_damaged_file_is_never_read(tmp_path: Path, damage: str) -> None:
    [cell] = _sweep(tmp_path, {**CELL, "replicates": 2})
    path = tmp_path / family_directory(FAMILY) / f"{cell.cell_id}.parquet"
    data = bytearray(path.read_bytes())
    if damage == "truncated":
        data = data[:-50]
    else:
        data[data.index(b"mean") + 1] ^= 0xFF  # a page of the method column
    path.write_bytes(bytes(data))
    for read in (summaries, load):
        with pytest.raises(DamagedResults, match=r"damaged results file .* rerun the sweep"
                           ) as damaged:
            read(tmp_path)
        assert damaged.value.exit_code == 5 and isinstance(damaged.value, ResultsError)
        assert "\n" not in str(damaged.value)
