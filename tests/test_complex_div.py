"""Complex division bit for bit like PyTorch's CPU kernels: the backend's `_cdiv` (Smith's algorithm with fused
multiply-adds; the odd last element of each inner run of a complex64 loop without fma in the numerators), used by
`/`, `reciprocal` and the gradient of `div`, in the numpy and numba backends."""
import sys
import warnings

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.backends import _cdiv, _inner_run, to_numpy
from minitorch.numba_backend import NumbaBackend
from test_parity_i import _pairs, _same, _torch_cdiv

warnings.filterwarnings("ignore")

DTYPES = [np.complex64, np.complex128]


def _views(lib):
    "The same layouts in both libraries: each maps a contiguous 1-D base of 840 elements to a view."
    return {
        "contiguous n%8==0": lambda v: v[:832],
        "contiguous odd": lambda v: v[:837],
        "0-d": lambda v: v[3],
        "tiny 1": lambda v: v[5:6],
        "tiny 3": lambda v: v[:3],
        "tiny 7": lambda v: v[:7],
        "strided": lambda v: v[::2],
        "strided odd": lambda v: v[1:800:3],
        "transposed": lambda v: v.reshape(28, 30).transpose(0, 1),
        "transposed odd": lambda v: v[:819].reshape(21, 39).transpose(0, 1),
        "rows": lambda v: v.reshape(24, 35)[:, :7],
        "rows even": lambda v: v.reshape(24, 35)[:, 2:10],
        "permuted 3-d": lambda v: v.reshape(7, 8, 15).permute(2, 0, 1),
        "column": lambda v: v.reshape(120, 7)[:, 3:4],
        "long, one chunk per thread": lambda v: v.repeat(41)[:34442],   # (2 threads: two odd chunks)
    }


def _both(x, y, view):
    "x / y in torch and minitorch on the same view of the same values (numpy arrays back)."
    X, Y = view(torch.from_numpy(x)), view(torch.from_numpy(y))
    Xm, Ym = view(mt.from_numpy(x.copy())), view(mt.from_numpy(y.copy()))
    assert tuple(Xm.stride()) == X.stride()
    return (X / Y).numpy(), np.asarray(Xm / Ym)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(_views(None)))
def test_div_bit_exact(dt, name):
    "`/` of two complex tensors on every loop of PyTorch's (zeros, infinities and NaNs sprinkled in)."
    x, y = _pairs(dt, 840, seed=hash(name) % 1000)
    want, got = _both(x, y, _views(None)[name])
    assert got.dtype == want.dtype and got.shape == want.shape
    assert _same(got, want).all(), np.flatnonzero(~_same(got, want))[:5]


@pytest.mark.parametrize("name", list(_views(None)))
def test_div_odd_run_ends_complex64(name):
    "Only values whose fused and unfused quotients differ: every element that ends an odd run is checked."
    x, y = _pairs(np.complex64, 20000, seed=8)
    keep = ~_same(_torch_cdiv(x, y, "tail"), _torch_cdiv(x, y, "vector"))
    x, y = np.resize(x[keep], 840), np.resize(y[keep], 840)
    want, got = _both(x, y, _views(None)[name])
    assert _same(got, want).all(), np.flatnonzero(~_same(got, want))[:5]


