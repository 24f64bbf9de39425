"""complex32 (chalf): two fp16 words per element, computed in complex64 and rounded once, like PyTorch on CPU.

torch is the oracle: values are compared bit for bit (NaN payloads aside), dtypes and error types exactly.
"""
import io
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch
import minitorch.dtypes as mdt
from minitorch.backends import use_backend, _instance
from minitorch.complex_autograd import view_as_complex, view_as_real

pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental",
                                        "ignore:Casting complex values to real")
MT, TT = minitorch.complex32, torch.complex32
SPECIAL = np.array([0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF, 0x7C00,
                    0xFC00, 0x7E00, 0x3555, 0x4248, 0x5140], np.uint16)   # zeros, subnormals, max, inf, nan


# -- helpers: build the same complex32 tensor in both libraries from fp16 bit patterns --------------------------
def words(shape, seed, special=0.25):
    "Random fp16 words of shape (*shape, 2): finite values mostly, specials (inf, nan, subnormal) sometimes."
    r = np.random.default_rng(seed)
    finite = (r.standard_normal(shape + (2,)) * r.choice([1e-6, 1e-3, 1, 30, 3000], shape + (2,)))
    w = finite.astype(np.float16).view(np.uint16)
    pick = r.random(shape + (2,)) < special
    return np.where(pick, r.choice(SPECIAL, shape + (2,)), w).astype(np.uint16)


def pair(w, layout="contiguous"):
    "A complex32 tensor in minitorch and in torch holding the fp16 words `w` (..., 2), in the given layout."
    f = w.view(np.float16)
    tf = torch.empty(f.shape, dtype=torch.float16).copy_(torch.from_numpy(f.copy()))   # fresh strides if empty
    a, b = view_as_complex(minitorch.tensor(f.copy())), torch.view_as_complex(tf)
    if layout == "transposed" and a.ndim >= 2: a, b = a.transpose(0, -1), b.transpose(0, -1)
    if layout == "strided" and a.ndim >= 1: a, b = a[::2], b[::2]
    return a, b


def bits(t):
    "The fp16 words of a minitorch or torch tensor (complex32 or float16) as a uint16 array."
    if isinstance(t, torch.Tensor):
        t = t.resolve_conj()
        t = torch.view_as_real(t) if t.dtype is torch.complex32 else t
        return t.contiguous().numpy().view(np.uint16)
    t = view_as_real(t) if t.dtype is minitorch.complex32 else t
    return t.contiguous().numpy().view(np.uint16)


def same(a, b, zero_sign=True):
    "Same dtype, shape and bits (any NaN equals any NaN; -0 equals +0 unless `zero_sign`)."
    assert a.dtype.name == str(b.dtype).replace("torch.", ""), (a.dtype, b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    a, b = a.detach(), b.detach()
    if a.dtype is minitorch.bfloat16: a, b = a.float(), b.float()
    if a.dtype.is_complex and a.dtype is not minitorch.complex32:
        x, y = a.numpy(), b.numpy()
        assert np.array_equal(x, y, equal_nan=True)
        return
    if a.dtype not in (minitorch.complex32, minitorch.float16):
        assert np.array_equal(a.numpy(), b.numpy(), equal_nan=a.dtype.is_floating_point)
        return
    x, y = bits(a), bits(b)
    if not zero_sign: x, y = np.where(x == 0x8000, 0, x), np.where(y == 0x8000, 0, y)
    nx, ny = np.isnan(x.view(np.float16)), np.isnan(y.view(np.float16))
    assert (nx == ny).all(), (x[nx != ny], y[nx != ny])
    assert (x[~nx] == y[~ny]).all(), (x[~nx][x[~nx] != y[~ny]], y[~ny][x[~nx] != y[~ny]])


shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)
layouts = st.sampled_from(["contiguous", "transposed", "strided"])
seeds = st.integers(0, 2**31 - 1)


