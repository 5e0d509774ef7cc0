"""Replicates chosen for a precision: Stein's two-stage procedure (Stein, "A two-sample test
for a linear hypothesis whose power is independent of the variance", Ann. Math. Statist.
16, 1945).

A cell asked for ``replicates=auto`` first runs a pilot of n₀ = ``target.pilot``
replicates. From the pilot's sample variance s² of the target metric (at the target
checkpoint, per method), it needs

    N = max(n₀, ⌈(t_{n₀−1, 1−α/2} · s / d)²⌉)

replicates for a confidence interval of half-width at most d = ``target.half_width`` at
level 1 − α = ``target.level``: the interval x̄_N ± t_{n₀−1, 1−α/2} · s / √N (the mean of
all N replicates, the pilot's s and degrees of freedom) covers the mean with probability
exactly 1 − α for normal replicates, whatever their variance (:func:`two_stage_interval`),
because N depends on the pilot only through s², which is independent of the replicates'
means. So the count depends on the pilot's variance only, never on its mean: a target
relative to the mean would make it depend on the mean, and the interval lose its level
(``target.half_width`` is in the metric's units). The largest need over the target's
methods wins; a cell that would need more than ``target.max`` stops there, and says so.
Replicate r of a cell is the same whatever the count (:mod:`sweep.plan`), so the rest is
an extension of the pilot (:attr:`sweep.plan.Cell.start`), never a new run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError

#: The value of ``replicates`` that asks for a precision target.
AUTO = "auto"


@dataclass(frozen=True)
class Target:
    """The precision a cell of ``replicates=auto`` is run to: the engine's key group
    ``target``."""

    #: The metric whose mean is estimated (a metric of the cell's family).
    metric: str = "mse"
    #: The checkpoint t: ``last`` (the cell's largest), or a t of its rows.
    at: str | int = "last"
    #: The methods whose means must reach the precision (None: every method with
    #: replicate rows); the largest need wins.
    methods: tuple[str, ...] | None = None
    #: Half-width d of the confidence interval, in the metric's units.
    half_width: float = 0.0
    #: Its confidence level 1 − α.
    level: float = 0.95
    #: Replicates of the pilot, n₀ (at least 2: the variance needs two).
    pilot: int = 10
    #: The most replicates a cell runs: one that needs more stops there.
    max: int = 2000

    @classmethod
    def of(cls, options: Mapping[str, Any] | None) -> Target:
        """The validated target of the key group ``options`` (``target``); a one-line
        :class:`ConfigError` naming the key and its allowed range."""
        options = dict(options or {})
        unknown = set(options) - {f for f in cls.__dataclass_fields__}
        if unknown:
            raise ConfigError(f"target.{sorted(unknown)[0]}: unknown key; keys of target: "
                              + ", ".join(f"target.{f}" for f in cls.__dataclass_fields__))
        methods = options.get("methods")
        if methods is not None:
            if isinstance(methods, str):
                methods = [methods]
            if not methods or not all(isinstance(m, str) for m in methods):
                raise ConfigError(f"target.methods: must be a list of method names, or null "
                                  f"for every method; got {methods!r}")
            options["methods"] = tuple(methods)
        target = cls(**options)
        if not isinstance(target.metric, str):
            raise ConfigError(f"target.metric: must be a metric's name; got {target.metric!r}")
        if target.at != "last" and (isinstance(target.at, bool)
                                    or not isinstance(target.at, int) or target.at < 0):
            raise ConfigError(f"target.at: must be 'last' or a checkpoint t >= 0; got "
                              f"{target.at!r}")
        half = target.half_width
        if isinstance(half, bool) or not isinstance(half, int | float) or not (
                0 < half < math.inf):
            raise ConfigError(f"target.half_width: must be a finite number > 0 (in the "
                              f"metric's units); got {half!r}")
        level = target.level
        if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level < 1:
            raise ConfigError(f"target.level: must be in (0, 1); got {level!r}")
        for key, low in (("pilot", 2), ("max", target.pilot)):
            value = getattr(target, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"target.{key}: must be an integer >= {low}; got {value!r}")
        return target

    def needed(self, deviation: float) -> int:
        """Stein's N for a pilot standard deviation ``deviation``, before the cap."""
        quantile = _t_quantile(self.level, self.pilot - 1)
        return max(self.pilot, math.ceil((quantile * deviation / self.half_width) ** 2))