@pytest.mark.parametrize("dt", DTYPES)
def test_div_broadcast_bit_exact(dt):
    "Broadcast operands (stride 0) and mixed layouts, as TensorIterator orders and merges them."
    x, y = _pairs(dt, 840, seed=4)
    X, Y = torch.from_numpy(x), torch.from_numpy(y)
    Xm, Ym = mt.from_numpy(x.copy()), mt.from_numpy(y.copy())
    cases = [lambda a, b: (a[:35].reshape(5, 7), b[:7]), lambda a, b: (a[:35].reshape(5, 7), b[:5].reshape(5, 1)),
             lambda a, b: (a[:35].reshape(5, 7), b[3]), lambda a, b: (a[:35].reshape(5, 7), b[:35].reshape(7, 5).transpose(0, 1)),
             lambda a, b: (a[7], b[:9]), lambda a, b: (a[:63].reshape(9, 7).transpose(0, 1), b[:9])]
    for case in cases:
        want = torch.div(*case(X, Y)).numpy()
        got = np.asarray(mt.div(*case(Xm, Ym)))
        assert _same(got, want).all()


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [1, 7, 8, 9, 64])
def test_div_by_scalars(dt, n):
    "A Python number, a real 0-d tensor and a complex number are promoted, then divided the same way."
    x, _ = _pairs(dt, 64, seed=n)
    X, Xm = torch.from_numpy(x[:n]), mt.from_numpy(x[:n].copy())
    for o in (2.5, -0.0, 3, 1 + 2j, complex(0, -7.25), float("inf")):
        assert _same(np.asarray(Xm / o), (X / o).numpy()).all(), o
        assert _same(np.asarray(o / Xm), (o / X).numpy()).all(), o
    for v in (2.5, -3.0, 0.0):
        for tdt, mdt in ((torch.float64, mt.float64), (torch.float32, mt.float32)):
            want = (X / torch.tensor(v, dtype=tdt)).numpy()
            got = np.asarray(Xm / mt.tensor(v, dtype=mdt))
            assert got.dtype == want.dtype and _same(got, want).all()


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", ["contiguous n%8==0", "contiguous odd", "tiny 3", "strided", "transposed odd"])
def test_reciprocal_bit_exact(dt, name):
    "PyTorch's complex reciprocal is its own kernel, but computes 1/x with the same Smith quotient."
    x, _ = _pairs(dt, 840, seed=9)
    view = _views(None)[name]
    want = view(torch.from_numpy(x)).reciprocal().numpy()
    m = view(mt.from_numpy(x.copy()))
    assert _same(np.asarray(m.reciprocal()), want).all()
    assert _same(np.asarray(1 / m), (1 / view(torch.from_numpy(x))).numpy()).all()


@pytest.mark.parametrize("dt", DTYPES)
def test_div_matches_oracle_model(dt):
    "The backend's `_cdiv` agrees with test_parity_i's model of each path (itself proven against torch)."
    x, y = _pairs(dt, 2000, seed=21)
    assert _same(_cdiv(x, y), _torch_cdiv(x, y, "vector")).all()
    if dt == np.complex64:   # a lone element runs the unfused scalar code
        assert _same(np.concatenate([_cdiv(x[i:i + 1], y[i:i + 1]) for i in range(200)]),
                     _torch_cdiv(x[:200], y[:200], "tail")).all()


def test_fma_rounds_once():
    "b·r on a float32 midpoint plus 2^-60: a true fma rounds up, an fma emulated in float64 ties to even (2 ulps off)."
    x = np.array([2.0**-60 + (1 + 2.0**-12) * 1j] * 2, np.complex64)
    y = np.array([2 + (1 + 2.0**-12) * 1j] * 2, np.complex64)
    want = (torch.from_numpy(x) / torch.from_numpy(y)).numpy()
    assert _same(_cdiv(x, y), want).all()
    assert not _same(_torch_cdiv(x, y, "vector"), want).all()   # test_parity_i's float64 emulation


def test_inner_run():
    "TensorIterator's inner loop: a contiguous or uniformly strided tensor is one run; a row slice is per row."
    assert _inner_run((4, 6), [[6, 1], [6, 1]])[1:] == (2, 24)
    assert _inner_run((4, 6), [[1, 4], [1, 4]])[1:] == (2, 24)            # transposed, same for both: one run
    assert _inner_run((4, 6), [[8, 1], [8, 1]])[1:] == (1, 6)             # rows of a wider matrix
    assert _inner_run((4, 6), [[6, 1], [0, 1]])[1:] == (1, 6)             # a broadcast row
    assert _inner_run((), [[], []])[1:] == (0, 1)


@pytest.mark.parametrize("dt", DTYPES)
def test_numba_backend_div(dt):
    "The numba backend sends complex division (and reciprocal) to the reference's `_cdiv`, kernels or not."
    x, y = _pairs(dt, 837, seed=5)
    nb, d = NumbaBackend(min_work={}), getattr(mt, np.dtype(dt).name)   # kernels at every size
    a, b = mt.from_numpy(x.copy())._data, mt.from_numpy(y.copy())._data
    got, rec = to_numpy(nb.zip("div", a, b, d)), to_numpy(nb.map("reciprocal", b, d))
    assert _same(got, (torch.from_numpy(x) / torch.from_numpy(y)).numpy()).all()
    assert _same(rec, torch.from_numpy(y).reciprocal().numpy()).all()