# -- storage, creation, printing ------------------------------------------------------------------------------
def test_storage_is_two_fp16_words():
    t = minitorch.tensor([1 + 2j, 3 - 1j], dtype=minitorch.chalf)
    assert t.dtype is minitorch.complex32 and t.element_size() == 4 and t.itemsize == 4
    assert t._data.storage.dtype == mdt.COMPLEX32_STORAGE
    assert bits(t).tolist() == [[0x3C00, 0x4000], [0x4200, 0xBC00]]


def test_warns_once_like_torch():
    mdt._COMPLEX32_WARNED[0] = False
    with pytest.warns(UserWarning, match="ComplexHalf support is experimental and many operators"):
        minitorch.zeros(2, dtype=minitorch.complex32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minitorch.ones(2, dtype=minitorch.complex32)      # once per process, like TORCH_WARN_ONCE


@pytest.mark.parametrize("v", [1 + 2j, 1 + 2**-11 + 2**-40, complex(65519.99, -65520), 2.0**-25 * 1.0000001,
                               complex(float("inf"), float("nan")), 3, True, 2.5])
def test_tensor_from_python_rounds_like_torch(v):
    same(minitorch.tensor([v, -v], dtype=MT), torch.tensor([v, -v], dtype=TT))
    same(minitorch.full((2,), v, dtype=MT), torch.full((2,), v, dtype=TT))


def test_creation_functions():
    x = minitorch.tensor([[1 + 2j, 3 - 1j]], dtype=MT)
    for f in ("zeros", "ones", "empty"):
        assert getattr(minitorch, f)(2, 3, dtype=MT).dtype is MT
    for f in ("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"):
        assert getattr(minitorch, f)(x).dtype is MT and getattr(minitorch, f)(x).shape == (1, 2)
    same(minitorch.zeros(2, dtype=MT), torch.zeros(2, dtype=TT))
    same(minitorch.ones(2, dtype=MT), torch.ones(2, dtype=TT))
    same(minitorch.full_like(x, 2j), torch.full_like(torch.tensor([[1 + 2j, 3 - 1j]], dtype=TT), 2j))
    for f in (minitorch.randn, minitorch.rand):
        r = f(1000, dtype=MT)
        assert r.dtype is MT and (r.imag != 0).any() and (r.real != 0).any()
    assert abs(minitorch.randn(4000, dtype=MT).abs().float().pow(2).mean().item() - 1) < 0.1   # E|z|^2 = 1
    assert minitorch.tensor([1j]).chalf().dtype is MT
    assert minitorch.tensor([1., 2.], dtype=minitorch.float16).to(MT).dtype is MT


@pytest.mark.parametrize("f", [lambda m: m.arange(3, dtype=m.complex32), lambda m: m.linspace(0, 1, 3, dtype=m.complex32),
                               lambda m: m.eye(2, dtype=m.complex32)])
def test_creation_torch_refuses(f):
    with pytest.raises(NotImplementedError) as theirs: f(torch)
    with pytest.raises(NotImplementedError, match=str(theirs.value)): f(minitorch)


@pytest.mark.parametrize("vals", [[1 + 2j, 3 - 1j], [[0.5 + 1j, -2 + 0.25j], [1e-7j, 65504]], 1 - 1j,
                                  [complex(float("inf"), 1), complex(0, float("nan")), 1.2345 + 6.789j], []])
def test_printing_matches_torch(vals):
    a, b = minitorch.tensor(vals, dtype=MT), torch.tensor(vals, dtype=TT)
    # the dtype suffix may wrap differently: "minitorch." is 4 characters longer than "torch."
    assert repr(a).split() == repr(b).replace("torch.", "minitorch.").split()


def test_item_tolist_numpy():
    a, b = minitorch.tensor([1 + 2j, 3 - 1j], dtype=MT), torch.tensor([1 + 2j, 3 - 1j], dtype=TT)
    assert a.tolist() == b.tolist() and a[0].item() == b[0].item() and complex(a[1]) == complex(b[1])
    with pytest.raises(TypeError, match="Got unsupported ScalarType ComplexHalf"): a.numpy()
    with pytest.raises(TypeError): b.numpy()


# -- arithmetic: bit-exact against torch -----------------------------------------------------------------------
OPS = {"add": lambda m, a, b: a + b, "sub": lambda m, a, b: a - b, "mul": lambda m, a, b: a * b,
       "eq": lambda m, a, b: a == b, "ne": lambda m, a, b: a != b}


@settings(max_examples=40, deadline=None)
@given(shape=shapes, la=layouts, lb=layouts, seed=seeds, op=st.sampled_from(sorted(OPS)))
def test_binary_ops_bit_exact(shape, la, lb, seed, op):
    a, ta = pair(words(shape, seed), la)
    b, tb = pair(words(shape, seed + 1), la)
    if lb == "contiguous": b, tb = b.contiguous(), tb.contiguous()
    same(OPS[op](minitorch, a, b), OPS[op](torch, ta, tb))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 4), m=st.integers(1, 4), seed=seeds, op=st.sampled_from(["add", "sub", "mul"]))
