"""One default per option (issue 37): the command line and the Python API compute the same
cell for the same choices. A config group's option (``graph=erdos_renyi``,
``signal=gaussian``) chooses a variant and sets nothing the family's dataclasses declare:
composed through Hydra with only that choice, every family's options are those its Python
API builds from the same choice (``from_options``), or both are refused.

``scenario`` is not a variant but a preset of the network paper's two data sets (a graph
and its signals), and ``experiment`` the presets: they set values on purpose.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib import resources
from typing import Any

import pytest
from hydra import compose, initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from omegaconf import OmegaConf

from sweep.cli import CONFIG_MODULE
from sweep.family import families, get_family
from sweep.results import EXECUTION_KEYS
from sweep.schema import CellKeys

#: Groups that set several values on purpose, and the family group itself.
PRESETS = {"experiment", "family", "scenario"}


def _groups() -> dict[str, list[str]]:
    """Every group of the config tree but the presets, and its options."""
    conf = resources.files(CONFIG_MODULE)
    return {group.name: sorted(o.name.removesuffix(".yaml") for o in group.iterdir()
                               if o.name.endswith(".yaml"))
            for group in sorted(conf.iterdir(), key=lambda p: p.name)
            if group.is_dir() and group.name not in PRESETS and not group.name.startswith("_")}


@pytest.fixture(scope="module", autouse=True)
def hydra() -> Iterator[None]:
    GlobalHydra.instance().clear()
    with initialize_config_module(CONFIG_MODULE, version_base="1.3"):
        yield
    GlobalHydra.instance().clear()


def _options(family: str, config: Callable[[], Mapping[str, Any]]) -> Any:
    """The family's options parsed from ``config`` (composed lazily: Hydra's schema may
    refuse it), as its Python API builds them; ``"refused"`` if either side refuses."""
    try:
        options = {k: v for k, v in config().items()
                   if k not in (*EXECUTION_KEYS, *CellKeys.__dataclass_fields__)}
        built = get_family(family)
        parse = getattr(built.options, "from_options", None)
        if parse is None:  # a family without one: its cell's identity
            return built.identity(built.prepare(options, 1))
        return parse(**options)
    except Exception:  # a kind the family lacks is refused by Hydra's schema or by ours
        return "refused"


@pytest.mark.parametrize("family", list(families()))
def test_a_group_chooses_its_variant_and_nothing_else(family: str) -> None:
    base = compose("config", overrides=[f"family={family}"])
    differ = []
    for group, choices in _groups().items():
        if group not in base:
            continue
        nested = OmegaConf.is_dict(base[group])
        for option in choices:
            overrides = [f"family={family}", f"{group}={option}"]
            cli = _options(family, lambda o=overrides: OmegaConf.to_container(
                compose("config", overrides=o), resolve=True))
            chosen = {group: {"kind": option} if nested else option}
            python = _options(family, lambda c=chosen: c)
            if cli != python:
                differ.append(f"{group}={option}")
    assert not differ, (f"family {family}: the command line's options differ from the "
                        f"Python API's for {', '.join(differ)}")


def test_the_comparison_sees_a_value_set_twice() -> None:
    """It can fail: a group file setting a value the dataclass declares otherwise (the
    G(n, p) edge probability that the decentralized family once had twice)."""
    chosen = {"graph": {"kind": "erdos_renyi"}}
    planted = {"graph": {"kind": "erdos_renyi", "edge_probability": 0.01}}
    assert _options("decentralized", lambda: chosen) != _options("decentralized",
                                                                  lambda: planted)
    assert _options("decentralized", lambda: {"graph": {"kind": "geometric"}}) == "refused"
