"""The compiled kernels give their stored outputs (:mod:`tests.kernel_reference`), by the
rule of :mod:`tests.pins`: to the last bit where the arithmetic is the one that wrote the
reference, within :data:`tests.pins.ULPS` ulps elsewhere; counts and decisions exactly.

How state and constants reach a kernel (arguments or structures, inlined helpers or not)
must not change a result.

numba's on-disk cache is keyed on each kernel's own file: after editing a helper that a
kernel of another module inlines, run with a fresh ``NUMBA_CACHE_DIR`` (a fresh clone
starts cold), or the cached kernel is what is tested.
"""

from __future__ import annotations

import json

import pytest

from .kernel_reference import CASES, REFERENCE, outputs
from .pins import assert_pinned, decode, same_arithmetic

STORED = json.loads(REFERENCE.read_text())
EXACT = same_arithmetic(STORED["arithmetic"])


def test_the_reference_covers_every_case() -> None:
    assert list(STORED["cases"]) == CASES


@pytest.mark.parametrize("case", CASES)
def test_kernel_outputs_are_unchanged(case: str) -> None:
    measured = outputs(case)
    stored = STORED["cases"][case]
    assert measured.keys() == stored.keys()
    for name, array in measured.items():
        assert_pinned(array, decode(stored[name]), EXACT, name)
