"""Bad input to the inference family (``family=inference``; :mod:`sweep.inference`), key by
key. On the command line: exit code 2, one line on stderr that reads ``error: <key>: ...``
(``sweep/cli.py``), and nothing written (no results directory). In the Python API
(``sweep.execute.simulate``): a one-line :class:`~sweep.errors.ConfigError` that starts with
``<key>: ``, before any work.

The cases the issue names:

* a state grid with one state (``model.states=[0.5]``);
* α outside (0, 1) (0 and 1.5);
* a CSV without its covariate column;
* a treatment arm that does not exist (7; 0 is ZDV, the control);
* more centres than patients (a 3-patient CSV on 5 centres);
* a disconnected graph (Erdős–Rényi, 30 nodes, p = 0.01).

Beyond those, the slips that matter:

* Cox states outside [−B_θ, B_θ] (Sec. 12's bound) and Bernoulli states outside (0, 1);
* ``method=rr`` with a non-Bernoulli model, and ``test=simple`` with the Cox model;
* ``learning_rate`` without ``rizk``, β = 1, ε = 0, ``rounds=0``;
* the notebook's readings out of place or range (``rizk_start``, ``rizk_clip``,
  ``arrival_days``, a treatment state beyond ZDV's 0 and the arms 1–3);
* a mistyped key (did-you-mean);
* the other CSV problems, toy and treatment constraints, and bad grids.

The command line runs in process (``sweep.cli.main``, as ``python -m sweep`` does, Hydra
and all), each case in its own empty directory. A slow test repeats the issue's cases in
subprocesses (:func:`tests.sweep_reference.run_cli`).

A group that only another choice brings in (``dataset`` under ``model=bernoulli``) is
named first too, as are a scalar ``model.states`` and a partial ``graph`` in the Python
API (which keeps the family's complete graph).
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import sweep.cli
import sweep.execute
from sweep.errors import ConfigError
from sweep.plan import make_cell

from .sweep_reference import run_cli

#: CSV files of a few patients: (file name, content).
CSV_FILES = {
    "three.csv": "days,death,treated\n10,1,0\n20,0,1\n30,1,1\n",
    "no_covariate.csv": "days,death\n10,1\n20,0\n30,1\n40,1\n",
    "big_covariate.csv": "days,death,treated\n10,1,0\n20,0,1\n30,1,5\n40,1,1\n",
    "no_event.csv": "days,death,treated\n10,0,0\n20,0,1\n30,0,1\n40,0,0\n",
    "negative_day.csv": "days,death,treated\n10,1,0\n-20,0,1\n30,1,1\n40,1,0\n",
    "text_event.csv": "days,death,treated\n10,yes,0\n20,0,1\n30,1,1\n40,1,0\n",
}
#: The columns of the CSV files.
COLUMNS = {"duration_col": "days", "event_col": "death", "covariate_col": "treated"}
#: Placeholder for the directory of :data:`CSV_FILES` in the cases.
DATA = "{data}"


def csv(name: str, dataset: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    """Options of a CSV data set on the complete graph of 3 centres (5 unless given)."""
    return {"dataset": {"kind": "csv", "csv_path": f"{DATA}/{name}", **COLUMNS,
                        **(dataset or {})},
            "graph": {"kind": "complete", "n_nodes": 3}, **options}


def model(kind: str | None = None, **options: Any) -> dict[str, Any]:
    """The nested group ``model`` of a case (the family's default Cox model unless
    ``kind``)."""
    return {"model": {**({"kind": kind} if kind else {}), **options}}


#: (case, the options, the key the error names). The command line spells the options as
#: ``key=value``, nested groups' as ``group.key=value`` and a group's ``kind`` as
#: ``group=kind`` (the config group's choice).
CASES: list[tuple[str, dict[str, Any], str]] = [
    # The issue's cases.
    ("one state", model(states=[0.5]), "model.states"),
    ("alpha 0", {"alpha": 0}, "alpha"),
    ("alpha 1.5", {"alpha": 1.5}, "alpha"),
    ("csv without the covariate", csv("no_covariate.csv"), "dataset.covariate_col"),
    ("arm 7", {"dataset": {"arm": 7}}, "dataset.arm"),
    ("arm 0 (the control)", {"dataset": {"arm": 0}}, "dataset.arm"),
    ("more centres than patients",
     csv("three.csv", graph={"kind": "complete", "n_nodes": 5}), "graph.n_nodes"),
    ("disconnected graph",
     {"graph": {"kind": "erdos_renyi", "n_nodes": 30, "edge_probability": 0.01}}, "graph"),
    # States.
    ("cox state beyond B_θ", model(states=[0, -1.5]), "model.states"),
    ("cox state beyond a given B_θ", model(states=[0, 2.5], bound_theta=2), "model.states"),
    ("bernoulli state 1", model("bernoulli", states=[0.5, 1]), "model.states"),
    ("bernoulli state 0", model("bernoulli", states=[0, 0.5]), "model.states"),
    ("repeated states", model("bernoulli", states=[0.3, 0.3]), "model.states"),
    ("no states", model(states=[]), "model.states"),
    ("a NaN state", model("gaussian", states=[0, float("nan")]), "model.states"),
    ("truth not a state", model("bernoulli", truth=0.4), "model.truth"),
    # Methods and the models they need.
    ("rr on gaussian signals", {**model("gaussian"), "method": "rr"}, "method"),
    ("rr on three states", {**model("bernoulli"), "method": "rr"}, "method"),
    ("laplace toy, states not (1 − p, p)",
     {**model("bernoulli", states=[0.3, 0.6]), "method": "laplace"}, "model.states"),
    ("rr toy with 3 signals",
     {**model("bernoulli", states=[0.3, 0.7], samples=3), "method": "rr"}, "model.samples"),
    ("laplace toy, 5 null draws",
     {**model("bernoulli", states=[0.3, 0.7]), "method": "laplace", "null_draws": 5},
     "null_draws"),
    ("null draws without the laplace toy", {"null_draws": 100}, "null_draws"),
    ("simple test with cox", {"method": "test", "test": "simple"}, "test"),
    ("simple test on three states",
     {**model("bernoulli"), "method": "test", "test": "simple"}, "model.states"),
    ("test without method=test", {"test": "composite"}, "test"),
    ("rizk on bernoulli signals", {**model("bernoulli"), "method": "rizk"}, "method"),
    ("treatments online", {**model("treatments"), "method": "private_ol"}, "method"),
    ("unknown method", {"method": "magic"}, "method"),
    # Numbers.
    ("learning rate without rizk", {"learning_rate": 0.01}, "learning_rate"),
    ("learning rate 0", {"method": "rizk", "learning_rate": 0}, "learning_rate"),
    ("learning rate 2", {"method": "rizk", "learning_rate": 2}, "learning_rate"),
    # The authors' notebook's readings.
    ("rizk start without rizk", {"rizk_start": "uniform"}, "rizk_start"),
    ("unknown rizk start", {"method": "rizk", "rizk_start": "random"}, "rizk_start"),
    ("rizk clip without rizk", {"rizk_clip": "l1"}, "rizk_clip"),
    ("unknown rizk clip", {"method": "rizk", "rizk_clip": "l2"}, "rizk_clip"),
    ("arrival days offline", {"arrival_days": 10}, "arrival_days"),
    ("arrival days on bernoulli", {**model("bernoulli"), "method": "private_ol",
                                   "arrival_days": 10}, "arrival_days"),
    ("arrival days 0", {"method": "private_ol", "arrival_days": 0}, "arrival_days"),
    ("arrival days 2.5", {"method": "ol", "arrival_days": 2.5}, "arrival_days"),
    ("treatment state 4", model("treatments", states=[0, 4]), "model.states"),
    ("beta 1", {"beta": 1}, "beta"),
    ("epsilon 0", {"epsilon": 0}, "epsilon"),
    ("epsilon inf", {"epsilon": float("inf")}, "epsilon"),
    # Noise of scale 1.6e301: the draws' sums overflow (NaN rows before the check).
    ("epsilon 1e-300", {"method": "gm", "epsilon": 1e-300}, "epsilon"),
    ("epsilon 1e-300 online", {"method": "private_ol", "epsilon": 1e-300}, "epsilon"),
    ("rounds 0", {"rounds": 0}, "rounds"),
    ("rounds 1.5", {"rounds": 1.5}, "rounds"),
    ("iterations 0", {"iterations": 0}, "iterations"),
    ("pi_2 1", {"pi_2": 1}, "pi_2"),
    ("sigma 0", model("gaussian", sigma=0), "model.sigma"),
    # Log-likelihoods (bound_x + max|θ|)²/(2σ²) that would overflow float64 (issue 36).
    ("sigma 1e-200", model("gaussian", sigma=1e-200), "model.sigma"),
    ("states 1e200", model("gaussian", states=[0, 1e200]), "model.states"),
    ("bound_x 1e200", model("gaussian", bound_x=1e200), "model.bound_x"),
    ("samples 0", model("bernoulli", samples=0), "model.samples"),
    ("rate -1", {**model("bernoulli", rate=-1), "method": "private_ol"}, "model.rate"),
    ("bound_theta 0", model(bound_theta=0), "model.bound_theta"),
    ("bound_x with bernoulli", model("bernoulli", bound_x=2), "model.bound_x"),
    ("bound_theta with gaussian", model("gaussian", bound_theta=2), "model.bound_theta"),
    ("checkpoints 0", {"checkpoints": 0}, "checkpoints"),
    ("patients 0", {"dataset": {"patients": 0}}, "dataset.patients"),
    # Choices.
    ("unknown sensitivity", {"sensitivity": "local"}, "sensitivity"),
    ("unknown ties", model(ties="exact"), "model.ties"),
    ("unknown split", {"dataset": {"split": "uneven"}}, "dataset.split"),
    ("unknown round rule", {"round_rule": "fast"}, "round_rule"),
    ("unknown counting", {"counting": "exact"}, "counting"),
    # Data sets.
    ("csv path missing", {"dataset": {"kind": "csv", **COLUMNS}}, "dataset.csv_path"),
    ("csv file missing", csv("nowhere.csv"), "dataset.csv_path"),
    ("csv covariate beyond B_x", csv("big_covariate.csv"), "model.bound_x"),
    ("csv without events", csv("no_event.csv"), "dataset.event_col"),
    ("csv negative duration", csv("negative_day.csv"), "dataset.duration_col"),
    ("csv event not a number", csv("text_event.csv"), "dataset.event_col"),
    ("csv arm", csv("three.csv", {"arm": 1}), "dataset.arm"),
    ("csv path with actg175", {"dataset": {"csv_path": f"{DATA}/three.csv"}},
     "dataset.csv_path"),
    ("csv with treatments", {**model("treatments"), **csv("three.csv")}, "dataset.kind"),
    ("arm with bernoulli", {**model("bernoulli"), "dataset": {"arm": 1}}, "dataset.arm"),
    ("treatments with an arm", {**model("treatments"), "dataset": {"arm": 1}},
     "dataset.arm"),
    ("cox with a truth", model(truth=0), "model.truth"),
    # Mistyped keys.
    ("typo", {"sensitivty": "signal"}, "sensitivty"),
    ("nested typo", {"graph": {"n_nodez": 5}}, "graph.n_nodez"),
    ("model typo", model(bound_thta=2), "model.bound_thta"),
]
#: How the issue's cases' errors start: what is wrong, with the numbers to fix it.
MESSAGES = {
    "one state": "error: model.states: must be at least 2 states",
    "alpha 1.5": "error: alpha: must be in (0, 1); got 1.5",
    "csv without the covariate": "error: dataset.covariate_col: must be a column of "
                                 "no_covariate.csv (columns: days, death); got 'treated'",
    "arm 7": "error: dataset.arm: must be one of 1 (ZDV+ddI), 2 (ZDV+Zal), 3 (ddI)",
    "more centres than patients": "error: graph.n_nodes: must be <= the number of "
                                  "patients (3); got 5",
    "disconnected graph": "error: graph: must be connected; the erdos_renyi graph has ",
    "cox state beyond B_θ": "error: model.states: must be log hazard ratios within "
                            "[−B_θ, B_θ] = [-1, 1]",
    "bound_x with bernoulli": "error: model.bound_x: must be unset for model.kind=bernoulli "
                              "(only gaussian, cox, treatments take it); got 2",
    "typo": "error: sensitivty: unknown option; did you mean sensitivity? keys of family "
            "inference: ",
    "nested typo": "error: graph.n_nodez: unknown option; did you mean graph.n_nodes? ",
    "model typo": "error: model.bound_thta: unknown option; did you mean model.bound_theta? "
                  "keys of model: model.bound_theta, model.bound_x, model.kind, ",
}
#: The cases the slow test also runs as processes.
SUBPROCESS = [*CASES[:8], *(c for c in CASES if c[0] in ("typo", "csv without events",
                                                          "rr on gaussian signals"))]
#: The command line's spelling of a few values (Hydra's grammar).
SPELLING = {float("inf"): "inf"}


def _spelled(value: Any) -> str:
    if isinstance(value, list):
        return f"[{','.join(map(str, value))}]"
    if isinstance(value, float) and value != value:  # NaN
        return "nan"
    return str(SPELLING.get(value, value))


def command_line(options: dict[str, Any], data: Path) -> list[str]:
    """``key=value`` arguments of a case's options: a nested group's ``kind`` as the
    config group's choice (``model=bernoulli``), its other options as dotted keys; the
    model first (its choice brings in the group ``dataset``)."""
    out = []
    for key, value in sorted(options.items(), key=lambda item: item[0] != "model"):
        if isinstance(value, dict):
            group = dict(value)
            if "kind" in group:
                out.append(f"{key}={group.pop('kind')}")
            out += [f"{key}.{k}={_spelled(v)}" for k, v in group.items()]
        else:
            out.append(f"{key}={_spelled(value)}")
    return [a.replace(DATA, str(data)) for a in out]


def api_options(options: dict[str, Any], data: Path) -> dict[str, Any]:
    return {k: api_options(v, data) if isinstance(v, dict)
            else v.replace(DATA, str(data)) if isinstance(v, str) else v
            for k, v in options.items()}


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The CSV files, in a directory of their own (not the commands' working directory)."""
    directory = tmp_path_factory.mktemp("csv")
    for name, content in CSV_FILES.items():
        (directory / name).write_text(content)
    return directory


