"""Private-ColME with a hook run before each block of replicates: the base of the test
families that misbehave on purpose (tests/faulty_family.py, tests/gated_family.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sweep.colme.family import ColmeCell, ColmeFamily


class HookedFamily(ColmeFamily):
    """Runs :meth:`before` on a block's cell and seeds, then simulates it as Private-ColME."""

    def before(self, prepared: ColmeCell, seeds: Sequence[np.random.SeedSequence]) -> None:
        """What the family does before simulating (nothing here)."""

    def run(
        self,
        prepared: ColmeCell,
        seeds: Sequence[np.random.SeedSequence],
        replicate_ids: Sequence[int],
        analytic: bool,
    ) -> dict[str, np.ndarray]:
        self.before(prepared, seeds)
        return super().run(prepared, seeds, replicate_ids, analytic)
