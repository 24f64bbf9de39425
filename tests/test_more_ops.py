"Tests of minitorch.more_ops against torch."
import math
import numpy as np
import pytest
import torch
import minitorch
from minitorch import more_ops as mo

D = {torch.float32: minitorch.float32, torch.float64: minitorch.float64, torch.int64: minitorch.int64,
     torch.bool: minitorch.bool, torch.int32: minitorch.int32}

def M(t, grad=False):
    r = minitorch.tensor(t.detach().numpy().copy(), dtype=D[t.dtype])
    return r.requires_grad_() if grad else r

def close(m, t, tol=None):
    assert isinstance(m, minitorch.Tensor), type(m)
    assert D[t.dtype] == m.dtype, (m.dtype, t.dtype)
    assert tuple(m.shape) == tuple(t.shape), (m.shape, t.shape)
    tol = tol or (1e-5 if t.dtype == torch.float32 else 1e-10)
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol, equal_nan=True)

def check(name, *ts, grad=True, kw={}, tfn=None, mfn=None, tol=None, out=None):
    "Compare `minitorch.more_ops.<name>(*ts, **kw)` with `torch.<name>`; values, dtype and gradients."
    tfn = tfn or getattr(torch, name); mfn = mfn or getattr(mo, name)
    tt = [t.clone().requires_grad_() if grad and isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in ts]
    mm = [M(t, grad=grad and t.is_floating_point()) if isinstance(t, torch.Tensor) else t for t in ts]
    r, q = tfn(*tt, **kw), mfn(*mm, **kw)
    if out is not None: r, q = r[out], q[out]
    close(q, r, tol)
    if grad and r.requires_grad:
        g = torch.randn(r.shape, dtype=r.dtype)
        r.backward(g); q.backward(M(g))
        for a, b in zip(tt, mm):
            if isinstance(a, torch.Tensor) and a.requires_grad:
                if b.grad is None: assert not a.grad.any()   # an input the result does not depend on
                else: close(b.grad, a.grad, tol)
    return q, r

def rnd(*s, dtype=torch.float64, lo=None):
    g = torch.Generator().manual_seed(hash(s) % 1000)
    if dtype == torch.int64: return torch.randint(-5, 6, s, generator=g)
    x = torch.randn(*s, generator=g, dtype=dtype)
    return x.abs() + lo if lo is not None else x

FL = [torch.float32, torch.float64]

@pytest.mark.parametrize('dt', FL)
def test_addmm_family(dt):
    check('addmm', rnd(2, 4, dtype=dt), rnd(2, 3, dtype=dt), rnd(3, 4, dtype=dt), kw=dict(beta=0.5, alpha=2))
    check('addmm', rnd(4, dtype=dt), rnd(2, 3, dtype=dt), rnd(3, 4, dtype=dt))
    check('addmv', rnd(2, dtype=dt), rnd(2, 3, dtype=dt), rnd(3, dtype=dt), kw=dict(beta=2, alpha=-1))
    check('addr', rnd(2, 3, dtype=dt), rnd(2, dtype=dt), rnd(3, dtype=dt), kw=dict(beta=0.3, alpha=1.5))
    check('baddbmm', rnd(2, 2, 4, dtype=dt), rnd(2, 2, 3, dtype=dt), rnd(2, 3, 4, dtype=dt), kw=dict(beta=0.5, alpha=2))
    check('addbmm', rnd(2, 4, dtype=dt), rnd(3, 2, 3, dtype=dt), rnd(3, 3, 4, dtype=dt), kw=dict(beta=0.5, alpha=2))
    check('addcmul', rnd(2, 3, dtype=dt), rnd(2, 3, dtype=dt), rnd(3, dtype=dt), kw=dict(value=0.5))
    check('addcdiv', rnd(2, 3, dtype=dt), rnd(2, 3, dtype=dt), rnd(3, dtype=dt, lo=0.5), kw=dict(value=-2))

def test_addmm_beta0_ignores_nan():
    inp = torch.full((2, 2), float('nan'), dtype=torch.float64)
    check('addmm', inp, rnd(2, 3), rnd(3, 2), kw=dict(beta=0), grad=False)

def test_addmm_int():
    check('addmm', rnd(2, 2, dtype=torch.int64), rnd(2, 3, dtype=torch.int64), rnd(3, 2, dtype=torch.int64), kw=dict(beta=2, alpha=3))
    check('addcmul', rnd(2, 2, dtype=torch.int64), rnd(2, 2, dtype=torch.int64), rnd(2, 2, dtype=torch.int64), kw=dict(value=2))

def test_addcdiv_int_raises():
    i = torch.tensor([1, 2]); m = M(i)
    with pytest.raises(RuntimeError): torch.addcdiv(i, i, i)
    with pytest.raises(RuntimeError): mo.addcdiv(m, m, m)

