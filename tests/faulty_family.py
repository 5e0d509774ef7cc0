"""A family that fails on purpose, to test failure handling (``family=faulty``, with
``hydra.searchpath=[file://.../tests/conf]``; see tests/conf/family/faulty.yaml).

It is the minimal family (tests/minimal_family.py) except that its cells with
``scale = 0.5`` raise while simulating, after validation has passed, as a bug in a family
would.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .hooked_family import HookedFamily
from .minimal_family import MinimalOptions


class FaultyFamily(HookedFamily):
    name = "faulty"

    def before(self, prepared: MinimalOptions, seeds: Sequence[np.random.SeedSequence]
               ) -> None:
        if seeds and prepared.scale == 0.5:
            raise RuntimeError("injected failure at scale = 0.5")


FAMILY = FaultyFamily()
