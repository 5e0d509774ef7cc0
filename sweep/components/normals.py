"""numpy's float32 standard normals, scaled and shifted, the same bit for bit in one pass.

``rng.standard_normal(shape, dtype=np.float32)`` runs numpy's 256-layer ziggurat
(Marsaglia & Tsang, 2000) on the bit generator's 32-bit outputs; a scale σ and a shift
μ (Gaussian samples F(σ z) + μ) are then two more passes over the array: about 12 ns a
value, a tenth of C-ColME's CPU time at a million agents. :func:`draw_scaled`
runs the same algorithm compiled, on the same 32-bit outputs (the bit generator's own
``next_uint32``, called through its ctypes interface, so the generator's state moves
exactly as numpy's draw moves it), and scales and shifts each value as it is drawn, in
the same float32 operations: the same values bit for bit, in about 5 ns a value. The
tests compare them with numpy's, tails and wedges included; a numpy that changed its
algorithm, or one built to fuse the wedge test's multiply-add (as GCC may on aarch64),
would fail them.
"""

from __future__ import annotations

import numba
import numpy as np

#: numpy's ziggurat: the base strip's right edge r and the layers' common area v.
ZIGGURAT_R = 3.6541528853610088
ZIGGURAT_AREA = 0.00492867323399
LAYERS = 256
MANTISSA = 23  # bits of a float32 draw's magnitude


def ziggurat_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """numpy's float32 tables (``ki_float``, ``wi_float``, ``fi_float``): per layer i,
    the accept bound x_{i−1}/x_i in units of 2⁻²³, the width x_i 2⁻²³, and the density
    e^(−x_i²/2), layer 0 being the base strip (width area/f(r), so that x < r is
    accepted) and x_i falling to x_0 = 0 at the top (Marsaglia & Tsang's recurrence
    x_{i−1} = f⁻¹(area/x_i + f(x_i)))."""
    r, area, scale = ZIGGURAT_R, ZIGGURAT_AREA, float(1 << MANTISSA)
    density = lambda x: np.exp(-0.5 * x * x)  # noqa: E731
    accept, width, height = np.zeros(LAYERS), np.zeros(LAYERS), np.zeros(LAYERS)
    x = outer = r
    base = area / density(r)
    accept[0], width[0], height[0] = r / base * scale, base / scale, 1.0
    width[-1], height[-1] = r / scale, density(r)
    for i in range(LAYERS - 2, 0, -1):
        x = np.sqrt(-2.0 * np.log(area / x + density(x)))
        accept[i + 1] = x / outer * scale
        outer = x
        height[i], width[i] = density(x), x / scale
    return np.round(accept).astype(np.uint32), width.astype(np.float32), height.astype(
        np.float32)


_ACCEPT, _WIDTH, _HEIGHT = ziggurat_tables()
_SIGN = np.array([1.0, -1.0], dtype=np.float32)
_R = np.float32(ZIGGURAT_R)
_INV_R = np.float32(1.0 / ZIGGURAT_R)
_UNIT = np.float32(1.0 / (1 << 24))


@numba.njit(cache=True, inline="always")
def _next_float(next_uint32, state) -> np.float32:
    """numpy's ``next_float``: a uniform in [0, 1) from the top 24 bits of an output."""
    return np.float32(next_uint32(state) >> np.uint32(8)) * _UNIT


@numba.njit(cache=True, nogil=True)
def _fill(next_uint32, state, out, scale, shift) -> None:
    """``out[s, a] = F(scale × z) + shift[a]``, z numpy's ``random_standard_normal_f``
    in its order of draws (row-major)."""
    for s in range(out.shape[0]):
        for a in range(out.shape[1]):
            while True:
                r = next_uint32(state)
                layer = r & np.uint32(0xFF)
                magnitude = (r >> np.uint32(9)) & np.uint32(0x7FFFFF)
                # The sign as a factor, not a branch: it is a coin flip.
                z = np.float32(magnitude) * _WIDTH[layer] * _SIGN[(r >> np.uint32(8))
                                                                   & np.uint32(1)]
                if magnitude < _ACCEPT[layer]:
                    break
                if layer == 0:  # the tail beyond r, by Marsaglia's exponential method
                    while True:
                        tail = -_INV_R * np.log1p(-_next_float(next_uint32, state))
                        y = -np.log1p(-_next_float(next_uint32, state))
                        if y + y > tail * tail:
                            break
                    z = (_R + tail) * _SIGN[(magnitude >> np.uint32(8)) & np.uint32(1)]
                    break
                u = _next_float(next_uint32, state)
                # numpy compares in double: exp(-0.5 * x * x) with x a float.
                if ((_HEIGHT[layer - 1] - _HEIGHT[layer]) * u + _HEIGHT[layer]
                        < np.exp(-0.5 * np.float64(z) * np.float64(z))):
                    break
            out[s, a] = z * scale + shift[a]


def draw_scaled(rng: np.random.Generator, shape: tuple[int, int], scale: np.float32,
                shift: np.ndarray) -> np.ndarray:
    """float32 ``F(scale × z) + shift`` (``shift`` one value per column), z standard
    normals: the values, and the state ``rng`` is left in, of::

        values = rng.standard_normal(shape, dtype=np.float32)
        values *= scale
        values += shift

    ``scale`` and ``shift`` must be float32 already (numpy would compute in a wider type
    and round once, not as the samples are defined), ``shift`` one value per column.
    """
    rows, columns = shape
    if not isinstance(scale, np.float32):
        raise TypeError(f"scale: must be a numpy float32; got {type(scale).__name__}")
    if shift.dtype != np.float32 or shift.shape != (columns,):
        raise ValueError(f"shift: must be float32 of shape ({columns},); got "
                         f"{shift.dtype} of shape {shift.shape}")
    out = np.empty((rows, columns), dtype=np.float32)
    bits = rng.bit_generator
    interface = bits.ctypes
    with bits.lock:  # as numpy's own draws hold it
        _fill(interface.next_uint32, interface.state_address, out, scale, shift)
    return out