def run_in_process(arguments: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> tuple[int | str | None, str]:
    """``python -m sweep family=inference ARGUMENTS`` in this process, in ``cwd``: its exit
    code and stderr."""
    monkeypatch.chdir(cwd)
    flags = [a for a in arguments if a.startswith("-")]
    overrides = [a for a in arguments if not a.startswith("-")]
    monkeypatch.setattr(sys, "argv", ["sweep", *flags, "family=inference", *overrides])
    monkeypatch.setenv("HYDRA_FULL_ERROR", "1")  # main sets it; restored afterwards
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        sweep.cli.main()
    return stopped.value.code, capsys.readouterr().err


def one_line_error(stderr: str, key: str) -> bool:
    return stderr.count("\n") == 1 and stderr.endswith("\n") and stderr.startswith(
        f"error: {key}: ")


# ================================================================== command line

@pytest.mark.parametrize(("case", "options", "key"), CASES, ids=[c[0] for c in CASES])
def test_command_line_names_the_key_in_one_line(case: str, options: dict[str, Any], key: str,
                                                data: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Exit code 2, ``error: <key>: ...`` on one line, and an empty working directory (no
    ``results``): each case fails at validation or when its cell is prepared, before any
    store is opened. The issue's cases also say what is wrong (:data:`MESSAGES`)."""
    code, stderr = run_in_process(command_line(options, data), tmp_path, monkeypatch, capsys)
    assert code == 2, stderr
    assert one_line_error(stderr, key), stderr
    assert stderr.startswith(MESSAGES.get(case, "error: ")), stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(("arguments", "key"), [
    (["-m", "method=gm,magic"], "method"),
    (["-m", "epsilon=1,0"], "epsilon"),
    (["-m", "model=bernoulli", "model.states=[0.3,0.7],[0.5]"], "model.states"),
    (["-m", "alpha=0.05,1"], "alpha"),
    (["model.states=0.5"], "model.states"),  # not a list
    (["model.states=[0,abc]"], "model.states[1]"),
    (["epsilon=abc"], "epsilon"),
    (["model=poisson"], "model"),
    (["model.kind=poisson"], "model.kind"),
    (["dataset.arm=true"], "dataset.arm"),
    (["-m", "model=bernoulli,cox", "model.samples=5"], "model.samples"),
])
def test_grids_and_malformed_values(arguments: list[str], key: str, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A grid (``-m``) with one bad value fails as a whole before any cell runs. A value
    of the wrong type fails in the one line too."""
    code, stderr = run_in_process(arguments, tmp_path, monkeypatch, capsys)
    assert code == 2 and one_line_error(stderr, key), stderr
    assert not any(tmp_path.iterdir())


def test_dataset_without_a_survival_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """``dataset`` is a group of the survival models only (their files bring it in); with
    ``model=bernoulli`` Hydra refuses the override: one line naming ``dataset``, exit 2,
    nothing written."""
    code, stderr = run_in_process(["model=bernoulli", "dataset=csv"], tmp_path, monkeypatch,
                                  capsys)
    assert code == 2 and not any(tmp_path.iterdir())
    assert one_line_error(stderr, "dataset"), stderr


@pytest.mark.slow
def test_every_case_in_a_subprocess(data: Path, tmp_path: Path) -> None:
    """The issue's cases and a few others as ``python -m sweep`` processes (two at a
    time): what a user sees."""
    def check(item: tuple[int, tuple[str, dict[str, Any], str]]) -> str | None:
        number, (case, options, key) = item
        directory = tmp_path / str(number)
        directory.mkdir()
        done = run_cli(["family=inference", *command_line(options, data)], directory)
        if done.returncode != 2 or not one_line_error(done.stderr, key):
            return f"{case}: exit {done.returncode}, stderr {done.stderr!r}"
        if any(directory.iterdir()):
            return f"{case}: wrote {[p.name for p in directory.iterdir()]}"
        return None

    with ThreadPoolExecutor(2) as pool:
        problems = [p for p in pool.map(check, enumerate(SUBPROCESS)) if p]
    assert problems == []


# ==================================================================== Python API

@pytest.mark.parametrize(("case", "options", "key"), CASES, ids=[c[0] for c in CASES])
def test_python_api_names_the_key(case: str, options: dict[str, Any], key: str,
                                  data: Path) -> None:
    """``sweep.execute.simulate("inference", ...)`` raises a one-line ConfigError that
    starts with the key."""
    with pytest.raises(ConfigError) as error:
        sweep.execute.simulate("inference", **api_options(options, data))
    message = str(error.value)
    assert message.startswith(f"{key}: ") and "\n" not in message, message


def test_python_api_suggests_the_closest_option() -> None:
    with pytest.raises(ConfigError, match=r"^sensitivty: unknown option; did you mean "
                                          r"sensitivity\? allowed: "):
        sweep.execute.simulate("inference", sensitivty="signal")
    with pytest.raises(ConfigError, match=r"^graph\.n_nodez: unknown option; did you mean "
                                          r"graph\.n_nodes\? allowed: "):
        sweep.execute.simulate("inference", graph={"kind": "complete", "n_nodez": 5})


def test_python_api_scalar_states() -> None:
    with pytest.raises(ConfigError, match=r"^model\.states: "):
        sweep.execute.simulate("inference", model={"states": 0.5})


def test_python_api_group_not_a_mapping() -> None:
    with pytest.raises(ConfigError, match=r"^model: must be a mapping of model options; "
                                          r"got 'bernoulli'$"):
        sweep.execute.simulate("inference", model="bernoulli")


def test_python_api_partial_graph_keeps_the_complete_graph() -> None:
    """The family's default graph is the complete graph of 5 centres (InferenceConfig's
    docstring; ``conf/family/inference.yaml``): ``graph={"n_nodes": 10}`` keeps it
    complete in the Python API, as ``graph.n_nodes=10`` does on the command line."""
    cell = make_cell({"family": "inference", "graph": {"n_nodes": 10}, "replicates": 1})
    assert cell.prepared.config.graph.kind == "complete"