def test_broadcasting(n, m, seed, op):
    a, ta = pair(words((n, 1), seed))
    b, tb = pair(words((m,), seed + 1))
    same(OPS[op](minitorch, a, b), OPS[op](torch, ta, tb))


def test_add_alpha():
    a, ta = pair(words((6,), 8, special=0))
    same(minitorch.add(a, a.conj(), alpha=2), torch.add(ta, ta.conj(), alpha=2))
    same(minitorch.sub(a, a.conj(), alpha=-0.5), torch.sub(ta, ta.conj(), alpha=-0.5))


@pytest.mark.parametrize("s", [2, 1.0001, 1 + 2**-11, -0.5j, 3 - 1e-4j, True, 70000.0])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "rsub", "rmul"])
def test_python_scalars(s, op):
    if s is True and op in ("sub", "rsub"): pytest.skip("minitorch refuses bool scalars in subtraction")
    a, ta = pair(words((6,), 7, special=0.1))
    f = {"add": lambda x: x + s, "sub": lambda x: x - s, "mul": lambda x: x * s, "rsub": lambda x: s - x,
         "rmul": lambda x: s * x}[op]
    same(f(a), f(ta))


@pytest.mark.parametrize("other", ["float16", "bfloat16", "float32", "float64", "int64", "bool", "complex64",
                                   "complex128", "int8"])
def test_promotion_with_tensors(other):
    a, ta = pair(words((4,), 3, special=0))
    o = minitorch.tensor([1, 0, 2, 3], dtype=getattr(minitorch, other))
    to = torch.tensor([1, 0, 2, 3], dtype=getattr(torch, other))
    same(a * o, ta * to)
    same(o + a, to + ta)
    same(a + o[0], ta + to[0])       # a 0-d tensor


def test_promote_types_table():
    for d in mdt._ALL_DTYPES:
        for x, y in ((d, MT), (MT, d)):
            assert minitorch.promote_types(x, y).name == str(torch.promote_types(getattr(torch, x.name),
                                                                                 getattr(torch, y.name)))[6:]


UNARY = {"neg": lambda t: -t, "conj": lambda t: t.conj(), "abs": lambda t: t.abs(), "real": lambda t: t.real,
         "imag": lambda t: t.imag, "isnan": lambda t: t.isnan(), "isinf": lambda t: t.isinf(),
         "isfinite": lambda t: t.isfinite(), "sgn": lambda t: t.sgn(), "clone": lambda t: t.clone(),
         "contiguous": lambda t: t.contiguous(), "view_as_real": None}


@settings(max_examples=40, deadline=None)
@given(shape=shapes, layout=layouts, seed=seeds, op=st.sampled_from(sorted(UNARY)))
def test_unary_ops_bit_exact(shape, layout, seed, op):
    a, ta = pair(words(shape, seed), layout)
    if op == "view_as_real": same(view_as_real(a), torch.view_as_real(ta))
    else: same(UNARY[op](a), UNARY[op](ta))


