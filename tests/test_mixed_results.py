"""A results directory of several families, as every family writes to ``results/`` by
default: reading, summarizing and reporting it keep every family's columns and values,
also where two families give a column of the same name different types, and only a file
that fails its checks is called damaged."""

from __future__ import annotations

import math
import numbers
import re
import shutil
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from matplotlib.colors import to_hex
from matplotlib.lines import Line2D

from analysis import curves, load, reporting, summaries, summarize
from analysis.__main__ import main
from analysis.load import DamagedResults, MissingData
from analysis.plot import LayoutError
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


#: The five families' quick starts (decentralized: its reference preset), smaller: every
#: family, and the columns two families give different types (prior: colme's text,
#: continual's number; sensitivity: network's number, inference's text).
QUICK_STARTS = {
    "colme": ["+experiment=quickstart", "n_agents=10", "t_max=500", "checkpoints=5"],
    "network": ["+experiment=network_quickstart", "graph.n_nodes=30", "graph.radius=0.4",
                "rounds=20", "checkpoints=5"],
    "continual": ["+experiment=continual_quickstart", "n_users=300", "t_max=3000",
                  "checkpoints=5"],
    "inference": ["+experiment=inference_quickstart"],
    "decentralized": ["+experiment=decentralized_reference", "graph.n_nodes=100,200",
                      "t_max=200", "checkpoints=10"],
}
#: The greys of reference lines and line-style entries: no series' colour.
GREYS = ("#595959", "#333333", "#000000")
#: A figure of each family's own that the quick starts draw.
OWN_FIGURES = {"colme": "privacy_utility", "network": "network_error_vs_epsilon",
               "continual": "continual_error_vs_t", "inference": "inference_tvd",
               "decentralized": "decentralized_outside"}
#: The columns whose types differ between the quick starts' files, with the type of each
#: family's values (network's sensitivity, a number, is missing in its quick start).
CONFLICTS = {"prior": {"colme": str, "continual": float},
             "sensitivity": {"network": float, "inference": str}}