@pytest.mark.parametrize('dt', FL)
def test_lerp(dt):
    check('lerp', rnd(2, 3, dtype=dt), rnd(2, 3, dtype=dt), 0.3)
    check('lerp', rnd(2, 3, dtype=dt), rnd(3, dtype=dt), rnd(2, 1, dtype=dt))
    i = torch.tensor([1, 2])
    with pytest.raises(RuntimeError): torch.lerp(i, i, 0.5)
    with pytest.raises(RuntimeError): mo.lerp(M(i), M(i), 0.5)

UN = ['logit', 'sinc', 'frac', 'deg2rad', 'rad2deg']

@pytest.mark.parametrize('dt', FL)
@pytest.mark.parametrize('name', UN)
def test_unary(name, dt):
    x = torch.tensor([-2.5, -0.7, 0.0, 0.2, 0.5, 1.3, 4.0], dtype=dt)
    if name == 'logit': x = torch.tensor([0.01, 0.2, 0.5, 0.9], dtype=dt)
    tol = 1e-4 if dt == torch.float32 and name == 'sinc' else None   # float32 cancellation in sinc'
    check(name, x, tol=tol)
    check(name, rnd(3, 4, dtype=dt).t() if name != 'logit' else x.reshape(2, 2).t(), tol=tol)

def test_unary_int():
    x = torch.tensor([-3, 0, 2, 5])
    for name in UN:
        try: r = getattr(torch, name)(x)
        except RuntimeError:
            with pytest.raises(RuntimeError): getattr(mo, name)(M(x))
            continue
        close(getattr(mo, name)(M(x)), r)

def test_logit_eps():
    x = torch.tensor([0.0, 0.1, 0.5, 0.97, 1.0], dtype=torch.float64)
    check('logit', x, kw=dict(eps=0.05))

BIN = ['logaddexp', 'logaddexp2', 'hypot', 'xlogy', 'copysign', 'fmax', 'fmin', 'float_power']

@pytest.mark.parametrize('dt', FL)
@pytest.mark.parametrize('name', BIN)
def test_binary(name, dt):
    a, b = rnd(3, 4, dtype=dt), rnd(4, dtype=dt)
    if name in ('xlogy', 'float_power'): b = b.abs() + 0.1
    if name == 'float_power': a = a.abs() + 0.1
    check(name, a, b)
    check(name, a.t(), rnd(4, 3, dtype=dt).abs() + 0.1)

def test_binary_edges():
    inf, nan = float('inf'), float('nan')
    a = torch.tensor([-inf, inf, 1.0, nan, 2.0, 0.0, 1.0, -0.0], dtype=torch.float64)
    b = torch.tensor([-inf, inf, -inf, 1.0, nan, nan, 1.0, 3.0], dtype=torch.float64)
    for name in ['logaddexp', 'logaddexp2', 'fmax', 'fmin', 'copysign']:
        check(name, a, b, grad=False)
    x = torch.tensor([0.0, 0.0, 2.0, 1.0], dtype=torch.float64); y = torch.tensor([0.0, nan, 3.0, 0.5], dtype=torch.float64)
    check('xlogy', x, y, grad=False)
    # ties: fmax's gradient goes to the first argument, logaddexp's is split
    t = torch.tensor([1.0, 2.0], dtype=torch.float64)
    check('fmax', t, t.clone()); check('fmin', t, t.clone()); check('logaddexp', t, t.clone())

def test_binary_int():
    a, b = torch.tensor([-3, 0, 2, 5]), torch.tensor([2, -1, 0, 5])
    for name in BIN:
        try: r = getattr(torch, name)(a, b)
        except RuntimeError:
            with pytest.raises(RuntimeError): getattr(mo, name)(M(a), M(b))
            continue
        close(getattr(mo, name)(M(a), M(b)), r)

def test_heaviside():
    x = torch.tensor([-1.5, 0.0, 2.0, 0.0]); v = torch.tensor([0.5, 0.25, 0.5, 0.75])
    check('heaviside', x, v, grad=False)
    check('heaviside', torch.tensor([-2, 0, 3]), torch.tensor([7]), grad=False)
    with pytest.raises(RuntimeError): torch.heaviside(x, v.double())
    with pytest.raises(RuntimeError): mo.heaviside(M(x), M(v.double()))

def test_float_power_scalar():
    check('float_power', rnd(3, dtype=torch.float32).abs(), 2.5)
    check('float_power', torch.tensor([1, 2, 3]), 2, grad=False)

def test_nan_to_num():
    x = torch.tensor([float('nan'), float('inf'), -float('inf'), 1.5])
    check('nan_to_num', x)
    check('nan_to_num', x.double(), kw=dict(nan=1.0, posinf=9.0))
    check('nan_to_num', x, kw=dict(neginf=-7.0))
    check('nan_to_num', torch.tensor([1, 2]), grad=False)

