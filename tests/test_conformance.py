"""Every family meets the engine's contract (:func:`sweep.testing.check_family`): it
pickles, its identity is JSON and stable, its rows are deterministic and do not depend on
how its replicates are cut into blocks, they match its declared schema, and a bad option
is refused naming its key. Each property is also shown to catch a family that breaks it.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from sweep.errors import ConfigError
from sweep.family import families, get_family
from sweep.options import as_dict, declarations, plain_options
from sweep.testing import check_family

from .minimal_family import FAMILY as MINIMAL
from .minimal_family import MinimalFamily, MinimalOptions

EXTERNAL = Path(__file__).resolve().parent / "external"


def cases() -> dict[str, tuple[str, dict[str, Any], dict[str, Any]]]:
    """Every family found (:func:`sweep.family.families`), in each of its ``examples``
    (its defaults if it declares none), with the values it declares it must refuse; and
    the minimal family of these tests."""
    found = {}
    for name in families():
        family = get_family(name)
        examples = getattr(family, "examples", None) or {"default": {}}
        for example, options in examples.items():
            found[f"{name}-{example}"] = (name, options, getattr(family, "refused", {}))
    found["minimal"] = ("tests.minimal_family:FAMILY", {},
                        {"scale": -1.0, "checkpoints": [20, 5]})
    return found


CASES = cases()


@pytest.mark.parametrize(("family", "options", "bad"), list(CASES.values()), ids=list(CASES))
def test_the_families_found_conform(family: str, options: dict[str, Any],
                                    bad: dict[str, Any]) -> None:
    check_family(family, options, bad=bad)


def test_the_outside_toy_family_conforms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXTERNAL))
    check_family("toy_family:FAMILY", {"n_nodes": 2, "flips": 50, "checkpoints": [10, 50]},
                 bad={"p": 1.5, "checkpoints": [10, 60]})


def test_a_family_object_is_checked_under_its_name() -> None:
    from sweep.colme.family import FAMILY as COLME

    with pytest.raises(AssertionError, match=r"^family colme: option validation: "
                                             r"epsilon = 0\.5 is accepted"):
        check_family(COLME, {"n_agents": 5, "t_max": 60}, bad={"epsilon": 0.5})
    with pytest.raises(ValueError, match="not bound to a name of its module"):
        check_family(MinimalFamily(), {})
    with pytest.raises(ValueError, match="replicates: must be at least 2"):
        check_family(MINIMAL, {}, replicates=1)


# ------------------------------------------- each property catches a family that breaks it


class Unpicklable(MinimalFamily):
    def __init__(self) -> None:
        self.log = lambda message: None  # a lambda does not pickle


class NotJson(MinimalFamily):
    def identity(self, prepared: MinimalOptions) -> dict[str, Any]:
        return {**super().identity(prepared), "scale": np.float32(prepared.scale)}


class Unstable(MinimalFamily):
    counter = itertools.count()

    def identity(self, prepared: MinimalOptions) -> dict[str, Any]:
        return {**super().identity(prepared), "call": next(self.counter)}


@dataclasses.dataclass(frozen=True)
class OrderedOptions(MinimalOptions):
    order: tuple[str, ...] = ()  # the order the options came in


class OrderSensitive(MinimalFamily):
    def prepare(self, options: Mapping[str, Any], replicates: int) -> OrderedOptions:
        prepared = super().prepare(options, replicates)
        return OrderedOptions(**as_dict(prepared), order=tuple(options))


class Unseeded(MinimalFamily):
    def run(self, prepared: MinimalOptions, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int], analytic: bool) -> dict[str, list]:
        fresh = [np.random.SeedSequence() for _ in seeds]
        return super().run(prepared, fresh, replicate_ids, analytic)


class FixedSeed(MinimalFamily):
    def run(self, prepared: MinimalOptions, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int], analytic: bool) -> dict[str, list]:
        fixed = [np.random.SeedSequence(0, spawn_key=(r,)) for r in replicate_ids]
        return super().run(prepared, fixed, replicate_ids, analytic)


class SharedStream(MinimalFamily):
    """Draws a block's replicates from one generator seeded by the block's first seed."""

    def run(self, prepared: MinimalOptions, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int], analytic: bool) -> dict[str, list]:
        streams = seeds[0].spawn(len(seeds)) if seeds else []
        return super().run(prepared, streams, replicate_ids, analytic)


class FloatTimes(MinimalFamily):
    def run(self, prepared: MinimalOptions, seeds: Sequence[np.random.SeedSequence],
            replicate_ids: Sequence[int], analytic: bool) -> dict[str, list]:
        rows = super().run(prepared, seeds, replicate_ids, analytic)
        return {**rows, "t": [t + 0.5 for t in rows["t"]]}


class UntypedColumn(MinimalFamily):
    def columns(self, prepared: MinimalOptions) -> dict[str, Any]:
        return {**super().columns(prepared), "note": None}


class MistypedColumn(MinimalFamily):
    def columns(self, prepared: MinimalOptions) -> dict[str, Any]:
        return {**super().columns(prepared), "samples": str(prepared.samples)}


class Raw(MinimalFamily):
    """Validates nothing: an unknown option fails in the dataclass."""

    def prepare(self, options: Mapping[str, Any], replicates: int) -> MinimalOptions:
        return MinimalOptions(**options)


class Lenient(MinimalFamily):
    """Refuses unknown options only: a bad value goes through to the cell."""

    def prepare(self, options: Mapping[str, Any], replicates: int) -> MinimalOptions:
        return MinimalOptions(**plain_options(MinimalOptions, options))


class Unnamed(MinimalFamily):
    def prepare(self, options: Mapping[str, Any], replicates: int) -> MinimalOptions:
        try:
            return super().prepare(options, replicates)
        except ConfigError:
            raise ConfigError("invalid options") from None


#: The cell of the minimal family the broken ones are checked on.
OPTIONS = {"samples": 30, "scale": 2.0, "checkpoints": [5, 30]}
BROKEN = {
    "Unpicklable": "pickling: the family object cannot be pickled",
    "NotJson": "identity: not JSON-serializable",
    "Unstable": "identity: the same options prepared again give another identity",
    "OrderSensitive": "identity: the options in another key order give another identity",
    "Unseeded": r"determinism: the same cell and seed gave other rows \(column 'error'",
    "FixedSeed": "determinism: seed 1 gave the same metrics as seed 0",
    "SharedStream": "block independence: the 4 replicates run at once and in two blocks "
                    "give other rows",
    "FloatTimes": "schema: run returned column 't' as double; the schema declares int64",
    "UntypedColumn": "schema: columns\\(\\) gives 'note' as None, and no type for it",
    "MistypedColumn": "schema: columns\\(\\) gives 'samples' as string; the option "
                      "declares int64",
    "Raw": "option validation: no_such_option = 1 raised TypeError",
    "Lenient": "option validation: samples = 'not a value' is accepted",
    "Unnamed": "option validation: no_such_option = 1 is refused with a message that "
               "does not name 'no_such_option': invalid options",
}
UNPICKLABLE, NOTJSON, UNSTABLE, ORDERSENSITIVE = (Unpicklable(), NotJson(), Unstable(),
                                                  OrderSensitive())
UNSEEDED, FIXEDSEED, SHAREDSTREAM = Unseeded(), FixedSeed(), SharedStream()
FLOATTIMES, UNTYPEDCOLUMN, MISTYPEDCOLUMN = FloatTimes(), UntypedColumn(), MistypedColumn()
RAW, LENIENT, UNNAMED = Raw(), Lenient(), Unnamed()


@pytest.mark.parametrize(("name", "message"), list(BROKEN.items()), ids=list(BROKEN))
def test_a_family_that_breaks_a_property_is_named_with_it(name: str, message: str) -> None:
    spec = f"tests.test_conformance:{name.upper()}"
    with pytest.raises(AssertionError, match=f"^family {spec}: {message}"):
        check_family(spec, OPTIONS)


def test_a_value_the_family_should_refuse_is_named() -> None:
    spec = "tests.test_conformance:LENIENT"
    with pytest.raises(AssertionError, match=f"^family {spec}: option validation: "
                                             "scale = -1.0 is accepted"):
        check_family(spec, {}, bad={"scale": -1.0})


def test_declared_groups_are_the_config_groups_that_set_them() -> None:
    """An option declared with ``group`` is set by that Hydra config group: each of the
    group's files sets it to the file's name. A flat group's files are in the global
    package and set the option (``mechanism: pm2``); a nested group (``graph``, ``model``,
    ``order``, ...) is the config group of its field's name, its files are in the group's
    own package and set its ``kind`` (``kind: zipf`` in conf/order/zipf.yaml). Every
    config group of conf/ (the presets and scenarios aside) is some family's declared
    option."""
    conf = Path(__file__).resolve().parent.parent / "conf"
    declared: set[str] = set()
    for name in families():
        for option, declaration in declarations(get_family(name).options).items():
            if declaration.group is None:
                continue
            declared.add(declaration.group)
            group, _, key = option.rpartition(".")
            assert group in ("", declaration.group), option
            assert not group or key == "kind", option
            files = sorted((conf / declaration.group).glob("*.yaml"))
            assert files, declaration.group
            for path in files:
                text = path.read_text()
                assert text.startswith("# @package _global_") == (not group), path
                assert yaml.safe_load(text)[key] == path.stem, path
    groups = {p.name for p in conf.iterdir() if p.is_dir()} - {
        "experiment", "family", "scenario", "__pycache__"}
    assert groups == declared
