"""Issue 12 parity (helper i): cuda float-to-integer stores, prod, and torch's complex multiply/divide formulas."""
import warnings

import numpy as np
import pytest
import torch

import minitorch as mt
import minitorch.cuda as mcuda

warnings.filterwarnings("ignore")
cuda_only = pytest.mark.skipif(not (mcuda.is_available() or mcuda.is_simulator()), reason="no cuda and no simulator")

_ODD = [float("nan"), float("inf"), -float("inf"), 3e10, -3e10, 2.0**31, -2.0**31 - 1, 2.0**31 - 1, 70000.5, -70000.5,
        300.7, -300.7, 1e19, -9.3e18, 9.2e18, 2.0**32 + 5, 2.0**63, -2.0**63, 0.0, -0.0]
_INTS = ["int64", "int32", "int16", "int8", "uint8", "bool"]


@cuda_only
@pytest.mark.parametrize("src", ["float64", "float32", "float16", "complex128", "complex64"])
@pytest.mark.parametrize("dst", _INTS)
def test_cuda_float_to_int_store_matches_cpu(src, dst):
    "NaN, inf and out-of-range floats cast on cuda as torch's CPU casts them (int64/uint8 via int64, others via int32)."
    vals = _ODD if not src.startswith("complex") else [complex(v, 1.0) for v in _ODD]
    want = torch.tensor(vals, dtype=getattr(torch, src)).to(getattr(torch, dst))
    x = mt.tensor(vals, dtype=getattr(mt, src)).to("cuda")
    got = x.to(getattr(mt, dst)).cpu()
    assert str(got.dtype) == str(want.dtype).replace("torch", "minitorch")
    assert got.tolist() == want.tolist()


@cuda_only
@pytest.mark.parametrize("meth", ["long", "int", "short", "char", "byte"])
def test_cuda_cast_methods_of_complex_inf(meth):
    "seed 512057: `int()` of a complex inf on cuda crashed with OverflowError."
    vals = [complex(float("inf"), 0), complex(float("nan"), 1), complex(-3e10, 2), complex(5.5, -1)]
    want = getattr(torch.tensor(vals, dtype=torch.complex128), meth)()
    got = getattr(mt.tensor(vals, dtype=mt.complex128).to("cuda"), meth)().cpu()
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 15, 31, 32, 33, 63, 64, 65, 130, 300])
def test_prod_all_in_torch_order(dtype, n, device):
    "A full prod multiplies in PyTorch's CPU order (4 vectors of 32 bytes, lanes, then the tail): bit-exact."
    if device == "cuda" and not (mcuda.is_available() or mcuda.is_simulator()): pytest.skip("no cuda")
    g = np.random.default_rng(n)
    t = torch.tensor(g.uniform(0.6, 1.5, n)).to(getattr(torch, dtype))
    got = mt.tensor(t.tolist(), dtype=getattr(mt, dtype)).to(device).prod().cpu()
    assert got.item() == t.prod().item()


@pytest.mark.parametrize("n", [3, 15])
def test_prod_all_complex64_in_torch_order(n):
    "Below one vector block a complex64 prod is the scalar fused product, bit-exact with PyTorch."
    g = np.random.default_rng(n)
    v = (g.uniform(0.5, 1.6, n) + 1j * g.uniform(-0.7, 0.7, n)).astype(np.complex64)
    assert mt.tensor(v.tolist(), dtype=mt.complex64).prod().item() == torch.from_numpy(v).prod().item()


# ---- torch's complex multiply and divide, bit for bit (for the lead to move into the backend) ----
# PyTorch's CPU kernels run a vectorized loop over contiguous blocks of 2 vectors (8 complex64 / 4 complex128 with
# AVX2), a scalar "tail" loop over the contiguous rest (n % 8 elements, so every element of a tensor of < 8), and a
# scalar "strided" loop over every element of non-contiguous operands. The paths round differently (fma contraction):
#   multiply: (ac - bd) + (ad + bc)i with each product rounded on the vector path, on complex64's tail path too;
#     fused, fma(a, c, -bd) and fma(a, d, bc), on the strided path and complex128's tail path.
#   divide (Smith's algorithm, c10::complex operator/), if |c| >= |d|:  rat = d/c, scl = 1/fma(d, rat, c),
#     re = fma(b, rat, a)*scl, im = fma(-a, rat, b)*scl   (else the mirror: rat = c/d, scl = 1/fma(c, rat, d),
#     re = fma(a, rat, b)*scl, im = fma(b, rat, -a)*scl); c == d == 0: re = a/|c|, im = b/|d|.
#     complex64's tail path alone rounds the numerators' products: re = a + b*rat, im = b - a*rat (mirror likewise).
from fractions import Fraction
import math


def _fma64(x, y, z):
    "Exact fused multiply-add of float64 arrays (Fraction for finite values)."
    out = np.empty(np.broadcast(x, y, z).shape)
    for i, (p, q, r) in enumerate(zip(*np.broadcast_arrays(x, y, z))):
        p, q, r = float(p), float(q), float(r)
        if not (math.isfinite(p) and math.isfinite(q) and math.isfinite(r)): out[i] = p * q + r; continue
        e = Fraction(p) * Fraction(q) + Fraction(r)
        try: out[i] = float(e)
        except OverflowError: out[i] = math.copysign(math.inf, e)
    return out


def _fma(x, y, z):
    "x*y + z rounded once (float32: the product is exact in float64)."
    if x.dtype == np.float32:
        return (x.astype(np.float64) * y.astype(np.float64) + z.astype(np.float64)).astype(np.float32)
    return _fma64(x, y, z)


