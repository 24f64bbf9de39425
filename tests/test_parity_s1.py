"Issue 12 parity: statistics, reductions and scatter against torch (histc, quantile, trapezoid, cumsum, scatter_reduce)."
import math
import numpy as np
import pytest
import torch
import minitorch as mt

inf, nan = float('inf'), float('nan')


def _mt(t: torch.Tensor, **kw) -> mt.Tensor:
    if t.dtype == torch.bfloat16:
        return mt.tensor(t.float().numpy(), **kw).to(mt.bfloat16)
    return mt.tensor(t.numpy(), **kw)


def _torch(m: mt.Tensor) -> torch.Tensor:
    if m.dtype == mt.bfloat16: return torch.tensor(m.float().numpy()).to(torch.bfloat16)
    return torch.from_numpy(np.array(m.detach().numpy()))


def _same_nan_placement(a: torch.Tensor, b: torch.Tensor) -> None:
    ra, rb = torch.view_as_real(a), torch.view_as_real(b)
    assert torch.equal(ra.isnan(), rb.isnan()), (a, b)
    torch.testing.assert_close(ra.nan_to_num(), rb.nan_to_num())


def _raises_like(fn_t, fn_m):
    with pytest.raises(Exception) as et: fn_t()
    with pytest.raises(type(et.value)) as em: fn_m()
    assert str(em.value) == str(et.value), (str(em.value), str(et.value))


@pytest.mark.parametrize('dtype', [torch.bfloat16, torch.float16, torch.float32, torch.float64])
@pytest.mark.parametrize('kw', [{}, dict(bins=4), dict(min=-1.0), dict(min=-1.0, max=1.0), dict(bins=7, min=-0.3, max=0.9)])
def test_histc_bins_in_input_dtype(dtype, kw):
    "The bin index is (x - min) * bins / (max - min) rounded in the input's dtype at every step, as PyTorch's kernel."
    g = torch.Generator().manual_seed(3)
    for _ in range(20):
        t = torch.randn(30, generator=g).to(dtype)
        torch.testing.assert_close(_torch(mt.histc(_mt(t), **kw)), torch.histc(t, **kw), rtol=0, atol=0)


@pytest.mark.parametrize('dtype', [torch.complex64, torch.complex128, torch.int64, torch.int8, torch.bool])
@pytest.mark.parametrize('kw', [{}, dict(min=-1.0), dict(min=-1.0, max=1.0)])
@pytest.mark.parametrize('n', [0, 3])
def test_histc_refuses_non_float(dtype, kw, n):
    t = torch.zeros(n, dtype=dtype)
    _raises_like(lambda: torch.histc(t, **kw), lambda: mt.histc(_mt(t), **kw))


@pytest.mark.parametrize('dtype', [torch.bfloat16, torch.float16])
def test_quantile_refuses_half(dtype):
    t = torch.randn(4).to(dtype)
    _raises_like(lambda: torch.quantile(t, 0.25, dim=-1, interpolation='lower'),
                 lambda: mt.quantile(_mt(t), 0.25, dim=-1, interpolation='lower'))


def test_cumulative_trapezoid_complex_inf_follows_torch_arithmetic():
    "(y[i] + y[i+1]) (an add whose alpha multiplies y[i+1] as a complex), times dx/2, then the running sum."
    import random
    random.seed(0)
    vals = [0, 1, -1, inf, -inf, nan, 2.5]
    for _ in range(300):
        y = torch.tensor([complex(random.choice(vals), random.choice(vals)) for _ in range(4)])
        dx = random.choice([None, 1.0, 2.0, 0.5])
        kw = {} if dx is None else dict(dx=dx)
        _same_nan_placement(_torch(mt.cumulative_trapezoid(_mt(y), **kw)), torch.cumulative_trapezoid(y, **kw))
        x = torch.tensor([0., 1., 3., 3.5], dtype=torch.float64)
        _same_nan_placement(_torch(mt.cumulative_trapezoid(_mt(y), _mt(x))), torch.cumulative_trapezoid(y, x))
        _same_nan_placement(_torch(mt.trapezoid(_mt(y), _mt(x))).reshape(1), torch.trapezoid(y, x).reshape(1))


def test_cumulative_trapezoid_real_values():
    g = torch.Generator().manual_seed(0)
    y, x = torch.randn(3, 6, generator=g, dtype=torch.float64), torch.rand(6, generator=g, dtype=torch.float64).cumsum(0)
    torch.testing.assert_close(_torch(mt.cumulative_trapezoid(_mt(y), _mt(x))), torch.cumulative_trapezoid(y, x))
    torch.testing.assert_close(_torch(mt.cumulative_trapezoid(_mt(y), dx=0.3, dim=0)), torch.cumulative_trapezoid(y, dx=0.3, dim=0))


