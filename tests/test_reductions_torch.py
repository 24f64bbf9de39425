"""PyTorch-oracle tests for every reduction in `minitorch.reductions`: dtypes x layouts x dims x keepdim.

Each case runs the same call in torch and minitorch and compares the values, the dtypes, the gradients of the
input and, where torch refuses, the error class (and message)."""
import math
import warnings

import numpy as np
import pytest
import torch

import minitorch as mt

warnings.filterwarnings('ignore', category=UserWarning)

# ---------------------------------------------------------------- conversion helpers
DTYPES = ['float32', 'float64', 'float16', 'bfloat16', 'complex64', 'int64', 'bool']
FLOATS = ('float32', 'float64', 'float16', 'bfloat16', 'complex64', 'complex128')


def to_mt(t: torch.Tensor, requires_grad: bool = False) -> mt.Tensor:
    "A minitorch copy (contiguous) of the torch tensor `t`."
    name = str(t.dtype).split('.')[-1]
    a = t.detach()
    arr = a.float().numpy() if name == 'bfloat16' else a.numpy()
    return mt.tensor(np.array(arr), dtype=getattr(mt, name), requires_grad=requires_grad)


def to_torch(m) -> torch.Tensor:
    name = str(m.dtype).split('.')[-1]
    if name == 'bfloat16': return torch.tensor(np.array(m.detach().float().numpy())).bfloat16()
    return torch.from_numpy(np.array(m.detach().numpy()))


def dname(x) -> str: return str(x.dtype).split('.')[-1]


def make_base(shape, dtype: str, seed: int) -> torch.Tensor:
    "Random values for `dtype`, with repeats (ties) and, for floats, a few exact zeros."
    g = torch.Generator().manual_seed(seed)
    n = math.prod(shape)
    if dtype == 'bool': return (torch.rand(shape, generator=g) > 0.5)
    if dtype == 'int64': return torch.randint(-4, 5, shape, generator=g)
    if dtype.startswith('complex'):
        z = torch.complex(torch.randn(shape, generator=g), torch.randn(shape, generator=g)).to(getattr(torch, dtype))
        if n >= 6: z.view(-1)[5] = 0                    # an exact zero
        return z
    x = torch.randn(shape, generator=g, dtype=torch.float64)
    if n >= 4: x.view(-1)[1] = x.view(-1)[3]          # a tie
    if n >= 6: x.view(-1)[5] = 0                        # an exact zero
    return x.to(getattr(torch, dtype))


LAYOUTS = ['contiguous', 'transposed', 'strided', 'offset', 'expanded']


def views(lib, leaf, layout: str, shape):
    "The view of `leaf` (built by `leaf_shape`) that has `shape` and the given layout."
    if layout == 'contiguous': return leaf
    if layout == 'transposed': return leaf.permute(*reversed(range(leaf.ndim)))
    if layout == 'strided': return leaf[..., ::2]
    if layout == 'offset': return leaf.reshape(-1)[1:].reshape(*shape)
    if layout == 'expanded': return leaf.expand(*shape)


def leaf_shape(layout: str, shape):
    if layout == 'transposed': return tuple(reversed(shape))
    if layout == 'strided': return shape[:-1] + (2 * shape[-1],)
    if layout == 'offset': return (math.prod(shape) + 1,)
    if layout == 'expanded': return (1,) + shape[1:]
    return shape


def layouts_for(shape):
    if len(shape) == 0: return ['contiguous']
    out = ['contiguous', 'strided', 'offset']
    if len(shape) >= 2: out.append('transposed')
    if shape[0] > 1: out.append('expanded')
    return out


# ---------------------------------------------------------------- the comparison
def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def _tol(name):
    return dict(rtol=2e-2, atol=2e-2) if name in ('float16', 'bfloat16') else {}