def _torch_cmul(x: np.ndarray, y: np.ndarray, path: str = "vector") -> np.ndarray:
    "PyTorch's complex product on loop `path` ('vector', 'tail' or 'strided'; see above)."
    a, b, c, d = x.real, x.imag, y.real, y.imag
    fused = path == "strided" or (path == "tail" and x.dtype == np.complex128)
    with np.errstate(all="ignore"):
        if fused: re, im = _fma(a, c, -(b * d)), _fma(a, d, b * c)
        else: re, im = a * c - b * d, a * d + b * c
        out = re.astype(x.dtype)
        out.imag = im
    return out


def _torch_cdiv(x: np.ndarray, y: np.ndarray, path: str = "vector") -> np.ndarray:
    "PyTorch's complex quotient on loop `path` (Smith's algorithm with fused multiply-adds; see above)."
    a, b, c, d = x.real, x.imag, y.real, y.imag
    fused = path != "tail" or x.dtype == np.complex128
    one = a.dtype.type(1)
    with np.errstate(all="ignore"):
        big = np.abs(c) >= np.abs(d)
        rat = np.where(big, d / c, c / d)
        scl = one / np.where(big, _fma(d, rat, c), _fma(c, rat, d))
        if fused:
            nr = np.where(big, _fma(b, rat, a), _fma(a, rat, b))
            ni = np.where(big, _fma(-a, rat, b), _fma(b, rat, -a))
        else:
            nr = np.where(big, a + b * rat, a * rat + b)
            ni = np.where(big, b - a * rat, b * rat - a)
        re, im = nr * scl, ni * scl
        zero = (c == 0) & (d == 0)
        re = np.where(zero, a / np.abs(c), re)
        im = np.where(zero, b / np.abs(d), im)
    out = re.astype(x.dtype)
    out.imag = im
    return out


def _pairs(dt, n=10000, seed=0):
    "Random complex pairs over many magnitudes, with zeros, infinities and NaNs sprinkled in."
    g = np.random.default_rng(seed)
    def one():
        v = g.standard_normal((n, 2)) * np.exp(g.uniform(-8, 8, (n, 2)))
        special = g.choice([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0], (n, 2))
        v = np.where(g.random((n, 2)) < 0.08, special, v)
        return _mk(v, dt)
    return one(), one()


def _mk(v, dt):
    out = np.empty(len(v), dt)
    out.real, out.imag = v[:, 0], v[:, 1]   # (v0 + 1j*v1 would turn inf*1j into nan)
    return out


def _same(p, q):
    "Bit-for-bit equal, NaNs equal to NaNs (any payload)."
    return ((p.real == q.real) | (np.isnan(p.real) & np.isnan(q.real))) & \
           ((p.imag == q.imag) | (np.isnan(p.imag) & np.isnan(q.imag)))


def _paths(op, x, y):
    "torch's results on each loop path: contiguous (n % 8 == 0: all vector), strided views, one element at a time."
    X, Y = torch.from_numpy(x), torch.from_numpy(y)
    Xs, Ys = torch.from_numpy(np.repeat(x, 2))[::2], torch.from_numpy(np.repeat(y, 2))[::2]
    tail = np.array([op(X[i:i + 1], Y[i:i + 1]).numpy()[0] for i in range(len(x))])
    return {"vector": op(X, Y).numpy(), "strided": op(Xs, Ys).numpy(), "tail": tail}


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_torch_cmul_bit_exact(dt):
    x, y = _pairs(dt, seed=1)
    for path, want in _paths(lambda p, q: p * q, x, y).items():
        assert _same(_torch_cmul(x, y, path), want).all(), path


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_torch_cdiv_bit_exact(dt):
    n = 10000 if dt == np.complex64 else 2000      # (complex128's exact fma is a Fraction per element)
    x, y = _pairs(dt, n, seed=2)
    for path, want in _paths(lambda p, q: p / q, x, y).items():
        assert _same(_torch_cdiv(x, y, path), want).all(), path


def test_torch_cmul_cdiv_paths_differ():
    "The oracle can tell the paths apart (the test above would fail with one formula for all of them)."
    x, y = _pairs(np.complex64, 4000, seed=3)
    assert not _same(_torch_cdiv(x, y, "tail"), _torch_cdiv(x, y, "vector")).all()
    assert not _same(_torch_cmul(x, y, "strided"), _torch_cmul(x, y, "vector")).all()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("dim,keepdim", [(-1, False), (0, True), (1, False)])
def test_prod_dim_rounds_each_product(dtype, dim, keepdim):
    "seed 850339: a float16 prod over a short dim multiplies one element at a time, each product rounded."
    g = np.random.default_rng(7)
    t = torch.tensor(g.uniform(0.6, 3.5, (5, 6, 7))).to(getattr(torch, dtype))[:, 1:]
    want = t.prod(dim=dim, keepdim=keepdim)
    got = mt.tensor(t.tolist(), dtype=getattr(mt, dtype))[:, :].prod(dim=dim, keepdim=keepdim)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.tolist() == want.tolist()
    x = torch.tensor(g.uniform(0.6, 3.5, (5, 6, 7))).to(getattr(torch, dtype))
    m = mt.tensor(x.tolist(), dtype=getattr(mt, dtype)).transpose(0, 2)
    assert m.prod(dim=dim, keepdim=keepdim).tolist() == x.transpose(0, 2).prod(dim=dim, keepdim=keepdim).tolist()
