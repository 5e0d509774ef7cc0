"""Run times, throughput and peak memory of the inference family (DP distributed inference).

Run: ``python benchmarks/bench_inference.py [--quick] [--serial]`` (a few minutes on 2
cores; ``--quick`` leaves out the Fig. 6 sweep and runs fewer and smaller cases). The load
average is printed before and after: figures taken on a busy machine are upper bounds of
the times (lower bounds of the rates).

1. **Presets end to end.** ``python -m sweep -m +experiment=inference_fig6`` and
   ``+experiment=inference_runtime``, as a user runs them, each in a fresh temporary
   working and results directory, with ``executor=auto`` (the engine prints what it
   chose) and with ``executor=ray`` (skipped where auto already chose Ray;
   ``--serial`` adds ``executor=serial`` there), ``ray.num_cpus=2`` (the issue's 2
   cores). Printed: wall seconds from launch to exit, the engine's own span (planning
   excluded), the driver's CPU seconds (user + system of the command and the processes
   it reaped, ``RUSAGE_CHILDREN``: every cell with the serial executor, not Ray's
   workers), the summed compute seconds of the cells (their provenance: wall
   time of each cell's run) against the family's estimate (the ``cost`` the engine
   prints), and whether the wall time is under 60 s. For the runtime
   preset also each cell's per-run time as the preset defines it (its provenance's
   compute seconds over its 10 runs; the cell's preparation runs in the driver and is
   not in it) at n = 96.
2. **Per run, Sec. 14.3 / Fig. 14.2.** The runtime preset's cells (ACTG 175's ddI and
   ZDV patients resampled to 4,096 and 8,192, complete graph of n ∈ {3, …, 96} centres,
   AM and GM, ε = 0.1, α = 1 − β = 0.1, ϱ = 0.1), calling :func:`sweep.inference.
   simulate.prepare` and :func:`~sweep.inference.simulate.run` directly, best of
   ``--repeats``: the cell's preparation split into data (the data set's copy, resampling
   and split: :func:`~sweep.inference.simulate.cox_centres`), the Cox partial likelihood
   over the grid (one call per centre), graph (build and SLEM) and the rest (Δ, K, T);
   then the belief exchange of one replicate (``run`` with R = 1) and the per-run time
   as a sweep of 10 runs pays it, (prepare + ``FAMILY.run`` of 10 runs with their rows)
   / 10, against the paper's ~1 s per run at n = 96 (Fig. 14.2; Sec. 5 says up to 10 s).
   The first read of the CSV (once per process) is printed apart.
3. **Throughput of the belief exchange** (``run`` of the GM cell at 8,192 patients): for
   n and R replicates per block, agent-state-round-iterations per second,
   n·|Θ|·(K + 1)·T·R / s (the K private rounds and the noiseless run are the block's
   columns), the seconds per replicate against the family's ``cost`` (which sizes
   tasks), and the peak of numpy's allocations during the run (``tracemalloc``) per
   replicate.
4. **Online kernel** (``method=private_ol``): synthetic Bernoulli signals (Θ = {0.3, 0.5,
   0.7}, rate 1) with the theorem's T, one replicate: iterations per second of the whole
   run, split into the signals (:func:`~sweep.inference.simulate.online_loglik`), the
   Laplace draws and the compiled kernel (:func:`sweep.inference.beliefs.online`), and
   its peak memory; then the same split for the Cox model of Fig. 6 (20 rounds).
5. **Rizk et al.** (``method=rizk``, Fig. 6's cells and n = 96 at 8,192 patients):
   seconds per run with R = 1 and R = 100 per block, against the family's ``cost``.

Sections 2 to 5 run in one freshly spawned process with OpenMP, BLAS and numba threads
pinned to 1 (one core, as the paper's per-run figures); section 1 runs the command with
the environment this script was started with. A spawned process first runs every method
once on a tiny cell so that numba's on-disk cache is warm.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The environment the commands of section 1 run with (as a user's would).
USER_ENV = dict(os.environ)
# Before numpy or numba load in the spawned workers (they inherit the environment).
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                  "NUMBA_NUM_THREADS"):
    os.environ[_variable] = "1"

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 60.0  # seconds, per preset (the target on 2 cores)
#: The runtime preset's settings (conf/experiment/inference_runtime.yaml).
RUNTIME = {"model": {"kind": "cox"}, "epsilon": 0.1, "alpha": 0.1, "beta": 0.9,
           "rho_am": 0.1, "rho_gm": 0.1}
RUNTIME_REPLICATES = 10
NODES = (3, 6, 12, 24, 48, 96)
PATIENTS = (4096, 8192)
PAPER_SECONDS = 1.0  # per run at n = 96 (Fig. 14.2)
TARGET_RATIO = 10.0


def _graph(n: int) -> dict[str, Any]:
    return {"kind": "complete", "n_nodes": n}


def _best(repeats: int, function: Callable[..., Any], *args: Any) -> float:
    """Least seconds of ``repeats`` calls ``function(*args)`` (at least one; more while
    under 0.2 s in all, fewer once over 5 s)."""
    times: list[float] = []
    while len(times) < max(1, repeats) or (sum(times) < 0.2 and len(times) < 50):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
        if sum(times) > 5.0:
            break
    return min(times)


def _peak(function: Callable[..., Any], *args: Any) -> int:
    """Peak bytes numpy and Python allocate during ``function(*args)`` (tracemalloc;
    numba's own allocations are not seen)."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        function(*args)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


# -- 1. Presets end to end -------------------------------------------------------------------

def _command(preset: str, executor: str) -> dict[str, Any]:
    """Run a preset's sweep as a user does, in fresh temporary directories."""

    from sweep.store import ResultsStore

    with tempfile.TemporaryDirectory(prefix="bench_inference_") as work:
        results = Path(work) / "results"
        arguments = [sys.executable, "-m", "sweep", "-m", f"+experiment={preset}",
                     f"results_dir={results}", f"executor={executor}", "ray.num_cpus=2"]
        env = {**USER_ENV, "PYTHONPATH": os.pathsep.join(
            filter(None, [str(ROOT), USER_ENV.get("PYTHONPATH")]))}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(arguments, cwd=work, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        output = done.stdout + done.stderr
        if done.returncode != 0:
            raise RuntimeError(f"exit code {done.returncode}: {' '.join(arguments)}\n"
                               + "\n".join(output.splitlines()[-20:]))
        chosen = re.search(r"^executor: (\w+) \((.*)\)$", output, re.M)
        summary = re.search(r"^(\d+) cells: (\d+) done.* in ([\d.]+) s", output, re.M)
        estimate = re.search(r"about ([\d.e+-]+) CPU-seconds", output)
        store = ResultsStore(results)
        store.scan()
        compute, per_run = 0.0, {}
        for record in store.records().values():
            compute += record["wall_seconds"]
            config = record["config"]
            options = config["options"]
            per_run[options["graph"]["n_nodes"], options["dataset"]["patients"],
                    options["method"]] = record["wall_seconds"] / config["replicates"]
    return {"wall": wall, "cpu": cpu, "executor": chosen.group(1) if chosen else "?",
            "cells": int(summary.group(1)) if summary else 0,
            "span": float(summary.group(3)) if summary else math.nan,
            "estimate": float(estimate.group(1)) if estimate else math.nan,
            "compute": compute, "per_run": per_run}


def section_presets(quick: bool, serial: bool) -> None:
    presets = ["inference_runtime"] + ([] if quick else ["inference_fig6"])
    print(f"1. presets end to end (python -m sweep -m +experiment=..., ray.num_cpus=2; "
          f"target < {LIMIT:.0f} s wall)")
    print(f"   {'preset':<19}{'executor':<17}{'cells':>6}{'wall s':>8}{'span s':>8}"
          f"{'drv CPU':>8}{'compute s':>11}{'estimate s':>12}")
    for preset in presets:
        found = _command(preset, "auto")
        runs = [("auto", found)]
        others = ["ray"] if found["executor"] != "ray" else []
        if serial and found["executor"] != "serial":
            others.append("serial")
        for executor in others:
            other = _command(preset, executor)
            if math.isnan(other["estimate"]):  # printed only when auto chooses
                other["estimate"] = found["estimate"]
            runs.append((executor, other))
        for asked, found in runs:
            label = f"{asked}->{found['executor']}" if asked == "auto" else asked
            verdict = "under 60 s" if found["wall"] < LIMIT else "OVER 60 s"
            print(f"   {preset:<19}{label:<17}{found['cells']:>6}{found['wall']:>8.1f}"
                  f"{found['span']:>8.1f}{found['cpu']:>8.0f}{found['compute']:>11.1f}{found['estimate']:>12.3g}"
                  f"  {verdict}")
            if asked == "auto" and found["executor"] == "ray":
                print(f"   {'':<19}{'ray':<17}(the auto run above)")
        if preset == "inference_runtime":
            per_run = runs[0][1]["per_run"]
            text = ", ".join(f"{m} {p}: {per_run[96, p, m] * 1e3:.1f} ms"
                             for p in PATIENTS for m in ("am", "gm") if (96, p, m) in per_run)
            print(f"   per run at n = 96 (provenance / 10 runs, auto): {text}")
    if quick:
        print("   inference_fig6: skipped (--quick)")


# -- 2 to 5: in one spawned, single-threaded process ----------------------------------------

def _warm_up() -> None:
    """Every method once on a tiny cell: numba's cache is loaded (or compiled and
    written) here, not in a measurement or a sweep's worker."""
    import numpy as np

    from sweep.inference import simulate
    from sweep.inference.config import InferenceConfig

    seeds = np.random.SeedSequence(0).spawn(1)
    for options in ({"method": "gm"}, {"method": "private_ol"}, {"method": "rizk"},
                    {"model": {"kind": "bernoulli"}, "method": "private_ol",
                     "iterations": 50}):
        config = InferenceConfig.from_options(graph=_graph(3), **options)
        simulate.run(simulate.prepare(config), seeds, [0])


def _centres_loglik(config: Any, n: int, states: Any) -> Any:
    """The centres' patients and their Cox log-likelihoods over Θ, as prepare makes them."""
    import numpy as np

    from sweep.inference import simulate, survival

    return np.stack([survival.partial_loglik(c, states, config.model.ties)
                     for c in simulate.cox_centres(config, n)])


def _weights(config: Any) -> tuple[float, float]:
    """The graph's weights (the graph itself cached per process, as in prepare) and the
    SLEMs of A and (A + I)/2."""
    from sweep.components import graphs
    from sweep.inference.parameters import slem

    return slem(graphs.build(config.graph.spec()).eigenvalues)


def _signals(config: Any, cell: Any, seed: Any) -> Any:
    """One replicate's online signals, from its data stream (its chunks joined)."""
    import numpy as np

    from sweep.inference import simulate

    return np.concatenate(list(simulate.online_loglik(
        config, cell, cell.iterations, simulate.data_generator(config, seed, 0))))


def _per_run(repeats: int) -> dict[str, Any]:
    import numpy as np

    from sweep.components import graphs
    from sweep.inference import simulate, survival
    from sweep.inference.config import InferenceConfig
    from sweep.inference.family import FAMILY, InferenceCell

    start = time.perf_counter()
    survival.actg175()
    cold = time.perf_counter() - start
    _warm_up()
    spec = InferenceConfig.from_options(graph=_graph(96), **RUNTIME).graph.spec()
    build = _best(repeats, graphs.build.__wrapped__, spec)
    rows = []
    seeds = np.random.SeedSequence(14).spawn(RUNTIME_REPLICATES)
    for patients in PATIENTS:
        for n in NODES:
            for method in ("am", "gm"):
                config = InferenceConfig.from_options(
                    graph=_graph(n), dataset={"kind": "actg175", "patients": patients},
                    method=method, **RUNTIME)
                states = np.asarray(config.model.states)
                data = _best(repeats, simulate.cox_centres, config, n)
                # On fresh centres: a centre's tie structure is computed on its first call
                # and kept, as prepare's centres do.
                both = _best(repeats, _centres_loglik, config, n, states)
                loglik = max(0.0, both - data)
                graph = _best(repeats, _weights, config)
                prepare = _best(repeats, simulate.prepare, config)
                cell = simulate.prepare(config)
                one = _best(repeats, simulate.run, cell, seeds[:1], [0])
                block = _best(repeats, FAMILY.run, InferenceCell(config, cell), seeds,
                              range(RUNTIME_REPLICATES), False)
                rows.append({"patients": patients, "n": n, "method": method,
                             "K": cell.rounds, "T": cell.iterations, "data": data,
                             "loglik": loglik, "graph": graph,
                             "rest": max(0.0, prepare - data - loglik - graph),
                             "prepare": prepare, "one": one,
                             "run": (prepare + block) / RUNTIME_REPLICATES})
    return {"cold": cold, "build": build, "rows": rows}


def _throughput(quick: bool) -> list[dict[str, Any]]:
    import numpy as np

    from sweep.inference import simulate
    from sweep.inference.config import InferenceConfig
    from sweep.inference.family import FAMILY, InferenceCell

    out = []
    counts = (1, 10, 100) if quick else (1, 10, 100, 1000)
    for n in (12, 48, 96):
        config = InferenceConfig.from_options(
            graph=_graph(n), dataset={"kind": "actg175", "patients": 8192}, method="gm",
            **RUNTIME)
        cell = simulate.prepare(config)
        cost = FAMILY.cost(InferenceCell(config, cell))
        for count in counts:
            if quick and n * count > 96 * 100:
                continue
            seeds = np.random.SeedSequence(3).spawn(count)
            ids = list(range(count))
            seconds = _best(1 if count >= 1000 else 2 if count >= 100 else 3,
                            simulate.run, cell, seeds, ids)
            peak = _peak(simulate.run, cell, seeds, ids)
            work = n * len(cell.states) * (cell.rounds + 1) * cell.iterations * count
            out.append({"n": n, "R": count, "K": cell.rounds, "T": cell.iterations,
                        "states": len(cell.states), "seconds": seconds,
                        "rate": work / seconds, "per": seconds / count, "cost": cost,
                        "peak": peak / count})
    return out


def _run_online(matrix: Any, signals: Any, noise: Any, checkpoints: Any) -> None:
    """The online kernel over a whole run in one chunk, from fresh log-beliefs."""
    import numpy as np

    from sweep.inference.beliefs import LogBeliefs, online

    shape = signals.shape[1:]
    online(matrix, signals, noise, 0, LogBeliefs(np.zeros(shape), np.zeros(shape)),
           checkpoints, 0)


def _online(quick: bool) -> list[dict[str, Any]]:
    import numpy as np

    from sweep.inference import simulate
    from sweep.inference.beliefs import Checkpoints
    from sweep.inference.config import InferenceConfig
    from sweep.inference.family import FAMILY, InferenceCell

    cases = [({"model": {"kind": "bernoulli"}}, n) for n in ((5, 10) if quick else (5, 10, 20))]
    cases += [({"model": {"kind": "cox"}, "dataset": {"kind": "actg175"}}, n) for n in (10, 20)]
    out = []
    for options, n in cases:
        config = InferenceConfig.from_options(graph=_graph(n), method="private_ol",
                                              epsilon=1.0, **options)
        cell = simulate.prepare(config)
        seed = np.random.SeedSequence(5).spawn(1)
        signals = _signals(config, cell, seed[0])
        data = _best(2, _signals, config, cell, seed[0])
        noise = simulate._noise(seed, signals.shape, cell.scale)[0]
        draws = _best(2, simulate._noise, seed, signals.shape, cell.scale)
        times = cell.times
        truth = int(np.argmax(cell.star)) if config.model.kind == "cox" else int(
            np.argmin(np.abs(cell.states - config.model.truth)))
        checkpoints = Checkpoints(times, truth, np.empty(len(times)), np.empty(len(times)),
                                  np.empty(len(times)), np.empty((len(times), len(cell.states))))
        matrix = np.ascontiguousarray(cell.matrix)
        kernel = _best(2, _run_online, matrix, signals, noise, checkpoints)
        total = _best(2, simulate.run, cell, seed, [0])
        peak = _peak(simulate.run, cell, seed, [0])
        out.append({"model": config.model.kind, "n": n, "T": cell.iterations,
                    "states": len(cell.states), "data": data, "noise": draws,
                    "kernel": kernel, "total": total, "peak": peak,
                    "cost": FAMILY.cost(InferenceCell(config, cell))})
    return out


def _rizk(quick: bool) -> list[dict[str, Any]]:
    import numpy as np

    from sweep.inference import simulate
    from sweep.inference.config import InferenceConfig
    from sweep.inference.family import FAMILY, InferenceCell

    cases = [(n, None) for n in (10, 15, 20)] + [(96, 8192)]
    out = []
    for n, patients in cases:
        config = InferenceConfig.from_options(
            graph=_graph(n), method="rizk", epsilon=1.0, model={"kind": "cox"},
            dataset={"kind": "actg175", "patients": patients})
        cell = simulate.prepare(config)
        seeds = np.random.SeedSequence(7).spawn(100)
        one = _best(3, simulate.run, cell, seeds[:1], [0])
        count = 10 if quick else 100
        block = _best(1, simulate.run, cell, seeds[:count], list(range(count)))
        out.append({"n": n, "patients": sum(len(c) for c in cell.centres),
                    "T": cell.iterations, "one": one, "block": block / count,
                    "count": count, "cost": FAMILY.cost(InferenceCell(config, cell))})
    return out


def _measure(quick: bool, repeats: int) -> dict[str, Any]:
    """Sections 2 to 5, in this (fresh, single-threaded) process."""
    found = {"per_run": _per_run(repeats), "throughput": _throughput(quick),
             "online": _online(quick), "rizk": _rizk(quick)}
    found["maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return found


def _fresh(function: Callable[..., Any], *args: Any) -> Any:
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(function, args)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g}"


def report(found: dict[str, Any]) -> None:
    MiB = 2**20
    per_run = found["per_run"]
    print(f"\n2. per run, runtime preset's cells (one core, best of several; ms); first "
          f"read of ACTG 175 {per_run['cold'] * 1e3:.0f} ms (once per process)")
    print(f"   {'patients':>8}{'n':>4}{'method':>7}{'K':>3}{'T':>4}{'data':>8}{'loglik':>8}"
          f"{'graph':>8}{'K,T':>7}{'prepare':>9}{'1 run':>8}{'per run':>9}{'paper/ours':>12}")
    for row in per_run["rows"]:
        ratio = ""
        if row["n"] == 96:
            value = PAPER_SECONDS / row["run"]
            ratio = f"{value:.0f}x" + ("" if value >= TARGET_RATIO else " < 10x")
        print(f"   {row['patients']:>8}{row['n']:>4}{row['method']:>7}{row['K']:>3}"
              f"{row['T']:>4}{_ms(row['data']):>8}{_ms(row['loglik']):>8}"
              f"{_ms(row['graph']):>8}{_ms(row['rest']):>7}{_ms(row['prepare']):>9}"
              f"{_ms(row['one']):>8}{_ms(row['run']):>9}{ratio:>12}")
    print("   (data: copy, resampling and split; loglik: the Cox likelihood over Θ, all "
          "centres; graph: weights and SLEM, the graph itself cached per process (built "
          f"cold at n = 96: {per_run['build'] * 1e3:.3g} ms); K,T: the rest of prepare; "
          "1 run: run() of one replicate; per run: (prepare + FAMILY.run of "
          f"{RUNTIME_REPLICATES} runs with rows) / {RUNTIME_REPLICATES}; paper: "
          f"~{PAPER_SECONDS:g} s per run at n = 96)")

    print("\n3. belief exchange throughput (GM, 8,192 patients; run() of R replicates in "
          "one block)")
    print(f"   {'n':>4}{'R':>6}{'K':>3}{'T':>4}{'seconds':>10}{'agent-state-round-it/s':>24}"
          f"{'ms/replicate':>14}{'cost ms':>9}{'peak KiB/rep':>14}")
    for row in found["throughput"]:
        print(f"   {row['n']:>4}{row['R']:>6}{row['K']:>3}{row['T']:>4}"
              f"{row['seconds']:>10.4f}{row['rate']:>24.3g}{row['per'] * 1e3:>14.3g}"
              f"{row['cost'] * 1e3:>9.3g}{row['peak'] / 1024:>14.1f}")

    print("\n4. online kernel (private_ol, ε = 1, theorem's T; one replicate; seconds)")
    print(f"   {'model':<10}{'n':>4}{'T':>8}{'signals':>9}{'noise':>8}{'kernel':>8}"
          f"{'total':>8}{'iterations/s':>14}{'agent-state-it/s':>18}{'peak MiB':>10}"
          f"{'cost s':>8}")
    for row in found["online"]:
        work = row["n"] * row["states"] * row["T"]
        print(f"   {row['model']:<10}{row['n']:>4}{row['T']:>8}{row['data']:>9.3f}"
              f"{row['noise']:>8.3f}{row['kernel']:>8.3f}{row['total']:>8.3f}"
              f"{row['T'] / row['total']:>14.3g}{work / row['total']:>18.3g}"
              f"{row['peak'] / MiB:>10.2f}{row['cost']:>8.3g}")

    print("\n5. Rizk et al. (ε = 1, η = 0.001, T the GM's; ms per run)")
    print(f"   {'n':>4}{'patients':>10}{'T':>4}{'R = 1':>9}{'R = block':>11}{'cost':>8}")
    for row in found["rizk"]:
        print(f"   {row['n']:>4}{row['patients']:>10}{row['T']:>4}{_ms(row['one']):>9}"
              f"{_ms(row['block']):>8} ({row['count']}){_ms(row['cost']):>7}")
    print(f"\n   measuring process peak RSS {found['maxrss'] / MiB:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="no Fig. 6 sweep, fewer and smaller cases")
    parser.add_argument("--serial", action="store_true",
                        help="also run Fig. 6 with executor=serial (one core)")
    parser.add_argument("--repeats", type=int, default=5, help="best of (5; 3 with --quick)")
    args = parser.parse_args()
    repeats = 3 if args.quick and args.repeats == 5 else args.repeats
    start = time.perf_counter()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    _fresh(_warm_up)
    section_presets(args.quick, args.serial)
    report(_fresh(_measure, args.quick, repeats))
    print(f"load average {os.getloadavg()[0]:.2f} after; {time.perf_counter() - start:.0f} s "
          "in all")


if __name__ == "__main__":
    main()