@pytest.mark.parametrize('dt', FL)
def test_nansum_nanmean(dt):
    x = rnd(3, 4, dtype=dt); x[0, 1] = float('nan'); x[2, 3] = float('nan')
    for name in ('nansum', 'nanmean'):
        check(name, x)
        check(name, x, kw=dict(dim=1))
        check(name, x, kw=dict(dim=0, keepdim=True))
        check(name, x.t(), kw=dict(dim=(0, 1)))
    check('nansum', torch.tensor([[1, 2], [3, 4]]), grad=False)
    check('nansum', torch.tensor([[1, 2], [3, 4]]), kw=dict(dim=0), grad=False)
    with pytest.raises(RuntimeError): torch.nanmean(torch.tensor([1, 2]))
    with pytest.raises(RuntimeError): mo.nanmean(M(torch.tensor([1, 2])))

def test_diff():
    x = rnd(3, 5)
    check('diff', x)
    check('diff', x, kw=dict(n=2, dim=0))
    p, a = rnd(3, 2), rnd(3, 1)
    close(mo.diff(M(x), 3, 1, prepend=M(p), append=M(a)), torch.diff(x, 3, 1, prepend=p, append=a))
    check('diff', torch.tensor([1, 4, 9, 16]), kw=dict(n=2), grad=False)
    check('diff', torch.tensor([True, False, False, True]), grad=False)

@pytest.mark.parametrize('name', ['cummax', 'cummin'])
def test_cummax_cummin(name):
    x = torch.tensor([[1.0, 3.0, 3.0, 2.0, 5.0], [2.0, 2.0, 1.0, float('nan'), 0.0]], dtype=torch.float64)
    for d in (0, 1, -1):
        check(name, x[:1], kw=dict(dim=d), out=0)
        check(name, x, kw=dict(dim=d), out=1, grad=False)
        check(name, x, kw=dict(dim=d), out=0, grad=False)
    check(name, rnd(4, 3), kw=dict(dim=0), out=0)
    check(name, torch.tensor([3, 1, 3, 4, 0]), kw=dict(dim=0), out=1, grad=False)
    r = getattr(mo, name)(M(rnd(4)), 0); assert r.values is r[0] and r.indices is r[1]

def test_logcumsumexp():
    check('logcumsumexp', rnd(3, 5), kw=dict(dim=1))
    check('logcumsumexp', rnd(3, 5, dtype=torch.float32).t(), kw=dict(dim=0))
    check('logcumsumexp', torch.tensor([-1000.0, 0.0, -float('inf'), 1000.0], dtype=torch.float64), kw=dict(dim=0))

def test_median():
    x = torch.tensor([[3.0, 1.0, 2.0, 2.0], [5.0, 5.0, 0.0, 7.0], [1.0, 2.0, 3.0, 4.0]], dtype=torch.float64)
    check('median', x)            # lower median; gradient spread over the ties
    check('median', x[:, :3])
    for d in (0, 1):
        q, r = check('median', x, kw=dict(dim=d), out=0, grad=False)
        mr = mo.median(M(x), dim=d)
        close(M(x).gather(d, mr.indices.unsqueeze(d)).squeeze(d), r)
    y = rnd(3, 5)
    check('median', y, kw=dict(dim=1), out=0)
    close(mo.median(M(y), dim=1, keepdim=True).indices, torch.median(y, dim=1, keepdim=True).indices)
    check('median', torch.tensor([4, 1, 3, 2]), grad=False)
    n = torch.tensor([1.0, float('nan'), 3.0, 2.0])
    check('median', n, grad=False); check('nanmedian', n, grad=False)
    check('median', n.reshape(2, 2), kw=dict(dim=1), out=0, grad=False)
    check('nanmedian', torch.tensor([float('nan')] * 2), grad=False)
    check('nanmedian', x)

def test_kthvalue():
    y = rnd(3, 5)
    for k in (1, 3, 5):
        check('kthvalue', y, k, out=0); check('kthvalue', y, k, out=1, grad=False)
    check('kthvalue', y, 2, kw=dict(dim=0, keepdim=True), out=0)
    check('kthvalue', y, 2, kw=dict(dim=0, keepdim=True), out=1, grad=False)
    check('kthvalue', torch.tensor([5, 1, 4]), 2, out=0, grad=False)
    with pytest.raises(RuntimeError): mo.kthvalue(M(y), 6)

@pytest.mark.parametrize('dt', FL)
def test_quantile(dt):
    x = rnd(4, 5, dtype=dt)
    check('quantile', x, 0.3)
    check('quantile', x, 0.5, kw=dict(dim=1))
    check('quantile', x, 0.75, kw=dict(dim=0, keepdim=True))
    for q, kw in [([0.0, 0.25, 1.0], dict(dim=1)), ([0.1, 0.9], dict(keepdim=True)), ([0.5, 0.2], dict(dim=0, keepdim=True))]:
        tq = torch.tensor(q, dtype=dt)
        check('quantile', x, kw=kw, tfn=lambda x, **k: torch.quantile(x, tq, **k), mfn=lambda x, **k: mo.quantile(x, M(tq), **k))
    n = x.clone(); n[1, 2] = float('nan')
    check('quantile', n, 0.4, kw=dict(dim=1), grad=False)
    with pytest.raises(RuntimeError): torch.quantile(torch.tensor([1, 2]), 0.5)
    with pytest.raises(RuntimeError): mo.quantile(M(torch.tensor([1, 2])), 0.5)

