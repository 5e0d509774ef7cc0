"""Throughput and peak memory of the continual family (user-level DP continual mean).

Run: ``python benchmarks/bench_continual.py [--quick]`` (under a minute; ``--quick``
divides every horizon by 10). One core: OpenMP, BLAS and numba threads are pinned to 1,
and every case runs in its own freshly spawned process, one at a time.

Throughput. For every method (non_private, naive_laplace, alg2, alg3, alg4, alg5, alg6)
at T = 10⁶ samples from n = 10⁴ users of at most m = 100 (so every user gives all its
samples), in uniformly random order (contiguous for alg3, the order it is written for),
one coordinate and one replicate at a time, after a warm-up on a tiny cell of the same
method and order (it loads or compiles the numba kernels): stream elements per second,
T / seconds, the median of ``--repeats`` runs (5), for

* ``arrivals``: drawing u_1..u_T (:func:`sweep.continual.orders.arrivals`);
* ``kernel``: the method's pass over that stream (:func:`sweep.continual.simulate.
  run_coordinate`);
* ``total``: one replicate as a sweep computes it (``FAMILY.run``: the arrivals, M_t and
  the diversity condition, the kernel, the bounds and the rows).

Target: >= 10⁷ elements/s per core for every method (``total``).

Memory. ``tracemalloc`` sees numpy's allocations but not those numba's compiled code
makes (its runtime calls ``malloc`` directly), and the process's lifetime peak
(``ru_maxrss``) also holds the imports and the warm-up. So each case, after its warm-up
and a garbage collection, returns freed heap memory to the system (``malloc_trim``),
resets the kernel's high-water mark of resident memory (writing ``5`` to
``/proc/self/clear_refs``, Linux >= 4.0: it resets ``VmHWM`` and ``ru_maxrss``), reads
its resident memory ``VmRSS``, runs one replicate (``FAMILY.run``) and reads ``VmHWM``:
the difference is the extra memory the replicate touched at its peak, whoever allocated
it. Pages allocated but never touched (as ``np.zeros`` may leave them) are not resident
and not counted; so that freed memory, already resident, is not silently reused, glibc's
adaptive mmap threshold is fixed (``MALLOC_MMAP_THRESHOLD_``): every block over 128 KiB
is mapped afresh and unmapped when freed. The same is then measured for the kernel alone
(``run_coordinate`` over a stream already drawn). Where ``clear_refs`` cannot be written,
the replicate's figure falls back to the increase of ``ru_maxrss`` over the warm-up (an
underestimate), and the table says so.

The check that memory does not grow with T beyond the stream: those extra peaks at
T = 10⁵, 10⁶ and 4·10⁶, in bytes per stream element, with m = 100 and n = T/m users (the
most samples n users can give is n·m, so n grows with T; per-user state of s bytes is
then s/100 bytes per element). The stream itself is the users u_1..u_T as int32, 4 bytes
per element (Alg. 6 also keeps each user's samples, 1 byte per element, for
PrivateMedian). Flat figures from 10⁵ to 4·10⁶ mean the memory is proportional to the
stream; ``grows`` marks a method whose replicate figure at the largest T exceeds that at
the middle one by more than 25% (and 2 bytes).

The machine may be shared: the load average is printed before and after, and timings
under load are lower bounds of the throughput.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import multiprocessing
import os
import re
import resource
import statistics
import time
from typing import Any

# Before numpy or numba load in the spawned workers (they inherit the environment).
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                  "NUMBA_NUM_THREADS"):
    os.environ[_variable] = "1"
# glibc serves a large block from freed heap memory once a block of its size has been
# freed (its mmap threshold adapts); such memory is already resident and a peak would
# miss it. A fixed threshold maps every block over 128 KiB afresh and unmaps it on free.
os.environ["MALLOC_MMAP_THRESHOLD_"] = str(128 * 1024)

METHODS = ("non_private", "naive_laplace", "alg2", "alg3", "alg4", "alg5", "alg6")
#: Samples per user at most; n = T/m users, so that T = n·m is the orders' capacity.
M = 100
#: The throughput case's horizon, and the horizons of the memory check.
HORIZON = 1_000_000
MEMORY_HORIZONS = (100_000, 1_000_000, 4_000_000)
TARGET = 1e7  # elements per second per core


def _order(method: str) -> str:
    """Alg. 3 is written for contiguous arrivals; the others run on uniform ones."""
    return "contiguous" if method == "alg3" else "uniform"


def _options(method: str, horizon: int) -> dict[str, Any]:
    return {"family": "continual", "replicates": 1, "method": method,
            "order": {"kind": _order(method)}, "n_users": horizon // M, "max_samples": M,
            "t_max": horizon}


def _status() -> dict[str, int]:
    """Resident memory now and its high-water mark, in bytes (``/proc/self/status``)."""
    text = open("/proc/self/status", encoding="ascii").read()
    return {key: int(re.search(rf"^{key}:\s+(\d+) kB", text, re.M).group(1)) * 1024
            for key in ("VmRSS", "VmHWM")}


def _reset_peak() -> bool:
    """Return freed heap memory to the system, then reset the high-water mark of resident
    memory to the current one (Linux >= 4.0); False if it cannot be reset."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc: the fixed mmap threshold does not apply either
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
    except OSError:
        return False
    return True


