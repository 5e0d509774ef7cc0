"""A family that fails on purpose, to test failure handling (``family=faulty``, with
``hydra.searchpath=[file://.../tests/conf]``; see tests/conf/family/faulty.yaml).

It is Private-ColME except that its cells with ``epsilon = 0.5`` raise while simulating,
after validation has passed, as a bug in a family would.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sweep.colme.family import ColmeCell

from .hooked_family import HookedFamily


class FaultyFamily(HookedFamily):
    name = "faulty"

    def before(self, prepared: ColmeCell, seeds: Sequence[np.random.SeedSequence]) -> None:
        if seeds and prepared.config.epsilon == 0.5:
            raise RuntimeError("injected failure at epsilon = 0.5")


FAMILY = FaultyFamily()
