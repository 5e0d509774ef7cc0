"""The compiled kernels give their stored outputs bit for bit (:mod:`tests.kernel_reference`).

How state and constants reach a kernel (arguments or structures, inlined helpers or not)
must not change a result: on the platform that wrote the reference every array is equal
to the last bit. Elsewhere the math library may round differently in the last place, and
values are compared to 1e-9 as the sweep's regression grid is; the digests of Algorithm
1's final state are then not compared.

numba's on-disk cache is keyed on each kernel's own file: after editing a helper that a
kernel of another module inlines, run with a fresh ``NUMBA_CACHE_DIR`` (a fresh clone
starts cold), or the cached kernel is what is tested.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from .kernel_reference import CASES, REFERENCE, decode, digest, outputs, platform_tag

STORED = json.loads(REFERENCE.read_text())
EXACT = STORED["platform"] == platform_tag()


def test_the_reference_covers_every_case() -> None:
    assert list(STORED["cases"]) == CASES


@pytest.mark.parametrize("case", CASES)
def test_kernel_outputs_are_unchanged(case: str) -> None:
    measured = outputs(case)
    stored = STORED["cases"][case]
    assert measured.keys() == stored.keys()
    for name, array in measured.items():
        expected = stored[name]
        assert (array.dtype.str, list(array.shape)) == (expected["dtype"], expected["shape"]), name
        if "sha256" in expected:
            if EXACT:
                assert digest(array) == expected["sha256"], name
        elif EXACT:
            np.testing.assert_array_equal(array, decode(expected), err_msg=name, strict=True)
        else:
            np.testing.assert_allclose(array, decode(expected), rtol=1e-9, atol=1e-15,
                                       err_msg=name)
