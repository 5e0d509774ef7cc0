"""A results directory of several families, as every family writes to ``results/`` by
default: reading, summarizing and reporting it keep every family's columns and values,
also where two families give a column of the same name different types, and only a file
that fails its checks is called damaged."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analysis import load, summaries, summarize
from analysis.load import DamagedResults
from sweep.plan import Cell
from sweep.results import PROPORTION, Metric, ResultSchema, cell_table
from sweep.store import ResultsStore

from .sweep_reference import Page, run_cli

#: Two families that name options and an index column alike, with other types: text and
#: a number (no common type), an integer and a float (a common type), a bool and an
#: integer (none), an integer a float would round (2⁵³ + 1) and a float.
SCHEMAS = {"a": ResultSchema(index={"node": pa.string()}, metrics={"x": Metric()}),
           "b": ResultSchema(index={"node": pa.int64()}, metrics={"y": Metric(PROPORTION)})}
OPTIONS = {"a": {"prior": "paper", "level": 3, "flag": True, "big": 2**53 + 1},
           "b": {"prior": 0.5, "level": 2.5, "flag": 1, "big": 0.5}}
NODES = {"a": ["u", "v"], "b": [0, 1]}
KEYS = ["cell_id", "method", "source", "replicate", "t", "node", "state"]


def _rows(family: str, seed: int) -> pd.DataFrame:
    """Three replicates at two nodes and two checkpoints, plus an analytic row per node."""
    rng = np.random.default_rng(seed)
    rows = [{"method": "m", "source": "simulated", "replicate": r, "t": t, "node": node}
            for r in range(3) for t in (1, 2) for node in NODES[family]]
    rows += [{"method": "m", "source": "analytic", "replicate": None, "t": t, "node": node}
             for t in (1, 2) for node in NODES[family]]
    frame = pd.DataFrame(rows)
    metric = next(iter(SCHEMAS[family].metrics))
    frame[metric] = rng.random(len(frame)) if family == "a" else rng.integers(0, 2, len(frame))
    return frame


def _store(root: Path) -> None:
    """Two cells (ε = 0.5 and 1) of each family, stored as a sweep stores them."""
    store = ResultsStore(root)
    store.prepare()
    for family, schema in SCHEMAS.items():
        for seed, epsilon in enumerate((0.5, 1.0)):
            cell_id = f"{family}{seed:015x}"
            cell = Cell(cell_id, family, None, 3, seed, {"version": 1}, (0, 0))
            constants = {**OPTIONS[family], "epsilon": epsilon, "family": family,
                         "replicates": 3, "seed": seed, "family_version": 1,
                         "cell_id": cell_id}
            table = cell_table(family, schema, _rows(family, seed), constants)
            store.commit([(cell, table, {"family": family, "family_version": 1})])


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    _store(tmp_path / "results")
    return tmp_path / "results"


def _values(frame: pd.DataFrame, columns: list[str]) -> list[tuple]:
    """The rows' values of ``columns`` with their types (None where missing), in key order."""
    ordered = frame.sort_values([k for k in KEYS if k in frame], kind="stable",
                                key=lambda c: c.astype(str))
    return [tuple((type(v), v) if not pd.isna(v) else None for v in row)
            for row in ordered[columns].astype(object).itertuples(index=False)]