def compare(fn, shape, dtype, layout, seed=0, grad=True, msg=True):
    """Run `fn(lib, x)` with torch and minitorch on the same input; return a list of mismatch strings."""
    base = make_base(leaf_shape(layout, shape), dtype, seed)
    want_grad = grad and dtype in FLOATS
    tl = base.clone().requires_grad_(want_grad)
    ml = to_mt(base, want_grad)
    tx, mx = views(torch, tl, layout, shape), views(mt, ml, layout, shape)
    te = me = None
    try: tr = fn(torch, tx)
    except Exception as e: te = e
    try: mr = fn(mt, mx)
    except Exception as e: me = e
    if te is not None:
        if me is None: return [f"torch raised {type(te).__name__}: {te} but minitorch returned"]
        if type(te) is not type(me) and not isinstance(me, type(te)):
            return [f"error class: torch {type(te).__name__}: {te} / minitorch {type(me).__name__}: {me}"]
        if msg and str(te).split('\n')[0] != str(me).split('\n')[0]:
            return [f"error message: torch {te!s} / minitorch {me!s}"]
        return []
    if me is not None: return [f"minitorch raised {type(me).__name__}: {me}; torch gave {tr!r}"[:300]]
    tos, mos = _outs(tr), _outs(mr)
    if len(tos) != len(mos): return [f"{len(tos)} outputs vs {len(mos)}"]
    errs = []
    for k, (a, b) in enumerate(zip(tos, mos)):
        if tuple(a.shape) != tuple(b.shape): errs.append(f"out{k} shape {tuple(a.shape)} vs {tuple(b.shape)}"); continue
        if dname(a) != dname(b): errs.append(f"out{k} dtype {dname(a)} vs {dname(b)}"); continue
        try: torch.testing.assert_close(to_torch(b), a.detach(), equal_nan=True, **_tol(dname(a)))
        except AssertionError as e: errs.append(f"out{k} values: {str(e)[:300]}")
        if bool(a.requires_grad) != bool(b.requires_grad): errs.append(f"out{k} requires_grad {a.requires_grad} vs {b.requires_grad}")
    if errs or not want_grad: return errs
    # gradients: loss = sum_k <out_k, g_k> over the outputs that carry a gradient
    gen = torch.Generator().manual_seed(seed + 1)
    lt, lm = 0, 0
    for a, b in zip(tos, mos):
        if not a.requires_grad: continue
        g = torch.randn(a.shape, generator=gen, dtype=torch.float64)
        gd = a.real.dtype if a.dtype.is_complex else a.dtype
        gt = g.to(gd)
        lt = lt + ((a * gt).real if a.dtype.is_complex else a * gt).sum()
        gm = to_mt(gt)
        lm = lm + ((b * gm).real if b.dtype.is_complex else b * gm).sum()
    if isinstance(lt, int): return errs
    lt.backward()
    try: lm.backward()
    except Exception as e: return [f"minitorch backward raised {type(e).__name__}: {e}"]
    if tl.grad is None or ml.grad is None:
        if (tl.grad is None) != (ml.grad is None): errs.append(f"grad None: torch {tl.grad is None} mt {ml.grad is None}")
        return errs
    if dname(tl.grad) != dname(ml.grad): return errs + [f"grad dtype {dname(tl.grad)} vs {dname(ml.grad)}"]
    try: torch.testing.assert_close(to_torch(ml.grad), tl.grad, equal_nan=True, **_tol(dname(tl.grad)))
    except AssertionError as e: errs.append(f"grad values: {str(e)[:300]}")
    return errs


SHAPES = [(), (5,), (3, 4), (2, 3, 4), (3, 0)]
DIMS = [None, 0, -1, (0,), (0, -1), (), (-1, 0), (1,)]


def sweep(fn_of_dim, dtype, dims=DIMS, keepdims=(False, True), shapes=SHAPES, grad=True, msg=True, no_grad_dims=()):
    "Every shape x layout x dim x keepdim; returns the mismatches as lines."
    bad = []
    for shape in shapes:
        for layout in layouts_for(shape):
            if 0 in shape and layout == 'offset': continue
            for dim in dims:
                for kd in keepdims:
                    f = fn_of_dim(dim, kd)
                    if f is None: continue
                    g = grad and dim not in no_grad_dims
                    for e in compare(f, shape, dtype, layout, grad=g, msg=msg):
                        bad.append(f"shape={shape} layout={layout} dim={dim} keepdim={kd}: {e}")
    return bad


def _report(bad):
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:25])


# ---------------------------------------------------------------- the reductions
def _kw(dim, kd):
    return {} if dim is None else {'dim': dim, 'keepdim': kd}