@pytest.mark.parametrize("dt", DTYPES)
def test_div_grads_bit_exact(dt):
    "The gradients of div, g / conj(b) and -g * conj((a / b) / b), run the same kernels: bit-exact (same shapes)."
    g = np.random.default_rng(3)
    def rnd(*s): return (g.standard_normal(s) * np.exp(g.uniform(-4, 4, s)) + 1j * g.standard_normal(s)).astype(dt)
    a, b, w = rnd(5, 9), rnd(5, 9), rnd(5, 9)
    A, B = torch.from_numpy(a).requires_grad_(), torch.from_numpy(b).requires_grad_()
    (A / B).backward(torch.from_numpy(w))
    Am = mt.from_numpy(a.copy()).requires_grad_()
    Bm = mt.from_numpy(b.copy()).requires_grad_()
    (Am / Bm).backward(mt.from_numpy(w.copy()))
    assert _same(np.asarray(Am.grad), A.grad.numpy()).all()
    assert _same(np.asarray(Bm.grad), B.grad.numpy()).all()


def test_seed_118838_program_forward_and_grad_terms():
    "seed 118838's program (complex64 strided (3, 4, 1) / a 0-d float64, cumsum): the values, each term of the 0-d's grad."
    g = np.random.default_rng(118838)
    base = (g.standard_normal((3, 4, 2)) + 1j * g.standard_normal((3, 4, 2))).astype(np.complex64)
    w = (g.uniform(0.1, 2, (3, 4, 1)) + 1j * g.uniform(0.1, 2, (3, 4, 1))).astype(np.complex64)
    X, T = torch.from_numpy(base)[..., ::2], torch.tensor(-0.4104089363608363, dtype=torch.float64)
    Xm, Tm = mt.from_numpy(base.copy())[..., ::2], mt.tensor(-0.4104089363608363, dtype=mt.float64)
    assert _same(np.asarray(mt.cumsum(Xm.div(Tm), 1)), torch.cumsum(X.div(T), 1).numpy()).all()
    G = torch.from_numpy(w).flip(1).cumsum(1).flip(1)
    Gm = mt.from_numpy(w.copy()).flip(1).cumsum(1).flip(1)
    want = (-G * ((X / T) / T).conj()).numpy()      # DivBackward's term for `other`, before it is summed to ()
    got = np.asarray(-Gm * ((Xm / Tm) / Tm).conj())
    assert _same(got, want).all()
    Tg = T.clone().requires_grad_()
    torch.cumsum(X.div(Tg), 1).backward(torch.from_numpy(w))
    assert torch_sum_1d(got.reshape(-1)).real == Tg.grad.item()   # summed in PyTorch's order: its grad exactly


# ---- PyTorch's order of a full sum, which seed 118838's grad needs (the backend's `_torch_sum`) ----
# at::native::cascade_sum (SumKernel.cpp) on a contiguous 1-D run of n <= 32768 (one thread): 32-byte vectors of
# W lanes (8 float32, 4 complex64); n < W: `row_sum` of the scalars, else `row_sum` of the n // W vectors, then the
# scalar rest one by one, then the W lanes in order. `row_sum` reads its rows as (n/4, 4) columns summed with a
# 4-level cascade (`multi_row_sum`), adds the rest into column 0, then columns 1, 2, 3 in order.

def _ceil_log2(x): return 1 if x <= 2 else int(x - 1).bit_length()


