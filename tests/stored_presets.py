"""Tiny runs of a document's presets, stored as the presets' sweeps store them: what the
tests of a study render its document from."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sweep.execute import execute
from sweep.plan import Execution, plan


def store(root: Path, configs: Mapping[str, Iterable[Mapping[str, Any]]]) -> Path:
    """The cells of each preset's configurations computed into ``root/<preset>`` (one
    process, no progress bar); returns ``root``."""
    for preset, of_preset in configs.items():
        cells, _ = plan(of_preset)
        execute(cells, Execution(results_dir=str(root / preset), executor="serial"),
                progress=False)
    return root