REDUCERS = {
    'sum': lambda dim, kd: (lambda L, x: L.sum(x, **_kw(dim, kd))),
    'mean': lambda dim, kd: (lambda L, x: L.mean(x, **_kw(dim, kd))),
    'var': lambda dim, kd: (lambda L, x: L.var(x, **_kw(dim, kd))),
    'std': lambda dim, kd: (lambda L, x: L.std(x, **_kw(dim, kd))),
    'var_c0': lambda dim, kd: (lambda L, x: L.var(x, **_kw(dim, kd), correction=0)),
    'var_mean': lambda dim, kd: (lambda L, x: L.var_mean(x, **_kw(dim, kd))),
    'std_mean': lambda dim, kd: (lambda L, x: L.std_mean(x, **_kw(dim, kd))),
    'amax': lambda dim, kd: (lambda L, x: L.amax(x, **_kw(dim, kd))),
    'amin': lambda dim, kd: (lambda L, x: L.amin(x, **_kw(dim, kd))),
    'logsumexp': lambda dim, kd: None if dim is None else (lambda L, x: L.logsumexp(x, dim, keepdim=kd)),
    'norm': lambda dim, kd: (lambda L, x: L.norm(x, dim=dim, keepdim=kd)),
    'norm1': lambda dim, kd: (lambda L, x: L.norm(x, 1, dim=dim, keepdim=kd)),
    'norm0': lambda dim, kd: (lambda L, x: L.norm(x, 0, dim=dim, keepdim=kd)),
    'norminf': lambda dim, kd: (lambda L, x: L.norm(x, math.inf, dim=dim, keepdim=kd)),
    'norm3': lambda dim, kd: (lambda L, x: L.norm(x, 3, dim=dim, keepdim=kd)),
    'any': lambda dim, kd: (lambda L, x: L.any(x, **_kw(dim, kd))),
    'all': lambda dim, kd: (lambda L, x: L.all(x, **_kw(dim, kd))),
    'count_nonzero': lambda dim, kd: None if kd else (lambda L, x: L.count_nonzero(x, dim=dim)),
}
INT_DIM = {
    'prod': lambda dim, kd: (lambda L, x: L.prod(x) if dim is None else L.prod(x, dim, keepdim=kd)),
    'max': lambda dim, kd: (lambda L, x: L.max(x) if dim is None else tuple(L.max(x, dim, keepdim=kd))),
    'min': lambda dim, kd: (lambda L, x: L.min(x) if dim is None else tuple(L.min(x, dim, keepdim=kd))),
    'argmax': lambda dim, kd: (lambda L, x: L.argmax(x, dim=dim, keepdim=kd)),
    'argmin': lambda dim, kd: (lambda L, x: L.argmin(x, dim=dim, keepdim=kd)),
    'aminmax': lambda dim, kd: (lambda L, x: tuple(L.aminmax(x, dim=dim, keepdim=kd))),
    'cumsum': lambda dim, kd: None if dim is None or kd else (lambda L, x: L.cumsum(x, dim)),
    'cumprod': lambda dim, kd: None if dim is None or kd else (lambda L, x: L.cumprod(x, dim)),
    'softmax': lambda dim, kd: None if dim is None or kd else (lambda L, x: L.softmax(x, dim)),
    'log_softmax': lambda dim, kd: None if dim is None or kd else (lambda L, x: L.log_softmax(x, dim)),
}
INT_DIMS = [None, 0, -1, 1, 2]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('op', list(REDUCERS))
def test_reduction_tuple_dims(op, dtype):
    # torch's var/std backward with dim=() divides by (1 - correction): a torch bug minitorch does not copy
    skip = [()] if op.startswith(('var', 'std')) else []
    _report(sweep(REDUCERS[op], dtype, no_grad_dims=skip))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('op', list(INT_DIM))
def test_reduction_int_dim(op, dtype):
    _report(sweep(INT_DIM[op], dtype, dims=INT_DIMS))


# ---------------------------------------------------------------- dtype= casts the input first
DT_TARGETS = ['float64', 'float32', 'float16', 'int64', 'int8', 'int16']


@pytest.mark.parametrize('op', ['sum', 'prod', 'cumsum', 'cumprod', 'mean'])
@pytest.mark.parametrize('src', ['float32', 'float64', 'int64', 'bool', 'float16'])
def test_dtype_arg_casts_first(op, src):
    bad = []
    vals = torch.tensor([1.5, 2.5, -1.75, 1e8, 3.0, 0.5, 100.0], dtype=torch.float64)
    x = vals.to(getattr(torch, src)) if src != 'bool' else vals > 1
    for tgt in DT_TARGETS:
        def f(L, x, tgt=tgt):
            d = getattr(L, tgt)
            if op in ('cumsum', 'cumprod'): return getattr(L, op)(x, 0, dtype=d)
            return getattr(L, op)(x, dtype=d)
        te = me = None
        try: tr = f(torch, x)
        except Exception as e: te = e
        try: mr = f(mt, to_mt(x))
        except Exception as e: me = e
        if te is not None or me is not None:
            if type(te) is not type(me): bad.append(f"{src}->{tgt}: torch {te!r} mt {me!r}")
            continue
        if dname(tr) != dname(mr): bad.append(f"{src}->{tgt}: dtype {dname(tr)} vs {dname(mr)}"); continue
        try: torch.testing.assert_close(to_torch(mr), tr, equal_nan=True)
        except AssertionError as e: bad.append(f"{src}->{tgt}: {str(e)[:200]}")
    _report(bad)