def test_tensordot_inner_kron():
    a, b = rnd(2, 3, 4), rnd(3, 4, 5)
    check('tensordot', a, b, kw=dict(dims=2))
    check('tensordot', a, rnd(4, 2), kw=dict(dims=([0, 2], [1, 0])))
    check('tensordot', a, rnd(5), kw=dict(dims=0))
    check('inner', rnd(2, 3), rnd(4, 3))
    check('inner', rnd(3), rnd(3))
    check('kron', rnd(2, 3), rnd(3, 2))
    check('kron', rnd(2), rnd(2, 3))
    check('kron', torch.tensor([[1, 2], [3, 4]]), torch.tensor([1, -1]), grad=False)

def test_cross_dist_cdist():
    check('cross', rnd(4, 3), rnd(4, 3), kw=dict(dim=1))
    check('cross', rnd(3, 2), rnd(3, 2), kw=dict(dim=0))
    for p in (1, 2, 3, float('inf')): check('dist', rnd(3, 4), rnd(4), kw=dict(p=p))
    for p in (1.0, 2.0):
        check('cdist', rnd(4, 3), rnd(5, 3), kw=dict(p=p))
        check('cdist', rnd(2, 4, 3), rnd(2, 5, 3), kw=dict(p=p))

def test_cov_corrcoef():
    x = rnd(3, 6)
    check('cov', x); check('cov', x, kw=dict(correction=0)); check('cov', rnd(6))
    check('corrcoef', x)
    check('cov', torch.tensor([[1, 2, 4], [3, 1, 0]]), grad=False)

def test_meshgrid_cartesian_block_diag():
    a, b, c = rnd(2), rnd(3), rnd(4)
    for ind in ('ij', 'xy'):
        r, q = torch.meshgrid(a, b, c, indexing=ind), mo.meshgrid(M(a), M(b), M(c), indexing=ind)
        for u, v in zip(q, r): close(u, v)
        r, q = torch.meshgrid([a, b], indexing=ind), mo.meshgrid([M(a), M(b)], indexing=ind)
        for u, v in zip(q, r): close(u, v)
    check('cartesian_prod', a, b)
    close(mo.cartesian_prod(M(a)), torch.cartesian_prod(a))
    check('block_diag', rnd(2, 3), rnd(4), torch.tensor(2.0, dtype=torch.float64), rnd(1, 2))
    close(mo.block_diag(M(torch.tensor([[1, 2]])), M(torch.tensor([[1.5]]))), torch.block_diag(torch.tensor([[1, 2]]), torch.tensor([[1.5]])))

def test_atleast_stack_split():
    s, v, m, t = torch.tensor(1.0), torch.tensor([1.0, 2.0]), rnd(2, 3), rnd(2, 3, 2)
    for name in ('atleast_1d', 'atleast_2d', 'atleast_3d'):
        for x in (s, v, m, t): close(getattr(mo, name)(M(x)), getattr(torch, name)(x))
        for u, w in zip(getattr(mo, name)(M(s), M(m)), getattr(torch, name)(s, m)): close(u, w)
    close(mo.dstack([M(m), M(m)]), torch.dstack([m, m]))
    close(mo.dstack([M(v), M(v)]), torch.dstack([v, v]))
    close(mo.column_stack([M(v), M(m)]), torch.column_stack([v, m]))
    close(mo.row_stack([M(v), M(v)]), torch.row_stack([v, v]))
    x = rnd(4, 6, 2)
    for name, arg in [('hsplit', 3), ('hsplit', [1, 4]), ('vsplit', 2), ('vsplit', [3]), ('dsplit', 2)]:
        r, q = getattr(torch, name)(x, arg), getattr(mo, name)(M(x), arg)
        assert len(r) == len(q)
        for u, w in zip(q, r): close(u, w)
    for u, w in zip(mo.hsplit(M(rnd(6)), 2), torch.hsplit(rnd(6), 2)): close(u, w)
    with pytest.raises(RuntimeError): torch.hsplit(x, 4)
    with pytest.raises(RuntimeError): mo.hsplit(M(x), 4)
    for u, w in zip(mo.split_with_sizes(M(x), [1, 3]), torch.split_with_sizes(x, [1, 3])): close(u, w)
    for u, w in zip(M(x).split_with_sizes([2, 4], 1), x.split_with_sizes([2, 4], 1)): close(u, w)
    with pytest.raises(RuntimeError): torch.split_with_sizes(x, [1, 2])
    with pytest.raises(RuntimeError): mo.split_with_sizes(M(x), [1, 2])

