"Parity (issue 12): in-place logical ops, max/min(dim) values, complex sgn — compared with torch directly."
import math
import numpy as np
import pytest
import torch
import minitorch as mt

LOGICAL = ['logical_and_', 'logical_or_', 'logical_xor_']

@pytest.mark.parametrize('name', LOGICAL)
@pytest.mark.parametrize('other', [-1.5, 2, True])
def test_logical_inplace_scalar_is_type_error(name, other):
    "A Python scalar `other` is a TypeError, raised before the overlap check (an expanded tensor)."
    t = torch.zeros(4, 1, 2).expand(4, 3, 2)
    m = mt.zeros(4, 1, 2).expand(4, 3, 2)
    with pytest.raises(TypeError) as te: getattr(t, name)(other)
    with pytest.raises(TypeError) as me: getattr(m, name)(other)
    assert str(me.value) == str(te.value)

@pytest.mark.parametrize('name', ['logical_not_'] + LOGICAL)
@pytest.mark.parametrize('view', [False, True])
def test_logical_inplace_on_leaf_requiring_grad(name, view):
    x = np.array([0.0, -1.5, 2.0, 0.0], dtype=np.float32)
    t, m = torch.tensor(x, requires_grad=True), mt.tensor(x, requires_grad=True)
    tt, mm = (t[1:3], m[1:3]) if view else (t, m)
    args_t = () if name == 'logical_not_' else (torch.tensor([1.0, 0.0]) if view else torch.tensor([1.0, 0.0, 1.0, 1.0]),)
    args_m = tuple(mt.tensor(a.numpy()) for a in args_t)
    getattr(tt, name)(*args_t); getattr(mm, name)(*args_m)
    np.testing.assert_array_equal(m.detach().numpy(), t.detach().numpy())
    assert m.requires_grad and t.requires_grad and m.grad_fn is None and t.grad_fn is None

@pytest.mark.parametrize('op', ['max', 'min'])
@pytest.mark.parametrize('keepdim', [False, True])
def test_max_min_dim_values_not_views(op, keepdim):
    x = np.random.default_rng(0).standard_normal((3, 4))
    t, m = torch.tensor(x, requires_grad=True), mt.tensor(x, requires_grad=True)
    tv, ti = getattr(t, op)(1, keepdim=keepdim); mv, mi = getattr(m, op)(1, keepdim=keepdim)
    assert (mv._base is None) == (tv._base is None) and (mi._base is None) == (ti._base is None)
    (tv * tv).sum().backward(); (mv * mv).sum().backward()
    torch.testing.assert_close(torch.tensor(m.grad.numpy()), t.grad)
    np.testing.assert_array_equal(mi.numpy(), ti.numpy())
    tv2, _ = getattr(t, op)(1, keepdim=keepdim); mv2, _ = getattr(m, op)(1, keepdim=keepdim)
    tv2.detach_(); mv2.detach_()   # allowed: values are not views
    assert mv2.requires_grad == tv2.requires_grad == False

INF, NAN = math.inf, math.nan
SPECIAL = [complex(INF, 1), complex(1, INF), complex(INF, INF), complex(-INF, 2), complex(NAN, 1), complex(1, NAN),
           complex(3, 4), 0j, complex(1e300, 1e300), complex(1e-310, 1e-310), complex(-2, 0.5)]

@pytest.mark.parametrize('tdt,mdt', [(torch.complex128, mt.complex128), (torch.complex64, mt.complex64)])
@pytest.mark.parametrize('n', [1, 5, 8, 11, 16, 27, 40])
def test_sgn_complex_special_values(tdt, mdt, n):
    vals = (SPECIAL * 4)[:n]
    t, m = torch.tensor(vals, dtype=tdt).sgn(), mt.tensor(vals, dtype=mdt).sgn()
    assert m.dtype == mdt
    torch.testing.assert_close(torch.tensor(m.numpy()), t, equal_nan=True, atol=0, rtol=1e-6)
    assert [str(v) for v in m.tolist()] == [str(v) for v in t.tolist()] or tdt is torch.complex64

def test_sgn_complex_grad():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(20) + 1j * rng.standard_normal(20); x[3] = 0
    g = rng.standard_normal(20) + 1j * rng.standard_normal(20)
    t, m = torch.tensor(x, requires_grad=True), mt.tensor(x, requires_grad=True)
    t.sgn().backward(torch.tensor(g)); m.sgn().backward(mt.tensor(g))
    torch.testing.assert_close(torch.tensor(m.grad.numpy()), t.grad)