def _multi_row_sum(rows, zero):
    size = len(rows)
    power = max(4, _ceil_log2(size) // 4)
    step, mask = 1 << power, (1 << power) - 1
    acc, i = [zero.copy() for _ in range(4)], 0
    while i + step <= size:
        for _ in range(step): acc[0], i = acc[0] + rows[i], i + 1
        for j in range(1, 4):
            acc[j], acc[j - 1] = acc[j] + acc[j - 1], zero.copy()
            if i & (mask << (j * power)): break
    for r in rows[i:]: acc[0] = acc[0] + r
    for j in range(1, 4): acc[0] = acc[0] + acc[j]
    return acc[0]


def _row_sum(x):
    s = len(x) // 4
    p = _multi_row_sum(x[:s * 4].reshape((s, 4) + x.shape[1:]), np.zeros((4,) + x.shape[1:], x.dtype))
    p0 = p[0]
    for r in x[s * 4:]: p0 = p0 + r
    for k in range(1, 4): p0 = p0 + p[k]
    return p0


def torch_sum_1d(v):
    "PyTorch's CPU sum of a contiguous 1-D float32/float64/complex array of at most 32768 elements."
    W, zero = 32 // v.itemsize, v.dtype.type(0)
    with np.errstate(all="ignore"):
        if len(v) < W: return zero + _row_sum(v)
        vs = len(v) // W
        lanes, acc = _row_sum(v[:vs * W].reshape(vs, W)), zero
        for e in v[vs * W:]: acc = acc + e
        for e in lanes: acc = acc + e
        return zero + acc


@pytest.mark.parametrize("dt", [np.float32, np.complex64, np.float64, np.complex128])
def test_torch_sum_order_model(dt):
    "The model above is PyTorch's full sum, bit for bit (a numpy pairwise sum is not, in about half the cases)."
    g = np.random.default_rng(1)
    for n in list(range(1, 40)) + [64, 100, 255, 257, 1000, 4099]:
        v = (g.standard_normal(n) * np.exp(g.uniform(-3, 3, n)) + 1j * g.standard_normal(n)).astype(dt)
        assert torch_sum_1d(v) == torch.from_numpy(v).sum().numpy(), n


def test_seed_118838():
    "The whole program: its grad, summed to the 0-d divisor in PyTorch's order, agrees."
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    import opinfo
    prog = opinfo.draw_program(118838, None, chain_p=0.4, cuda_p=0.02)
    assert opinfo.run_program(prog, timeout=60, check_grad=True) == []


@pytest.mark.parametrize("dt", ["float32", "float64", "complex64", "complex128"])
def test_full_sum_in_torch_order(dt):
    "A full sum (and mean) of up to 32768 elements adds in PyTorch's order: bit-exact, also for the numba backend."
    g = np.random.default_rng(2)
    for n in [1, 5, 12, 31, 100, 1000, 32768]:
        v = g.standard_normal(n) * np.exp(g.uniform(-3, 3, n)) + 1j * g.standard_normal(n)
        v = v.astype(dt) if dt.startswith("complex") else v.real.astype(dt)
        t, m = torch.from_numpy(v).reshape(-1, 1), mt.from_numpy(v.copy()).reshape(-1, 1)
        assert np.asarray(m.sum()) == t.sum().numpy(), n
        assert np.asarray(m.mean()) == t.mean().numpy(), n
        assert torch_sum_1d(v) == t.sum().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64", "complex128"])
def test_cumsum_of_negative_zeros_starts_at_plus_zero(dtype):
    "torch's running sum starts at +0: cumsum([-0., -0.]) is [0., 0.] (seed 411201: reciprocal gave -inf), a 0-d stays -0."
    for v in ([-0., -0., -1.], [[-0., -0.], [-0., 1.]], -0.):
        a = mt.tensor(v).to(getattr(mt, dtype)).cumsum(0)
        b = torch.tensor(v).to(getattr(torch, dtype)).cumsum(0)
        for part in ((lambda t: t.real, lambda t: t.imag) if b.is_complex() else (lambda t: t,)):
            assert (1 / part(a).float()).tolist() == (1 / part(b).float()).tolist()


@pytest.mark.parametrize("n", [1, 7, 8, 9, 16, 17, 40])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_neg_zero_parts_like_torch(n, dtype):
    "torch's vector lanes negate as 0 - z (+0 imaginary part), its scalar tail as -z (-0) (seed 616285: rsqrt's sign)."
    z = mt.complex(mt.full((n,), 5.), mt.zeros(n)).to(getattr(mt, dtype))
    t = torch.complex(torch.full((n,), 5.), torch.zeros(n)).to(getattr(torch, dtype))
    for f in (lambda x: -x, lambda x: x.neg(), lambda x: x.reshape(1, n).expand(3, n).neg(), lambda x: x[::2].neg()):
        assert f(z).imag.signbit().tolist() == f(t).imag.signbit().tolist()
    assert (-z).rsqrt().imag.signbit().tolist() == (-t).rsqrt().imag.signbit().tolist()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("view", ["rows", "step", "T", "whole"])
def test_complex_mul_vector_lanes_per_inner_row(dtype, view):
    "The complex product's vector lanes are chosen per TensorIterator inner row (`_vec_lanes`): sliced rows vectorize too."
    g = np.random.default_rng(5)
    f = {"rows": lambda a: a[:, :10], "step": lambda a: a[::2], "T": lambda a: a.T, "whole": lambda a: a}[view]
    for _ in range(10):
        A, B = [(g.standard_normal((5, 12)) + 1j * g.standard_normal((5, 12))).astype(dtype) for _ in range(2)]
        got = (f(mt.tensor(A)) * f(mt.tensor(B))).numpy()
        want = (f(torch.from_numpy(A)) * f(torch.from_numpy(B))).numpy()
        assert _same(got, want).all()
