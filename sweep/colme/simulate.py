"""Algorithm 1's replicates as tidy rows (a cell's rows in this process:
:func:`sweep.execute.simulate` with ``family="colme"``).

The compiled kernels, the analytic baselines (numba, scipy) and pandas are imported by
the functions that compute: validating a cell (:func:`check_baselines`) needs none.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from ..options import as_dict
from .config import BASELINES, ESTIMATES, ColmeConfig

if TYPE_CHECKING:
    import pandas as pd


def check_baselines(baselines: str | Iterable[str]) -> tuple[str, ...]:
    """The requested baselines as a tuple, or :class:`ConfigError` naming the bad one."""
    many = isinstance(baselines, Iterable) and not isinstance(baselines, str)
    names = tuple(baselines) if many else (baselines,)
    for name in names:
        if name not in BASELINES:
            raise ConfigError(f"baselines: must be among {', '.join(BASELINES)}; got {name!r}")
    return names


#: Options that never reach the simulation: the analytic oracle's, and the stream's own.
_NOT_SIMULATED = ("oracle_start", "oracle_eq21", "stream")


def replicate_seed(config: ColmeConfig, seed: np.random.SeedSequence, replicate: int
                   ) -> np.random.SeedSequence:
    """The seed replicate ``replicate`` draws from: the engine's ``seed`` under
    ``stream=cell``; under ``stream=scenario``, one from the root seed, the options that
    are not :data:`~sweep.colme.config.ESTIMATES` and the replicate alone, so that cells
    that differ only in how σ_b² is estimated run on common random numbers."""
    if config.stream == "cell":
        return seed
    scenario = {k: v for k, v in as_dict(config).items()
                if k not in ESTIMATES and k not in _NOT_SIMULATED}
    digest = hashlib.sha256(json.dumps(scenario, sort_keys=True).encode()).digest()
    key = (int.from_bytes(digest[:4], "big"), int.from_bytes(digest[4:8], "big"))
    return np.random.SeedSequence(seed.entropy, spawn_key=(*key, replicate))


def tabulate(
    config: ColmeConfig,
    seeds: Sequence[np.random.SeedSequence],
    baselines: Sequence[str] = (),
    replicate_ids: Sequence[int] | None = None,
    analytic: bool = True,
) -> pd.DataFrame:
    """Simulate one replicate per seed and lay the results out as a tidy table.

    Rows: method × source × replicate × checkpoint; columns: the family's index and
    metrics (the engine adds the options, :mod:`sweep.results`). ``method`` is ``colme``
    (or ``oracle`` with ``class_estimator=oracle``) for Algorithm 1 and the baseline's
    name otherwise; ``source`` is ``simulated`` or ``analytic``. Simulated local and ideal
    use the same data streams as Algorithm 1. Analytic rows have no replicate;
    ``analytic=False`` leaves them out, so that blocks of replicates can be simulated
    apart and concatenated.
    """
    import pandas as pd

    frame = pd.DataFrame(columns(config, seeds, baselines, replicate_ids, analytic))
    frame["replicate"] = frame["replicate"].astype("Int64")
    return frame


def columns(
    config: ColmeConfig,
    seeds: Sequence[np.random.SeedSequence],
    baselines: Sequence[str] = (),
    replicate_ids: Sequence[int] | None = None,
    analytic: bool = True,
) -> dict[str, np.ndarray]:
    """The columns of :func:`tabulate`'s table as arrays (``replicate`` a float, NaN for
    analytic rows): what the sweep engine stores, without a DataFrame per block."""
    from .baselines import ANALYTIC
    from .engine import run_replicate
    from .kernel import FALSE_EXCLUSION, FALSE_INCLUSION, IDEAL_MSE, LOCAL_MSE, MSE

    simulated = {"local": LOCAL_MSE, "ideal": IDEAL_MSE}
    times = config.checkpoint_times()
    ids = range(len(seeds)) if replicate_ids is None else replicate_ids
    method = "colme" if config.class_estimator == "test" else "oracle"
    if analytic and "oracle" in baselines:
        config.check_oracle()  # before any work
    blocks: list[tuple[str, str, float, np.ndarray, np.ndarray, np.ndarray]] = []
    missing = np.full(len(times), np.nan)
    for replicate, seed in zip(ids, seeds, strict=True):
        metrics, _ = run_replicate(config, replicate_seed(config, seed, int(replicate)))
        blocks.append((method, "simulated", replicate, metrics[:, MSE],
                       metrics[:, FALSE_EXCLUSION], metrics[:, FALSE_INCLUSION]))
        for name in baselines:
            if name in simulated:
                blocks.append((name, "simulated", replicate, metrics[:, simulated[name]],
                               missing, missing))
    for name in baselines if analytic else ():
        blocks.append((name, "analytic", np.nan, ANALYTIC[name](config, times), missing,
                       missing))
    if not blocks:
        raise ConfigError("replicates: must be >= 1 unless analytic baselines are requested")
    count = len(times)
    return {
        "method": np.repeat(np.array([b[0] for b in blocks], dtype=object), count),
        "source": np.repeat(np.array([b[1] for b in blocks], dtype=object), count),
        "replicate": np.repeat(np.array([b[2] for b in blocks], dtype=np.float64), count),
        "t": np.tile(times, len(blocks)),
        "mse": np.concatenate([np.broadcast_to(b[3], count) for b in blocks]),
        "false_exclusion": np.concatenate([b[4] for b in blocks]),
        "false_inclusion": np.concatenate([b[5] for b in blocks]),
    }