@pytest.mark.parametrize('op', ['cumsum', 'cumprod', 'logcumsumexp'])
@pytest.mark.parametrize('dtype', [torch.float32, torch.complex64])
def test_cpu_scans_accumulate_in_double(op, dtype):
    "PyTorch's CPU scans keep the running value in double (complex<double>) for float32 (complex64): bit-exact."
    g = torch.Generator().manual_seed(5)
    t = (1 + 0.01 * torch.randn(20, 60, generator=g, dtype=torch.float64)).to(dtype)
    if dtype.is_complex: t = t + 0.01j * torch.randn(20, 60, generator=g, dtype=torch.float64).to(dtype)
    for d in (0, 1):
        assert torch.equal(_torch(getattr(mt, op)(_mt(t), d)), getattr(torch, op)(t, d))


def test_cumsum_gradient_is_a_double_accumulated_reverse_cumsum():
    g = torch.Generator().manual_seed(6)
    x = torch.randn(4, 50, generator=g, dtype=torch.complex64, requires_grad=True)
    gy = torch.randn(4, 50, generator=g, dtype=torch.complex64)
    torch.cumsum(x, 1).backward(gy)
    mx = _mt(x.detach()).requires_grad_()
    mt.cumsum(mx, 1).backward(_mt(gy))
    assert torch.equal(_torch(mx.grad), x.grad)


@pytest.mark.parametrize('dtype', [torch.complex128, torch.bool, torch.float32, torch.int64])
@pytest.mark.parametrize('shape', [(), (3,), (2, 3), (0,), (2, 0)])
@pytest.mark.parametrize('k,dim', [(1, -1), (1, 0), (3, -1), (5, -1), (2, -2)])
@pytest.mark.parametrize('rg', [False, True])
def test_kthvalue_checks_like_torch(dtype, shape, k, dim, rg):
    "A 0-d input is copied without the kernel (bool and complex work; autograd still refuses a complex output);"\
    " an empty dim is an IndexError first; the dim is named wrapped."
    if rg and not (dtype.is_floating_point or dtype.is_complex): return
    t = torch.arange(math.prod(shape)).reshape(shape).to(dtype).requires_grad_(rg)
    m = _mt(t.detach()).requires_grad_(rg)
    try: r = torch.kthvalue(t, k, dim)
    except Exception as e:
        with pytest.raises(type(e)) as em: mt.kthvalue(m, k, dim)
        assert str(em.value) == str(e)
        return
    mr = mt.kthvalue(m, k, dim)
    assert torch.equal(_torch(mr.values), r.values.detach()) and torch.equal(_torch(mr.indices), r.indices)


@pytest.mark.parametrize('reduce', ['amax', 'amin', 'prod', 'sum', 'mean'])
@pytest.mark.parametrize('include_self', [True, False])
@pytest.mark.parametrize('shapes', [((1,), (1,), (2,), 0), ((3, 3), (1, 1), (2, 1), 0), ((3, 3), (1, 1), (2, 3), 0),
                                    ((3, 3), (2, 1), (3, 3), 1), ((3, 3), (2, 2), (2, 2), 0)])
@pytest.mark.parametrize('gfill', [nan, 1.0])
def test_scatter_reduce_grad_of_unread_src(reduce, include_self, shapes, gfill):
    "amax/amin/prod's formulas compare the whole src with values gathered at index (broadcasting): src entries the"\
    " scatter never read still get a gradient, NaN when the incoming one is."
    xs, ishp, ss, d = shapes
    g = torch.Generator().manual_seed(7)
    xv, sv = torch.randint(0, 3, xs, generator=g).double(), torch.randint(0, 3, ss, generator=g).double()
    iv = torch.randint(0, xs[d], ishp, generator=g)
    x, s = xv.clone().requires_grad_(), sv.clone().requires_grad_()
    try: torch.scatter_reduce(x, d, iv, s, reduce, include_self=include_self).backward(torch.full(xs, gfill, dtype=torch.float64))
    except RuntimeError: return              # torch's backward refuses a src its formula cannot broadcast
    mx, ms = _mt(xv).requires_grad_(), _mt(sv).requires_grad_()
    mt.scatter_reduce(mx, d, _mt(iv), ms, reduce, include_self=include_self).backward(mt.full(xs, gfill, dtype=mt.float64))
    torch.testing.assert_close(_torch(mx.grad), x.grad, equal_nan=True)
    torch.testing.assert_close(_torch(ms.grad), s.grad, equal_nan=True)


