"clamp / clip / clamp_min / clamp_max and their in-place forms against torch (issue 12): dtypes, overloads, errors."
import pytest
import torch
import minitorch as mt

DTYPES = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32', 'float64']
BOUNDS = [None, 0, 1, 1.5, True, 300, -300, 2**63 - 1, 1e300, float('inf'), float('nan'), 1j, 1 + 0j]


def outcome(f):
    try:
        r = f()
    except Exception as e:
        return type(e).__name__, str(e).split('\n')[0]
    return str(r.dtype).split('.')[-1], repr(r.tolist())   # repr: nan == nan


def same(f):
    t, m = outcome(lambda: f(torch)), outcome(lambda: f(mt))
    assert m == t, (m, t)


def x(L, d): return L.tensor([-2, 0, 1, 3]).to(getattr(L, d))


@pytest.mark.parametrize('d', DTYPES)
@pytest.mark.parametrize('lo', BOUNDS)
@pytest.mark.parametrize('hi', [None, 2, 2.5, 1e300])
def test_clamp_scalar_bounds(d, lo, hi):
    "Numbers as bounds: promotion of integer inputs, no promotion of floating ones, the overflow checks."
    same(lambda L: L.clamp(x(L, d), lo, hi))
    same(lambda L: x(L, d).clamp_(lo, hi))


@pytest.mark.parametrize('d', DTYPES)
@pytest.mark.parametrize('b', [True, 1, 1.5, 300, 1j, None])
@pytest.mark.parametrize('name', ['clamp_min', 'clamp_max'])
def test_clamp_min_max_scalar(d, b, name):
    same(lambda L: getattr(L, name)(x(L, d), b))
    same(lambda L: getattr(x(L, d), name)(b))
    same(lambda L: getattr(x(L, d), name + '_')(b))


@pytest.mark.parametrize('case', [
    lambda L: L.clamp(x(L, 'float32'), L.tensor([0., 1., 2., 3.]), L.tensor(2.)),
    lambda L: L.clamp(x(L, 'int64'), L.tensor([0., 1., 2., 3.])),               # promoted by a tensor bound
    lambda L: L.clamp(x(L, 'int8'), L.tensor([2])),
    lambda L: L.clamp(x(L, 'int8'), L.tensor(2)),
    lambda L: L.clamp(x(L, 'bool'), L.tensor([True])),                           # maximum works for bool
    lambda L: L.clamp(x(L, 'bool'), max=L.tensor([False])),
    lambda L: L.clamp(x(L, 'bool'), L.tensor([False]), L.tensor([True])),        # the clamp kernel does not
    lambda L: L.clamp(x(L, 'float32'), L.tensor(1 + 1j)),
    lambda L: L.clamp(x(L, 'float32'), max=L.tensor(1 + 1j)),
    lambda L: L.clamp(x(L, 'float32'), L.tensor(0.), L.tensor([1 + 1j])),
    lambda L: L.clamp(L.tensor([1 + 1j]), L.tensor(0.)),
    lambda L: L.clamp(x(L, 'float32'), L.tensor(0.), 2.5),                       # 0-d tensor beside a number
    lambda L: L.clamp(x(L, 'float32'), 0, L.tensor(2.5)),
    lambda L: L.clamp(x(L, 'int64'), L.tensor(0.5), 2),
    lambda L: L.clamp(x(L, 'float32'), L.tensor([0.]), 2.5),                     # 1-d tensor beside a number
    lambda L: L.clip(x(L, 'float32'), L.tensor([0.]), 2.5),
    lambda L: x(L, 'float32').clamp(L.tensor([0.]), 2.5),
    lambda L: x(L, 'float32').clamp_(L.tensor([0.]), 2.5),
    lambda L: L.clamp(x(L, 'float32'), 'a'),
    lambda L: L.clamp(x(L, 'float32'), 1, 'a'),
    lambda L: L.clamp(x(L, 'float32'), [1]),
    lambda L: x(L, 'float32').clamp_min('a'),
    lambda L: L.clamp(x(L, 'float32')),
    lambda L: x(L, 'float32').clamp(),
    lambda L: x(L, 'float32').clip_(),
    lambda L: L.clamp(x(L, 'float32'), 3, 1),                                    # min > max: max wins
    lambda L: L.clamp(x(L, 'float32'), L.tensor([3.]), L.tensor([1.])),
    lambda L: x(L, 'int64').clamp_(L.tensor([0.5])),
    lambda L: x(L, 'int8').clamp_(L.tensor([0, 1, 2, 3])),
    lambda L: x(L, 'float32').clamp_(L.tensor([[0.], [1.]])),
    lambda L: L.clamp(x(L, 'float32'), 1, out=L.empty(4, dtype=L.int64)),
    lambda L: L.clamp(x(L, 'int64'), 1.5, out=L.empty(4)),
    # in place, PyTorch's order: the scalar cast check, then overlapping memory, the broadcast shape, the kernel
    lambda L: L.tensor([True, False]).expand(2, 2).clamp_(L.tensor([True]), L.tensor([False])),
    lambda L: L.zeros(1, 5, dtype=L.bool).clip_(L.zeros(1, 1, 1, dtype=L.bool), L.zeros(1, 5, dtype=L.bool)),
    lambda L: L.tensor([1., 2.]).expand(2, 2).clamp_(0.5),
    lambda L: L.tensor([1, 2]).expand(2, 2).clamp_(0.5),
    lambda L: L.tensor([True, False]).expand(2, 2).clamp_min_(True),
])
def test_clamp_overloads(case):
    same(case)


@pytest.mark.parametrize('lo,hi', [(0.0, 2.0), (1.0, None), (None, 1.0), ('t', 't'), ('t', None), (None, 't')])
def test_clamp_grad(lo, hi):
    "Gradients to the input (bounds included) and to tensor bounds, as torch."
    def run(L):
        a = L.tensor([-1., 0., 1., 2., 3.], requires_grad=True)
        tl = L.tensor([0., 0., 2., 1., 1.], requires_grad=True)
        th = L.tensor([2., 0., 1., 2., 2.5], requires_grad=True)
        lo_, hi_ = (tl if lo == 't' else lo), (th if hi == 't' else hi)
        y = L.clamp(a, lo_, hi_)
        (y * L.arange(1., 6.)).sum().backward()
        return [y.tolist(), a.grad.tolist()] + [t.grad.tolist() if t.grad is not None else None for t in (tl, th)]
    assert run(mt) == run(torch)
