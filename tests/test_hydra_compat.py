"""The private Hydra and OmegaConf APIs the platform relies on (issue 28).

Each function of :mod:`sweep.hydra_compat` is pinned here by what the platform needs of
it; a failure names the API and the installed versions, so that an upgrade of Hydra or
OmegaConf that changes one says so in one line. The last test keeps every other module
of the project off private Hydra and OmegaConf APIs.
"""

from __future__ import annotations

import ast
import contextlib
import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hydra.core.config_store import ConfigStore
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.plugins import Plugins
from hydra.errors import HydraException
from hydra.plugins.launcher import Launcher
from omegaconf import OmegaConf
from omegaconf.errors import ConfigAttributeError, ValidationError
from omegaconf.nodes import IntegerNode

from hydra_plugins.dpsweep.plugins import DpsweepLauncher
from sweep import hydra_compat
from sweep.hydra_compat import (
    IntegralNode,
    PrivateApiError,
    apply_overrides,
    args_parser,
    child_node,
    is_basic_launcher,
    plain_override,
    private,
    root_of,
    versions,
)

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def pinned(api: str) -> Iterator[None]:
    """Any failure inside, as one line naming ``api`` and the installed versions."""
    try:
        yield
    except Exception as error:
        pytest.fail(f"{api} changed in {versions()}: {type(error).__name__}: {error}; "
                    "adapt sweep/hydra_compat.py", pytrace=False)


@dataclass
class Options:
    n: int = 3
    name: str = "a"
    group: dict[str, int] = field(default_factory=lambda: {"x": 1})


def test_apply_overrides_sets_adds_deletes_and_checks_types() -> None:
    parser = OverridesParser.create()
    with pinned("hydra._internal.config_loader_impl.ConfigLoaderImpl."
                "_apply_overrides_to_config"):
        config = OmegaConf.structured(Options)
        apply_overrides(config, parser.parse_overrides(["n=7", "~name", "+group.y=2"]))
        assert OmegaConf.to_container(config) == {"n": 7, "group": {"x": 1, "y": 2}}
        with pytest.raises(HydraException, match="n=abc"):
            apply_overrides(config, parser.parse_overrides(["n=abc"]))


def test_a_plain_override_equals_the_grammars() -> None:
    with pinned("hydra.core.override_parser.types.Override._value"):
        parsed = OverridesParser.create().parse_override("seed=17")
        assert plain_override("seed", 17, "seed=17", None) == parsed


def test_root_of_a_nested_node_is_its_configuration() -> None:
    config = OmegaConf.create({"family": "toy", "privacy": {"epsilon": 1.0}})
    assert root_of(child_node(config, "privacy")).get("family") == "toy"
    assert root_of(config) is config


def test_child_node_is_the_typed_node_of_a_key() -> None:
    with pinned("omegaconf.DictConfig._get_node"):
        config = OmegaConf.structured(Options)
        node = child_node(config, "n")
        assert isinstance(node, IntegerNode) and node == 3
        with pytest.raises(ConfigAttributeError, match="absent"):  # the unknown key's error
            child_node(config, "absent")
        assert child_node(OmegaConf.create({"n": 3}), "absent") is None


def test_hydras_basic_launcher_is_recognised() -> None:
    with pinned("hydra._internal.core_plugins.basic_launcher.BasicLauncher"):
        # The launcher class of Hydra's own hydra/launcher=basic, among those it discovers.
        launchers = Plugins.instance().discover(Launcher)
        target = ConfigStore.instance().load("hydra/launcher/basic.yaml").node._target_
        basic = next(c for c in launchers if f"{c.__module__}.{c.__qualname__}" == target)
        assert is_basic_launcher(basic())
        assert not is_basic_launcher(DpsweepLauncher())


def test_args_parser_reads_the_command_line_as_hydra() -> None:
    with pinned("hydra._internal.utils.get_args_parser"):
        args = args_parser().parse_args(["-m", "--cfg", "job", "seed=1,2"])
        assert (args.multirun, args.cfg, args.overrides) == (True, "job", ["seed=1,2"])


