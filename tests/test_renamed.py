"""Results of earlier family versions stay readable under the newest column names: a file
kept from before each rename (tests/data/renamed/<family>-v<version>.parquet) is read by
:func:`analysis.load` with its renamed columns under their new names and its values
unchanged; filters name the new columns."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from analysis import load
from sweep.family import current_names, renamed_option
from sweep.store import provenance_of

from .sweep_reference import run_cli

FILES = sorted((Path(__file__).parent / "data" / "renamed").glob("*.parquet"))


def _placed(path: Path, root: Path) -> tuple[str, int]:
    """Copy ``path`` into a results directory at ``root``; its (family, version)."""
    (family, version), _ = provenance_of(str(path), pq.read_schema(path).metadata, False)
    (root / family).mkdir(parents=True)
    shutil.copy(path, root / family / path.name)
    return family, version


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_old_results_are_read_under_the_new_names(path: Path, tmp_path: Path) -> None:
    family, version = _placed(path, tmp_path)
    names = current_names(family, version)
    stored = pq.read_table(path).to_pandas()
    assert names and set(names) <= set(stored.columns), names
    read = load(tmp_path, keep="all")
    assert not set(names) - set(names.values()) & set(read.columns)
    assert set(read.columns) == {names.get(c, c) for c in stored.columns}
    for old in stored.columns:
        pd.testing.assert_series_equal(read[names.get(old, old)].reset_index(drop=True),
                                       stored[old].reset_index(drop=True), check_names=False,
                                       check_categorical=False, check_dtype=False)
    # A filter names the new column, and selects by the old column's values.
    new, old = next((n, o) for o, n in names.items() if stored[o].notna().any())
    value = stored[old].dropna().iloc[0]
    value = value.item() if isinstance(value, np.generic) else value
    assert len(load(tmp_path, keep="all", **{new: value})) == int((stored[old] == value).sum())


def test_renames_compose_over_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Names swap within one version, and follow several versions' renames."""

    class Toy:
        renamed: ClassVar = {2: {"a": "b", "b": "a"}, 3: {"b": "c", "x": "y"}, 4: {"a": "x"}}

    monkeypatch.setattr("sweep.family.get_family", lambda name: Toy)
    assert current_names("toy", 1) == {"a": "c", "b": "x", "x": "y"}
    assert current_names("toy", 2) == {"b": "c", "x": "y", "a": "x"}
    assert current_names("toy", 3) == {"a": "x"}
    assert current_names("toy", 4) == {}


def test_an_old_option_name_is_refused_with_its_new_name(tmp_path: Path) -> None:
    done = run_cli(["family=decentralized", "privacy.epsilon=0.5", "dry_run=true"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "error: privacy.epsilon: renamed epsilon in version 2 of family decentralized "
        "(use epsilon=...)")
    # A name that is an option today (continual's delta, the DP δ since version 3) is not.
    assert renamed_option("continual", "delta") is None
    assert renamed_option("continual", "composition_delta").startswith(
        "composition_delta: renamed delta in version 3")
    assert renamed_option("colme", "delta") is None