def test_rot90_take_diagflat():
    x = rnd(2, 3, 4)
    for k in (-1, 0, 1, 2, 3, 5):
        check('rot90', x, k, kw=dict(dims=(0, 2)))
        check('rot90', x, k)
    check('take', x, torch.tensor([[0, 5], [23, 7]]))
    check('take_along_dim', x, torch.tensor([[[0], [3], [1]]]), kw=dict(dim=2))
    check('take_along_dim', x, torch.tensor([0, 17, 3]))
    check('take_along_dim', x, x.argsort(1), kw=dict(dim=1))
    check('diagflat', rnd(2, 2)); check('diagflat', rnd(3), kw=dict(offset=-1)); check('diagflat', rnd(3), kw=dict(offset=2))

def test_isin_searchsorted_bucketize():
    e, t = torch.tensor([[1, 2, 3], [4, 5, 6]]), torch.tensor([2, 6, 9])
    check('isin', e, t, grad=False); check('isin', e, t, kw=dict(invert=True), grad=False)
    close(mo.isin(M(e), 3), torch.isin(e, 3))
    s = torch.tensor([1.0, 3.0, 3.0, 5.0, 7.0]); v = torch.tensor([[3.0, 6.0], [0.0, 9.0]])
    for kw in ({}, dict(right=True), dict(side='right'), dict(side='left'), dict(out_int32=True)):
        check('searchsorted', s, v, kw=kw, grad=False)
    s2 = torch.tensor([[1.0, 3.0, 5.0], [2.0, 2.0, 4.0]]); v2 = torch.tensor([[2.0, 5.0], [2.0, 4.5]])
    check('searchsorted', s2, v2, grad=False); check('searchsorted', s2, v2, kw=dict(right=True), grad=False)
    close(mo.searchsorted(M(s), 3.0), torch.searchsorted(s, 3.0))
    with pytest.raises(RuntimeError): torch.searchsorted(s, v, right=True, side='left')
    with pytest.raises(RuntimeError): mo.searchsorted(M(s), M(v), right=True, side='left')
    check('bucketize', v, s, grad=False); check('bucketize', v, s, kw=dict(right=True), grad=False)

def test_predicates_and_conj():
    x = rnd(2, 3)
    assert mo.is_nonzero(M(torch.tensor([2.0]))) and not mo.is_nonzero(M(torch.tensor(0)))
    with pytest.raises(RuntimeError): torch.is_nonzero(torch.tensor([1, 2]))
    with pytest.raises(RuntimeError): mo.is_nonzero(M(torch.tensor([1, 2])))
    for t in (torch.tensor([1]), torch.tensor([1.0]), torch.tensor([True]), torch.tensor([1], dtype=torch.uint8)):
        m = minitorch.tensor(t.numpy(), dtype={torch.uint8: minitorch.uint8}.get(t.dtype, D.get(t.dtype)))
        assert mo.is_signed(m) == torch.is_signed(t)
    assert M(x).is_same_size(M(x)) and not M(x).is_same_size(M(x.t()))
    assert M(x).ndimension() == 2
    assert not mo.is_conj(M(x)) and not mo.is_neg(M(x))
    close(mo.conj_physical(M(x)), torch.conj_physical(x)); close(mo.resolve_conj(M(x)), x); close(mo.resolve_neg(M(x)), x)

def test_methods_and_inplace():
    a, b = rnd(2, 3), rnd(2, 3)
    close(M(a).lerp(M(b), 0.25), a.lerp(b, 0.25))
    m = M(a); r = m.lerp_(M(b), 0.25); assert r is m; close(m, a.clone().lerp_(b, 0.25))
    m = M(a); m.addcmul_(M(b), M(b), value=2); close(m, a.clone().addcmul_(b, b, value=2))
    m = M(a); m.nan_to_num_(); close(m, a.clone().nan_to_num_())
    close(M(a).cummax(1).values, a.cummax(1).values)
    close(M(a).hypot(M(b)), a.hypot(b)); close(M(a).logaddexp(M(b)), a.logaddexp(b))

def test_int_scalar_truncation():
    a = torch.tensor([[1, 2], [3, 4]])
    check('addmm', a, a, a, kw=dict(beta=0.5, alpha=2), grad=False)
    check('addcmul', a, a, a, kw=dict(value=1.5), grad=False)

def test_searchsorted_int_seq_float_value():
    s = torch.tensor([1, 3, 5])
    close(mo.searchsorted(M(s), 3.5), torch.searchsorted(s, 3.5))
    close(mo.searchsorted(M(s), M(torch.tensor([2.5, 3.0]))), torch.searchsorted(s, torch.tensor([2.5, 3.0])))

def test_take_negative():
    x = rnd(2, 3)
    check('take', x, torch.tensor([-1, 0, -6]))
    with pytest.raises(IndexError): torch.take(x, torch.tensor([6]))
    with pytest.raises(IndexError): mo.take(M(x), M(torch.tensor([6])))

