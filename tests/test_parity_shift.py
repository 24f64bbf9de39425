"Shift operators against torch (issue 12): values at and past the bit width, dtypes, promotion and errors."
import itertools

import pytest
import torch
import minitorch as mt
from minitorch import ops

INTS = ['uint8', 'int8', 'int16', 'int32', 'int64']
VALUES = [-128, -8, -1, 0, 1, 5, 127]
SHIFTS = [-70, -3, -1, 0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127]


def fn(L, name):
    "torch.<name>, or minitorch's (minitorch.ops holds the shift functions until the API chapter re-exports them)."
    return getattr(L, name) if L is torch else getattr(mt, name, getattr(ops, name))


def outcome(f):
    try:
        r = f()
    except Exception as e:
        return type(e).__name__, str(e).split('\n')[0]
    return str(r.dtype).split('.')[-1], r.tolist()


def same(f):
    "`f(torch)` and `f(minitorch)` give the same dtype and values, or the same exception class and first line."
    t, m = outcome(lambda: f(torch)), outcome(lambda: f(mt))
    assert m == t, (m, t)
    return t


def _wrap(v, d):   # what a value means in dtype d (torch wraps the tensor's construction the same way)
    return torch.tensor(v).to(getattr(torch, d)).item()


@pytest.mark.parametrize('d', INTS)
@pytest.mark.parametrize('name', ['bitwise_left_shift', 'bitwise_right_shift'])
def test_shift_values_tensor_tensor(d, name):
    "Every value by every shift amount (negative, within, at and past the width), same dtype."
    pairs = list(itertools.product(VALUES, SHIFTS))
    a = [_wrap(v, d) for v, _ in pairs]; s = [_wrap(k, d) for _, k in pairs]
    same(lambda L: fn(L, name)(L.tensor(a, dtype=getattr(L, d)), L.tensor(s, dtype=getattr(L, d))))


@pytest.mark.parametrize('d', INTS)
@pytest.mark.parametrize('k', [-1, 0, 3, 7, 8, 63, 64, 257, 300])
def test_shift_by_python_int(d, k):
    "A Python int shift is cast (wrapped) to the tensor's dtype, like torch's wrapped-number promotion."
    x = [_wrap(v, d) for v in VALUES]
    same(lambda L: L.tensor(x, dtype=getattr(L, d)) << k)
    same(lambda L: L.tensor(x, dtype=getattr(L, d)) >> k)


@pytest.mark.parametrize('case', [
    lambda L: L.tensor([True, False]) << 2,                                  # bool tensor, int -> int64
    lambda L: L.tensor([True, False]) >> L.tensor([1], dtype=L.int8),        # -> int8
    lambda L: L.tensor([1, 2], dtype=L.int8) << L.tensor([1, 2], dtype=L.uint8),   # -> int16
    lambda L: L.tensor([1, 2], dtype=L.int8) << L.tensor(1),                 # 0-d tensor keeps int8
    lambda L: L.tensor(5) << L.tensor([1, 2], dtype=L.int8),
    lambda L: 3 << L.tensor([1, 2]),                                         # __rlshift__
    lambda L: 300 >> L.tensor([1, 2], dtype=L.uint8),                        # __rrshift__
    lambda L: L.tensor([1, 2]) << True,
    lambda L: L.tensor([[1], [2]]) << L.tensor([1, 2, 3]),                   # broadcasting
    lambda L: L.tensor([1, 2]) << L.tensor([1, 2, 3]),                       # shape error
    lambda L: L.tensor([1., 2.]) << 1,                                       # errors: float, half, complex, bool
    lambda L: L.tensor([1., 2.], dtype=L.float16) >> 1,
    lambda L: L.tensor([1., 2.], dtype=L.bfloat16) >> 1,
    lambda L: L.tensor([1, 2]) << 2.0,
    lambda L: 2.0 << L.tensor([1, 2]),
    lambda L: L.tensor([1, 2]) >> L.tensor(1.5),
    lambda L: L.tensor([1 + 1j]) << 1,
    lambda L: L.tensor([1, 2]) << (1 + 2j),
    lambda L: L.tensor([True]) << True,
    lambda L: L.tensor([True]) >> L.tensor([False]),
    lambda L: L.tensor([1., 2.], requires_grad=True) << 1,
])
def test_shift_operators(case):
    same(case)


@pytest.mark.parametrize('case', [
    lambda L: fn(L, 'bitwise_left_shift')(L.tensor([1, 2]), 3),
    lambda L: fn(L, 'bitwise_left_shift')(3, L.tensor([1, 2])),
    lambda L: fn(L, 'bitwise_right_shift')(L.tensor([-9, 2]), L.tensor([1, 65])),
    lambda L: fn(L, 'bitwise_right_shift')(L.tensor([1., 2.]), 3),
    lambda L: fn(L, 'bitwise_left_shift')(L.tensor([1, 2]), 3, out=L.empty(2, dtype=L.int8)),
    lambda L: fn(L, 'bitwise_left_shift')(L.tensor([1, 2]), 3, out=L.empty(2)),
    lambda L: fn(L, 'bitwise_left_shift')(L.tensor([1, 2]), 3, out=L.empty(2, dtype=L.bool)),
    lambda L: L.tensor([1, 2]).bitwise_left_shift(L.tensor([1, 3])),
    lambda L: L.tensor([8, 2]).bitwise_right_shift(1),
    lambda L: L.tensor([1, 2]).T.bitwise_right_shift(1),
])
def test_shift_functions(case):
    same(case)


def test_shift_errors_name_the_problem():
    for f in (lambda L: fn(L, 'bitwise_left_shift')(2, 3), lambda L: fn(L, 'bitwise_left_shift')(L.tensor([1]), 'a')):
        with pytest.raises(TypeError) as te: f(torch)
        with pytest.raises(TypeError) as me: f(mt)
        assert str(me.value).split('\n')[0] == str(te.value).split('\n')[0]
    for L in (torch, mt):
        with pytest.raises(TypeError): L.tensor([1]) << 'a'
        with pytest.raises(TypeError): 'a' >> L.tensor([1])


def _inplace(L, d, op, other):
    t = L.tensor([1, 2, -3] if d != 'uint8' else [1, 2, 3], dtype=getattr(L, d))
    u = t[:]
    r = op(t, other)
    return r, r is t, u.tolist()


@pytest.mark.parametrize('d', ['bool', 'uint8', 'int8', 'int64', 'float32'])
@pytest.mark.parametrize('other', [1, 9, -1, 1.5, 'int64', 'int8', 'float32'])
@pytest.mark.parametrize('op', [
    lambda t, o: t.__ilshift__(o), lambda t, o: t.__irshift__(o),
    lambda t, o: t.bitwise_left_shift_(o), lambda t, o: t.bitwise_right_shift_(o)])
def test_shift_inplace(d, other, op):
    "The in-place shifts write into the tensor (and its views), keep its dtype and refuse what torch refuses."
    def f(L):
        o = L.tensor([1, 2, 3], dtype=getattr(L, other)) if isinstance(other, str) else other
        r, is_self, view = _inplace(L, d, op, o)
        assert is_self
        return L.tensor(view) if r.dtype is getattr(L, d) else None
    same(f)


def test_shift_inplace_refuses_overlap():
    same(lambda L: L.tensor([1, 2]).expand(2, 2).bitwise_right_shift_(1))
