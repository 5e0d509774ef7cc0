"""A family outside the package (tests/external/, set up as the README tells users) runs
through the command line, the store, the summaries and the report, with its own index
column and a proportion metric, and nothing in the engine or the analysis knows it."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analysis import load, report, study, summaries, summarize
from analysis.claims import HEADER, read_tables, verdict_of
from analysis.document import render
from analysis.load import wilson
from sweep.errors import FamilyError
from sweep.execute import execute, simulate
from sweep.family import check_declaration, get_family
from sweep.plan import Execution, plan
from sweep.results import PROPORTION, Metric, ResultSchema, cell_table, option_columns, roles
from sweep.store import ResultsStore

from .sweep_reference import SMALL, run_cli

EXTERNAL = Path(__file__).resolve().parent / "external"
SEARCHPATH = f"hydra.searchpath=[file://{EXTERNAL / 'conf'}]"


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cwd = tmp_path_factory.mktemp("toy")
    done = run_cli(["-m", SEARCHPATH, "family=toy", "p=0.3,0.5", "replicates=40",
                    "n_nodes=2", "results_dir=results"], cwd, path=[EXTERNAL])
    assert done.returncode == 0, done.stderr
    return cwd


def test_an_outside_family_runs_through_the_command_line_and_the_store(toy: Path) -> None:
    files = sorted((toy / "results").glob("*/*.parquet"))
    assert len(ResultsStore(toy / "results").scan()) == 2 and files
    index, metrics = roles(pq.read_schema(files[0]))
    assert index == ["method", "source", "replicate", "t", "node"]
    assert metrics == {"error": "continuous", "covered": PROPORTION}
    frame = load(toy / "results")
    assert frame.attrs["index"][-1] == "node" and set(frame.node) == {0, 1}
    # The option p arrived typed (floats), through the schema derived from its dataclass.
    assert set(frame.p) == {0.3, 0.5} and frame.p.dtype == np.float64


def test_its_index_survives_and_its_proportion_gets_wilson_intervals(toy: Path) -> None:
    summary = summaries(toy / "results", interval="ci95")
    simulated = summary[summary.source == "simulated"]
    # One row per cell, node and checkpoint: the node was not averaged away.
    assert len(simulated) == 2 * 2 * 3 and set(simulated.node) == {0, 1}
    assert simulated.n.eq(40).all()
    low, high = wilson(simulated.covered, simulated.n, 1.959963984540054)
    np.testing.assert_allclose(simulated.covered_low, low)
    np.testing.assert_allclose(simulated.covered_high, high)
    assert (simulated.covered_low >= 0).all() and (simulated.covered_high <= 1).all()
    # A rate of 1 still has a band below it, unlike mean ± SE.
    assert (simulated.covered_low < simulated.covered).any()
    # The continuous metric keeps mean ± 1.96 SE.
    rows = load(toy / "results")
    one = rows[(rows.source == "simulated") & (rows.node == 0) & (rows.t == 200)
               & (rows.p == 0.3)].error
    line = simulated[(simulated.node == 0) & (simulated.t == 200) & (simulated.p == 0.3)]
    assert line.error_high.item() - line.error.item() == pytest.approx(
        1.959963984540054 * one.std(ddof=1) / np.sqrt(one.size))
    analytic = summary[summary.source == "analytic"]
    assert (analytic.error_low == analytic.error).all()


def test_the_report_draws_it(toy: Path) -> None:
    done = run_cli(["report", "results", "--out", "report"], toy, module="analysis",
                   path=[EXTERNAL])
    assert done.returncode == 0, done.stderr
    assert "drew overview" in done.stdout
    assert (toy / "report" / "overview.png").is_file()


@pytest.fixture
def toy_study(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The toy study registered for the toy family, as a user's script would; the
    registry as it was afterwards."""
    monkeypatch.syspath_prepend(str(EXTERNAL))
    monkeypatch.setattr(study, "_registered", {})
    study.register("toy_family:FAMILY", "toy_study:STUDY")
    yield
    study.get_study.cache_clear()


