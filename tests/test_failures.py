"""``python -m sweep failures DIR``: each failed cell's id, family, time, options and
traceback, read from ``DIR/_failures`` (issue 25).

The cells fail for real: tests/faulty_family.py (the engine's minimal test family)
raises while simulating its cells with ``scale = 0.5``, after they were validated.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sweep.cli import _overrides, failures
from sweep.errors import StoreError
from sweep.plan import Cell, make_cell
from sweep.store import FAILURES, ResultsStore

from .sweep_reference import ROOT, run_cli

SEARCHPATH = f"hydra.searchpath=[file://{ROOT / 'tests' / 'conf'}]"
FAULTY = "tests.faulty_family:FAMILY"
#: The grid's options besides scale and seed; the cells at scale = 0.5 fail.
OPTIONS = {"samples": 30, "replicates": 2, "checkpoints": [5, 30]}
HEADER = re.compile(r"^cell ([0-9a-f]{16}), family (\S+), failed "
                    r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC(.*)$", re.MULTILINE)


@pytest.fixture(scope="module")
def failed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory whose sweep stored two cells and recorded two failures."""
    cwd = tmp_path_factory.mktemp("failed")
    done = run_cli(["-m", SEARCHPATH, "family=faulty", "scale=0.5,1", "seed=0,1",
                    *(f"{k}={v}" for k, v in OPTIONS.items()), "executor=serial"], cwd)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == ("error: 2 of 4 cells failed; their options and "
                                            "tracebacks: python -m sweep failures results")
    return cwd


def _cell(scale: float, seed: int) -> Cell:
    """The grid's cell, as the command line composes it (the other options at their
    defaults)."""
    return make_cell({"family": FAULTY, "scale": scale, "seed": seed, **OPTIONS})


def test_each_failed_cell_is_listed_with_its_options_and_traceback(failed: Path) -> None:
    done = run_cli(["failures", "results"], failed)
    assert done.returncode == 1, done.stderr  # as the sweep whose cells failed
    assert done.stderr == ""
    headers = HEADER.findall(done.stdout)
    assert {h[0] for h in headers} == {_cell(0.5, 0).cell_id, _cell(0.5, 1).cell_id}
    assert all(family == FAULTY and not stored for _, family, _, stored in headers)
    assert [h[2] for h in headers] == sorted(h[2] for h in headers)  # oldest first
    blocks = HEADER.split(done.stdout)[5::5]  # the text after each header
    for (cell_id, *_), block in zip(headers, blocks, strict=True):
        seed = 0 if cell_id == _cell(0.5, 0).cell_id else 1
        options = " ".join(block.split("  Traceback")[0].split())
        # The options the id is made of, spelled as on the command line.
        assert options == (f"options: replicates=2 seed={seed} samples=30 scale=0.5 "
                           "checkpoints=[5,30] pause=0.0")
        assert "\n  Traceback (most recent call last):\n" in block
        assert 'faulty_family.py", line' in block
        assert "\n  RuntimeError: injected failure at scale = 0.5\n" in block
    assert done.stdout.endswith("\n2 failed cells in results; rerunning the sweep retries "
                                "them\n")


def test_every_kind_of_option_is_spelled_as_the_command_line_takes_it() -> None:
    """What a family's options may hold (Private-ColME's, for instance): numbers, a
    number in exponent notation, booleans, words, lists, a nested group (dotted keys)."""
    settings = {"family": "colme", "version": 1, "replicates": 2, "seed": 1, "options": {
        "epsilon": 0.5, "n_agents": 4, "class_means": [0.2, 0.4, 0.8], "delta": 1e-06,
        "pm2_split": True, "decision": {"refresh": "on_query", "theta0": 0.05},
        "baselines": ["local", "ideal"], "learning_rate": None, "label": "two words"}}
    assert list(_overrides(settings)) == [
        "replicates=2", "seed=1", "epsilon=0.5", "n_agents=4", "class_means=[0.2,0.4,0.8]",
        "delta=1e-06", "pm2_split=true", "decision.refresh=on_query", "decision.theta0=0.05",
        "baselines=[local,ideal]", "learning_rate=null", "label='two words'"]


def test_the_store_reads_each_failure_as_its_cell_was_planned(failed: Path) -> None:
    found = ResultsStore(failed / "results").failed()
    assert [f.time for f in found] == sorted(f.time for f in found)
    for failure in found:
        cell = next(c for c in (_cell(0.5, 0), _cell(0.5, 1)) if c.cell_id == failure.cell_id)
        # What the id hashes, as planned (through JSON: tuples are lists).
        assert failure.settings == json.loads(json.dumps(cell.settings))
        assert failure.family == FAULTY
        assert failure.error == "RuntimeError: injected failure at scale = 0.5"
        assert failure.traceback.startswith("Traceback (most recent call last):")
        assert failure.time.tzinfo is not None


def test_filters_select_the_failures_listed(failed: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(failed)
    found = ResultsStore("results").failed()
    assert failures(["results", "--cell", found[0].cell_id[:6]]) == 1
    assert [h[0] for h in HEADER.findall(capsys.readouterr().out)] == [found[0].cell_id]
    assert failures(["results", "--last", "1", "--family", FAULTY]) == 1
    out = capsys.readouterr().out
    assert [h[0] for h in HEADER.findall(out)] == [found[-1].cell_id]
    assert out.endswith("\n1 failed cell in results; rerunning the sweep retries them\n")
    assert failures(["results", "--family", "colme"]) == 0
    assert capsys.readouterr().out == "no failures recorded in results matching --family colme\n"


def test_a_failed_recompute_of_a_stored_cell_is_marked(failed: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # A recompute that raises keeps the cell's stored rows and records the failure, as
    # the engine does for any cell (sweep.execute): here, recorded for a stored cell.
    store = ResultsStore(failed / "results")
    stored = _cell(1.0, 0)
    assert stored.cell_id in store.scan()
    failure = store.failed()[0]
    record = {"config": stored.settings, "family": FAULTY, "family_version": stored.version}
    store.record_failure(stored, {}, failure.traceback, record)
    try:
        monkeypatch.chdir(failed)
        assert failures(["results", "--cell", stored.cell_id]) == 1
        header, = HEADER.findall(capsys.readouterr().out)
        assert header[3] == " (stored: a recompute failed, the earlier rows are kept)"
    finally:
        (failed / "results" / FAILURES / f"{stored.cell_id}.parquet").unlink()


def test_no_failures_and_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert failures([str(empty)]) == 0
    assert capsys.readouterr().out == f"no failures recorded in {empty}\n"
    missing = tmp_path / "missing"
    assert failures([str(missing)]) == 2  # as python -m sweep compact
    assert capsys.readouterr().err == f"error: results_dir: {missing} is not a directory\n"
    assert failures([str(empty), "--last", "0"]) == 2
    assert capsys.readouterr().err == "error: --last: must be an integer >= 1; got 0\n"


def test_an_unreadable_record_is_named(tmp_path: Path) -> None:
    (tmp_path / FAILURES).mkdir()
    (tmp_path / FAILURES / "0123456789abcdef.parquet").write_bytes(b"not parquet")
    with pytest.raises(StoreError, match=r"^results_dir: cannot read the failure record "
                                         r".*0123456789abcdef\.parquet \("):
        ResultsStore(tmp_path).failed()