def test_nanmedian_dim():
    nan = float('nan')
    x = torch.tensor([[nan, 1.0, 2.0, nan, 0.5], [3.0, 1.0, 2.0, 4.0, 0.0], [nan] * 5], dtype=torch.float64)
    check('nanmedian', x, kw=dict(dim=1), out=0, grad=False)
    check('nanmedian', x[:2], kw=dict(dim=1), out=1, grad=False)
    check('nanmedian', x[:2], kw=dict(dim=1, keepdim=True), out=0)
    assert type(mo.nanmedian(M(x), 1)).__name__ == 'nanmedian'

def test_mode():
    x = torch.tensor([[1., 2, 2, 3, 3, 0], [5, 5, 1, 1, 1, 0], [4, 4, 4, 4, 4, 4]], dtype=torch.float64)
    for out in (0, 1):
        check('mode', x, kw=dict(dim=1), out=out, grad=out == 0)
        check('mode', x, kw=dict(dim=0, keepdim=True), out=out, grad=False)
    check('mode', torch.tensor([3, 1, 3, 1, 2]), out=1, grad=False)
    check('mode', torch.tensor([3, 1, 3, 1, 2]), out=0, grad=False)

@pytest.mark.parametrize('dt', FL)
def test_histc(dt):
    x = rnd(50, dtype=dt)
    for kw in ({}, dict(bins=7), dict(bins=5, min=-1, max=1)):
        check('histc', x, kw=kw, grad=False)
    check('histc', torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0], dtype=dt), kw=dict(bins=4), grad=False)
    check('histc', torch.tensor([2.0, 2.0], dtype=dt), kw=dict(bins=4), grad=False)
    with pytest.raises(NotImplementedError): mo.histc(M(torch.tensor([1, 2])))

def test_unique_consecutive():
    x = torch.tensor([[1, 1, 2], [2, 3, 1]])
    close(mo.unique_consecutive(M(x)), torch.unique_consecutive(x))
    for u, w in zip(mo.unique_consecutive(M(x), return_inverse=True, return_counts=True),
                    torch.unique_consecutive(x, return_inverse=True, return_counts=True)): close(u, w)
    for u, w in zip(mo.unique_consecutive(M(x.double()), return_counts=True), torch.unique_consecutive(x.double(), return_counts=True)): close(u, w)

@pytest.mark.parametrize('dt', [torch.float32, torch.float64, torch.int64])
def test_index_ops(dt):
    x, src = rnd(4, 3, dtype=dt), rnd(4, 2, dtype=dt)
    idx = torch.tensor([2, 0])
    g = dt != torch.int64
    check('index_add', x, 1, idx, src, grad=g)
    check('index_add', x, 0, torch.tensor([1, 1, 3]), rnd(3, 3, dtype=dt), kw=dict(alpha=2), grad=g)
    check('index_copy', x, 1, idx, src, grad=g)
    check('index_copy', x, 0, torch.tensor([3, 0]), rnd(2, 3, dtype=dt), grad=g)
    check('index_fill', x, 1, idx, -1.5 if g else 7, grad=g)
    check('index_fill', x, 0, torch.tensor([-1]), 2, grad=g)
    m = M(x); r = m.index_add_(1, M(idx), M(src)); assert r is m; close(m, x.clone().index_add_(1, idx, src))
    m = M(x); m.index_fill_(0, M(idx), 3); close(m, x.clone().index_fill_(0, idx, 3))
    m = M(x); m.index_copy_(1, M(idx), M(src)); close(m, x.clone().index_copy_(1, idx, src))

def test_renorm_narrow_copy_sum_to_size():
    x = rnd(3, 4, 2) * 3
    for p, d, mx in [(2, 0, 2.0), (1, 1, 3.0), (3, 2, 1.0)]:
        check('renorm', x, p, d, mx, tol=1e-7)
    check('narrow_copy', x, 1, 1, 2)
    for size in [(4, 1), (1, 2), (3, 1, 2), (1, 1, 1), (2,)]:
        t = x.clone().requires_grad_(); m = M(x, grad=True)
        r, q = t.sum_to_size(*size), m.sum_to_size(*size); close(q, r)
        r.sum().backward(); q.sum().backward(); close(m.grad, t.grad)
    close(M(x).sum_to_size((4, 2)), x.sum_to_size((4, 2)))
    with pytest.raises(RuntimeError): x.sum_to_size(3, 2)
    with pytest.raises(RuntimeError): M(x).sum_to_size(3, 2)

def _same_error(tf, mf):
    with pytest.raises(Exception) as et: tf()
    with pytest.raises(Exception) as em: mf()
    assert et.type is em.type, (et.type, em.type, str(em.value))