def test_its_study_draws_its_view_in_the_report(toy: Path) -> None:
    done = run_cli(["report", "results", "--out", "with_study", "--study", "toy_study:STUDY"],
                   toy, module="analysis", path=[EXTERNAL])
    assert done.returncode == 0, done.stderr
    assert (toy / "with_study" / "toy_coverage.png").is_file()
    # Without the study the report knows no view of the family: the overview only.
    assert not (toy / "report" / "toy_coverage.png").exists()
    done = run_cli(["figure", "toy_coverage", "results", "--out", "coverage", "--study",
                    "toy_study:STUDY"], toy, module="analysis", path=[EXTERNAL])
    assert done.returncode == 0, done.stderr
    assert "nominal 95%" in done.stdout
    done = run_cli(["report", "results", "--out", "x", "--study", "toy_study"], toy,
                   module="analysis", path=[EXTERNAL])
    assert done.returncode == 2 and "--study: must be module:attribute" in done.stderr


def test_its_study_renders_its_document_section(toy_study: None, tmp_path: Path) -> None:
    done = run_cli(["-m", SEARCHPATH, "+experiment=toy_coverage",
                    "results_dir=root/toy_coverage"], tmp_path, path=[EXTERNAL])
    assert done.returncode == 0, done.stderr
    frame = ("<!-- multiplicity: holm -->\n# Toy\n\n"
             "{{#other_sizes}}Other sizes: {{sizes_found}}.\n{{/other_sizes}}\n"
             "{{>toy_family:FAMILY}}\n{{provenance}}\n")
    text = render("toy.md", tmp_path / "root", tmp_path / "docs", text=frame).read_text()
    assert text.startswith("<!-- multiplicity: holm -->\n# Toy\n\n## Coin flips\n")
    assert "Other sizes" not in text
    assert "200 runs per cell, p ∈ {0.3, 0.5}" in text
    # One claim, one row per cell and node, each decided by its printed evidence, tallied.
    rows = read_tables(text)
    assert len(rows) == 4 and rows[0]["case"] == "p = 0.3, node 0"
    assert all(row["verdict"] == str(verdict_of(row[HEADER[4]])) for row in rows)
    # Adjusted together by the frame's declared procedure.
    assert all(", Holm " in row[HEADER[4]] for row in rows)
    assert re.search(r"^The claims: \d agree, \d disagree, \d inconclusive \(of 1 statements, "
                     r"4 cases\)\.$", text, re.M)
    assert (tmp_path / "docs" / "figures" / "toy_coverage.png").is_file()
    assert "`toy_coverage` | 2 |" in text  # the engine's provenance table


def test_a_directory_with_another_family_keeps_both(toy: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXTERNAL))
    shutil.copytree(toy / "results", tmp_path / "mixed")
    execute(plan([{**SMALL, "replicates": 2}])[0],
            Execution(results_dir=str(tmp_path / "mixed"), executor="serial"), progress=False)
    rows = load(tmp_path / "mixed")
    # The colme rows have no node: summarizing keeps them, as their own series.
    summary = summarize(rows)
    assert set(summary.family) == {"colme", "toy_family:FAMILY"}
    assert len(summary[summary.family == "colme"]) == len(summarize(
        rows[rows.family == "colme"]))
    # Reading one family gives its own roles only.
    colme = load(tmp_path / "mixed", family="colme")
    assert colme.attrs["index"] == ["method", "source", "replicate", "t"]
    assert set(colme.attrs["metrics"]) == {"mse", "false_exclusion", "false_inclusion"}
    done = report(tmp_path / "mixed", tmp_path / "report")
    assert {"overview_colme", "overview_toy_family:FAMILY"} <= set(done.drawn), done.skipped
    # The rows of simulate() carry their roles: the node is not averaged away.
    coin = simulate("toy_family:FAMILY", replicates=3, seed=1)
    assert len(summarize(coin).query("source == 'simulated'")) == 3 * 3


