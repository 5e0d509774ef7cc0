"""The arithmetic of a process: what, besides the code, fixes the last bit of a result.

A cell's rows are a function of its family's code, its options, its replicate count and
its seed, whatever the executor, the number of workers or the order of the cells. On one
machine that holds to the last bit. Across machines the last place of a floating-point
value also depends on implementations that the libraries choose when the process starts:

- glibc's libm picks its variants of ``exp``, ``log``, ``pow``, ``sin``, ... by CPU
  features (on x86-64, FMA and AVX2; ``GLIBC_TUNABLES`` can mask them). The variants are
  each within an ulp of the exact value, so they disagree in the last place on about one
  argument in a thousand. Python's ``math``, numba's kernels and scipy's special functions
  call them.
- numpy runs its loops (``exp``, ``log``, ...) in SIMD variants chosen by CPU (on x86-64
  ``X86_V3``, ``X86_V4``: AVX2, AVX-512), which round differently from each other;
  ``NPY_DISABLE_CPU_FEATURES`` changes the choice.
- numba compiles its kernels for the host CPU (``NUMBA_CPU_NAME``, ``NUMBA_CPU_FEATURES``)
  and, where Intel's SVML is installed, calls its vector functions in place of libm's.
- OpenBLAS picks its kernels by CPU (``OPENBLAS_CORETYPE``), and with them the order of a
  matrix product's sums.
- The versions of all of these.

:func:`fingerprint` names each of them. Two processes with equal fingerprints run the same
arithmetic: the same code gives them the same bits. Each stored cell records the
fingerprint of the worker that computed it (its provenance), and the tests' stored
references record the one that wrote them (``tests/pins.py``).
"""

from __future__ import annotations

import functools
import hashlib
import math
import platform

#: The libm functions :func:`libm_probe` evaluates (those whose variants glibc chooses).
PROBED = ("exp", "log", "pow", "sin", "cos", "atan", "expm1", "log1p", "tanh", "lgamma")
#: How many arguments each is evaluated at. glibc 2.36's FMA and SSE2 variants differ at 15
#: of the probe's 40,960 values (about one argument in a thousand for exp, pow, sin, cos):
#: two variants go unnoticed with a probability of about e^-15.
PROBE_SIZE = 4096


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def libm_probe() -> str:
    """A digest of the C library's math functions at :data:`PROBE_SIZE` fixed arguments
    in [-20, 20): it changes with the variants the C library picked for this CPU."""
    values = []
    for k in range(PROBE_SIZE):
        x = (k + 0.5) * 40.0 / PROBE_SIZE - 20.0 + k * 1e-7  # not on a grid of few bits
        for name in PROBED:
            function = getattr(math, name)
            argument = abs(x) + 0.01 if name in ("log", "log1p", "lgamma") else x
            values.append(function(abs(x) + 0.01, 1.37) if name == "pow" else function(argument))
    return _digest(" ".join(map(float.hex, values)))


def _numpy() -> str:
    import numpy as np
    from numpy.lib.introspect import opt_func_info

    targets = {signature["current"] for loops in opt_func_info().values()
               for signature in loops.values()}
    return f"{np.__version__} simd {' '.join(sorted(targets))}"


def _numba() -> str:
    import llvmlite
    import numba
    from numba.core.registry import cpu_target

    # What numba's cache keys its compiled kernels on: target triple, CPU name, features.
    triple, cpu, features = cpu_target.target_context.codegen().magic_tuple()
    return (f"{numba.__version__} llvmlite {llvmlite.__version__} {triple} {cpu} "
            f"features {_digest(features)} svml {numba.config.USING_SVML}")


def _blas() -> str:
    import numpy  # noqa: F401  (loads its OpenBLAS)
    import scipy.linalg  # noqa: F401  (loads scipy's)
    import threadpoolctl

    found = {f"{info['internal_api']} {info.get('version')} {info.get('architecture')}"
             for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"}
    return "; ".join(sorted(found))


@functools.cache
def fingerprint() -> dict[str, str]:
    """What fixes the last bit of this process's results besides the code, by name: the
    platform, the C library and the variants its math functions run (:func:`libm_probe`),
    numpy's version and SIMD targets, numba's version and target CPU, the BLAS kernels
    and scipy's version. Computed once per process (about a second, numba's import
    included)."""
    import scipy

    libc, version = platform.libc_ver()
    return {
        "platform": f"{platform.system()}-{platform.machine()}",
        "libc": f"{libc} {version}".strip(),
        "libm": libm_probe(),
        "numpy": _numpy(),
        "scipy": scipy.__version__,
        "numba": _numba(),
        "blas": _blas(),
    }


def differences(stored: dict[str, str], current: dict[str, str] | None = None) -> list[str]:
    """The names whose values differ between a stored fingerprint and ``current`` (this
    process's by default), as ``name: stored -> current``; empty for the same arithmetic."""
    current = fingerprint() if current is None else current
    return [f"{name}: {stored.get(name)} -> {current.get(name)}"
            for name in sorted(set(stored) | set(current))
            if stored.get(name) != current.get(name)]