def test_dtype_arg_gradient_comes_back_in_input_dtype():
    for op in ('sum', 'cumsum', 'cumprod', 'prod'):
        xt = torch.tensor([1.5, 2.0, -0.5], requires_grad=True)
        xm = mt.tensor([1.5, 2.0, -0.5], requires_grad=True)
        f = (lambda L, x: getattr(L, op)(x, 0, dtype=L.float64)) if op.startswith('cum') else \
            (lambda L, x: getattr(L, op)(x, dtype=L.float64))
        f(torch, xt).sum().backward(); f(mt, xm).sum().backward()
        assert dname(xm.grad) == 'float32'
        torch.testing.assert_close(to_torch(xm.grad), xt.grad)


# ---------------------------------------------------------------- special values
def _pair(fn, values, dtype=torch.float32, grad=True):
    tx = torch.tensor(values, dtype=dtype, requires_grad=grad)
    mx = to_mt(tx.detach(), grad)
    tr, mr = fn(torch, tx), fn(mt, mx)
    torch.testing.assert_close(to_torch(mr), tr.detach(), equal_nan=True)
    if grad:
        tr.sum().abs().backward() if tr.dtype.is_complex else tr.sum().backward()
        mr.sum().abs().backward() if mr.dtype.is_complex else mr.sum().backward()
        if tx.grad is None: assert mx.grad is None
        else: torch.testing.assert_close(to_torch(mx.grad), tx.grad, equal_nan=True)


@pytest.mark.parametrize('values', [[math.inf, 1.0], [-math.inf, -math.inf], [math.inf, math.inf], [math.nan, 1.0],
                                    [-math.inf, 0.0], [1.0, 2.0]])
@pytest.mark.parametrize('op', ['softmax', 'log_softmax', 'logsumexp'])
def test_softmax_special_values(op, values):
    _pair(lambda L, x: getattr(L, op)(x, 0), values, grad=op != 'logsumexp' or all(map(math.isfinite, values)))


@pytest.mark.parametrize('values', [[1.0, math.nan, math.nan, 2.0], [2.0, 1.0, 2.0], [math.nan, 1.0], [3.0]])
@pytest.mark.parametrize('op', ['amax', 'amin', 'max', 'min', 'maxdim', 'mindim'])
def test_max_gradients_ties_and_nan(op, values):
    fns = {'amax': lambda L, x: L.amax(x, 0), 'amin': lambda L, x: L.amin(x, 0), 'max': lambda L, x: L.max(x),
           'min': lambda L, x: L.min(x), 'maxdim': lambda L, x: L.max(x, 0)[0], 'mindim': lambda L, x: L.min(x, 0)[0]}
    _pair(fns[op], values)


@pytest.mark.parametrize('op', ['std', 'std0', 'var', 'std_mean'])
def test_std_zero_variance_gradient(op):
    fns = {'std': lambda L, x: L.std(x), 'std0': lambda L, x: L.std(x, 0), 'var': lambda L, x: L.var(x),
           'std_mean': lambda L, x: L.std_mean(x)[0]}
    _pair(fns[op], [1.5, 1.5, 1.5])
    _pair(lambda L, x: fns[op](L, x.reshape(2, 2)).sum() if op != 'std0' else L.std(x.reshape(2, 2), 1).sum(),
          [1.0, 1.0, 2.0, 3.0])


def test_norm_p0_is_in_the_graph():
    xt = torch.tensor([1.0, 0.0, 3.0], requires_grad=True)
    xm = mt.tensor([1.0, 0.0, 3.0], requires_grad=True)
    rt, rm = torch.norm(xt, 0), mt.norm(xm, 0)
    assert rm.requires_grad == rt.requires_grad
    assert rm.item() == rt.item()
    rt.backward(); rm.backward()
    assert (xm.grad is None) == (xt.grad is None)