def test_the_newest_version_is_chosen_across_directories(toy: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.syspath_prepend(str(EXTERNAL))
    family = get_family("toy_family:FAMILY")
    monkeypatch.setattr(family, "version", family.version + 1)
    execute(plan([{"family": "toy_family:FAMILY", "replicates": 2, "p": 0.3,
                   "n_nodes": 2}])[0],
            Execution(results_dir=str(tmp_path / "new"), executor="serial"), progress=False)
    with pytest.warns(UserWarning, match="2 cells of family toy_family:FAMILY .* older"):
        rows = load([toy / "results", tmp_path / "new"])
    assert set(rows.family_version) == {family.version}
    assert len(load([toy / "results", tmp_path / "new"], keep="all").cell_id.unique()) == 3


def test_an_outside_family_that_does_not_import_is_one_line(tmp_path: Path) -> None:
    done = run_cli([SEARCHPATH, "family=toy", "executor=serial"], tmp_path)  # no PYTHONPATH
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: family: cannot load 'toy_family:FAMILY' (No module named 'toy_family')"]
    assert not (tmp_path / "results").exists()


def test_wilson_interval_matches_its_closed_form() -> None:
    # 8 successes in 10 trials at z = 1.96 (Wilson 1927): [0.4902, 0.9433].
    low, high = wilson(pd.Series([0.8]), pd.Series([10]), 1.959963984540054)
    assert (low.item(), high.item()) == pytest.approx((0.4901625, 0.9433178), abs=1e-6)


class _Family:
    version = 1
    schema = ResultSchema(metrics={"error": Metric()})
    prepare = identity = columns = cost = has_analytic = run = None


def test_a_family_whose_option_names_a_column_is_rejected_on_load() -> None:
    from dataclasses import make_dataclass

    for metric in ("t", "cell_id", "method"):
        family = _Family()
        family.options = make_dataclass("Options", [("size", int, 1)])
        family.schema = ResultSchema(metrics={metric: Metric()})
        with pytest.raises(FamilyError, match=f"column '{metric}' is declared twice"):
            check_declaration("bad", family)
    for option in ("n", "seed", "cell_id", "error", "error_low", "results_dir"):
        family = _Family()
        family.options = make_dataclass("Options", [(option, int, 1)])
        with pytest.raises(FamilyError, match=f"^family bad: option '{option}' collides"):
            check_declaration("bad", family)
    family = _Family()
    family.version = "1"
    family.options = make_dataclass("Options", [("size", int, 1)])
    with pytest.raises(FamilyError, match="version must be an integer"):
        check_declaration("bad", family)
    for renamed in ({2: {"a": "b"}}, {0: {"a": "b"}}, {1: {"a": 2}}, [("a", "b")]):
        family = _Family()
        family.options = make_dataclass("Options", [("size", int, 1)])
        family.renamed = renamed
        with pytest.raises(FamilyError, match="renamed must map versions 1 to 1"):
            check_declaration("bad", family)


def test_option_columns_flatten_nested_groups() -> None:
    columns = option_columns(get_family("network").options)
    assert columns["graph.n_nodes"] == pa.int64() and "graph" not in columns
    assert columns["learning_rate"] == pa.float64() and columns["signal"] == pa.string()
    assert "method" not in columns and "checkpoints" not in columns  # the rows carry them


def test_rows_that_break_the_declaration_are_named() -> None:
    schema = ResultSchema(index={"node": pa.int64()},
                          metrics={"error": Metric(), "covered": Metric(PROPORTION)})
    good = {"method": ["a"], "source": ["simulated"], "replicate": [0], "t": [1],
            "node": [0], "error": [0.1], "covered": [1.0]}
    table = cell_table("toy", schema, pd.DataFrame(good), {"p": 0.3})
    assert table.column("p").to_pylist() == [0.3]
    cases = {
        "run returned no column 'node'": {k: v for k, v in good.items() if k != "node"},
        "undeclared column 'extra'": {**good, "extra": [1]},
        "proportion 'covered' has values outside": {**good, "covered": [1.5]},
        "index column 't' has missing values": {**good, "t": [None]},
        "column error": {**good, "error": ["x"]},
    }
    for message, rows in cases.items():
        with pytest.raises(FamilyError, match=f"^family toy: .*{message}"):
            cell_table("toy", schema, pd.DataFrame(rows), {})
    with pytest.raises(FamilyError, match="'node' is both a row column and a constant"):
        cell_table("toy", schema, pd.DataFrame(good), {"node": 1})