# -- views, indexing, joining ------------------------------------------------------------------------------------
VIEWS = {"reshape": lambda t: t.reshape(-1), "t": lambda t: t.transpose(0, 1), "permute": lambda t: t.permute(1, 0, 2),
         "slice": lambda t: t[1:, ::2], "select": lambda t: t[1], "expand": lambda t: t[:1].expand(3, 2, 4),
         "unsqueeze": lambda t: t.unsqueeze(1), "flatten": lambda t: t.flatten(1),
         "int_index": lambda t: t[[2, 0, 2]], "bool_index": lambda t: t[t.real > 0],
         "narrow": lambda t: t.narrow(2, 1, 2), "diagonal": lambda t: t.diagonal(0, 1, 2),
         "cat": lambda t: t.__class__ and (minitorch if isinstance(t, minitorch.Tensor) else torch).cat([t, t[:1]]),
         "stack": lambda t: (minitorch if isinstance(t, minitorch.Tensor) else torch).stack([t[0], t[1]], 1),
         "index_select": lambda t: t.index_select(1, (minitorch if isinstance(t, minitorch.Tensor) else torch).tensor([1, 0])),
         "where": lambda t: (minitorch if isinstance(t, minitorch.Tensor) else torch).where(t.imag > 0, t, t.conj()),
         "masked_fill": lambda t: t.masked_fill(t.real < 0, 2 - 1j), "roll": lambda t: t.roll(1, 0),
         "repeat": lambda t: t.repeat(1, 2, 1), "tril": lambda t: t.tril()}


@pytest.mark.parametrize("op", sorted(VIEWS))
def test_views_and_indexing(op):
    a, ta = pair(words((3, 2, 4), 11))
    same(VIEWS[op](a), VIEWS[op](ta))


def test_views_share_storage():
    z = minitorch.tensor([[1 + 2j, 3 - 1j], [0.5j, 2]], dtype=MT)
    r = view_as_real(z)
    assert r.dtype is minitorch.float16 and r.shape == (2, 2, 2) and r.stride() == (4, 2, 1)
    r[0, 0, 1] = 7
    assert z[0, 0].item() == 1 + 7j
    zt = z.t()
    zt[0, 1] = 5j                               # writes through a transposed view
    assert z[1, 0].item() == 5j
    c = view_as_complex(r)
    c[1, 1] = -1
    assert z[1, 1].item() == -1
    assert view_as_real(z.t()).stride() == torch.view_as_real(torch.zeros(2, 2, dtype=TT).t()).stride()


def test_setitem_copy_and_inplace():
    a, ta = pair(words((3, 4), 5, special=0.1))
    for x, m in ((a, minitorch), (ta, torch)):
        x[0] = 1 + 2j
        x[1, ::2] = m.tensor([0.1, 3e-5], dtype=m.float32)
        x[2].copy_(m.tensor([1j, 2, 3, 4 + 1e-4j], dtype=m.complex128))
        x.add_(1)
        x[:, 1].mul_(x[:, 2])
    same(a, ta)
    b, tb = pair(words((4,), 6, special=0))
    b2 = b.index_put((minitorch.tensor([0, 0, 2]),), b[:3], accumulate=True)
    tb2 = tb.index_put((torch.tensor([0, 0, 2]),), tb[:3], accumulate=True)
    same(b2, tb2)


# -- casts --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dst", ["complex64", "complex128", "float16", "float32", "float64", "bfloat16", "int64",
                                 "int16", "uint8", "bool"])
def test_cast_from_complex32(dst):
    w = words((5, 3), 21, special=0.3)
    if dst in ("int64", "int16", "uint8"):      # in range: out-of-range float -> int is undefined behaviour
        w = np.random.default_rng(3).integers(0, 100, (5, 3, 2)).astype(np.float16).view(np.uint16)
    a, ta = pair(w, "transposed")
    same(a.to(getattr(minitorch, dst)), ta.to(getattr(torch, dst)))


@pytest.mark.parametrize("src", ["complex64", "complex128", "float16", "float32", "float64", "bfloat16", "int64",
                                 "bool"])
