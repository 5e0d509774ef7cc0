"""The minimal family (tests/minimal_family.py) with a hook run before each block of
replicates: the base of the test families that misbehave on purpose
(tests/faulty_family.py, tests/gated_family.py, tests/threads_family.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .minimal_family import MinimalFamily, MinimalOptions


class HookedFamily(MinimalFamily):
    """Runs :meth:`before` on a block's cell and seeds, then simulates it as the minimal
    family does."""

    def before(self, prepared: MinimalOptions, seeds: Sequence[np.random.SeedSequence]
               ) -> None:
        """What the family does before simulating (nothing here)."""

    def run(
        self,
        prepared: MinimalOptions,
        seeds: Sequence[np.random.SeedSequence],
        replicate_ids: Sequence[int],
        analytic: bool,
    ) -> dict[str, list]:
        self.before(prepared, seeds)
        return super().run(prepared, seeds, replicate_ids, analytic)