@pytest.mark.parametrize('values', [[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 2.0, 3.0], [2.0, 3.0, 0.0], [1.5, -2.0, 0.5],
                                    [0.0, 0.0], [0.0]])
@pytest.mark.parametrize('dtype', [torch.float64, torch.complex128])
def test_cumprod_gradient(values, dtype):
    vals = [v * (1 + 0.5j) if dtype.is_complex and v else v for v in values] if dtype.is_complex else values
    g = torch.linspace(0.5, 2.0, len(values), dtype=torch.float64)
    tx = torch.tensor(vals, dtype=dtype, requires_grad=True)
    mx = mt.tensor(vals, dtype=getattr(mt, dname(tx)), requires_grad=True)
    ((torch.cumprod(tx, 0) * g).sum().real if dtype.is_complex else (torch.cumprod(tx, 0) * g).sum()).backward()
    lm = (mt.cumprod(mx, 0) * to_mt(g)).sum()
    (lm.real if dtype.is_complex else lm).backward()
    torch.testing.assert_close(to_torch(mx.grad), tx.grad)


def test_cumprod_gradient_2d_rows_with_zeros():
    x = torch.tensor([[1.0, 0.0, 2.0, 0.0], [0.5, 2.0, 0.0, 3.0], [1.0, 2.0, 3.0, 4.0]], dtype=torch.float64)
    for dim in (0, 1):
        tx, mx = x.clone().requires_grad_(True), to_mt(x, True)
        g = torch.arange(12, dtype=torch.float64).reshape(3, 4) - 5
        (torch.cumprod(tx, dim) * g).sum().backward()
        (mt.cumprod(mx, dim) * to_mt(g)).sum().backward()
        torch.testing.assert_close(to_torch(mx.grad), tx.grad)


def test_logsumexp_complex_keeps_complex():
    for dt in (torch.complex64, torch.complex128):
        x = torch.tensor([[1 + 1j, 2 - 0.5j], [0.5j, -1 + 0j]], dtype=dt)
        for dim in (0, 1, (0, 1)):
            r, m = torch.logsumexp(x, dim), mt.logsumexp(to_mt(x), dim)
            assert dname(m) == dname(r)
            torch.testing.assert_close(to_torch(m), r)
    _pair(lambda L, x: L.logsumexp(x, 0), [1 + 1j, 2 - 0.5j], dtype=torch.complex128)


# ---------------------------------------------------------------- refusals
@pytest.mark.parametrize('call', [
    lambda L: L.amax(L.tensor([1 + 1j, 2j])), lambda L: L.amin(L.tensor([1 + 1j, 2j]), 0),
    lambda L: L.max(L.tensor([1 + 1j, 2j])), lambda L: L.max(L.tensor([1 + 1j, 2j]), 0),
    lambda L: L.min(L.tensor([1 + 1j])), lambda L: L.min(L.tensor([1 + 1j]), 0),
    lambda L: L.argmax(L.tensor([1 + 1j, 2j])), lambda L: L.argmin(L.tensor([1 + 1j, 2j]), 0),
    lambda L: L.aminmax(L.tensor([1 + 1j, 2j])), lambda L: L.softmax(L.tensor([1 + 1j, 2j]), 0),
    lambda L: L.log_softmax(L.tensor([[1 + 1j, 2j]]), 0), lambda L: L.softmax(L.tensor([[1, 2]]), 1),
    lambda L: L.softmax(L.tensor([[True]]), 0), lambda L: L.argmax(L.tensor([True, False])),
    lambda L: L.matmul(L.tensor([[True]]), L.tensor([[True]])), lambda L: L.mm(L.tensor([[True]]), L.tensor([[True]])),
    lambda L: L.matmul(L.ones(3, 2, 2, dtype=L.bool), L.ones(2, 2, dtype=L.bool)),
    lambda L: L.matmul(L.ones(3, 2, 2, dtype=L.bool), L.ones(2, dtype=L.bool)),
    lambda L: L.matmul(L.ones(2, dtype=L.bool), L.ones(3, 2, 2, dtype=L.bool)),
    lambda L: L.matmul(L.ones(2, 2, dtype=L.bool), L.ones(2, dtype=L.bool)),
    lambda L: L.bmm(L.ones(1, 2, 2, dtype=L.bool), L.ones(1, 2, 2, dtype=L.bool)),
    lambda L: L.dot(L.ones(2, dtype=L.bool), L.ones(2, dtype=L.bool)),
    lambda L: L.sum(L.zeros(2, 3), (0, 0)), lambda L: L.sum(L.zeros(2, 3), (0, -2)),
    lambda L: L.amax(L.zeros(2, 3), (1, 1)), lambda L: L.logsumexp(L.zeros(2, 3), (0, 0)),
    lambda L: L.any(L.zeros(2, 3), (0, 0)), lambda L: L.var(L.zeros(2, 3), (0, 0)),
    lambda L: L.norm(L.zeros(2, 3), 2, (0, 0)), lambda L: L.mean(L.zeros(2, 3), (1, -1)),
    lambda L: L.sum(L.tensor(1.0), 1), lambda L: L.softmax(L.tensor(1.0), 1), lambda L: L.argmax(L.tensor(1.0), -2),
    lambda L: L.amax(L.zeros(3, 0)), lambda L: L.amax(L.zeros(3, 0), 1), lambda L: L.max(L.zeros(0)),
    lambda L: L.argmax(L.zeros(0)), lambda L: L.aminmax(L.zeros(0)), lambda L: L.aminmax(L.zeros(3, 0), dim=1),
    lambda L: L.cumsum(L.tensor([1.0]), 0, dtype=L.bool), lambda L: L.logsumexp(L.zeros(2, 3), ()),
], ids=lambda f: '')
def test_refusals_match_torch(call):
    try: call(torch)
    except Exception as te:
        with pytest.raises(type(te)) as info: call(mt)
        assert str(info.value).split('\n')[0] == str(te).split('\n')[0]
    else: pytest.fail("torch accepted it")


