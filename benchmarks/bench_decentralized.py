"""Throughput and peak memory of the decentralized family (C-ColME, B-ColME), and a
side-by-side run of the public C++ code of Galante, Neglia & Leonardi (AAAI 2025).

Run: ``python benchmarks/bench_decentralized.py [--million] [--reference COMMAND]``.
Each case runs in a fresh process (its peak resident memory, ru_maxrss, is its own), one
replicate as the reference runs one seed per process: the reference's configuration
(random 10-regular graph by its configuration model, two classes, σ = 2, δ = 0.1,
T = 2,000 steps) with the local, oracle and ideal baselines and 100 checkpoints; best
of three runs (one from 10⁵ agents). Each runs on one thread and, for C-ColME above
``PARALLEL_ABOVE`` agents, on every core too (:mod:`sweep.threads`: the task may use
them, as a cell that runs alone does). Rates are agent-iterations (N × T) per second:
per core, of CPU time; per machine, of wall time.

``--million`` adds C-ColME at 10⁶ agents × 2,000 steps (the issue's goal: under 2
minutes wall on this 2-core machine, under 4 GiB).

``--reference COMMAND`` runs, after our cases and in the same invocation, a shell command
that runs the reference's C-ColME (``consensus``) once, in a scratch directory, on the
same machine.
Build it yourself from its repository (commit c782c29), outside this one, with its
``main.cpp`` set to the one algorithm, one seed, and an N whose degree ⌈N p⌉ is 10. The
reference writes ``time.csv``: its set-up (graph, the O(N²) diameter, clusters) and its
algorithm's seconds, single-threaded. The ratio is taken against its algorithm's
seconds alone (its logging and file appends included, as it ships), at its N; our
seconds include our graph. Per machine, the reference is granted one process per core
(its rate times the cores), its best case. Its set-up grows as N², so it cannot run at
10⁶ agents (at 10⁴ it took 16 s here).
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"

T_MAX = 2000


def _case(options: dict, repeats: int, granted: int, queue: multiprocessing.Queue) -> None:
    import numpy as np

    from sweep.decentralized.config import DecentralizedConfig
    from sweep.decentralized.simulate import replicate_rows
    from sweep.threads import kernel_threads, limit_threads

    config = DecentralizedConfig.from_options(**options)
    warm = DecentralizedConfig.from_options(**{**options, "t_max": 3,
                                               "graph": {**options["graph"], "n_nodes": 100}})
    replicate_rows(warm, np.random.SeedSequence(0), None)  # compile (or load) the kernels
    best = (float("inf"), float("inf"))
    with limit_threads("one", granted):
        threads = kernel_threads()
        for repeat in range(repeats):
            wall, cpu = time.perf_counter(), time.process_time()
            replicate_rows(config, np.random.SeedSequence(repeat), None)
            best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put((*best, peak, threads))


def run_case(options: dict, repeats: int, granted: int) -> tuple[float, float, float, int]:
    """(wall s, CPU s, peak MiB, threads) of the best of ``repeats`` replicates."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_case, args=(options, repeats, granted, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


def run_reference(command: str) -> dict[str, float]:
    """The reference's run: its N, its set-up and algorithm seconds (from its
    ``time.csv``), and the whole process's wall and CPU seconds and peak MiB."""
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        child = subprocess.Popen(command, shell=True, cwd=scratch,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"{command}: exit {status}: {child.stderr.read().decode()}")
        with open(Path(scratch) / "time.csv") as handle:
            rows = [r for r in csv.DictReader(handle) if r["alg"] == "consensus"]
    if len(rows) != 1:
        raise RuntimeError(f"{command}: expected one C-ColME run in time.csv, got {len(rows)}")
    return {"n": int(rows[0]["n"]), "setup": float(rows[0]["init_s"]),
            "algorithm": float(rows[0]["alg_s"]), "wall": wall,
            "cpu": usage.ru_utime + usage.ru_stime, "peak": usage.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--million", action="store_true",
                        help="also run C-ColME at 10^6 agents x 2,000 steps")
    parser.add_argument("--reference", metavar="COMMAND",
                        help="a shell command that runs the reference's C-ColME once")
    arguments = parser.parse_args()
    from sweep.decentralized.simulate import PARALLEL_ABOVE
    from sweep.threads import cores

    machine = cores()
    print(f"{machine} cores; load average {os.getloadavg()[0]:.2f} at the start")
    print(f"{'case':<30} {'threads':>7} {'wall s':>8} {'CPU s':>8} {'per core':>9} "
          f"{'machine':>9} {'peak MiB':>9}")
    cases = [(method, n, {}) for n in (1_000, 10_000) for method in ("c_colme", "b_colme")]
    cases += [("c_colme", 10_000, {"samples": "bernoulli", "class_means": [0.2, 0.8],
                                   # δ = 1e-6 > 1/(N t_max), acknowledged (a timing).
                                   "privacy": {"mechanism": "pm1",
                                               "allow_large_delta": True}})]
    cases.append(("c_colme", 100_000, {}))
    if arguments.million:
        cases.append(("c_colme", 1_000_000, {}))
    ours: dict[int, tuple[float, float]] = {}
    for method, n, extra in cases:
        options = {"method": method, "t_max": T_MAX, "graph": {"n_nodes": n}, **extra}
        grants = [1] + ([machine] if method == "c_colme" and n > PARALLEL_ABOVE
                        and machine > 1 else [])
        for granted in grants:
            wall, cpu, peak, threads = run_case(options, 1 if n >= 100_000 else 3, granted)
            label = f"{method} N={n:,}" + (" PM-I" if extra else "")
            print(f"{label:<30} {threads:>7} {wall:8.2f} {cpu:8.2f} {n * T_MAX / cpu:9.3g} "
                  f"{n * T_MAX / wall:9.3g} {peak:9.0f}", flush=True)
            if method == "c_colme" and not extra:
                ours.setdefault(n, (cpu, wall))
                ours[n] = (ours[n][0], min(ours[n][1], wall))
    if arguments.reference:
        reference = run_reference(arguments.reference)
        n = reference["n"]
        rate = n * T_MAX / reference["algorithm"]
        print(f"\nreference C-ColME N={n:,}: set-up {reference['setup']:.1f} s, algorithm "
              f"{reference['algorithm']:.1f} s ({rate:.3g} agent-it/s); whole process "
              f"{reference['wall']:.1f} s wall, {reference['cpu']:.1f} s CPU, "
              f"{reference['peak']:.0f} MiB")
        if n in ours:
            cpu, wall = ours[n]
            print(f"ours at N={n:,}: {n * T_MAX / cpu / rate:.1f}x per core (CPU s, one "
                  f"thread), {n * T_MAX / wall / (rate * machine):.1f}x per machine (wall s, "
                  f"{machine} threads, against {machine} reference processes)")
        else:
            print(f"(no case of ours at N={n:,} to compare)")


if __name__ == "__main__":
    main()
