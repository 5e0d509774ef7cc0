"""Every family's schema as the config ``/schema/<family>``, derived on first use.

A family file (``conf/family/<name>.yaml``, or one of a user's on
``hydra.searchpath``) starts from ``/schema/<family>``: the engine's keys and the family's
options, typed, with their defaults (:func:`sweep.schema.family_schema`). The family is a
built-in name or ``module:attribute``, so a family outside the package needs no
registration.

Hydra imports this module, and runs :class:`FamilySchemasPath`, whenever any Hydra app
starts: that reads where the platform's configurations are from :mod:`sweep.cli`
(standard library only), and the engine's modules load only once the platform's app
asks for a schema.
"""

import copy

from hydra.core.config_search_path import ConfigSearchPath
from hydra.core.object_type import ObjectType
from hydra.plugins.config_source import ConfigLoadError, ConfigResult, ConfigSource
from hydra.plugins.search_path_plugin import SearchPathPlugin
from omegaconf import DictConfig, OmegaConf


def _family(config_path: str) -> str | None:
    from sweep.schema import SCHEMA_GROUP

    group, _, name = config_path.strip("/").removesuffix(".yaml").partition("/")
    return name if group == SCHEMA_GROUP and name else None


#: Each family's schema (:func:`sweep.schema.family_schema`) as typed by OmegaConf.
_NODES: dict[type, DictConfig] = {}


class FamilySchemas(ConfigSource):
    """Serves ``schema/<family>`` for any family the engine can load."""

    @staticmethod
    def scheme() -> str:
        return "dpsweep"

    def load_config(self, config_path: str) -> ConfigResult:
        from sweep.errors import ConfigError
        from sweep.schema import family_schema

        try:
            schema = family_schema(_family(config_path) or "")
        except ConfigError as error:
            raise ConfigLoadError(str(error)) from None
        if schema not in _NODES:
            _NODES[schema] = OmegaConf.structured(schema)
        # A copy (Hydra composes into what it loads): about 2 ms, where typing the
        # dataclass again costs about 10, once per composition (three for one sweep).
        node = copy.deepcopy(_NODES[schema])
        return ConfigResult(config=node, path=f"{self.scheme()}://{self.path}",
                            provider=self.provider, header={"package": "_global_"})

    def available(self) -> bool:
        return True

    def is_group(self, config_path: str) -> bool:
        from sweep.schema import SCHEMA_GROUP

        return config_path.strip("/") in ("", SCHEMA_GROUP)

    def is_config(self, config_path: str) -> bool:
        # Any family spec is ours: one that cannot load fails in load_config, with the
        # reason (a missing module, a bad declaration) rather than "could not find".
        return _family(config_path) is not None

    def list(self, config_path: str, results_filter: ObjectType | None) -> list[str]:
        from sweep.family import families
        from sweep.schema import SCHEMA_GROUP

        if config_path.strip("/") == "" and results_filter != ObjectType.CONFIG:
            return [SCHEMA_GROUP]
        if config_path.strip("/") == SCHEMA_GROUP and results_filter != ObjectType.GROUP:
            return sorted(families())
        return []


class FamilySchemasPath(SearchPathPlugin):
    """Puts :class:`FamilySchemas` on the search path of the platform's app (only)."""

    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        from sweep.cli import CONFIG_MODULE  # light (see the module docstring): every app runs this

        ours = any(entry.path == f"pkg://{CONFIG_MODULE}" for entry in search_path.get_path())
        if ours:
            search_path.append(provider="dpsweep", path=f"{FamilySchemas.scheme()}://schema")