# ---------------------------------------------------------------- matmul
def _mmtol(name):
    return dict(rtol=1e-5, atol=1e-5) if name in ('float32', 'complex64') else _tol(name)


def _mm_case(ashape, bshape, dtype=torch.float64, seed=0, transpose_a=False):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(ashape, generator=g, dtype=torch.float64).to(dtype)
    b = torch.randn(bshape, generator=g, dtype=torch.float64).to(dtype)
    ta, tb = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
    ma, mb = to_mt(a, True), to_mt(b, True)
    xa, ya = (ta.mT, ma.mT) if transpose_a else (ta, ma)
    rt, rm = torch.matmul(xa, tb), mt.matmul(ya, mb)
    torch.testing.assert_close(to_torch(rm), rt.detach(), **_mmtol(dname(rt)))
    gout = torch.randn(rt.shape, generator=g, dtype=torch.float64).to(dtype)
    (rt * gout).sum().abs().backward() if dtype.is_complex else (rt * gout).sum().backward()
    lm = (rm * to_mt(gout)).sum()
    (lm.abs() if dtype.is_complex else lm).backward()
    torch.testing.assert_close(to_torch(ma.grad), ta.grad, **_mmtol(dname(rt)))
    torch.testing.assert_close(to_torch(mb.grad), tb.grad, **_mmtol(dname(rt)))
    return rm, mb


@pytest.mark.parametrize('shapes', [((8, 16, 32), (32, 64)), ((2, 3, 4, 5), (5, 6)), ((3, 4, 5), (5,)),
                                    ((5,), (3, 5, 4)), ((4, 5), (3, 5, 6)), ((2, 1, 3, 4), (5, 4, 2)),
                                    ((3, 4), (4,)), ((4,), (4, 3)), ((4,), (4,)), ((3, 4), (4, 5)), ((0, 3, 4), (4, 2)),
                                    ((2, 3, 0), (0, 2))])
@pytest.mark.parametrize('dtype', [torch.float32, torch.float64, torch.complex64, torch.float16, torch.bfloat16])
def test_matmul_values_and_grads(shapes, dtype):
    _mm_case(*shapes, dtype=dtype)