def _case(method: str, horizon: int, repeats: int) -> dict[str, Any]:
    """In a fresh process: the extra peak memory of one replicate of the case and, with
    ``repeats`` > 0, the median seconds of arrivals, kernel and a whole replicate."""
    import numpy as np

    from sweep.continual.family import FAMILY
    from sweep.continual.orders import arrivals
    from sweep.continual.simulate import run_coordinate
    from sweep.plan import make_cell

    # Warm-up on a tiny cell of the same method and order: loads (or compiles) every
    # kernel the case calls, so neither figure below counts compilation.
    tiny = make_cell({**_options(method, 2_000), "checkpoints": 5})
    FAMILY.run(tiny.prepared, tiny.seeds(0, 1), [0], False)
    cell = make_cell(_options(method, horizon))
    prepared, config = cell.prepared, cell.prepared.config
    gc.collect()

    exact = _reset_peak()
    before = _status()["VmRSS"] if exact else resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss * 1024
    FAMILY.run(prepared, cell.seeds(0, 1), [0], False)
    after = _status()["VmHWM"] if exact else resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss * 1024
    result: dict[str, Any] = {"extra": after - before, "exact": exact,
                              "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    # The kernel's own share: its extra peak over a stream already drawn (with the
    # fallback, the increase over the replicate's peak, usually 0: not measured).
    users = arrivals(config, np.random.default_rng(0))
    gc.collect()
    _reset_peak()
    before = _status()["VmRSS"] if exact else after
    run_coordinate(prepared.parameters, users, config.n_users, config.max_samples, config.mu,
                   prepared.times, np.random.default_rng(1), np.random.default_rng(2))
    result["kernel"] = (_status()["VmHWM"] if exact else resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss * 1024) - before
    del users
    if repeats <= 0:
        return result

    seconds: dict[str, list[float]] = {"arrivals": [], "kernel": [], "total": []}
    p = prepared.parameters
    for r in range(repeats):
        start = time.perf_counter()
        users = arrivals(config, np.random.default_rng([r, 0]))
        seconds["arrivals"].append(time.perf_counter() - start)
        samples, noise = np.random.default_rng([r, 1]), np.random.default_rng([r, 2])
        start = time.perf_counter()
        run_coordinate(p, users, config.n_users, config.max_samples, config.mu,
                       prepared.times, samples, noise)
        seconds["kernel"].append(time.perf_counter() - start)
        seeds = cell.seeds(r, r + 1)
        start = time.perf_counter()
        FAMILY.run(prepared, seeds, [r], False)
        seconds["total"].append(time.perf_counter() - start)
    result["seconds"] = {part: statistics.median(values) for part, values in seconds.items()}
    return result


def run(method: str, horizon: int, repeats: int = 0) -> dict[str, Any]:
    """:func:`_case` in a freshly spawned process of its own."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_case, (method, horizon, repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every horizon divided by 10")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per method (5)")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    horizon = HORIZON // scale
    horizons = [h // scale for h in MEMORY_HORIZONS]
    MiB = 2**20

    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"throughput: T = {horizon:,}, n = {horizon // M:,}, m = {M}, one coordinate, one "
          f"replicate, one core; median of {args.repeats}; elements/s (target "
          f"{TARGET:.0e} total)")
    print(f"{'method':<14}{'order':<12}{'arrivals':>11}{'kernel':>11}{'total':>11}"
          f"{'extra MiB':>11}{'peak MiB':>10}")
    extra: dict[tuple[str, int], tuple[int, int]] = {}  # replicate, kernel
    exact = True
    for method in METHODS:
        found = run(method, horizon, args.repeats)
        extra[method, horizon] = found["extra"], found["kernel"]
        exact = exact and found["exact"]
        rates = {part: horizon / s for part, s in found["seconds"].items()}
        flag = "" if rates["total"] >= TARGET else "  below target"
        print(f"{method:<14}{_order(method):<12}{rates['arrivals']:>11.3g}"
              f"{rates['kernel']:>11.3g}{rates['total']:>11.3g}"
              f"{found['extra'] / MiB:>11.1f}{found['peak'] / MiB:>10.0f}{flag}")

    print(f"\nmemory: extra peak resident bytes per stream element, m = {M}, n = T/m "
          f"({'VmHWM after clear_refs' if exact else 'ru_maxrss increase'}): one replicate "
          "/ the kernel alone over a stream already drawn (the stream: 4 B/element)")
    print(f"{'method':<14}" + "".join(f"{f'T = {h:,}':>18}" for h in horizons))
    for method in METHODS:
        for h in horizons:
            if (method, h) not in extra:
                found = run(method, h)
                extra[method, h] = found["extra"], found["kernel"]
                exact = exact and found["exact"]
        per = [(extra[method, h][0] / h, extra[method, h][1] / h) for h in horizons]
        # Both a relative and an absolute margin: at small T a few pages are 1 B/element.
        flag = "  grows" if per[-1][0] - per[-2][0] > max(0.25 * per[-2][0], 2.0) else ""
        print(f"{method:<14}" + "".join(f"{f'{r:.1f} / {k:.1f}':>18}" for r, k in per)
              + flag)
    if not exact:
        print("(clear_refs was not writable: ru_maxrss increases, which underestimate)")
    print(f"load average {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