def test_cast_to_complex32(src):
    r = np.random.default_rng(2)
    v = r.standard_normal((4, 5)) * r.choice([1e-7, 1e-3, 1, 100, 7e4], (4, 5))
    if src.startswith("complex"): v = v + 1j * v[::-1]
    if src == "int64": v = np.round(v)
    if src == "bool": v = v > 0
    t = torch.from_numpy(v).to(getattr(torch, src))
    a = minitorch.tensor(v).to(getattr(minitorch, src))
    same(a.to(MT), t.to(TT))
    same(a.t().chalf(), t.t().chalf())


# -- what torch refuses on complex32 (CPU) ------------------------------------------------------------------------
REFUSED = {"exp": lambda t: t.exp(), "log": lambda t: t.log(), "sqrt": lambda t: t.sqrt(), "sin": lambda t: t.sin(),
           "tanh": lambda t: t.tanh(), "sigmoid": lambda t: t.sigmoid(), "reciprocal": lambda t: t.reciprocal(),
           "pow": lambda t: t ** 2, "square": lambda t: t.square(), "sum": lambda t: t.sum(),
           "sum_dim": lambda t: t.sum(0), "mean": lambda t: t.mean(), "prod": lambda t: t.prod(),
           "cumsum": lambda t: t.cumsum(0), "div": lambda t: t / t, "div_scalar": lambda t: t / 2,
           "lt": lambda t: t < t, "gt": lambda t: t > 1, "flip": lambda t: t.flip(0),
           "sign": lambda t: t.sign(), "floor": lambda t: t.floor(), "trunc": lambda t: t.trunc(),
           "relu": lambda t: (minitorch if isinstance(t, minitorch.Tensor) else torch).relu(t),
           "log2": lambda t: t.log2(), "rsqrt": lambda t: t.rsqrt(), "cos": lambda t: t.cos(),
           "exp2": lambda t: t.exp2(), "floor_divide": lambda t: t // t, "equal": lambda t: t.equal(t),
           "gather": lambda t: t.gather(0, (minitorch if isinstance(t, minitorch.Tensor) else torch).tensor([0]))}


@pytest.mark.parametrize("op", sorted(REFUSED))
def test_refused_like_torch(op):
    a, ta = pair(words((3,), 1, special=0))
    with pytest.raises(Exception) as theirs: REFUSED[op](ta)
    with pytest.raises(type(theirs.value)) as ours: REFUSED[op](a)
    assert str(ours.value) == str(theirs.value), (str(ours.value), str(theirs.value))


def test_matmul_refused():
    a, ta = pair(words((2, 2), 1, special=0))
    for f in (lambda x: x @ x, lambda x: x.reshape(1, 2, 2) @ x):
        with pytest.raises(NotImplementedError): f(ta)
        with pytest.raises(NotImplementedError, match="not implemented for 'ComplexHalf'"): f(a)


def test_reductions_that_work():
    a, ta = pair(words((3, 4), 9))
    same(a.any(), ta.any()); same(a.all(1), ta.all(1))
    same(a.nonzero(), ta.nonzero()); same(a.count_nonzero(), ta.count_nonzero())
    same(minitorch.isclose(a, a), torch.isclose(ta, ta))


# -- autograd -----------------------------------------------------------------------------------------------------
GRADS = {"add": lambda m, z: (z + z * 2j).abs(), "mul": lambda m, z: (z * z.conj()).real,
         "neg_conj": lambda m, z: (-z.conj()).real, "abs": lambda m, z: z.abs(), "imag": lambda m, z: z.imag,
         "view_as_real": lambda m, z: (view_as_real if m is minitorch else torch.view_as_real)(z)[..., 1],
         "index": lambda m, z: z[1:].real, "reshape": lambda m, z: z.reshape(-1).real,
         "cast": lambda m, z: z.to(m.complex64).real}