def test_matmul_nd_at_2d_folds_into_one_mm():
    "(8,16,32) @ (32,64): the weight's gradient is one (32,128)@(128,64) product, not 8 and a sum."
    a = mt.randn(8, 16, 32)
    w = mt.randn(32, 64, requires_grad=True)
    r = mt.matmul(a, w)
    assert r.shape == (8, 16, 64)
    names, stack, seen = [], [r.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen: continue
        seen.add(id(fn)); names.append(fn.name())
        stack += [f for f, _ in fn.next_functions]
    assert 'MmBackward0' in names and 'BmmBackward0' not in names and 'ExpandBackward0' not in names
    _mm_case((8, 16, 32), (32, 64), transpose_a=False)
    _mm_case((2, 32, 16), (32, 64), transpose_a=True)       # a transposed batch folds through a copy


def _plain(A, B):
    "PyTorch's bmm for complex: a plain running sum of complex products."
    n, k, m = A.shape[0], A.shape[1], B.shape[1]
    out = np.zeros((n, m), dtype=np.complex128)
    for i in range(n):
        for j in range(m):
            s = 0j
            for p in range(k):
                a, b = complex(A[i, p]), complex(B[p, j])
                s = s + complex(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real)
            out[i, j] = s
    return out


@pytest.mark.parametrize('seed', range(6))
def test_complex_matmul_inf_nan_as_torch(seed):
    "bmm is torch's plain sum of products; mm/matmul also follow torch's BLAS, whose multiplication by 1 + 0i turns "\
    "some infs into NaN (each compared with its own torch op)."
    rng = np.random.default_rng(seed)
    special = np.array([complex(math.inf, 0), complex(0, math.inf), complex(-math.inf, 1), complex(math.nan, 0),
                        1 + 0j, 1j, 2 - 1j, 0j])
    for n, k, m in [(1, 1, 1), (2, 3, 2), (3, 5, 1), (1, 2, 3)]:
        A = rng.normal(size=(n, k)) + 1j * rng.normal(size=(n, k))
        B = rng.normal(size=(k, m)) + 1j * rng.normal(size=(k, m))
        mask = rng.random((n, k)) < 0.3
        A[mask] = rng.choice(special, mask.sum())
        mask = rng.random((k, m)) < 0.3
        B[mask] = rng.choice(special, mask.sum())
        plain = torch.bmm(torch.tensor(A)[None], torch.tensor(B)[None])[0].numpy()     # torch's plain products
        np.testing.assert_array_equal(np.isnan(plain.real), np.isnan(_plain(A, B).real))
        for got, want in ((mt.mm(mt.tensor(A), mt.tensor(B)), torch.mm(torch.tensor(A), torch.tensor(B))),
                          (mt.bmm(mt.tensor(A[None]), mt.tensor(B[None]))[0], plain),
                          (mt.matmul(mt.tensor(A), mt.tensor(B)), torch.matmul(torch.tensor(A), torch.tensor(B)))):
            g, want = got.numpy(), np.asarray(want)
            for part in ('real', 'imag'):
                w, v = getattr(want, part), getattr(g, part)
                np.testing.assert_array_equal(np.isnan(v), np.isnan(w))
                np.testing.assert_array_equal(np.isinf(v), np.isinf(w))
                fin = np.isfinite(w)
                np.testing.assert_allclose(v[fin], w[fin], rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- size-0 dims that are not reduced, 0-d dims
@pytest.mark.parametrize('call', [
    lambda L, x: L.softmax(x, 1), lambda L, x: L.softmax(x, 0), lambda L, x: L.log_softmax(x, 1),
    lambda L, x: L.logsumexp(x, 1), lambda L, x: L.logsumexp(x, 0), lambda L, x: L.amax(x, 0),
    lambda L, x: L.sum(x, 1), lambda L, x: L.prod(x, 1), lambda L, x: L.cumsum(x, 1), lambda L, x: L.var(x, 1),
    lambda L, x: tuple(L.max(x, 0)), lambda L, x: L.argmax(x, 0), lambda L, x: L.any(x, 1),
    lambda L, x: tuple(L.aminmax(x, dim=0)),
], ids=lambda f: '')
def test_size0_dims(call):
    _report(compare(call, (3, 0), 'float32', 'contiguous'))


@pytest.mark.parametrize('p', [0.5, 1, 1.5, 2, 2.5, 3, math.inf, -math.inf])
@pytest.mark.parametrize('values', [[0.0, 1.0, -4.0], [0.0, 0.0], [1 + 1j, 0j, 2 - 1j], [0j, 0j]])
def test_norm_p_gradient_at_zero(p, values):
    dtype = torch.complex128 if isinstance(values[0], complex) else torch.float64
    tx = torch.tensor(values, dtype=dtype, requires_grad=True)
    mx = to_mt(tx.detach(), True)
    rt, rm = torch.norm(tx, p), mt.norm(mx, p)
    torch.testing.assert_close(to_torch(rm), rt.detach())
    rt.backward(); rm.backward()
    torch.testing.assert_close(to_torch(mx.grad), tx.grad, equal_nan=True)


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'complex64', 'float16', 'bfloat16', 'int64', 'bool'])
def test_matmul_family_layouts(dtype):
    "matmul/mm/bmm/dot/mv with the first operand in every layout, against a fixed second operand."
    bad = []
    calls = {
        'matmul': [(4, 5), (4,), (2, 4, 5), (1, 4, 2), (3, 5)],
        'mm': [(4, 5)], 'bmm': [(2, 4, 3)], 'dot': [(4,)], 'mv': [(4,)],
    }
    for op, others in calls.items():
        for shape in [(3, 4), (2, 3, 4), (4,), (1, 3, 4), (0, 4), ()]:
            for layout in layouts_for(shape):
                if 0 in shape and layout == 'offset': continue
                for k, other in enumerate(others):
                    ob = make_base(other, dtype, 7 + k)
                    f = lambda L, x, ob=ob, op=op: getattr(L, op)(x, ob if L is torch else to_mt(ob))
                    bad += [f"{op} {shape} {layout} @ {other}: {e}" for e in compare(f, shape, dtype, layout)]
    _report(bad)