def test_errors_match_torch():
    f, d, i, b = torch.tensor([0.5, -1.5, 2.0]), torch.tensor([0.5, 1.5, 2.0], dtype=torch.float64), torch.tensor([3, 1, 2]), torch.tensor([True, False])
    cases = [('lerp', (f, d, 0.5)), ('lerp', (f, f, d)), ('logaddexp', (f, 2.0)), ('logaddexp', (b, b)), ('hypot', (f, 2.0)),
             ('fmax', (f, 2.0)), ('fmin', (f, 2.0)), ('heaviside', (f, 2.0)), ('heaviside', (f, d)), ('median', (b,)),
             ('nanmedian', (b,)), ('logcumsumexp', (i, 0)), ('frac', (i,)), ('nanmean', (b,)), ('quantile', (f, 1.5)),
             ('quantile', (torch.zeros(0), 0.5)), ('kthvalue', (f, 0)), ('diff', (torch.tensor(1.0),)), ('meshgrid', (f, i)),
             ('cartesian_prod', (f, i)), ('rot90', (f, 1)), ('rot90', (torch.zeros(2, 3), 1, [1, 1])),
             ('index_add', (torch.zeros(3, 2), 0, torch.tensor([0]), torch.ones(1, 2, dtype=torch.float64))),
             ('index_copy', (torch.zeros(3, 2), 0, torch.tensor([0]), torch.ones(1, 2, dtype=torch.float64))),
             ('cdist', (torch.zeros(2, 3, dtype=torch.float64), torch.ones(4, 3))), ('mode', (torch.zeros(0),)),
             ('median', (torch.zeros(2, 0), 1)), ('histc', (f, 3, 2, 1)), ('addmm', (torch.zeros(2, 2), torch.zeros(2, 3), torch.zeros(4, 2)))]
    for name, args in cases:
        _same_error(lambda: getattr(torch, name)(*args), lambda: getattr(mo, name)(*[M(a) if isinstance(a, torch.Tensor) else a for a in args]))
    _same_error(lambda: torch.quantile(f, [0.5]), lambda: mo.quantile(M(f), [0.5]))
    _same_error(lambda: torch.meshgrid(f, indexing='zz'), lambda: mo.meshgrid(M(f), indexing='zz'))
    _same_error(lambda: torch.searchsorted(f, f, side='up'), lambda: mo.searchsorted(M(f), M(f), side='up'))

def test_mixed_dtypes():
    f, d, i = torch.tensor([0.5, -1.5, 2.0]), torch.tensor([0.5, 1.5, -2.0], dtype=torch.float64), torch.tensor([3, 1, 2])
    for name in ('logaddexp', 'logaddexp2', 'hypot', 'xlogy', 'copysign', 'fmax', 'fmin', 'float_power'):
        for a, b in ((f, d), (f, i), (i, f), (d, f)):
            if name in ('xlogy', 'float_power'): a, b = a.abs(), b.abs()
            close(getattr(mo, name)(M(a), M(b)), getattr(torch, name)(a, b))

@pytest.mark.parametrize('interp', ['linear', 'lower', 'higher', 'midpoint', 'nearest'])
def test_quantile_interpolation(interp):
    x = rnd(3, 5)
    for q in (0.0, 0.3, 0.5, 0.625, 1.0):
        check('quantile', x, q, kw=dict(dim=1, interpolation=interp))
    check('quantile', rnd(4), 0.5, kw=dict(interpolation=interp))   # rank 1.5: ties to even for 'nearest'
    check('quantile', rnd(6), 0.5, kw=dict(interpolation=interp))   # rank 2.5

def test_mode_nan_and_scalar():
    check('mode', torch.tensor([1.0, float('nan'), float('nan')]), out=0, grad=False)
    check('mode', torch.tensor([1.0, float('nan'), float('nan')]), out=1, grad=False)
    check('mode', torch.tensor(2.0), out=0, grad=False); check('mode', torch.tensor(2.0), out=1, grad=False)

def test_xlogy_scalars():
    i, f = torch.tensor([1, 2, 0]), torch.tensor([0.5, 2.0, 3.0], dtype=torch.float64)
    close(mo.xlogy(M(i), 2.5), torch.xlogy(i, 2.5)); close(mo.xlogy(2, M(f)), torch.xlogy(2, f))
    close(mo.xlogy(M(f), 3), torch.xlogy(f, 3)); close(mo.xlogy(M(i), M(i)), torch.xlogy(i, i))

def test_inplace_errors():
    i = torch.tensor([1, 2])
    _same_error(lambda: i.clone().deg2rad_(), lambda: M(i).deg2rad_())
    _same_error(lambda: i.clone().float_power_(2), lambda: M(i).float_power_(2))
    _same_error(lambda: torch.tensor([1.]).float_power_(2), lambda: M(torch.tensor([1.])).float_power_(2))
    _same_error(lambda: torch.tensor([1.]).addcmul_(torch.ones(2), torch.ones(2)),
                lambda: M(torch.tensor([1.])).addcmul_(M(torch.ones(2)), M(torch.ones(2))))
    d = torch.tensor([0.5, 3.0], dtype=torch.float64)
    m = M(d); m.float_power_(2); close(m, d.clone().float_power_(2))
    m = M(d); m.logit_(); close(m, d.clone().logit_())
    m = M(d); m.copysign_(M(-d)); close(m, d.clone().copysign_(-d))

