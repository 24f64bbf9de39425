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
