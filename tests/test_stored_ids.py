"""Cell ids of stored results are recomputed from their recorded options: a change of how
a family derives its identity (a forgotten declaration, a renamed option, a new default)
shows here, unless that family's version is bumped on purpose and the directory
regenerated (``python -m tests.stored_results``)."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from sweep.family import families, get_family
from sweep.plan import make_cell
from sweep.results import option_columns
from sweep.store import cell_records

from .stored_results import STORED

FILES = sorted(STORED.glob("*/*.parquet"))


def test_every_family_is_stored() -> None:
    missing = set(families()) - {path.parent.name for path in FILES}
    assert not missing, (f"no stored cells of {sorted(missing)}: python -m "
                         "tests.stored_results writes them")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.parent.name)
def test_stored_cells_keep_their_ids_and_columns(path) -> None:
    """Each cell of the file: planned again from the options its footer records, it has
    the stored id, version and identity; and its rows hold every option as a column,
    with the values the family derives today."""
    table = pq.read_table(path)
    records = cell_records(table.schema.metadata)
    rows = table.to_pandas()
    for cell_id, record in records.items():
        settings = record["config"]
        family = get_family(settings["family"])
        assert settings["version"] == family.version
        cell = make_cell({"family": settings["family"], "replicates": settings["replicates"],
                          "seed": settings["seed"], **settings["options"]})
        assert cell.cell_id == cell_id
        assert json.loads(json.dumps(cell.settings)) == settings  # tuples as lists
        stored = rows[rows.cell_id == cell_id].iloc[0]
        for name in option_columns(family.options):
            if name in family.schema.index_names:
                continue  # an option that names a row column (method): the rows carry it
            expected = cell.columns()[name]
            if expected is None:
                assert pd.isna(stored[name]), name
            else:
                assert stored[name] == expected, name