@pytest.mark.parametrize('eq,a,b', [('ij,jk->ik', (3, 4), (4, 5)), ('ii->i', (3, 3), None), ('ii', (3, 3), None),
                                    ('bij,bjk->bik', (2, 3, 4), (2, 4, 5)), ('...ij,...jk', (2, 3, 4), (4, 5)),
                                    ('i,i', (4,), (4,)), ('i,j->ij', (3,), (4,)), ('ij->', (3, 4), None),
                                    ('bii->b', (2, 3, 3), None), ('ijk,k->ij', (2, 3, 4), (4,)),
                                    ('i,i->', (0,), (0,)), ('ij,ij->ij', (2, 1), (2, 0)), ('ij,jk', (2, 3), (1, 4))])
@pytest.mark.parametrize('dtype', [torch.float64, torch.complex128])
def test_einsum(eq, a, b, dtype):
    g = torch.Generator().manual_seed(0)
    ops = [torch.randn(a, generator=g, dtype=dtype).requires_grad_(True)]
    if b: ops.append(torch.randn(b, generator=g, dtype=dtype).requires_grad_(True))
    mops = [to_mt(o, True) for o in ops]
    r, m = torch.einsum(eq, *ops), mt.einsum(eq, *mops)
    torch.testing.assert_close(to_torch(m), r.detach())
    go = torch.randn(r.shape, generator=g, dtype=dtype)
    (r * go).sum().real.backward()
    (m * to_mt(go)).sum().real.backward()
    for o, mo in zip(ops, mops): torch.testing.assert_close(to_torch(mo.grad), o.grad)


_NP_OPS = ['sum', 'mean', 'max', 'min', 'argmax', 'argmin', 'amax', 'amin', 'prod', 'std', 'var', 'any', 'all',
           'logsumexp', 'var_mean', 'std_mean', 'aminmax', 'count_nonzero', 'softmax', 'log_softmax', 'cumsum', 'cumprod']


@pytest.mark.parametrize('op', _NP_OPS)
@pytest.mark.parametrize('kw', [dict(axis=0), dict(axis=1, keepdims=True), dict(dim=0, keepdims=True),
                                dict(axis=-1, keepdim=True), dict(axis=(0, 1)), dict(axis=0, dim=0),
                                dict(dim=1, keepdim=True, keepdims=True)])
@pytest.mark.parametrize('how', ['function', 'method'])
def test_numpy_keywords(op, kw, how):
    "axis=/keepdims= as PyTorch's argument parser takes them: same results, TypeError where torch refuses."
    g = torch.Generator().manual_seed(0)
    t = torch.randn(3, 4, generator=g, dtype=torch.float64)
    if op in ('any', 'all'): t = t > 0
    m = mt.tensor(t.numpy())
    def call(L, x):
        return getattr(L, op)(x, **kw) if how == 'function' else getattr(x, op)(**kw)
    try: r = call(torch, t)
    except (TypeError, AttributeError) as e:
        with pytest.raises(type(e)): call(mt, m)
        return
    out = call(mt, m)
    rs, ms = (r, out) if isinstance(r, tuple) else ((r,), (out,))
    assert len(rs) == len(ms)
    for a, b in zip(rs, ms): torch.testing.assert_close(torch.from_numpy(np.asarray(b.numpy())), a)