@pytest.mark.parametrize("op", sorted(GRADS))
def test_autograd_matches_torch(op):
    w = words((2, 3), 4, special=0)
    a, ta = pair(w)
    a, ta = a.detach().requires_grad_(), ta.detach().requires_grad_()
    g = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float16)
    y, ty = GRADS[op](minitorch, a), GRADS[op](torch, ta)
    same(y, ty)
    gg = g.reshape(-1)[:y.numel()].reshape(tuple(y.shape))
    y.backward(minitorch.tensor(gg).to(y.dtype))
    ty.backward(torch.tensor(gg).to(ty.dtype))
    # imag's backward is g*1j here: its real part is -0 where PyTorch writes +0 (values are equal)
    same(a.grad, ta.grad, zero_sign=op != "imag")


def test_sgn_backward_runs():
    "PyTorch's sgn backward raises on complex32 (it divides); minitorch's goes through complex64 and works."
    z = minitorch.tensor([3 + 4j, 0, -2j], dtype=MT, requires_grad=True)
    z.sgn().real.backward(minitorch.ones(3, dtype=minitorch.float16))
    assert z.grad.dtype is MT and z.grad.tolist()[1] == 0


# -- the numba backend delegates complex32 to the numpy reference -------------------------------------------------
def test_numba_backend_delegates():
    pytest.importorskip("numba")
    nb = _instance("numba")
    old = dict(nb.min_work)
    nb.min_work.update({k: 0 for k in nb.min_work})
    try:
        with use_backend("numba"):
            a, ta = pair(words((3, 4), 13), "transposed")
            same(a * a + 1j, ta * ta + 1j)
            same(a.abs(), ta.abs())
            same(a.to(minitorch.float32), ta.to(torch.float32))
            same(minitorch.tensor([1., 2.]).to(MT), torch.tensor([1., 2.]).to(TT))
            same(a.to(minitorch.complex64).to(MT), ta.to(torch.complex64).to(TT))
    finally:
        nb.min_work.clear(); nb.min_work.update(old)


# -- serialization ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_save_load_round_trip(layout):
    a, _ = pair(words((4, 3), 17, special=0.5), layout)
    buf = io.BytesIO()
    minitorch.save({"z": a, "n": [a[0]]}, buf)
    r = minitorch.load(io.BytesIO(buf.getvalue()))
    assert r["z"].dtype is MT and tuple(r["z"].shape) == tuple(a.shape)
    assert (bits(r["z"]) == bits(a)).all() and (bits(r["n"][0]) == bits(a[0])).all()


@pytest.mark.parametrize("dtype", ["complex32", "complex64", "complex128"])
def test_real_imag_are_views(dtype):
    v = [[1 + 2j, 3 - 1j, 0.5j], [2, -1 - 1j, 4j]]
    a, ta = minitorch.tensor(v, dtype=getattr(minitorch, dtype)), torch.tensor(v, dtype=getattr(torch, dtype))
    for f in (lambda t: t.real, lambda t: t.imag, lambda t: t.t().imag, lambda t: t[1, ::2].real):
        x, y = f(a), f(ta)
        assert x.stride() == y.stride() and x.storage_offset() == y.storage_offset() and x.tolist() == y.tolist()
    a.imag[0].mul_(3); ta.imag[0].mul_(3)          # writes through to the complex tensor
    a.t().real[2] = 7; ta.t().real[2] = 7
    assert a.tolist() == ta.tolist() and a._version == ta._version


@pytest.mark.parametrize("dtype", ["complex32", "complex64", "complex128"])
def test_complex_to_bool_is_nonzero(dtype):
    v = [1j, 0, complex(0, float("nan")), -0.0, 2]
    a, t = minitorch.tensor(v, dtype=getattr(minitorch, dtype)), torch.tensor(v, dtype=getattr(torch, dtype))
    assert a.bool().tolist() == t.bool().tolist() and a.t().to(minitorch.bool).tolist() == t.t().bool().tolist()


def test_sgn_takes_the_division_path_at_every_size():
    "ComplexHalf's sgn has no SIMD kernel: z/|z| (nan+nanj for an infinite part) even in blocks of 16."
    for n in (1, 16, 32):
        w = np.zeros((n, 2), np.float16)
        w[:, 0], w[:, 1] = np.inf, 1
        a, ta = pair(w.view(np.uint16))
        same(a.sgn(), ta.sgn())