def test_searchsorted_sorter_dist0_nan_dtype():
    s = torch.tensor([5., 1, 3, 7]); v = torch.tensor([4., 7, 0])
    close(mo.searchsorted(M(s), M(v), sorter=M(s.argsort())), torch.searchsorted(s, v, sorter=s.argsort()))
    check('dist', torch.tensor([1., 0, 2]), torch.zeros(3), kw=dict(p=0), grad=False)
    x = rnd(3, 4)
    close(mo.nansum(M(x), dtype=minitorch.float32), torch.nansum(x, dtype=torch.float32))
    close(mo.nanmean(M(x), 1, dtype=minitorch.float32), torch.nanmean(x, 1, dtype=torch.float32))

@pytest.mark.parametrize('dt', [torch.float32, torch.float64, torch.int64])
def test_trapezoid(dt):
    y = rnd(3, 5, dtype=dt); g = dt != torch.int64
    xs = torch.tensor([0.0, 0.5, 1.5, 2.0, 4.0], dtype=torch.float64 if dt == torch.int64 else dt)
    for name in ('trapezoid', 'trapz', 'cumulative_trapezoid'):
        check(name, y, grad=g)
        check(name, y, kw=dict(dx=0.5), grad=g)
        check(name, y, kw=dict(dim=0), grad=g)
        check(name, y, xs, grad=g)
        check(name, y.t(), xs.reshape(5, 1).expand(5, 3).contiguous(), kw=dict(dim=0), grad=g)
    _same_error(lambda: torch.trapezoid(y, 2.0), lambda: mo.trapezoid(M(y), 2.0))
    _same_error(lambda: torch.cumulative_trapezoid(y, 2.0), lambda: mo.cumulative_trapezoid(M(y), 2.0))

def test_indices_vander_combinations():
    for args in [(3, 4, 1), (3, 3, -1), (4, 2, 0), (0, 3, 0), (3, 3, -5)]:
        close(mo.tril_indices(*args), torch.tril_indices(*args)); close(mo.triu_indices(*args), torch.triu_indices(*args))
    close(mo.triu_indices(3, 3, dtype=minitorch.int32), torch.triu_indices(3, 3, dtype=torch.int32))
    for x in (torch.tensor([1, 4, 9]), torch.tensor([1.5, -2.0], dtype=torch.float64)):
        for kw in ({}, dict(N=4), dict(N=2, increasing=True), dict(N=0)):
            check('vander', x, kw=kw, grad=False)
    check('vander', rnd(3), kw=dict(N=4, increasing=True), grad=False)   # torch's own vander backward fails
    y = torch.tensor([1, 4, 9, 2])
    for r in (1, 2, 3):
        for w in (False, True):
            close(mo.combinations(M(y), r, w), torch.combinations(y, r, w))
    check('combinations', rnd(4), kw=dict(r=2))


# ---- issue 22: 08db_building was split into 08db_building (minitorch.building) + 08dc_lookup (minitorch.more_ops)
_OLD_MORE_OPS_ALL = '''tensordot inner kron cross dist cdist cov corrcoef meshgrid cartesian_prod block_diag atleast_1d atleast_2d
    atleast_3d dstack column_stack row_stack hsplit vsplit dsplit split_with_sizes rot90 take put take_along_dim isin
    searchsorted bucketize diagflat is_nonzero is_signed is_same_size is_conj is_neg resolve_conj resolve_neg
    conj_physical tril_indices triu_indices vander combinations unique_consecutive index_add index_copy index_fill
    renorm narrow_copy'''.split()

def test_more_ops_reexports_building():
    "Every function and class defined in minitorch.building is the same object in minitorch.more_ops."
    import inspect
    import minitorch.building as b
    defined = [n for n, o in vars(b).items()
               if (inspect.isfunction(o) or inspect.isclass(o)) and o.__module__ == b.__name__]
    assert len(defined) > 30
    assert [n for n in defined if getattr(mo, n, None) is not vars(b)[n]] == []
    assert set(b.__all__) <= set(mo.__all__)

def test_more_ops_all_did_not_shrink():
    assert [n for n in _OLD_MORE_OPS_ALL if n not in mo.__all__ or not hasattr(mo, n)] == []
    g = {}; exec('from minitorch.more_ops import *', g)
    assert set(_OLD_MORE_OPS_ALL) <= set(g)
    assert hasattr(minitorch, 'tensordot') and hasattr(minitorch.Tensor, 'kron')

def test_building_does_not_import_more_ops():
    import inspect
    import minitorch.building as b
    src = inspect.getsource(b)
    assert 'from .more_ops import' not in src and 'minitorch.more_ops' not in src