def test_one_repository_serves_a_whole_listing_of_the_groups(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The groups and options --help lists are Hydra's own, from one copy of the config
    repository instead of one per group."""
    from hydra import initialize_config_module
    from hydra._internal import config_repository
    from hydra.core.global_hydra import GlobalHydra

    from sweep.cli import CONFIG_MODULE
    from sweep.hydra_compat import one_repository_per_listing

    copies = []
    made = config_repository.CachingConfigRepository.__init__

    def counted(self, delegate):  # type: ignore[no-untyped-def]
        copies.append(delegate)
        made(self, delegate)

    monkeypatch.setattr(config_repository.CachingConfigRepository, "__init__", counted)
    with pinned("hydra._internal.config_loader_impl.ConfigLoaderImpl."
                "_parse_overrides_and_create_caching_repo"), \
            initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
        hydra = GlobalHydra.instance().hydra
        assert hydra is not None

        def listing() -> str:
            return hydra.format_config_groups(lambda group: not group.startswith("hydra"))

        plain = listing()
        each = len(copies)
        copies.clear()
        with one_repository_per_listing():
            shared = listing()
        assert shared == plain and "family: colme, continual, decentralized" in plain
        assert len(copies) == 1 and each > 20  # one copy, against one per group


def test_integral_node_converts_integral_floats_only_and_survives_a_copy() -> None:
    @dataclass
    class Schema:
        t_max: int = field(default_factory=lambda: IntegralNode(10))

    with pinned("omegaconf.nodes.IntegerNode._validate_and_convert_impl, _deepcopy_impl"):
        config = OmegaConf.structured(Schema)
        config.t_max = 1e4
        assert config.t_max == 10_000 and type(config.t_max) is int
        with pytest.raises(ValidationError, match=r"must be an integer; got 1\.5"):
            config.t_max = 1.5
        with pytest.raises(ValidationError, match="must be an integer; got abc"):
            config.t_max = "abc"
        copied = copy.deepcopy(config)  # as Hydra copies the schema's nodes
        assert isinstance(child_node(copied, "t_max"), IntegralNode)
        copied.t_max = 2e2
        assert copied.t_max == 200


def test_a_missing_private_api_is_one_line_naming_it_and_the_versions() -> None:
    with pytest.raises(PrivateApiError) as raised:
        private("hydra._internal.utils", "get_args_parser_gone")
    message = str(raised.value)
    assert message.startswith("hydra._internal.utils.get_args_parser_gone is gone in "
                              f"{versions()}")
    assert "\n" not in message and "hydra-core 1." in message and "omegaconf 2." in message


def _private_uses(path: Path) -> list[str]:
    """Where ``path`` reaches into Hydra's or OmegaConf's private API: an import of
    ``hydra._internal``, an attribute ``x._name`` of anything but ``self``, ``cls`` or
    ``super()``, or a keyword argument ``_name`` (``_target_`` is public)."""
    tree = ast.parse(path.read_text("utf-8"), str(path))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom)}
    if not imported & {"hydra", "omegaconf"}:
        return []
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.ImportFrom) and "_internal" in (node.module or ""):
            found.append(f"{path.name}:{line} imports {node.module}")
        elif isinstance(node, ast.Import):
            found += [f"{path.name}:{line} imports {a.name}" for a in node.names
                      if "_internal" in a.name]
        elif (isinstance(node, ast.Attribute) and node.attr.startswith("_")
              and not node.attr.startswith("__")
              and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
              and not (isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                       and node.value.func.id == "super")):
            found.append(f"{path.name}:{line} uses .{node.attr}")
        elif (isinstance(node, ast.keyword) and node.arg and node.arg.startswith("_")
              and not node.arg.endswith("_")):
            found.append(f"{path.name}:{line} passes {node.arg}=")
    return found


def test_private_apis_are_used_only_in_the_compatibility_module() -> None:
    # The tests too, but this one, which pins each private API by its name.
    allowed = {Path(hydra_compat.__file__).resolve(), Path(__file__).resolve()}
    found = [use for package in ("sweep", "analysis", "hydra_plugins", "tests")
             for path in sorted((ROOT / package).rglob("*.py")) if path.resolve() not in allowed
             for use in _private_uses(path)]
    assert found == []
