"""The rule of the stored references (:mod:`tests.pins`) and the arithmetic fingerprint
(:mod:`sweep.arithmetic`), each shown able to fail; and the stored references, kept under
an arithmetic other than the one that wrote them (numba's target forced to ``generic``,
numpy's AVX-512 loops disabled, glibc's FMA variants masked), as on another machine.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import numpy as np
import pytest

from sweep.arithmetic import differences, fingerprint, libm_probe

from .kernel_reference import REFERENCE as KERNELS
from .pins import ULPS, assert_pinned, same_arithmetic, ulps
from .sweep_reference import REFERENCE as GRID
from .sweep_reference import ROOT


def test_ulps_counts_units_in_the_last_place() -> None:
    one = np.nextafter(1.0, 2.0)
    assert ulps(np.array([1.0, 0.0, np.nan, np.inf, -np.inf]),
                np.array([one, 0.0, np.nan, np.inf, -np.inf])).tolist() == [1, 0, 0, 0, 0]
    assert ulps(np.array([np.inf, np.nan]), np.array([1e308, 1.0])).tolist() == [np.inf] * 2
    assert ulps(np.array([1.0]), np.array([-1.0]))[0] == 2**53
    assert ulps(np.array([3.0]), np.array([3.0 + 8 * np.spacing(3.0)]))[0] == 8


def test_the_rule_fails_a_changed_value() -> None:
    """On the same arithmetic an ulp fails; elsewhere :data:`ULPS` ulps pass and twice
    as many fail; a count, a dtype or a shape fails everywhere."""
    stored = np.linspace(0.1, 2.0, 7)
    moved = stored.copy()
    moved[3] = np.nextafter(moved[3], 3.0)
    with pytest.raises(AssertionError):
        assert_pinned(moved, stored, exact=True)
    assert_pinned(moved, stored, exact=False)
    moved[3] = stored[3] + ULPS * np.spacing(stored[3])
    assert_pinned(moved, stored, exact=False)
    moved[3] = stored[3] + 2 * ULPS * np.spacing(stored[3])
    with pytest.raises(AssertionError, match=f"1 of 7 values differ by more than {ULPS}"):
        assert_pinned(moved, stored, exact=False)
    with pytest.raises(AssertionError):
        assert_pinned(np.array([1, 2, 4]), np.array([1, 2, 3]), exact=False)
    with pytest.raises(AssertionError):
        assert_pinned(stored.astype(np.float32), stored, exact=False)
    with pytest.raises(AssertionError):
        assert_pinned(stored[:6], stored, exact=False)


def test_the_fingerprint_names_what_changes_the_arithmetic() -> None:
    """Equal to itself; altered in any field (the stored platform, the math library's
    variants), it is another arithmetic, and the fields that differ are named."""
    mine = fingerprint()
    assert set(mine) == {"platform", "libc", "libm", "numpy", "scipy", "numba", "blas"}
    assert same_arithmetic(dict(mine))
    other = {**mine, "platform": "Linux-aarch64"}
    assert not same_arithmetic(other)
    assert differences(other) == [f"platform: Linux-aarch64 -> {mine['platform']}"]
    assert not same_arithmetic({**mine, "libm": "0" * 16})
    assert libm_probe() == mine["libm"]


def test_the_references_record_the_arithmetic_that_wrote_them() -> None:
    for path in (KERNELS, GRID):
        assert set(json.loads(path.read_text())["arithmetic"]) == set(fingerprint()), path


#: Another arithmetic on this machine: numba compiling for a generic CPU, numpy without its
#: AVX-512 loops, glibc without its FMA variants (names valid on x86-64 only).
OTHER = {"NUMBA_CPU_NAME": "generic"}
if platform.machine() in ("x86_64", "AMD64"):
    OTHER |= {"NPY_DISABLE_CPU_FEATURES": "X86_V4", "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA"}

#: Run in the other arithmetic: each stored reference against what this code computes
#: there, as the largest distance in ulps of its floats and whether its integers match.
SCRIPT = """
import itertools, json
import numpy as np
import pandas as pd
from sweep.arithmetic import differences
from sweep.execute import simulate
from tests import kernel_reference, sweep_reference
from tests.pins import decode, ulps

def distance(measured, stored):
    if measured.dtype.kind == "f":
        return float(ulps(measured, stored).max(initial=0.0))
    return 0.0 if (measured == stored).all() else float("inf")

kernels = json.loads(kernel_reference.REFERENCE.read_text())
report = {"differences": differences(kernels["arithmetic"]), "ulps": {}}
for case in kernel_reference.CASES:
    for name, array in kernel_reference.outputs(case).items():
        stored = decode(kernels["cases"][case][name])
        report["ulps"][f"{case} {name}"] = distance(array, stored)
grid = json.loads(sweep_reference.REFERENCE.read_text())
frames = [simulate("colme", replicates=3, seed=7, n_agents=6, t_max=300, checkpoints=4,
                   baselines=["local", "oracle"], epsilon=e, mechanism=m, weights=w)
          for e, m, w in itertools.product([0.5, 1.0], ["pm1", "pm2"], ["last", "mom"])]
for key, stats in sweep_reference.statistics(pd.concat(frames)).items():
    for name, value in stats.items():
        stored = grid["cells"][key][name]
        report["ulps"][f"{key} {name}"] = distance(np.array([value]), np.array([stored]))
print(json.dumps(report))
"""


@pytest.mark.slow
def test_the_references_hold_in_another_arithmetic(tmp_path) -> None:
    """What a machine other than the reference's sees, forced on this one: its fingerprint
    differs, so the stored floats are held to :data:`ULPS` ulps (and counts exactly), and
    they hold. Where numpy runs AVX-512 loops, one stored value (the analytic oracle's
    MSE, through scipy's binomial pmf) moves by an ulp: a bit-for-bit rule fails there."""
    env = {**os.environ, **OTHER, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert any(line.startswith("numba:") for line in report["differences"])
    distances = report["ulps"]
    assert len(distances) > 300
    worst = max(distances, key=distances.get)
    assert distances[worst] <= ULPS, (worst, distances[worst])
    from numpy.lib.introspect import opt_func_info

    if opt_func_info("exp")["exp"]["dd"]["current"] == "X86_V4":
        assert "NPY_DISABLE_CPU_FEATURES" in OTHER
        assert 0 < max(distances.values()), "no pinned value moved: the check has no teeth"
