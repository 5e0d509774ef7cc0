"""The command line's help with common slips (issue 14).

An integral float (``t_max=1e4``) is the integer it spells, on the command line and in the
Python API, and gives that integer's cell; an unknown key names the closest known one and
lists the keys next to it; ``--cfg`` with ``-m`` says what to use instead; ``--help``
names every family and preset. Every command line runs in its own empty directory, on a
tiny cell.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import sweep.execute
from sweep.cli import CONFIG_MODULE
from sweep.errors import ConfigError
from sweep.family import families
from sweep.plan import make_cell

from .sweep_reference import run_cli

#: A tiny Private-ColME cell, computed serially.
TINY = ["n_agents=4", "t_max=20", "replicates=1", "checkpoints=2", "executor=serial"]
#: The id of a cell, as a dry run lists it.
CELL_ID = re.compile(r"\b[0-9a-f]{16}\b")


def _cell_ids(stdout: str) -> set[str]:
    """The distinct cell ids a dry run listed."""
    return set(CELL_ID.findall(stdout))


# ------------------------------------------------------------------ integral floats


def test_integral_float_is_accepted_for_an_integer_key(tmp_path: Path) -> None:
    done = run_cli([*TINY, "t_max=1e4", "dry_run=true"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(_cell_ids(done.stdout)) == 1


def test_integral_floats_of_a_grid_are_the_integers_cells(tmp_path: Path) -> None:
    # Nested (graph.n_nodes), family (rounds) and engine (replicates, seed) keys, each
    # spelled both ways: the 8 combinations are one cell.
    done = run_cli(["-m", "family=network", "graph=complete", "graph.n_nodes=1e1,10",
                    "rounds=1e1,10", "replicates=1e0,1", "seed=2e0", "checkpoints=2",
                    "executor=serial", "dry_run=true"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(_cell_ids(done.stdout)) == 1


def test_integral_floats_give_the_integers_cell_id() -> None:
    cell = make_cell({"family": "colme", "t_max": 10_000, "n_agents": 4, "replicates": 1})
    for t_max in (1e4, np.float64(1e4)):
        same = make_cell({"family": "colme", "t_max": t_max, "n_agents": 4,
                          "replicates": 1.0, "seed": 0.0})
        assert same.cell_id == cell.cell_id
        assert type(same.prepared.config.t_max) is int and type(same.replicates) is int
    network = {"family": "network", "graph": {"kind": "complete", "n_nodes": 10},
               "rounds": 10, "checkpoints": [1, 5, 10]}
    spelled = {"family": "network", "graph": {"kind": "complete", "n_nodes": 1e1},
               "rounds": 1e1, "checkpoints": [1.0, 5e0, 1e1]}
    assert make_cell(spelled).cell_id == make_cell(network).cell_id


def test_python_api_takes_integral_floats_and_refuses_others() -> None:
    ints = sweep.execute.simulate("colme", replicates=1, n_agents=4, t_max=20, checkpoints=2)
    floats = {"replicates": 1e0, "n_agents": 4e0, "t_max": 2e1, "checkpoints": 2.0}
    assert sweep.execute.simulate("colme", **floats).equals(ints)
    without = sweep.execute.simulate("colme", baselines=(), **floats)
    assert set(ints.method) == {"colme", "local", "ideal"}  # the command line's baselines
    assert without.equals(sweep.execute.simulate("colme", baselines=[], replicates=1,
                                                 n_agents=4, t_max=20, checkpoints=2))
    with pytest.raises(ConfigError, match=r"^t_max: must be an integer >= 1; got 1\.5$"):
        sweep.execute.simulate("colme", t_max=1.5)
    with pytest.raises(ConfigError, match=r"^replicates: must be an integer >= 0; got 2\.5$"):
        sweep.execute.simulate("colme", replicates=2.5)


def test_cfg_job_prints_the_converted_value(tmp_path: Path) -> None:
    done = run_cli(["--cfg", "job", "t_max=1e4"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "t_max: 10000\n" in done.stdout


# ------------------------------------------------------------------------- --help


def test_help_header_names_every_family_and_preset(tmp_path: Path) -> None:
    # The header's lists are found (sweep.cli.help_lists), not written by hand.
    done = run_cli(["--help"], tmp_path)
    assert done.returncode == 0, done.stderr
    header = done.stdout.split("== Configuration groups ==")[0]
    for family in families():
        assert f"family={family} " in header, family
    presets = resources.files(CONFIG_MODULE) / "experiment"
    for preset in sorted(p.name.removesuffix(".yaml") for p in presets.iterdir()
                         if p.name.endswith(".yaml")):
        assert re.search(rf"\b{preset}\b", header), preset


# ---------------------------------------------------------------- one-line errors


@pytest.mark.parametrize(("arguments", "error"), [
    (["t_max=1.5"], "error: t_max: must be an integer; got 1.5"),
    (["t_max=abc"], "error: t_max: must be an integer; got abc"),
    (["epsilonn=1"], "error: epsilonn: unknown option; did you mean epsilon? keys of family "
                     "colme: allow_large_delta, allow_pm2_unsplit, baselines, checkpoints, "),
    (["-m", "family=network", "graph.n_nodez=3,4"],
     "error: graph.n_nodez: unknown option; did you mean graph.n_nodes? keys of graph: "
     "graph.attachments, "),
    (["family=continual", "max_sample=8"], "error: max_sample: unknown option; did you "
     "mean max_samples? keys of family continual: allow_large_delta, bound_constant, "),
    (["-m", "+experiment=fig3", "--cfg", "job"], "error: --cfg with -m: --cfg shows the "
     "configuration of one run (drop -m); use dry_run=true to list the cells of a grid\n"),
])
def test_bad_command_line_gets_one_line(arguments: list[str], error: str,
                                        tmp_path: Path) -> None:
    done = run_cli(arguments, tmp_path)  # each fails before any work
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(error), done.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(("family", "options", "message"), [
    ("colme", {"epsilonn": 1}, r"^epsilonn: unknown option; did you mean epsilon\? allowed: "),
    ("colme", {"decision": {"thetaa": 0.1}},
     r"^decision\.thetaa: unknown option; did you mean decision\.theta0\? allowed: "),
    ("network", {"graph": {"n_nodez": 3}},
     r"^graph\.n_nodez: unknown option; did you mean graph\.n_nodes\? allowed: "),
    ("continual", {"n_user": 5}, r"^n_user: unknown option; did you mean n_users\? allowed: "),
])
def test_python_api_suggests_the_closest_option(family: str, options: dict,
                                                message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        sweep.execute.simulate(family, **options)
