"Parity with PyTorch (issue 12): errors and edge cases in creation functions and indexing."
import pytest
import torch

import minitorch as mt


def _err(f):
    "The exception class and message `f()` raises (None if it returns)."
    try:
        f()
    except Exception as e:   # noqa: BLE001
        return type(e), str(e).split('\n')[0]
    return None


@pytest.mark.parametrize('fn', ['rand', 'randn'])
@pytest.mark.parametrize('kw', ['dtype_int8', 'dtype_float', 'device', 'requires_grad', 'none', 'two'])
def test_random_without_size(fn, kw):
    "rand/randn with no size: PyTorch names the missing size when one keyword is given, before the dtype check."
    def kws(m):
        return {'dtype_int8': dict(dtype=m.int8), 'dtype_float': dict(dtype=m.float32), 'device': dict(device='cpu'),
                'requires_grad': dict(requires_grad=True), 'none': {},
                'two': dict(dtype=m.float32, device='cpu')}[kw]
    t, m = _err(lambda: getattr(torch, fn)(**kws(torch))), _err(lambda: getattr(mt, fn)(**kws(mt)))
    assert t is not None and m is not None
    assert m[0] is t[0]
    assert m[1].split(' - ')[0].split(', but')[0] == t[1].split(' - ')[0].split(', but')[0]


def _keys(m):
    return [(m.tensor([False, False]), ..., m.tensor([0])), (m.tensor([False, False]), m.tensor([0])),
            (m.tensor([], dtype=m.int64), m.tensor([0])), (m.tensor([False, False]), m.tensor([5])),
            (m.tensor([True, False]), m.tensor([0])), (m.tensor([False, False]), 5)]


@pytest.mark.parametrize('i', range(6))
def test_getitem_empty_advanced_index_skips_bounds(i):
    "Advanced indices that broadcast to no elements gather nothing, so PyTorch checks no index value."
    t, m = torch.zeros(2, 0, dtype=torch.int8), mt.zeros(2, 0, dtype=mt.int8)
    te, me = _err(lambda: t[_keys(torch)[i]]), _err(lambda: m[_keys(mt)[i]])
    assert (te is None) == (me is None), (te, me)
    if te is None:
        assert tuple(m[_keys(mt)[i]].shape) == tuple(t[_keys(torch)[i]].shape)
    else:
        assert me[0] is te[0]


def test_setitem_empty_advanced_index_skips_bounds():
    t, m = torch.zeros(2, 0, dtype=torch.int8), mt.zeros(2, 0, dtype=mt.int8)
    t[torch.tensor([False, False]), torch.tensor([5])] = 1
    m[mt.tensor([False, False]), mt.tensor([5])] = 1
    assert m.shape == (2, 0)
    with pytest.raises(IndexError):
        m[mt.tensor([True, False]), mt.tensor([5])] = 1


@pytest.mark.parametrize('fn', ['nonzero', 'argwhere'])
def test_nonzero_layout(fn):
    "nonzero's (N, ndim) result has strides (1, N) and is no view: `.view(-1)` is refused as in PyTorch."
    data = [[1, 0, 2], [0, 3, 0]]
    t, m = getattr(torch, fn)(torch.tensor(data)), getattr(mt, fn)(mt.tensor(data))
    assert m.tolist() == t.tolist() and m.stride() == t.stride() and m._base is None
    assert _err(lambda: m.view(-1))[0] is _err(lambda: t.view(-1))[0] is RuntimeError
    t1, m1 = getattr(torch, fn)(torch.tensor([1, 0, 1])), getattr(mt, fn)(mt.tensor([1, 0, 1]))
    assert m1.stride() == t1.stride() and m1.view(-1).tolist() == t1.view(-1).tolist()


def test_complex_is_an_op_not_a_view():
    "torch.complex gives a tensor of its own (ComplexBackward0): detach_ works, gradients split into the parts."
    xs = [torch.tensor([1., -2., 3.], dtype=torch.float64, requires_grad=True),
          torch.tensor([[0.5], [-1.5]], dtype=torch.float64, requires_grad=True)]
    ms = [mt.tensor(x.detach().numpy(), requires_grad=True) for x in xs]
    t, m = torch.complex(*xs), mt.complex(*ms)
    assert type(m.grad_fn).__name__ == type(t.grad_fn).__name__ and m._base is None
    w = [1 + 2j, -1j, 0.5]
    (t * torch.tensor(w)).real.sum().backward()
    (m * mt.tensor(w)).real.sum().backward()
    for x, y in zip(xs, ms): torch.testing.assert_close(torch.from_numpy(y.grad.numpy()), x.grad)
    c = mt.complex(mt.ones(5, dtype=mt.float64), mt.zeros(5, dtype=mt.float64))
    assert c.detach_() is c


def test_view_as_complex_conj_backward():
    "The gradient reaching view_as_complex through conj is a conj view: it is resolved, not refused."
    res = []
    for m in (torch, mt):
        x = m.tensor([[1., 2.], [3., -4.], [5., 6.]], requires_grad=True)
        (m.view_as_complex(x).conj() * m.tensor([1 + 2j, 3j, -1 + 0j], dtype=m.complex64)).real.sum().backward()
        res.append(x.grad.tolist())
    assert res[0] == res[1]


@pytest.mark.parametrize('case', range(6))
def test_normal_empty_runs_no_kernel(case):
    "normal with no elements: no float check, the result has mean's dtype (std's if mean is a number)."
    def args(m):
        return [(m.zeros(0, dtype=m.int32), m.ones(0, dtype=m.int64)), (m.zeros(0, dtype=m.bool), 2.0),
                (m.zeros(0, dtype=m.int64), m.ones(0, dtype=m.float32)), (m.zeros(0), m.ones(0, dtype=m.int64)),
                (0.0, m.ones(2, 0, dtype=m.int16)), (m.zeros(0, dtype=m.int64), -1.0)][case]
    te, me = _err(lambda: torch.normal(*args(torch))), _err(lambda: mt.normal(*args(mt)))
    assert (te is None) == (me is None), (te, me)
    if te is None:
        t, m = torch.normal(*args(torch)), mt.normal(*args(mt))
        assert str(m.dtype).split('.')[-1] == str(t.dtype).split('.')[-1] and tuple(m.shape) == tuple(t.shape)
    else:
        assert me == te


def test_complex_forward_ad():
    res = []
    for m in (torch, mt):
        fwAD = m.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(m.tensor([1., 2.]), m.tensor([1., -3.]))
            res.append([fwAD.unpack_dual(m.complex(x, x * 2)).tangent.tolist(),
                        fwAD.unpack_dual(m.complex(m.ones(2), x)).tangent.tolist()])
    assert res[0] == res[1]


def test_normal_complex_std_checked_before_empty():
    for m in (torch, mt):
        assert _err(lambda: m.normal(m.zeros(0, dtype=m.complex128), m.ones(0, dtype=m.complex128)))[0] is RuntimeError


def test_normal_complex_mean_has_complex_noise():
    "A complex mean gets complex noise with the spread of PyTorch's in each part (the imaginary part is not dropped)."
    import warnings
    mt.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        r = mt.normal(mt.zeros(20000, dtype=mt.complex64), 2.0)
    t = torch.normal(torch.zeros(20000, dtype=torch.complex64), 2.0)
    assert r.dtype is mt.complex64
    for part in ('real', 'imag'):
        assert abs(getattr(r, part).var().item() - getattr(t, part).var().item()) < 0.25
