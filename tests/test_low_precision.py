"""Low precision (chapter 4): float16/bfloat16 <-> float32 from bit operations.

Oracles: numpy's float16 and ml_dtypes.bfloat16. Decoding is checked on all 65,536 patterns; encoding on every
value, every midpoint between neighbours (+-1 ulp), edge cases, and 2^22 random float32 patterns. The slow test
checks bfloat16 rounding of all 2^32 float32 patterns.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from numba import njit

from minitorch.low_precision import (
    bf16_bits_to_f32, bf16_bits_to_f32_array, bits_to_f32,
    f16_bits_to_f32, f16_bits_to_f32_array, f32_to_bf16_bits, f32_to_bf16_bits_array, f32_to_bits,
    f32_to_f16_bits, f32_to_f16_bits_array, check_all_bf16_roundings)

ROOT = Path(__file__).resolve().parent.parent
ALL16 = np.arange(2 ** 16, dtype=np.uint32).astype(np.uint16)


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.itemsize}")


def assert_same_bits(got: np.ndarray, want: np.ndarray, what: str = ""):
    "Equal bit patterns where `want` is not NaN; NaN exactly where `want` is NaN."
    nan_got, nan_want = np.isnan(got.astype(np.float32)), np.isnan(want.astype(np.float32))
    assert np.array_equal(nan_got, nan_want), f"{what}: NaN mismatch at {np.flatnonzero(nan_got != nan_want)[:5]}"
    bad = np.flatnonzero(bits(got)[~nan_want] != bits(want)[~nan_want])
    assert bad.size == 0, f"{what}: {bad.size} mismatches, first inputs {bad[:5]}"


@pytest.fixture(scope="module")
def f16_values():
    return f16_bits_to_f32_array(ALL16)


@pytest.fixture(scope="module")
def bf16_values():
    return bf16_bits_to_f32_array(ALL16)


def neighbour_points(values: np.ndarray) -> np.ndarray:
    "Midpoints between consecutive finite non-negative values, +-1 float32 ulp, the values; both signs."
    v = np.unique(values[np.isfinite(values) & (values >= 0)]).astype(np.float64)
    mid = ((v[:-1] + v[1:]) / 2).astype(np.float32)
    assert np.array_equal(mid.astype(np.float64), (v[:-1] + v[1:]) / 2)   # midpoints are exact in f32
    pts = np.concatenate([mid, np.nextafter(mid, np.float32(0)), np.nextafter(mid, np.float32(np.inf)), v])
    return np.concatenate([pts, -pts]).astype(np.float32)


def random_f32_patterns(n: int = 2 ** 22, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2 ** 32, n, dtype=np.uint32).view(np.float32)


# ---------------------------------------------------------------- bit reinterpretation
@njit(cache=True)
def jit_pair(x, u):
    return f32_to_bits(x), bits_to_f32(u)


def test_bitcasts_python_and_jit():
    for x in [0.0, -0.0, 1.0, -2.5, np.inf, 1e-45, 3.4e38]:
        u = np.float32(x).view(np.uint32)
        assert f32_to_bits(x) == u and bits_to_f32(u).view(np.uint32) == u
        ju, jx = jit_pair(np.float32(x), u)
        assert ju == u and np.float32(jx).view(np.uint32) == u


# ---------------------------------------------------------------- decoding (all 65,536 patterns)
def test_f16_decode_exhaustive(f16_values):
    assert f16_values.dtype == np.float32
    assert_same_bits(f16_values, ALL16.view(np.float16).astype(np.float32), "float16 decode")


def test_bf16_decode_exhaustive(bf16_values):
    assert_same_bits(bf16_values, ALL16.view(ml_dtypes.bfloat16).astype(np.float32), "bfloat16 decode")


def test_decode_nan_payloads():
    "NaN payloads move up with the fraction (as numpy/ml_dtypes do); signs kept."
    for h, want in [(0x7C01, 0x7F802000), (0x7E00, 0x7FC00000), (0xFC01, 0xFF802000), (0x7D00, 0x7FA00000)]:
        assert f16_bits_to_f32(np.uint16(h)).view(np.uint32) == want
    for h, want in [(0x7F81, 0x7F810000), (0x7FC0, 0x7FC00000), (0xFF81, 0xFF810000)]:
        assert bf16_bits_to_f32(np.uint16(h)).view(np.uint32) == want


def test_decode_python_equals_jit():
    "The plain-Python path (used by the CUDA simulator) gives the same bits as the compiled one."
    sample = np.concatenate([ALL16[::97], np.array([0, 1, 0x3FF, 0x400, 0x7BFF, 0x7C00, 0x7C01, 0x8001,
                                                    0xFC00, 0xFFFF], np.uint16)])
    for h in sample:
        assert f16_bits_to_f32(h).view(np.uint32) == f16_bits_to_f32_array(np.array([h]))[0].view(np.uint32)
        assert bf16_bits_to_f32(h).view(np.uint32) == bf16_bits_to_f32_array(np.array([h]))[0].view(np.uint32)


# ---------------------------------------------------------------- encoding: float16 (task 4.1)
@pytest.mark.task4_1
def test_f16_encode_every_value(f16_values):
    ok = ~np.isnan(f16_values)
    assert np.array_equal(f32_to_f16_bits_array(f16_values)[ok], ALL16[ok])


@pytest.mark.task4_1
def test_f16_encode_midpoints(f16_values):
    "Ties go to even; one ulp either side goes to the nearer neighbour."
    pts = neighbour_points(f16_values)
    got = f32_to_f16_bits_array(pts)
    want = pts.astype(np.float16).view(np.uint16)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{bad.size} mismatches, e.g. {pts[bad[:5]]}"


@pytest.mark.task4_1
@pytest.mark.parametrize("x, want", [
    (1.0, 1.0), (1 + 2.0 ** -11, 1.0), (1 + 3 * 2.0 ** -11, 1.001953125), (65504.0, 65504.0),
    (65519.0, 65504.0), (65520.0, np.inf), (-65520.0, -np.inf), (1e30, np.inf), (np.inf, np.inf),
    (2.0 ** -14, 2.0 ** -14), (2.0 ** -24, 2.0 ** -24), (2.0 ** -25, 0.0), (0.75 * 2.0 ** -24, 2.0 ** -24),
    (1.5 * 2.0 ** -24, 2.0 ** -23), (2.5 * 2.0 ** -24, 2.0 ** -23), (2.0 ** -14 - 2.0 ** -25, 2.0 ** -14),
    (1e-45, 0.0), (-0.0, -0.0), (0.1, 0.0999755859375), (2049.0, 2048.0), (2051.0, 2052.0)])
def test_f16_encode_cases(x, want):
    h = f32_to_f16_bits(np.float32(x))
    assert isinstance(h, np.uint16) or int(h) == h
    assert np.uint16(h) == np.array([want], np.float16).view(np.uint16)[0]


@pytest.mark.task4_1
def test_f16_encode_nan_rule():
    "NaNs stay NaN with numpy's rule: keep the top payload bits, never let the payload become 0."
    for u, want in [(0x7FC00000, 0x7E00), (0xFFC00000, 0xFE00), (0x7F800001, 0x7C01), (0x7FA00000, 0x7D00),
                    (0x7F802000, 0x7C01), (0xFFFFFFFF, 0xFFFF)]:
        assert int(f32_to_f16_bits(np.uint32(u).view(np.float32))) == want, hex(u)


@pytest.mark.task4_1
def test_f16_encode_random_patterns():
    x = random_f32_patterns()
    with np.errstate(all="ignore"):
        want = x.astype(np.float16)
    assert_same_bits(f32_to_f16_bits_array(x).view(np.float16), want, "float16 encode")


@pytest.mark.task4_1
def test_f16_encode_python_equals_jit():
    x = random_f32_patterns(2000, seed=1)
    jit = f32_to_f16_bits_array(x)
    assert all(int(f32_to_f16_bits(v)) == int(j) for v, j in zip(x, jit))


# ---------------------------------------------------------------- encoding: bfloat16 (task 4.2)
@pytest.mark.task4_2
def test_bf16_encode_every_value(bf16_values):
    ok = ~np.isnan(bf16_values)
    assert np.array_equal(f32_to_bf16_bits_array(bf16_values)[ok], ALL16[ok])


@pytest.mark.task4_2
def test_bf16_encode_midpoints(bf16_values):
    pts = neighbour_points(bf16_values)
    got = f32_to_bf16_bits_array(pts)
    want = pts.astype(ml_dtypes.bfloat16).view(np.uint16)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{bad.size} mismatches, e.g. {pts[bad[:5]]}"


@pytest.mark.task4_2
@pytest.mark.parametrize("x, want", [
    (1.0, 1.0), (1 + 2.0 ** -8, 1.0), (1 + 3 * 2.0 ** -8, 1.015625), (3.39e38, 3.3895313892515355e38),
    (3.4028234663852886e38, np.inf), (np.inf, np.inf), (-np.inf, -np.inf), (1e-40, 9.183549615799121e-41),
    (1e-45, 0.0), (-0.0, -0.0), (257.0, 256.0), (259.0, 260.0), (0.1, 0.10009765625)])
def test_bf16_encode_cases(x, want):
    h = f32_to_bf16_bits(np.float32(x))
    assert np.uint16(h) == np.array([want], np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)[0]
    assert bf16_bits_to_f32(h) == np.float32(want)


@pytest.mark.task4_2
def test_bf16_encode_nan_rule():
    "NaNs become the quiet NaN 0x7FC0 with their sign (ml_dtypes' rule): truncation could give inf."
    for u, want in [(0x7FC00000, 0x7FC0), (0xFFC00000, 0xFFC0), (0x7F800001, 0x7FC0), (0xFF800001, 0xFFC0),
                    (0x7FFFFFFF, 0x7FC0)]:
        assert int(f32_to_bf16_bits(np.uint32(u).view(np.float32))) == want, hex(u)


@pytest.mark.task4_2
def test_bf16_encode_random_patterns():
    x = random_f32_patterns(seed=2)
    with np.errstate(all="ignore"):
        want = x.astype(ml_dtypes.bfloat16)
    assert_same_bits(f32_to_bf16_bits_array(x).view(ml_dtypes.bfloat16), want, "bfloat16 encode")


@pytest.mark.task4_2
def test_bf16_encode_python_equals_jit():
    x = random_f32_patterns(2000, seed=3)
    jit = f32_to_bf16_bits_array(x)
    assert all(int(f32_to_bf16_bits(v)) == int(j) for v, j in zip(x, jit))


# ---------------------------------------------------------------- inside a CUDA kernel (simulator or GPU)
CUDA_SCRIPT = textwrap.dedent("""
    import numpy as np, ml_dtypes
    from minitorch.cuda import choose_target
    choose_target()  # a GPU if there is one, else the simulator
    from numba import cuda
    from minitorch.low_precision import f16_bits_to_f32, f32_to_f16_bits, bf16_bits_to_f32, f32_to_bf16_bits

    @cuda.jit
    def roundtrip(x, h16, hb16, y16, yb16):
        i = cuda.grid(1)
        if i < x.size:
            h16[i] = f32_to_f16_bits(x[i])
            hb16[i] = f32_to_bf16_bits(x[i])
            y16[i] = f16_bits_to_f32(h16[i])
            yb16[i] = bf16_bits_to_f32(hb16[i])

    x = np.array([1 + 2.0 ** -11, 65519.0, 65520.0, 2.0 ** -25, 0.75 * 2.0 ** -24, -0.1, 1 + 3 * 2.0 ** -8,
                  3.4e38, -0.0, np.inf], np.float32)
    n = x.size
    h16, hb16 = np.zeros(n, np.uint16), np.zeros(n, np.uint16)
    y16, yb16 = np.zeros(n, np.float32), np.zeros(n, np.float32)
    roundtrip[1, 32](x, h16, hb16, y16, yb16)
    assert np.array_equal(h16, x.astype(np.float16).view(np.uint16)), h16
    assert np.array_equal(hb16, x.astype(ml_dtypes.bfloat16).view(np.uint16)), hb16
    assert np.array_equal(y16, x.astype(np.float16).astype(np.float32))
    assert np.array_equal(yb16, x.astype(ml_dtypes.bfloat16).astype(np.float32))
    print("ok")
""")


def test_conversions_in_cuda_kernel():
    "Run in a fresh process, which picks the GPU or (without one) the simulator by itself."
    res = subprocess.run([sys.executable, "-c", CUDA_SCRIPT], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0 and "ok" in res.stdout, res.stderr[-3000:]


# ---------------------------------------------------------------- all 2^32 float32 patterns (slow)
@pytest.mark.slow
@pytest.mark.task4_2
def test_bf16_encode_all_float32_patterns():
    bad, seconds = check_all_bf16_roundings()
    print(f"\nall 2^32 float32 patterns -> bfloat16 checked in {seconds:.1f} s")
    assert bad == 0