def test_a_column_of_several_types_keeps_each_familys_values(mixed: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing left out, nothing said
        rows = load(mixed)
    assert set(rows.family) == {"a", "b"}
    for family in SCHEMAS:
        own = load(mixed / family)
        part = rows[rows.family == family]
        # Every column of the family, every value with its type (a float read as an
        # object is the same float), but level, which takes the types' common type.
        columns = [c for c in own.columns if c != "level"]
        assert _values(part, columns) == _values(own, columns)
        # Alone, a family has its own types.
        assert (load(mixed, family=family).dtypes == own.dtypes).all()
    a, b = rows[rows.family == "a"], rows[rows.family == "b"]
    # No common type: each family's own values, as objects.
    for column in ("prior", "flag", "big", "node"):
        assert rows[column].dtype == object, column
    assert set(map(type, a.prior)) == {str} and set(map(type, b.prior)) == {float}
    assert {type(v) for v in a.flag} == {bool} and {type(v) for v in b.flag} == {int}
    assert set(a.big) == {2**53 + 1} and set(b.big) == {0.5}  # not rounded to a float
    assert set(a.node) == {"u", "v"} and set(b.node) == {0, 1}
    # A common type that keeps every value: the integer 3 is the float 3.0.
    assert rows.level.dtype == np.float64 and set(a.level) == {3.0} and set(b.level) == {2.5}
    assert rows.attrs["index"] == ["method", "source", "replicate", "t", "node"]
    assert rows.attrs["kinds"] == {"x": "continuous", "y": PROPORTION}


def test_summaries_of_several_types_are_each_familys_own(mixed: Path) -> None:
    summary = summaries(mixed)
    # Read in chunks or from the rows in memory: the same table.
    pd.testing.assert_frame_equal(summary, summarize(load(mixed)), check_exact=True)
    assert summary.attrs["metrics"] == ["x", "y"]
    for family, metric in (("a", "x"), ("b", "y")):
        own = summaries(mixed / family)
        part = summary[summary.family == family]
        columns = [*KEYS[:3], "t", "node", metric, f"{metric}_low", f"{metric}_high", "n",
                   "prior", "flag", "big", "epsilon"]
        assert _values(part, columns) == _values(own, columns)
    # Sorted by cell, index value and t within each family's cells.
    assert summary.cell_id.is_monotonic_increasing


def test_filters_compare_with_the_families_whose_column_has_their_type(mixed: Path
                                                                      ) -> None:
    assert set(load(mixed, prior=0.5).family) == {"b"}
    assert set(load(mixed, prior="paper").family) == {"a"}
    assert set(summaries(mixed, prior=["paper", 0.5]).family) == {"a", "b"}
    assert set(load(mixed, node=["v", 1]).node) == {"v", 1}
    assert load(mixed, prior="jeffreys").empty
    # A value no family's column compares with is a mistake, said as such.
    with pytest.raises(TypeError, match=r"filter epsilon='0.5': '0.5' does not compare "
                                        r"with the column's double values"):
        load(mixed, epsilon="0.5")
    with pytest.raises(TypeError, match=r"prior=\[0.5, True\]: True does not compare with "
                                        "the column's double or string values"):
        summaries(mixed, prior=[0.5, True])


def test_only_a_file_that_fails_its_checks_is_damaged(mixed: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged"
    shutil.copytree(mixed, damaged)
    path = next((damaged / "b").glob("*.parquet"))
    data = bytearray(path.read_bytes())
    data[data.index(b"simulated") + 1] ^= 0xFF  # a page of the source column
    path.write_bytes(bytes(data))
    for read in (load, summaries):
        with pytest.raises(DamagedResults, match=r"damaged results file under .*b"):
            read(damaged)
    done = run_cli(["report", "damaged", "--out", "report"], tmp_path, module="analysis")
    assert done.returncode == 5 and "error: damaged results file" in done.stderr


#: The four families' quick starts, smaller: every family, and the columns two families
#: give different types (prior: colme's text, continual's number; sensitivity: network's
#: number, inference's text).
QUICK_STARTS = {
    "colme": ["+experiment=quickstart", "n_agents=10", "t_max=500", "checkpoints=5"],
    "network": ["+experiment=network_quickstart", "graph.n_nodes=30", "graph.radius=0.4",
                "rounds=20", "checkpoints=5"],
    "continual": ["+experiment=continual_quickstart", "n_users=300", "t_max=3000",
                  "checkpoints=5"],
    "inference": ["+experiment=inference_quickstart"],
}
#: A figure of each family's own that the quick starts draw.
OWN_FIGURES = {"colme": "privacy_utility", "network": "network_error_vs_epsilon",
               "continual": "continual_error_vs_t", "inference": "inference_tvd"}
#: The columns whose types differ between the quick starts' files, with the type of each
#: family's values (network's sensitivity, a number, is missing in its quick start).
CONFLICTS = {"prior": {"colme": str, "continual": float},
             "sensitivity": {"network": float, "inference": str}}


@pytest.fixture(scope="module")
def quick_starts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The working directory where the four quick starts ran into the default results/."""
    cwd = tmp_path_factory.mktemp("quick_starts")
    for arguments in QUICK_STARTS.values():
        done = run_cli(["-m", *arguments, "replicates=2", "executor=serial"], cwd)
        assert done.returncode == 0, done.stderr
    return cwd


@pytest.mark.slow
def test_the_report_of_the_four_quick_starts_draws_every_family(quick_starts: Path) -> None:
    done = run_cli(["report", "results", "--out", "report"], quick_starts, module="analysis")
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr
    drawn = {line.split(":")[0].removeprefix("drew ") for line in done.stdout.splitlines()
             if line.startswith("drew ")}
    for family, figure in OWN_FIGURES.items():
        assert {f"overview_{family}", figure} <= drawn, done.stdout
    Page(quick_starts / "report" / "index.html").check_images()
    final = pd.read_csv(quick_starts / "report" / "final.csv")
    assert set(final.family) == set(QUICK_STARTS)
    # One figure: an overview is of one family.
    one = run_cli(["figure", "overview", "results", "--out", "overview"], quick_starts,
                  module="analysis")
    assert one.returncode == 1 and one.stderr.startswith(
        "error: overview: the results hold several families, an overview of each "
        "(figures: overview_")


@pytest.mark.slow
def test_load_and_summaries_give_every_family_its_metrics(quick_starts: Path) -> None:
    results = quick_starts / "results"
    rows, summary = load(results), summaries(results)
    for family in QUICK_STARTS:
        # The plain reader of the family's folder (the README's advice) and load of
        # that folder and of the whole directory agree on every metric, value for value.
        plain = pd.read_parquet(results / family)
        own = load(results / family)
        metrics = own.attrs["metrics"]
        assert metrics and set(metrics) <= set(rows.attrs["metrics"])
        columns = [*metrics, *(c for c in CONFLICTS if c in own)]
        part = rows[rows.family == family]
        assert _values(part, columns) == _values(own, columns) == _values(plain, columns)
        mine = summaries(results / family)
        bands = [c for m in metrics if f"{m}_low" in mine for c in (m, f"{m}_low", f"{m}_high")]
        assert _values(summary[summary.family == family], [*bands, "n"]) == _values(
            mine, [*bands, "n"])
    for column, types in CONFLICTS.items():
        # The files disagree (else this test would no longer test the conflict) ...
        files = {f: pq.read_schema(next((results / f).glob("*.parquet"))).field(column).type
                 for f in types}
        assert len(set(files.values())) == 2, files
        # ... and each family's values keep their type.
        assert rows[column].dtype == object
        for family, kind in types.items():
            held = rows.loc[rows.family == family, column].dropna()
            assert set(map(type, held)) <= {kind} and (len(held) or family == "network")