def _t_quantile(level: float, dof: int) -> float:
    """Student's t quantile of a two-sided interval at ``level``, ``dof`` degrees of
    freedom."""
    from scipy import stats

    return float(stats.t.ppf(0.5 + level / 2, dof))


def pilot_deviations(runs: Mapping[str, Sequence[float]], pilot: int) -> dict[str, float]:
    """Per method, the sample standard deviation (ddof 1) of its first ``pilot``
    replicates' values ``runs[method]`` (in replicate order)."""
    import numpy as np

    found = {}
    for method, values in runs.items():
        first = np.asarray(values, dtype=float)[:pilot]
        if first.size < pilot or not np.isfinite(first).all():
            raise ValueError(f"method {method}: {first.size} finite pilot values of {pilot}")
        found[method] = float(first.std(ddof=1))
    return found


def two_stage_interval(values: Sequence[float], pilot: int, level: float
                       ) -> tuple[float, float]:
    """Stein's interval from the values of all N replicates (the first ``pilot`` of them
    the pilot): the mean of all, and the half-width t_{n₀−1, 1−α/2} · s / √N with the
    pilot's standard deviation s."""
    import numpy as np

    values = np.asarray(values, dtype=float)
    deviation = float(values[:pilot].std(ddof=1))
    return float(values.mean()), _t_quantile(level, pilot - 1) * deviation / math.sqrt(
        values.size)


def needs(targets: Mapping[str, tuple[str, Target]], store: Any) -> dict[str, int]:
    """Stein's N (before the cap) of each cell of ``targets`` (cell id: its family and
    target), from its first ``target.pilot`` replicates stored in ``store``
    (:class:`sweep.store.ResultsStore`): the largest over its series (a method, source
    and the family's own index) at the target's checkpoint. Each file is read once, for
    all the cells it holds."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from .family import get_family

    store.scan()
    by_file: dict[Any, list[str]] = {}
    for cell_id, (_, target) in targets.items():
        if store.held.get(cell_id, 0) < target.pilot:
            raise ValueError(f"cell {cell_id}: its pilot is not stored")
        by_file.setdefault(store.where[cell_id], []).append(cell_id)
    found = {}
    for path, held in by_file.items():
        family = get_family(targets[held[0]][0])  # a file holds cells of one family
        series = ["method", "source", *family.schema.index]
        metrics = sorted({targets[cell_id][1].metric for cell_id in held})
        table = pq.read_table(path, columns=["cell_id", "replicate", "t", *series, *metrics])
        table = table.filter(pc.is_in(table.column("cell_id"), pa.array(held)))
        frames = dict(iter(table.to_pandas().groupby("cell_id", sort=False)))
        for cell_id in held:
            found[cell_id] = _need(cell_id, targets[cell_id][1], frames[cell_id], series)
    return found


def _need(cell_id: str, target: Target, frame: Any, series: list[str]) -> int:
    """Stein's N of the cell ``cell_id`` from its stored rows ``frame``."""
    frame = frame[frame.replicate.notna() & (frame.replicate < target.pilot)]
    at = frame.t.max() if target.at == "last" else target.at
    frame = frame[frame.t == at]
    if target.methods is not None:
        missing = set(target.methods) - set(frame.method)
        if missing:
            raise ConfigError(f"target.methods: cell {cell_id} has no rows of method "
                              f"{sorted(missing)[0]!r} at t = {at}; its methods: "
                              + ", ".join(sorted(set(frame.method))))
        frame = frame[frame.method.isin(target.methods)]
    if frame.empty:
        raise ConfigError(f"target.at: cell {cell_id} has no replicate rows at t = {at}")
    runs = {key: group.sort_values("replicate")[target.metric].to_numpy()
            for key, group in frame.groupby(series, dropna=False)}
    return max(target.needed(s) for s in pilot_deviations(runs, target.pilot).values())
