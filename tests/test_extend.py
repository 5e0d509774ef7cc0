"""More replicates without recomputing: a stored cell of R replicates extended to R' > R
computes replicates R to R' − 1 only and gives the rows of a fresh run at R', bit for bit,
for every family (each family's examples, analytic rows included) on every executor;
fewer replicates than stored compute nothing."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from sweep.execute import Summary, execute
from sweep.family import families, get_family
from sweep.plan import make_cell, pieces, plan
from sweep.store import ResultsStore, cell_records

#: Every family's examples: the code paths that draw their random numbers differently.
CONFIGS = [{"family": name, **options} for name in sorted(families())
           for options in (getattr(get_family(name), "examples", None) or {"": {}}).values()]
SEED = 11


def _run(directory: Path, replicates: int, executor: str = "serial") -> Summary:
    cells, execution = plan([{**config, "replicates": replicates, "seed": SEED,
                              "results_dir": str(directory), "executor": executor,
                              "processes": {"workers": 2}, "ray": {"num_cpus": 2}}
                             for config in CONFIGS])
    return execute(cells, execution, progress=False)


def _cells(directory: Path) -> dict[str, pd.DataFrame]:
    """Each stored cell's rows, in the order stored, by cell id."""
    found = {}
    for path in sorted(directory.glob("*/*.parquet")):
        table = pq.read_table(path).to_pandas()
        for cell_id, rows in table.groupby("cell_id", sort=False):
            found[cell_id] = rows.reset_index(drop=True)
    return found


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pd.DataFrame]:
    """Every example at 5 replicates, computed at once."""
    directory = tmp_path_factory.mktemp("fresh")
    assert _run(directory, 5).done == len(CONFIGS)
    return _cells(directory)


@pytest.mark.parametrize("executor", ["serial", *(pytest.param(name, marks=pytest.mark.slow)
                                                 for name in ("processes", "ray"))])
def test_extending_gives_the_rows_of_a_fresh_run(executor: str, tmp_path: Path,
                                                  fresh: dict[str, pd.DataFrame]) -> None:
    assert _run(tmp_path, 2, executor).done == len(CONFIGS)
    summary = _run(tmp_path, 5, executor)
    assert (summary.done, summary.extended, summary.failed) == (len(CONFIGS), len(CONFIGS), [])
    extended = _cells(tmp_path)
    assert extended.keys() == fresh.keys()
    for cell_id, rows in fresh.items():
        # Of the same values, bit for bit; a file whose cells leave a column missing reads
        # its integers as floats, and the executors batch cells into files differently.
        pd.testing.assert_frame_equal(extended[cell_id], rows, check_exact=True,
                                      check_dtype=False)
    # The stored record says what was extended; asking for fewer computes nothing.
    store = ResultsStore(tmp_path)
    store.scan()
    assert set(store.held.values()) == {5}
    for record in store.records().values():
        assert record["config"]["replicates"] == 5
        assert record["extends"]["config"]["replicates"] == 2
    summary = _run(tmp_path, 3, executor)
    assert (summary.done, summary.skipped) == (0, len(CONFIGS))


def test_an_extension_computes_only_the_new_replicates() -> None:
    config = {**CONFIGS[0], "replicates": 7, "seed": SEED}
    cell = make_cell(config)
    assert make_cell({**config, "replicates": 3}).cell_id == cell.cell_id
    assert make_cell({**config, "replicates": 3}).stream == cell.stream
    extension = pieces(replace(cell, start=4), task_seconds=1e-9)
    assert [(p.start, p.stop) for p in extension] == [(4, 5), (5, 6), (6, 7)]
    assert not any(p.analytic for p in extension)
    assert sum(p.stop - p.start for p in pieces(replace(cell, start=4), 1e9)) == 3


def test_one_count_per_cell_in_a_sweep(tmp_path: Path) -> None:
    from sweep.errors import ConfigError

    with pytest.raises(ConfigError, match=r"^replicates: must be one count per cell; got 2 "
                                          r"and 3 for cells that differ in nothing else"):
        plan([{**CONFIGS[0], "replicates": r, "results_dir": str(tmp_path)} for r in (2, 3)])
    assert not tmp_path.joinpath("colme").exists()


def test_records_of_extended_cells_keep_the_stored_record(tmp_path: Path) -> None:
    _run(tmp_path, 1)
    _run(tmp_path, 2)
    _run(tmp_path, 4)
    [path, *_] = sorted(tmp_path.glob("*/*.parquet"))
    record = next(iter(cell_records(pq.read_schema(path).metadata).values()))
    assert [record["config"]["replicates"], record["extends"]["config"]["replicates"],
            record["extends"]["extends"]["config"]["replicates"]] == [4, 2, 1]
