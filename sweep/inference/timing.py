"""The time of one whole run of an inference cell, as the paper's Sec. 14.3 times its own:
the centres' log-likelihoods on their patients (:func:`.simulate.prepare`), then the
belief exchange (:func:`.simulate.run`, one replicate).

:func:`time_cell` runs :func:`main` in a fresh interpreter, each run with the numerical
libraries on one thread as a sweep's tasks run (:func:`sweep.threads.limit_threads`), so
that neither side of a comparison gains from the machine's cores; the times are
wall-clock (``time.perf_counter``).

Run by hand: ``python -m sweep.inference.timing '{"graph": {"n_nodes": 6}}' 3``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from ..threads import limit_threads


def time_cell(options: Mapping[str, Any], repeats: int) -> list[dict[str, float]]:
    """``repeats`` timed runs of the cell of ``options`` (each with its own seed), in one
    fresh single-threaded process: per run the seconds of the likelihoods (``prepare``)
    and of the exchange (``exchange``). The first run, which compiles, is not counted."""
    if not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats: must be an integer >= 1; got {repeats!r}")
    done = subprocess.run(
        [sys.executable, "-m", "sweep.inference.timing", json.dumps(dict(options)),
         str(repeats)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(options: Mapping[str, Any], repeats: int) -> list[dict[str, float]]:
    """The timed runs of :func:`time_cell`, in this process."""
    import time

    import numpy as np

    from .config import InferenceConfig
    from .simulate import prepare, run

    config = InferenceConfig.from_options(**options)
    found = []
    for repeat in range(repeats + 1):
        # Per run: the limit reaches every library the first run loaded.
        with limit_threads("one"):
            start = time.perf_counter()
            cell = prepare(config)
            middle = time.perf_counter()
            run(cell, [np.random.SeedSequence(repeat)], [repeat])
            end = time.perf_counter()
        if repeat:  # the first run compiles the kernels
            found.append({"prepare": middle - start, "exchange": end - middle})
    return found


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]), int(sys.argv[2]))))