@pytest.fixture(scope="module")
def quick_starts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The working directory where the five quick starts ran into the default results/."""
    cwd = tmp_path_factory.mktemp("quick_starts")
    for arguments in QUICK_STARTS.values():
        done = run_cli(["-m", *arguments, "replicates=2", "executor=serial"], cwd)
        assert done.returncode == 0, done.stderr
    return cwd


@pytest.mark.slow
def test_the_report_of_the_quick_starts_draws_every_family(quick_starts: Path) -> None:
    done = run_cli(["report", "results", "--out", "report"], quick_starts, module="analysis")
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr
    drawn = {line.split(":")[0].removeprefix("drew ") for line in done.stdout.splitlines()
             if line.startswith("drew ")}
    for family, figure in OWN_FIGURES.items():
        assert {f"overview_{family}", figure} <= drawn, done.stdout
    page = Page(quick_starts / "report" / "index.html")
    page.check_images()
    # Its sections and its summed-up metrics, not a dump of every row: a page a browser
    # opens at once (758 KB before, for the full-size quick starts).
    assert (quick_starts / "report" / "index.html").stat().st_size < 100_000
    assert {f"family-{family}" for family in QUICK_STARTS} <= set(page.headings)
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


def _says(text: str, value: object) -> bool:
    """Whether the page's ``text`` gives ``value``: an integer as one (never ``1000.0``),
    another number to its sixth significant digit (never ``0.009000000000000001``),
    anything else as it is."""
    if isinstance(value, bool | np.bool_):
        return text == str(bool(value))
    if isinstance(value, numbers.Real):
        if float(value).is_integer():
            return text == str(int(value))
        return len(text) <= 12 and math.isclose(float(text), float(value), rel_tol=1e-5)
    return text == str(value)


def _options_of(results: Path, family: str) -> tuple[dict[str, list], dict[str, object]]:
    """What the family's section must show, from its folder read by plain pandas: the
    cell-constant columns (the options, and what the family derives from them) that vary
    among its cells, with their values in order ("not set" last where some cells lack
    it), and those fixed, with their value; columns none of its cells set left out."""
    plain = pd.read_parquet(results / family)
    roles = load(results / family)
    cells = plain.drop_duplicates("cell_id")
    constant = [c for c in plain.columns if c not in {
        *roles.attrs["index"], *roles.attrs["metrics"], "cell_id", "family",
        "family_version"} and cells[c].notna().any()]
    varied, fixed = {}, {}
    for column in constant:
        values = sorted(pd.unique(cells[column].dropna()),
                        key=lambda v: (isinstance(v, str), v))
        if len(values) + cells[column].isna().any() > 1:
            varied[column] = [*values, *(["not set"] if cells[column].isna().any() else [])]
        else:
            fixed[column] = values[0]
    return varied, fixed


@pytest.mark.slow
def test_the_reports_sections_give_each_familys_own_options_and_metrics(
        quick_starts: Path) -> None:
    """Each family's section: its version; the options its cells vary, with their values,
    and those they fix, with their value, as its own files hold them (not another
    family's value, not NaN, integers as integers); its metrics at the last checkpoint as
    the range over its cells."""
    done = run_cli(["report", "results", "--out", "report"], quick_starts, module="analysis")
    assert done.returncode == 0, done.stderr
    page = Page(quick_starts / "report" / "index.html")
    results = quick_starts / "results"
    for family in QUICK_STARTS:
        section = f"family-{family}"
        plain = pd.read_parquet(results / family)
        versions = ", ".join(map(str, sorted(plain.family_version.unique())))
        assert page.headings[section].startswith(family), page.headings[section]
        assert page.headings[section].endswith(f"version {versions}")
        varied, fixed = _options_of(results, family)
        swept = dict(page.tables[section, "swept"][1:])
        shown = dict(page.tables[section, "fixed"][1:])
        assert set(swept) == set(varied) and set(shown) == set(fixed), family
        for column, value in fixed.items():
            assert _says(shown[column], value), (family, column, shown[column], value)
        for column, values in varied.items():
            texts = swept[column].split(", ")
            assert len(texts) == len(values), (family, column, texts, values)
            assert all(_says(t, v) for t, v in zip(texts, values, strict=True)), (
                family, column, texts, values)
        # The family's metrics only, each the range over its cells (and its own index's
        # values, e.g. states) at their last t.
        [header, *rows] = page.tables[section, "metrics"]
        summary = summaries(results / family)
        last = summary[summary.t == summary.groupby("cell_id").t.transform("max")]
        held = [m for m in summary.attrs["metrics"] if last[m].notna().any()]
        assert header == ["method", "source", "cells", *held]
        assert len(rows) == len(last.groupby(["method", "source"], observed=True))
        for row in rows:
            # "Algorithm 1 (colme)": the method in the paper's words, then its name.
            method = row[0][row[0].rindex("(") + 1:-1] if row[0].endswith(")") else row[0]
            of = last[(last.method == method) & (last.source == row[1])]
            assert row[2] == str(of.cell_id.nunique()) != "0", (family, row)
            for metric, text in zip(held, row[3:], strict=True):
                values = of[metric].dropna()
                assert (text == "") == values.empty, (family, row, metric)
                if text:
                    low, high = (float(x) for x in (text.split(" – ") * 2)[:2])
                    assert math.isclose(low, values.min(), rel_tol=5e-3, abs_tol=1e-300)
                    assert math.isclose(high, values.max(), rel_tol=5e-3, abs_tol=1e-300)
    # No NaN, no integer printed as a float, anywhere (a text value holds what it holds).
    for text in (value for table in page.tables.values() for row in table for cell in row
                 for value in cell.split(", ")):
        assert text.lower() != "nan" and not re.fullmatch(r"-?\d+\.0", text), text


def test_curves_of_several_families_refuse_naming_them(mixed: Path) -> None:
    """Families measure different things: one axis of several would draw one family and
    drop the others silently. A family of them draws."""
    with pytest.raises(LayoutError, match=r"^curves: the summary holds 2 families \(a, b\), "
                       r"which measure different things: draw one at a time, e\.g\. "
                       r"curves\(summaries\(results, family='a'\)\)$"):
        curves(summaries(mixed))
    grid = curves(summaries(mixed, family="b"), style="node")
    assert grid.axes.shape == (1, 2)  # ε = 0.5 and 1
    plt.close("all")


def test_a_figure_that_raises_is_an_error_with_its_traceback(
        mixed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A fault of the analysis is no reason the results cannot be drawn: the report lists
    it with its traceback, draws the other figures, and the command says so and exits
    with code 1."""
    drawn = reporting.overview

    def faulty(summary: pd.DataFrame, aggregate: tuple[str, ...] = ()) -> object:
        if (summary.family == "b").any():
            return {}["a bug"]
        return drawn(summary, aggregate)

    monkeypatch.setattr(reporting, "overview", faulty)
    done = reporting.report(mixed, tmp_path / "report")
    assert set(done.drawn) == {"overview_a"} and not done.skipped
    trace = done.errors["overview_b"]
    assert trace.startswith("Traceback") and "in faulty" in trace
    assert trace.strip().endswith("KeyError: 'a bug'")
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert ("<details><summary><b>overview_b</b>: KeyError: &#x27;a bug&#x27;</summary>"
            "<pre>Traceback") in page
    assert "cannot show" not in page and "1 figure raised an error" in page
    assert main(["report", str(mixed), "--out", str(tmp_path / "cli")]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line == (f"error: overview_b raised KeyError: 'a bug' (its traceback: "
                    f"{tmp_path / 'cli' / 'index.html'})")
    assert not plt.get_fignums()  # the figure given up is closed


@pytest.mark.slow
def test_a_series_has_one_colour_in_every_figure_of_the_report(quick_starts: Path) -> None:
    """Every legend entry of a coloured line (a method, a scheme) has the same colour in
    each figure of its family that names it (before: the overview's palette by order,
    the views' the vocabulary's)."""
    results = quick_starts / "results"
    summary = summaries(results)
    seen: dict[tuple[str | None, str], set[str]] = {}
    named = 0
    for family, found in reporting.family_drawers(summary, results=results).items():
        for figure, drawer in found.items():
            try:
                grid = reporting.draw(drawer, summary)
            except (MissingData, LayoutError):
                continue
            legends = [grid.legend] if getattr(grid, "legend", None) else []
            for legend in [*legends, *grid.figure.legends]:
                for text, handle in zip(legend.texts, legend.legend_handles, strict=True):
                    if isinstance(handle, Line2D) and to_hex(handle.get_color()) not in GREYS:
                        seen.setdefault((family, text.get_text()), set()).add(
                            f"{to_hex(handle.get_color())} in {figure}")
            plt.close("all")
    for (family, label), colours in seen.items():
        assert len({c.split()[0] for c in colours}) == 1, (family, label, colours)
        named += len(colours) > 1
    assert named >= 10  # the check compares: labels drawn in several figures