@pytest.mark.parametrize('dtype', [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64])
@pytest.mark.parametrize('kw', [dict(min=-1.0, max=1.0), dict(min=0., max=300.), dict(min=0., max=1e10), {},
                                dict(min=0.5, max=2.5), dict(min=2., max=1.), dict(min=-2., max=inf)])
@pytest.mark.parametrize('n', [0, 3])
def test_histc_integer_range_overflow(dtype, kw, n):
    "linspace converts the range to an integer dtype first (an overflow is a RuntimeError), then the kernel refuses."
    t = torch.zeros(n, dtype=dtype)
    _raises_like(lambda: torch.histc(t, **kw), lambda: mt.histc(_mt(t), **kw))


@pytest.mark.parametrize('fn', ['trapezoid', 'cumulative_trapezoid'])
def test_trapezoid_bool_scalar_check_order(fn):
    t = torch.tensor(True)
    _raises_like(lambda: getattr(torch, fn)(t, dim=0), lambda: getattr(mt, fn)(_mt(t), dim=0))


@pytest.mark.parametrize('interpolation', ['linear', 'lower', 'higher', 'midpoint', 'nearest'])
@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
def test_quantile_lerps_like_torch(interpolation, dtype):
    "linear/midpoint are always a lerp (inf with itself gives NaN); the rank q * (n - 1) is found in the input's dtype."
    g = torch.Generator().manual_seed(8)
    for i in range(40):
        t = torch.randn(int(torch.randint(1, 8, (1,), generator=g)), generator=g, dtype=dtype)
        if i % 4 == 0: t[0] = inf
        if i % 9 == 0: t[:] = -inf
        for q in (0.0, 0.25, 0.5, 0.9, 1.0):
            torch.testing.assert_close(_torch(mt.quantile(_mt(t), q, interpolation=interpolation)),
                                       torch.quantile(t, q, interpolation=interpolation), equal_nan=True)


def test_var_mean_of_a_complex_scalar_is_itself():
    t = torch.tensor(complex(inf, 1.0))
    for f in ('var_mean', 'std_mean'):
        _same_nan_placement(_torch(getattr(mt, f)(_mt(t), correction=0)[1]).reshape(1),
                            getattr(torch, f)(t, correction=0)[1].reshape(1))


@pytest.mark.parametrize('f', ['median', 'nanmedian'])
@pytest.mark.parametrize('shape', [(2, 0, 4), (0,), (2, 3)])
def test_median_of_empty_complex_refuses_autograd(f, shape):
    t = torch.zeros(shape, dtype=torch.complex128, requires_grad=True)
    m = _mt(t.detach()).requires_grad_()
    _raises_like(lambda: getattr(torch, f)(t), lambda: getattr(mt, f)(m))


def test_trapezoid_of_empty_bool_is_zeros():
    t = torch.zeros(0, dtype=torch.bool)
    assert torch.equal(_torch(mt.trapezoid(_mt(t))).reshape(()), torch.trapezoid(t))


@pytest.mark.parametrize('dtype', [torch.complex64, torch.complex128])
def test_cumprod_complex_inf_nan_placement(dtype):
    "torch's running product starts at 1+0j and multiplies by (ac - bd, ad + bc): an inf first element gives NaN."
    import random
    random.seed(1)
    vals = [0, 1, -1, inf, -inf, nan, 2.5, 0.3]
    for _ in range(100):
        y = torch.tensor([[complex(random.choice(vals), random.choice(vals)) for _ in range(4)] for _ in range(3)]).to(dtype)
        for d in (0, 1):
            _same_nan_placement(_torch(mt.cumprod(_mt(y), d)), torch.cumprod(y, d))


def test_cumprod_complex_1d_and_empty():
    for v in ([complex(inf, 1), 1 + 1j, 2 + 0j], [1 + 2j], []):
        t = torch.tensor(v, dtype=torch.complex64)
        _same_nan_placement(_torch(mt.cumprod(_mt(t), -1)), torch.cumprod(t, -1))


@pytest.mark.parametrize('f', ['median', 'nanmedian'])
@pytest.mark.parametrize('v', [[inf], [-inf, 1.], [1., 2., 2., 3.], [nan, 1., nan], [2., 2., 2.]])
def test_median_all_value_and_even_gradient(f, v):
    "The value is the element itself (an inf is not turned into NaN by the gradient's bookkeeping); g / count at copies."
    x = torch.tensor(v, requires_grad=True); r = getattr(torch, f)(x); r.backward()
    m = mt.tensor(v, requires_grad=True); mr = getattr(mt, f)(m); mr.backward()
    torch.testing.assert_close(_torch(mr).reshape(()), r.detach(), equal_nan=True)
    torch.testing.assert_close(_torch(m.grad), x.grad)
