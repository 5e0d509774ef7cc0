"""Bad input, key by key: one line naming the key, a non-zero exit, nothing written.

Every key of the command line is tried with wrong types, out-of-range values and unknown
names, plus a malformed grid, a missing preset and ε > 1 with Gaussian noise; for the
continual family also m > T, orders that cannot fill T, an order's parameter under another
order and a prior given to a method that takes none. The commands run two at a time, each
in its own empty directory.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
import yaml

from .sweep_reference import run_cli

# (arguments, key named in the error)
BAD = [
    (["n_agents=1"], "n_agents"), (["n_agents=abc"], "n_agents"), (["n_agents=2.5"], "n_agents"),
    (["t_max=0"], "t_max"), (["t_max=x"], "t_max"),
    (["n_classes=0"], "n_classes"), (["n_classes=2"], "class_means"),
    (["class_means=[0.1,0.1,0.2]"], "class_means"), (["class_means=abc"], "class_means"),
    (["class_means=[0.1,nan,0.3]"], "class_means"),
    (["class_assignment=fixed"], "class_assignment"),
    (["sigma=0"], "sigma"), (["sigma=-1"], "sigma"), (["sigma=big"], "sigma"),
    (["distribution=normal"], "distribution"),
    (["epsilon=-1"], "epsilon"), (["epsilon=0"], "epsilon"), (["epsilon=inf"], "epsilon"),
    (["epsilon=2"], "epsilon"),  # ε > 1 with Gaussian noise (Lemma 1)
    (["mechanism=pm2", "pm2_split=false", "epsilon=1.5"], "epsilon"),
    (["delta=0"], "delta"), (["delta=1"], "delta"), (["delta=2"], "delta"),
    (["noise=student"], "noise"), (["mechanism=pm3"], "mechanism"),
    (["pm2_split=maybe"], "pm2_split"), (["weights=median"], "weights"),
    (["schedule=random"], "schedule"), (["class_estimator=magic"], "class_estimator"),
    (["variance=guess"], "variance"), (["prior=flat"], "prior"),
    (["inferred_form=other"], "inferred_form"),
    (["mechanism=pm2", "variance=inferred", "inferred_form=drop_first"], "inferred_form"),
    (["variance=inferred", "welch_dof=k"], "welch_dof"),
    (["variance=shared", "welch_dof=releases"], "welch_dof"),  # Sch-Var-2 only
    (["oracle_start=first"], "oracle_start"), (["oracle_eq21=pooled"], "oracle_eq21"),
    (["stream=shared"], "stream"), (["stream=scenario", "schedule=rrr"], "stream"),
    (["stream=scenario", "variance=shared"], "stream"),  # a second noise per query
    (["decision.theta0=0"], "decision.theta0"), (["decision.theta0=1"], "decision.theta0"),
    (["decision.refresh=never"], "decision.refresh"),
    (["checkpoints=0"], "checkpoints"), (["checkpoints=[5,3]"], "checkpoints"),
    (["checkpoints=[1,20]"], "checkpoints"),  # beyond t_max
    (["baselines=[oracle2]"], "baselines"),
    (["baselines=[oracle]", "class_assignment=balanced"], "baselines"),
    (["replicates=-1"], "replicates"), (["replicates=0", "baselines=[]"], "replicates"),
    (["seed=-1"], "seed"), (["seed=x"], "seed"),
    (["results_dir=../outside"], "results_dir"),
    (["executor=dask"], "executor"), (["dry_run=perhaps"], "dry_run"),
    (["threads=two"], "threads"),
    (["family=nonexistent"], "family"), (["family=os:nothing"], "family"),
    (["ray.num_cpus=0"], "ray.num_cpus"), (["ray.max_in_flight=0"], "ray.max_in_flight"),
    (["ray.task_seconds=-1"], "ray.task_seconds"), (["ray.address=[1]"], "ray.address"),
    (["unknown=1"], "unknown"), (["ray.unknown=1"], "ray.unknown"),
    (["decision.unknown=1"], "decision.unknown"), (["+unknown=1"], "unknown"),
    (["+experiment=fig9"], "experiment"),
    (["-m", "epsilon=0.5,,1"], "epsilon"), (["-m", "epsilon=range(a)"], "epsilon"),
    (["-m", "n_agents=[1"], "n_agents"),
    (["-m", "epsilon=1,-1", "n_agents=3,4"], "epsilon"),
    (["-m", "mechanism=pm1,pm3"], "mechanism"),
    (["-m", "+experiment=quickstart", "weights=last,bad"], "weights"),
    # The network family (family=network).
    (["family=network", "graph=torus"], "graph"),
    # The staircase takes a global sensitivity; log-normal signals have a smooth one.
    (["family=network", "noise=staircase"], "noise"),
    (["family=network", "graph.n_nodes=1"], "graph.n_nodes"),
    (["family=network", "graph.radius=0"], "graph.radius"),
    (["family=network", "n_agents=3"], "n_agents"),
    (["family=network", "graph=erdos_renyi", "graph.n_nodes=100"], "graph"),  # disconnected
    (["family=network", "graph=ring", "graph.n_nodes=10"], "graph.weights"),  # β* = 1
    (["family=network", "graph=grid", "graph.grid_rows=7"], "graph.grid_rows"),
    (["family=network", "graph=watts_strogatz", "graph.neighbors=3"], "graph.neighbors"),
    (["family=network", "graph=edgelist"], "graph.edgelist"),
    # A parameter of another kind of graph (geometric's radius) is refused, not dropped.
    (["family=network", "graph=erdos_renyi", "graph.radius=0.2"], "graph.radius"),
    (["family=network", "graph=ring", "graph.n_nodes=9", "graph.neighbors=4"],
     "graph.neighbors"),
    (["family=network", "graph=edgelist", "graph.edgelist=missing.txt"], "graph.edgelist"),
    (["family=network", "graph.seed=-1"], "graph.seed"),
    (["family=network", "graph.weights=uniform"], "graph.weights"),
    (["family=network", "graph.unknown=1"], "graph.unknown"),
    (["family=network", "n_nodes=30"], "n_nodes"),  # the graph's keys are nested
    (["family=network", "noise=student"], "noise"),
    (["family=network", "method=mvue2"], "method"), (["family=network", "privacy=all"], "privacy"),
    (["family=network", "method=ol_alg4"], "privacy"),
    (["family=network", "method=ol_alg5", "privacy=network"], "privacy"),
    (["family=network", "method=rizk", "noise=gaussian"], "noise"),
    (["family=network", "method=rizk", "learning_rate=0"], "learning_rate"),
    (["family=network", "rounds=0"], "rounds"), (["family=network", "delta=0"], "delta"),
    (["family=network", "signal_sigma=-1"], "signal_sigma"),
    (["family=network", "references=[exactly]"], "references"),
    (["family=network", "checkpoints=[1,200]"], "checkpoints"),
    # Appendix C of the network paper: budgets (C.3) and time-varying graphs (C.1).
    (["family=network", "budgets=local"], "budgets"),
    (["family=network", "budgets=centralized", "method=rizk"], "budgets"),
    (["family=network", "budgets=centralized", "noise=gaussian"], "noise"),
    (["family=network", "budgets=centralized", "budget_cap=0.5"], "budget_cap"),
    (["family=network", "budgets=centralized", "signal_floor=1"], "signal_floor"),
    (["family=network", "edge_keep=0"], "edge_keep"),
    (["family=network", "edge_keep=1.5"], "edge_keep"),
    (["family=network", "edge_keep=0.5", "graph.weights=max_degree"], "graph.weights"),
    # Readings of Appendix B, Network DP's scale and eq. (9)'s domain.
    (["family=network", "method=rizk", "rizk_scale=twice"], "rizk_scale"),
    (["family=network", "method=rizk", "signal=gaussian", "rizk_scale=code"], "rizk_scale"),
    (["family=network", "network_scale=both"], "network_scale"),
    (["family=network", "signal_floor=0"], "signal_floor"),
    (["family=network", "signal_floor=-1"], "signal_floor"),
    # The continual family (family=continual), at t_max = 1000 unless a case sets it.
    (["family=continual", "n_users=0"], "n_users"),
    (["family=continual", "max_samples=2000"], "max_samples"),  # m > T
    (["family=continual", "t_max=0"], "t_max"),
    (["family=continual", "n_users=10", "max_samples=50"], "t_max"),  # n·m = 500 < T
    (["family=continual", "mu=1.5"], "mu"),
    (["family=continual", "order=random"], "order"),
    (["family=continual", "order.kind=random"], "order.kind"),
    (["family=continual", "order.zipf_exponent=1.5"], "order.zipf_exponent"),  # uniform
    (["family=continual", "zipf_exponent=1.5"], "zipf_exponent"),  # order.zipf_exponent
    (["family=continual", "order.bogus=1"], "order.bogus"),
    (["family=continual", "order=zipf", "order.zipf_exponent=0"], "order.zipf_exponent"),
    (["family=continual", "order=one_heavy", "order.light_samples=100"],
     "order.light_samples"),  # > m
    (["family=continual", "order=one_heavy", "n_users=10", "order.light_samples=5"],
     "t_max"),  # m + (n − 1)·light = 109 < T
    (["family=continual", "order=few_heavy", "order.heavy_users=1000"],
     "order.heavy_users"),  # = n
    (["family=continual", "method=alg7"], "method"),
    (["family=continual", "epsilon=0"], "epsilon"),
    (["family=continual", "failure_probability=1"], "failure_probability"),
    # delta is the DP δ of advanced composition: refused without it.
    (["family=continual", "delta=0.01"], "delta"),
    (["family=continual", "prior_offset=0.1"], "prior_offset"),  # alg6, the default
    (["family=continual", "method=alg2", "prior_offset=0.1"], "prior_offset"),
    (["family=continual", "method=alg4", "prior_offset=1.5"], "prior_offset"),
    (["family=continual", "dimension=0"], "dimension"),
    (["family=continual", "composition=fancy"], "composition"),
    (["family=continual", "dimension=3", "composition=advanced", "delta=1"], "delta"),
    (["family=continual", "level_count=round"], "level_count"),
    (["family=continual", "bound_constant=0"], "bound_constant"),
    (["family=continual", "noise_scale=-1"], "noise_scale"),
    (["family=continual", "checkpoints=[1,5000]"], "checkpoints"),  # beyond t_max
    (["family=continual", "max_sample=8"], "max_sample"),
    (["-m", "family=continual", "method=alg2,alg9"], "method"),
    (["-m", "+experiment=continual_quickstart", "epsilon=1,0"], "epsilon"),
    # Honest privacy settings (issue 36): a weaker guarantee than the options suggest needs
    # its acknowledgement; colme at t_max = 10 unless a case sets it (n = 200 × 10).
    (["mechanism=pm2", "pm2_split=false"], "pm2_split"),  # (4ε, 4δ)-DP only
    (["mechanism=pm2", "pm2_split=false", "noise=laplace"], "pm2_split"),
    (["n_agents=200", "t_max=30000"], "delta"),  # the paper's δ = 1e-6 > 1/(6e6)
    (["delta=0.2"], "delta"),  # above 0.1
    (["delta=0.001"], "delta"),  # above 1/(n_agents × t_max) = 5e-4
    # Without the split the run's δ is 4δ = 8e-4 > 5e-4, though δ = 2e-4 is not.
    (["mechanism=pm2", "pm2_split=false", "allow_pm2_unsplit=true", "delta=2e-4"], "delta"),
    (["allow_large_delta=perhaps"], "allow_large_delta"),
    (["allow_pm2_unsplit=yes please"], "allow_pm2_unsplit"),
    (["family=network"], "delta"),  # the paper's δ = 0.01 > 1/969
    (["family=network", "signal=gaussian", "noise=gaussian"], "delta"),
    (["family=decentralized", "samples=bernoulli", "privacy.mechanism=pm1", "t_max=2000"],
     "delta"),  # 1e-6 > 1/(10,000 × 2,000)
    (["family=decentralized", "samples=bernoulli", "privacy.mechanism=pm2",
      "privacy.pm2_split=false"], "privacy.pm2_split"),
    (["family=decentralized", "privacy.allow_large_delta=x"], "privacy.allow_large_delta"),
    # Values whose run would overflow the kernels' arithmetic (float64; decentralized's
    # float32 by default).
    (["class_means=[0,1e200,2]"], "class_means"), (["sigma=1e300"], "sigma"),
    (["epsilon=1e-300"], "epsilon"), (["variance=shared", "sigma=1e100"], "sigma"),
    (["family=decentralized", "sigma=1e308"], "sigma"),
    (["family=decentralized", "class_means=[0,1e39]"], "class_means"),
    (["family=decentralized", "precision=float64", "class_means=[0,1e300]"], "class_means"),
    (["family=decentralized", "accuracy=1e39"], "accuracy"),
    (["family=decentralized", "samples=bernoulli", "privacy.mechanism=pm1",
      "epsilon=1e-30"], "epsilon"),
    (["family=network", "allow_large_delta=true", "signal_mean=1000"], "signal_mean"),
    (["family=network", "allow_large_delta=true", "signal_sigma=50"], "signal_sigma"),
    (["family=network", "signal=gaussian", "signal_mean=1e300"], "signal_mean"),
    (["family=network", "signal=gaussian", "signal_sigma=1e300"], "signal_sigma"),
    (["family=network", "signal=gaussian", "sensitivity=1e300"], "sensitivity"),
    (["family=network", "allow_large_delta=true", "epsilon=1e-300"], "epsilon"),
    (["family=continual", "noise_scale=1e308"], "noise_scale"),
    (["family=continual", "method=alg2", "epsilon=1e-150"], "epsilon"),
    # Advanced composition's δ̃ is a DP δ over the users: 0.01 > 1/1000.
    (["family=continual", "dimension=4", "composition=advanced", "delta=0.01"], "delta"),
    (["family=continual", "allow_large_delta=perhaps"], "allow_large_delta"),
]


def _check(case: tuple[list[str], str], directory: Path) -> str | None:
    arguments, key = case
    directory.mkdir()
    flags = arguments[:1] if arguments[0] == "-m" else []
    # A small horizon of the case's family (the continual family's default m is 64).
    small = ("rounds=10" if "family=network" in arguments
             else "t_max=1000" if any("continual" in a for a in arguments) else "t_max=10")
    done = run_cli([*flags, small, *arguments[len(flags):]], directory)  # last one wins
    lines = done.stderr.strip().splitlines()
    if done.returncode != 2 or len(lines) != 1 or not lines[0].startswith(f"error: {key}: "):
        return f"{arguments}: exit {done.returncode}, stderr {done.stderr!r}"
    if any(directory.iterdir()):
        return f"{arguments}: wrote {[p.name for p in directory.iterdir()]}"
    return None


@pytest.mark.slow
def test_every_key_rejects_bad_values_in_one_line_before_any_work(tmp_path: Path) -> None:
    with ThreadPoolExecutor(2) as pool:
        problems = list(pool.map(_check, BAD, [tmp_path / str(i) for i in range(len(BAD))]))
    assert [p for p in problems if p] == []
    assert len(BAD) >= 60


# (arguments, the acknowledgements that let them run, the keys the errors name without
# them, in order): small runs whose guarantee is weaker than their options suggest.
ACKNOWLEDGED = [
    (["n_agents=5", "t_max=100", "checkpoints=2", "mechanism=pm2", "pm2_split=false",
      "delta=0.05"], ["allow_pm2_unsplit=true", "allow_large_delta=true"],
     ["pm2_split", "delta"]),  # 1/n = 2e-3; the run's δ = 7 × 0.05
    (["family=network", "graph=ring", "graph.n_nodes=20", "graph.weights=lazy_metropolis",
      "rounds=5", "checkpoints=2", "delta=0.08"], ["allow_large_delta=true"],
     ["delta"]),  # 1/n = 0.05
    (["family=decentralized", "graph.n_nodes=20", "graph.degree=4", "t_max=50",
      "checkpoints=2", "samples=bernoulli", "privacy.mechanism=pm2",
      "privacy.pm2_split=false", "delta=0.01"],
     ["privacy.allow_pm2_unsplit=true", "privacy.allow_large_delta=true"],
     ["privacy.pm2_split", "delta"]),  # 1/n = 1e-3
    (["family=continual", "n_users=20", "max_samples=4", "t_max=80", "checkpoints=2",
      "method=alg5", "dimension=2", "composition=advanced", "delta=0.1"],
     ["allow_large_delta=true"], ["delta"]),  # 1/n = 0.05
]


@pytest.mark.slow
@pytest.mark.parametrize(("arguments", "permits", "keys"), ACKNOWLEDGED,
                         ids=["colme", "network", "decentralized", "continual"])
def test_an_acknowledged_weaker_guarantee_runs_and_keeps_its_cell(
        arguments: list[str], permits: list[str], keys: list[str], tmp_path: Path) -> None:
    """Each acknowledgement missing, the run is refused in one line naming the key it
    permits, and nothing is written; with all of them it runs, and its cell (id, columns)
    is the cell the options give without them: an acknowledgement changes no result."""
    from sweep.plan import make_cell

    for given in range(len(permits)):
        directory = tmp_path / str(given)
        directory.mkdir()
        done = run_cli(["replicates=1", "executor=serial", *arguments, *permits[:given]],
                       directory)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"error: {keys[given]}: ") and (
            done.stderr.count("\n") == 1), done.stderr
        assert permits[given] in done.stderr  # it names its acknowledgement
        assert not any(directory.iterdir())
    done = run_cli(["replicates=1", "executor=serial", "results_dir=results", *arguments,
                    *permits], tmp_path)
    assert done.returncode == 0, done.stderr
    rows = pd.read_parquet(tmp_path / "results")
    assert len(rows) and not [c for c in rows.columns if "allow_" in c]
    options: dict = {"replicates": 1}
    for argument in [*arguments, *permits]:
        key, _, value = argument.partition("=")
        if key == "graph":  # a config group's choice: the group's kind
            key = "graph.kind"
        *groups, name = key.split(".")
        target = options
        for group in groups:
            target = target.setdefault(group, {})
        target[name] = yaml.safe_load(value)
    cell = make_cell(options)
    assert set(rows.cell_id) == {cell.cell_id}
    assert "allow_" not in json.dumps(cell.settings)
