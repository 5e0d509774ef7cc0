"""Checks shared by the families' option dataclasses.

Every check raises :class:`~sweep.errors.ConfigError` with one line naming the option and
its allowed range, before any work starts.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import hashlib
import itertools
import json
import math
import types
import typing
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, Union

import numpy as np

from .errors import ConfigError

T = TypeVar("T")


def fail(name: str, allowed: str, value: Any) -> None:
    raise ConfigError(f"{name}: must be {allowed}; got {value!r}")


def choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        fail(name, "one of " + ", ".join(choices), value)


def integer(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        fail(name, f"an integer >= {low}", value)


def in_range(name: str, value: Any, low: float, high: float, allowed: str) -> None:
    """``low < value <= high`` and finite (``allowed`` words the range in the message)."""
    if not real(value) or not (low < value <= high) or not math.isfinite(value):
        fail(name, allowed, value)


def real(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool
    )


def as_dict(value: Any) -> dict[str, Any]:
    """:func:`dataclasses.asdict` of a frozen dataclass of immutable values, without its
    deep copies (a tenth of a millisecond per cell of a sweep)."""
    return {f.name: as_dict(v) if dataclasses.is_dataclass(v := getattr(value, f.name)) else v
            for f in dataclasses.fields(value)}


def data_key(config: Any, names: Sequence[str], **extra: Any) -> tuple[int, int]:
    """The spawn key of a replicate's data stream: a digest of the options ``names`` of
    ``config`` (dotted: ``model.truth``) that define the data, and of ``extra``, so that
    the cells that share them share their data (common random numbers).

    A group's ``kind`` is keyed by the group's name, any other option by its own name, so
    that the data streams do not depend on how options are grouped (version 1 of the
    inference and continual families had them flat: its replicates' data are version
    2's).
    """
    data = dict(extra)
    for name in names:
        group, _, key = name.rpartition(".")
        data[group if key == "kind" else key] = functools.reduce(getattr, name.split("."),
                                                                config)
    digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).digest()
    return int.from_bytes(digest[:4], "big"), int.from_bytes(digest[4:8], "big")


#: What an option is to the engine (its field's :func:`option` metadata, read by
#: :func:`describe`):
#: ``scenario``, what is simulated: in the identity, stored as a column;
#: ``reading``, one reading of a paper where it is ambiguous or wrong, its default the
#: paper's (or the documented choice): as a scenario, and analysis selects the paper's
#: reading by it (:func:`readings`);
#: ``file``, a file's path: its content's sha256 in the identity (the cell is the file's
#: content wherever it lies), the path as the column;
#: ``rows``, which rows a cell gives (``method``, ``checkpoints``): in the identity only,
#: as the rows carry it (the ``method`` and ``t`` columns);
#: ``permit``, an acknowledgement that lets a run through a check that refuses it
#: otherwise (a privacy guarantee weaker than the options suggest, on purpose): it
#: changes no result, so it is in neither the identity nor the columns, and setting it
#: changes no cell id (``allow_large_delta``, ``allow_pm2_unsplit``: :func:`check_delta`).
SCENARIO, READING, FILE, ROWS, PERMIT = "scenario", "reading", "file", "rows", "permit"
OPTION_KINDS = (SCENARIO, READING, FILE, ROWS, PERMIT)


@dataclasses.dataclass(frozen=True)
class Declaration:
    """What the engine knows of an option besides its type and default.

    ``since`` is the family version to which the option was added after results of that
    version existed (None: an option of the family's first results). Such an option
    enters a cell's identity only when set: a cell at its default keeps the identity, the
    random streams and the stored results it had before the option existed, and a version
    bump, which changes cell ids, still never changes streams. ``group`` names the Hydra
    config group (conf/<group>/) whose choice sets the option, if one does.
    """

    kind: str = SCENARIO
    since: int | None = None
    group: str | None = None


_DECLARATION = "sweep.option"
_UNDECLARED = Declaration()


def option(default: Any = dataclasses.MISSING, *, kind: str = SCENARIO, since: int | None = None,
           group: str | None = None, default_factory: Any = dataclasses.MISSING) -> Any:
    """A field of a family's options with its :class:`Declaration`.

    A field declared without it is a scenario option of the family's first results.
    """
    if kind not in OPTION_KINDS:
        raise ValueError(f"kind must be one of {', '.join(OPTION_KINDS)}; got {kind!r}")
    return dataclasses.field(default=default, default_factory=default_factory,
                             metadata={_DECLARATION: Declaration(kind, since, group)})


def declaration(f: dataclasses.Field) -> Declaration:
    """The :class:`Declaration` of an options dataclass's field."""
    return f.metadata.get(_DECLARATION, _UNDECLARED)


def declarations(options: type, prefix: str = "") -> dict[str, Declaration]:
    """Every option of the dataclass ``options`` by its dotted name (``graph.kind``),
    nested groups' included."""
    out: dict[str, Declaration] = {}
    hints = typing.get_type_hints(options)
    for f in dataclasses.fields(options):
        if dataclasses.is_dataclass(hints[f.name]):
            out.update(declarations(hints[f.name], f"{prefix}{f.name}."))
        else:
            out[prefix + f.name] = declaration(f)
    return out


def readings(options: type) -> dict[str, Any]:
    """The reading options (:data:`READING`) of ``options`` with their defaults (the
    paper's readings), by dotted name."""
    defaults = option_defaults(options)
    return {name: defaults[name] for name, d in declarations(options).items()
            if d.kind == READING}


def option_defaults(options: type, prefix: str = "") -> dict[str, Any]:
    """The default of every option of ``options`` by dotted name (a nested group's from
    its default instance)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(options):
        default = (f.default_factory() if f.default_factory is not dataclasses.MISSING
                   else f.default)
        if dataclasses.is_dataclass(default):
            out.update(option_defaults(type(default), f"{prefix}{f.name}."))
        else:
            out[prefix + f.name] = default
    return out


@dataclasses.dataclass(frozen=True)
class _Field:
    """What :class:`Description` reads of one field of an options dataclass."""

    name: str
    kind: str
    since: int | None
    default: Any


@functools.cache
def _fields(cls: type) -> tuple[_Field, ...]:
    """The fields of the options dataclass ``cls`` with their declarations, read once per
    class: a grid of 10⁴ option sets describes 10⁴ instances of a few classes."""
    return tuple(_Field(f.name, (d := declaration(f)).kind, d.since, f.default)
                 for f in dataclasses.fields(cls))


class Description:
    """A cell's options as the engine records them: :func:`describe`."""

    def __init__(self, config: Any) -> None:
        self.config = config

    @functools.cached_property
    def identity(self) -> dict[str, Any]:
        """Every option that can change a result, JSON-serializable: hashed into the cell
        id (nested groups as dicts). Every option is in it except one added to a version's
        results (``since``) and at its default, and the ``permit`` ones (they change no
        result); a ``file`` option as its file's sha256 (read here, on the machine that
        plans)."""
        return self._identity(self.config, "")

    def _identity(self, config: Any, prefix: str) -> dict[str, Any]:
        identity: dict[str, Any] = {}
        for f in _fields(type(config)):
            value = getattr(config, f.name)
            if dataclasses.is_dataclass(value):
                identity[f.name] = self._identity(value, f"{prefix}{f.name}.")
            elif f.kind == PERMIT:
                continue
            elif f.since is None or value != f.default:
                identity[f.name] = (file_digest(value, prefix + f.name)
                                    if f.kind == FILE and value is not None else value)
        return identity

    @functools.cached_property
    def columns(self) -> dict[str, Any]:
        """The options as result columns: flat names (``group.key``), scalar values; every
        option except the ``rows`` ones, whose values the rows carry, and the ``permit``
        ones; a tuple as comma-separated text, its numbers written exactly (``repr``)."""
        return dict(self._columns(self.config, ""))

    def _columns(self, config: Any, prefix: str) -> Iterator[tuple[str, Any]]:
        for f in _fields(type(config)):
            value = getattr(config, f.name)
            if dataclasses.is_dataclass(value):
                yield from self._columns(value, f"{prefix}{f.name}.")
            elif f.kind not in (ROWS, PERMIT):
                yield prefix + f.name, (",".join(map(_text, value))
                                        if isinstance(value, tuple) else value)


def describe(config: Any) -> Description:
    """The identity and the columns of a cell whose options are ``config`` (a frozen
    dataclass, as validated): the one place where both are derived from the options'
    declarations (:func:`option`)."""
    return Description(config)


def _text(value: Any) -> str:
    return repr(float(value)) if isinstance(value, float) else str(value)


def file_digest(path: str, name: str) -> str:
    """sha256 of a file's bytes: what identifies the input file of the option ``name``,
    so that a changed file changes the cell and a moved one keeps it."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as error:
        raise ConfigError(f"{name}: cannot read {path!r} ({error.strerror})") from None


def nested(cls: type[T], options: Mapping[str, Any] | T, prefix: str) -> T:
    """The nested option group ``cls`` (``graph``, ``model``, ...) from a mapping of its
    options, checked by :func:`plain_options` (or the group itself); ``prefix`` is its
    key as errors name it (``model.``)."""
    if isinstance(options, cls):
        return options
    if not isinstance(options, Mapping):
        fail(prefix.rstrip("."), f"a mapping of {prefix.rstrip('.')} options", options)
    return cls(**plain_options(cls, options, prefix=prefix))


def variant(group: Any, variants: Mapping[str, type[T]], prefix: str,
            common: Collection[str] = ()) -> T:
    """The variant of a nested option group that its ``kind`` names, holding the options
    the group sets.

    A group with variants (``model``, ``order``) holds every variant's options, as the
    command line and the results see them, each None unless set; a variant is a small
    frozen dataclass of the options its kind takes, whose defaults stand for those the
    group leaves None. An option set for a kind that does not take it is refused, naming
    its dotted key (``prefix``: ``model.``) and the kinds that take it. ``common`` names
    the group's options that every kind takes (``graph.seed``): the group holds them with
    their defaults, and no variant does.
    """
    choice(prefix + "kind", group.kind, tuple(variants))
    own = _field_names(variants[group.kind])
    for f in dataclasses.fields(group):
        value = getattr(group, f.name)
        if (f.name != "kind" and f.name not in own and f.name not in common
                and value is not None):
            kinds = [kind for kind, cls in variants.items() if f.name in _field_names(cls)]
            takes = "takes" if len(kinds) == 1 else "take"
            fail(prefix + f.name, f"unset for {prefix}kind={group.kind} (only "
                 f"{', '.join(kinds)} {takes} it)", value)
    return variants[group.kind](**{name: getattr(group, name) for name in own
                                   if getattr(group, name) is not None})


def with_variant(group: T, chosen: Any, common: Collection[str] = ()) -> T:
    """``group`` holding the options of its variant ``chosen`` (defaults filled in) and
    None for every other (but the ``common`` ones, which it keeps), so that options its
    kind does not take neither split cells nor show in the results."""
    unset = dict.fromkeys(_field_names(type(group)) - {"kind", *common})
    return dataclasses.replace(group, **{**unset, **as_dict(chosen)})


@functools.cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


#: How :func:`plain_options` spells a field's values: integers of a float field as floats,
#: integral floats of an integer field (or in its tuple of integers) as ints, so that
#: equal values have one spelling and one cell id (``t_max=1e4`` is ``t_max=10000``).
FLOAT, INT = "float", "int"


@functools.cache
def _kinds(cls: type) -> dict[str, str | None]:
    """Each field of ``cls`` by name: :data:`FLOAT`, :data:`INT` or None."""
    hints = typing.get_type_hints(cls)
    kinds: dict[str, str | None] = {}
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        union = typing.get_origin(hint) in (Union, types.UnionType)
        types_ = typing.get_args(hint) if union else (hint,)
        integral = int in types_ or tuple[int, ...] in types_
        kinds[f.name] = (FLOAT if hint is float else
                         INT if integral and float not in types_ else None)
    return kinds


def _integral(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def unknown_key(name: str, names: Collection[str], prefix: str = "",
                listing: str = "allowed") -> str:
    """The one-line error for the unknown option ``prefix + name``: the closest of
    ``names`` (the keys next to it) if one is close, as a typo's fix, then all of them."""
    close = difflib.get_close_matches(name, names, n=1)
    guess = f" did you mean {prefix}{close[0]}?" if close else ""
    return (f"{prefix}{name}: unknown option;{guess} {listing}: "
            + ", ".join(prefix + n for n in sorted(names)))


def plain_options(cls: type, options: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``options`` checked against the fields of ``cls``, as plain Python values.

    Unknown names are rejected; numpy scalars and arrays become Python values and lists
    become tuples (the frozen dataclasses hold tuples), integers of float fields floats
    and integral floats of integer fields ints.
    """
    kinds = _kinds(cls)
    for name in options:
        if name not in kinds:
            raise ConfigError(unknown_key(name, kinds, prefix))
    plain = {}
    for key, value in options.items():
        if isinstance(value, np.generic | np.ndarray):
            value = value.tolist()
        if isinstance(value, Sequence) and not isinstance(value, str):
            value = tuple(float(v) if isinstance(v, float | np.floating) else v for v in value)
        kind = kinds[key]
        if kind == FLOAT and real(value):
            value = float(value)
        elif kind == INT:
            value = tuple(map(_integral, value)) if isinstance(value, tuple) else (
                _integral(value))
        plain[key] = value
    return plain


#: The largest δ that protects anyone: a run that is (ε, δ)-DP with a larger δ may
#: publish a protected unit's data outright with probability δ (:func:`check_delta`).
DELTA_CAP = 0.1


def check_delta(name: str, delta: float, units: int | None, count: str, unit: str,
                permit: str, permitted: bool, spent: int = 1, why: str = "") -> None:
    """Refuse (naming ``name``) a δ that gives no meaningful protection, unless the
    ``permit`` option (``permitted``) says that the run means it.

    The run's δ (``spent`` × δ when the run spends δ ``spent`` times, ``why`` saying
    why: PM-II without its split) must be at most 0.1 and at most 1/n, n = ``units`` the
    units the run protects (``count`` spells it: ``n_agents × t_max``; None: not known,
    the 0.1 rule only). The mechanism that publishes each of n units in the clear with
    probability δ is (0, δ)-DP: with δ >= 1/n it publishes one of them on average.
    """
    if permitted:
        return
    cap = DELTA_CAP if units is None else min(DELTA_CAP, 1.0 / units)
    if spent * delta <= cap:
        return
    run = f" (the run's δ is {spent} × {name}{why})" if spent > 1 else ""
    if cap == DELTA_CAP:
        bound = f"at most {cap / spent:.3g}{run}: a δ above 0.1 protects no one"
    else:
        of = f"({spent} × {count})" if spent > 1 else (
            f"({count})" if " " in count else count)
        bound = (f"at most {cap / spent:.3g} = 1/{of}{run}: the run protects "
                 f"{units:,} {unit}s, and a δ above 1/n lets an (ε, δ)-DP run publish one "
                 "outright")
    fail(name, f"{bound}; or set {permit}=true to run this weaker guarantee on purpose",
         delta)


def check_gaussian_epsilon(prefix: str, epsilon: float, release_epsilon: float) -> None:
    """Refuse an ``epsilon`` whose per-p-sum share ``release_epsilon`` (after the splits
    of PM-II and Sch-Var-1, if any) exceeds 1: Lemmas 1 and 3's Gaussian mechanism
    holds for 0 < ε <= 1 only. ``prefix`` is where the ``noise`` option is."""
    if release_epsilon <= 1.0:
        return
    parts = epsilon / release_epsilon
    allowed = f"in (0, 1] for {prefix}noise=gaussian (Lemma 1)" if parts == 1 else (
        f"at most {parts:g} for {prefix}noise=gaussian: each p-sum gets ε/{parts:g}, "
        "which Lemma 1 needs in (0, 1]")
    fail("epsilon", allowed, epsilon)


def check_release_guarantee(release: Any, prefix: str, epsilon: float, delta: float,
                            t_max: int, samples: int, count: str) -> None:
    """Refuse a run of Private-ColME's mechanisms (journal, Sec. IV) whose guarantee is
    weaker than its options suggest, unless its acknowledgement says that it is meant.

    ``release`` holds the options ``{prefix}mechanism``, ``noise``, ``pm2_split``,
    ``allow_pm2_unsplit`` and ``allow_large_delta``. PM-II without its split
    (``pm2_split=false``: every p-sum calibrated to the whole (ε, δ) while a sample enters
    up to ⌊log2 t_max⌋ + 1 of them) needs ``allow_pm2_unsplit``; with Gaussian noise, a
    run's δ above min(0.1, 1/n) for its n = ``samples`` protected samples (``count``
    spells it) needs ``allow_large_delta`` (:func:`check_delta`; the run's δ is
    ⌊log2 t_max⌋ + 1 times δ without the split). Laplace noise is pure ε-DP: δ unused.
    """
    if release.mechanism == "none":
        return
    levels = t_max.bit_length()  # ⌊log2 t_max⌋ + 1
    unsplit = release.mechanism == "pm2" and not release.pm2_split
    gaussian = release.noise == "gaussian"
    if unsplit and not release.allow_pm2_unsplit:
        run = (f"({levels}ε, {levels}δ) = ({levels * epsilon:g}, {levels * delta:g})"
               if gaussian else f"({levels}ε = {levels * epsilon:g})")
        fail(f"{prefix}pm2_split", f"true with {prefix}mechanism=pm2: false calibrates "
             f"every p-sum to the whole (ε, δ), and a sample enters up to ⌊log2 t_max⌋ + 1 "
             f"= {levels} of them, so the run is only {run}-DP; or set "
             f"{prefix}allow_pm2_unsplit=true to run this weaker guarantee on purpose",
             release.pm2_split)
    if gaussian:
        check_delta("delta", delta, samples, count, "sample", f"{prefix}allow_large_delta",
                    bool(release.allow_large_delta), levels if unsplit else 1,
                    ", pm2_split=false" if unsplit else "")


#: How far below the largest finite number of its dtype a run's values stay:
#: :func:`magnitude_limit` keeps every sum and square under finfo(dtype).max / HEADROOM.
#: The factor also covers a sum's few extra terms and the draws beyond :data:`TAIL`.
HEADROOM = 2.0**20
#: Standard deviations that bound a run's Gaussian and Laplace draws in the arithmetic
#: checks: a Gaussian draw beyond 12σ has probability 4e-33; a Laplace draw beyond 12σ
#: has 4e-8, beyond 12·HEADROOM·σ none a float can tell from 0.
TAIL = 12.0
#: ln(finfo(float64).max / HEADROOM): the largest exponent of a value exp(x) (a log-normal
#: signal) that the checks allow.
LOG_LIMIT = math.log(float(np.finfo(np.float64).max) / HEADROOM)


def magnitude_limit(values: float, dtype: Any = np.float64) -> float:
    """The largest magnitude M of the values of a run (samples, noises, means) whose
    arithmetic stays finite: any sum of ``values`` of them (at most values·M) within
    finfo(``dtype``).max / HEADROOM, and the square of such a sum (the metrics' squared
    errors, the variance estimates' sums of squares, in float64) within
    finfo(float64).max / HEADROOM. ``values`` is the run's count of draws (agents ×
    steps): no kernel sums more."""
    top = float(np.finfo(dtype).max) / HEADROOM
    wide = math.sqrt(float(np.finfo(np.float64).max) / HEADROOM)
    return min(top, wide) / max(values, 1)


def check_magnitude(name: str, value: Any, size: float, limit: float, allowed: str,
                    values: float, dtype: Any = np.float64) -> None:
    """Refuse (naming ``name``) an option whose part ``size`` of a run's largest value
    exceeds ``limit`` (:func:`magnitude_limit` of the run's ``values``), NaN or infinite
    included; ``allowed`` words the option's range."""
    if not size <= limit:
        fail(name, f"{allowed} (the sums and squares of a run's {values:,.0f} values in "
             f"{np.dtype(dtype).name} must stay finite)", value)


def check_checkpoints(checkpoints: int | tuple[int, ...], last: int, name: str) -> None:
    """A count of checkpoints, or increasing times in [1, ``last``] (``name`` its key)."""
    if isinstance(checkpoints, tuple):
        times = checkpoints
        if (
            not times
            or not all(isinstance(t, int | np.integer) for t in times)
            or any(b <= a for a, b in itertools.pairwise(times))
            or times[0] < 1
            or times[-1] > last
        ):
            fail("checkpoints", f"increasing integers in [1, {name} = {last}]", times)
    else:
        integer("checkpoints", checkpoints, 1)


def checkpoint_times(checkpoints: int | tuple[int, ...], last: int) -> np.ndarray:
    """Times at which metrics are recorded, always including ``last``.

    A count n gives min(n, last) distinct times: log-spaced from 1 to ``last``, pushed
    apart where rounding would merge them (so the first ones are 1, 2, 3, ...).
    """
    if isinstance(checkpoints, tuple):
        return np.asarray(checkpoints, dtype=np.int64)
    n = min(checkpoints, last)
    if n == 1:
        return np.array([last], dtype=np.int64)
    times = np.rint(np.geomspace(1.0, last, n)).astype(np.int64)
    times = np.maximum(times, np.arange(1, n + 1))  # at least i + 1 at position i
    for i in range(1, n):
        times[i] = max(times[i], times[i - 1] + 1)
    return times
