"""A family whose replicates wait for a gate to open (``family=gated``, with
``hydra.searchpath=[file://.../tests/conf]``; see tests/conf/family/gated.yaml).

It is the minimal family (tests/minimal_family.py), except that a process about to
simulate waits, polling, until the file named by the environment variable
``GATED_FAMILY_GATE`` exists. A sweep of it stays in flight, its workers alive, for as
long as a test keeps the gate closed. Each process that waits first creates
``<gate>.waiting.<process id>``, so the test sees which processes waited: a worker
killed and replaced while waiting shows as a second one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .hooked_family import HookedFamily
from .minimal_family import MinimalOptions

GATE = "GATED_FAMILY_GATE"  # the environment variable naming the gate's file


class GatedFamily(HookedFamily):
    name = "gated"

    def before(self, prepared: MinimalOptions, seeds: Sequence[np.random.SeedSequence]
               ) -> None:
        gate = Path(os.environ[GATE])
        if not gate.exists():
            gate.with_name(f"{gate.name}.waiting.{os.getpid()}").touch()
            while not gate.exists():
                time.sleep(0.1)


FAMILY = GatedFamily()
