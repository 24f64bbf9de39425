"""`out=` against torch: the result is written into `out` (which is returned, the same object), the dtype rule
(`can_cast`), resizing (a warning unless `out` was empty), the autograd refusal, and a TypeError where torch has no
`out=`."""
import warnings

import numpy as np
import pytest
import torch

import minitorch as mt

A = [[0.5, -1.25, 2.0], [3.0, 0.75, -0.5]]
B = [[1.5, 2.0, -0.25], [0.5, -3.0, 1.0]]
P = [[0.2, 0.4, 0.6], [0.8, 0.3, 0.9]]   # in (0, 1)
I = [[1, -2, 3], [4, 5, -6]]
M = [[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]]


def T(lib, v, dtype=None):
    return lib.tensor(v, dtype=dtype if dtype is not None else lib.float32)

def I64(lib, v): return lib.tensor(v, dtype=lib.int64)

# name -> (function of lib returning (fn, args, kwargs))
CASES = {
    'add': lambda L: (L.add, (T(L, A), T(L, B)), {}),
    'add_alpha': lambda L: (L.add, (T(L, A), T(L, B)), {'alpha': 2}),
    'sub': lambda L: (L.sub, (T(L, A), 1.5), {}),
    'mul': lambda L: (L.mul, (T(L, A), T(L, B)), {}),
    'div': lambda L: (L.div, (T(L, A), T(L, B)), {}),
    'div_floor': lambda L: (L.div, (T(L, A), T(L, B)), {'rounding_mode': 'floor'}),
    'floor_divide': lambda L: (L.floor_divide, (I64(L, I), 2), {}),
    'remainder': lambda L: (L.remainder, (T(L, A), 0.7), {}),
    'fmod': lambda L: (L.fmod, (T(L, A), 0.7), {}),
    'pow': lambda L: (L.pow, (T(L, P), 2.5), {}),
    'maximum': lambda L: (L.maximum, (T(L, A), T(L, B)), {}),
    'minimum': lambda L: (L.minimum, (T(L, A), T(L, B)), {}),
    'exp': lambda L: (L.exp, (T(L, A),), {}),
    'sin': lambda L: (L.sin, (T(L, A),), {}),
    'sqrt': lambda L: (L.sqrt, (T(L, P),), {}),
    'abs_int': lambda L: (L.abs, (I64(L, I),), {}),
    'neg': lambda L: (L.neg, (T(L, A),), {}),
    'sigmoid': lambda L: (L.sigmoid, (T(L, A),), {}),
    'floor': lambda L: (L.floor, (T(L, A),), {}),
    'round': lambda L: (L.round, (T(L, A),), {'decimals': 1}),
    'eq': lambda L: (L.eq, (T(L, A), 0.5), {}),
    'lt': lambda L: (L.lt, (T(L, A), T(L, B)), {}),
    'logical_and': lambda L: (L.logical_and, (T(L, A), T(L, B)), {}),
    'logical_not': lambda L: (L.logical_not, (T(L, A),), {}),
    'clamp': lambda L: (L.clamp, (T(L, A), -0.5, 1.0), {}),
    'clamp_min': lambda L: (L.clamp_min, (T(L, A), 0.0), {}),
    'atan2': lambda L: (L.atan2, (T(L, A), T(L, B)), {}),
    'bitwise_and': lambda L: (L.bitwise_and, (I64(L, I), 6), {}),
    'sgn': lambda L: (L.sgn, (T(L, A),), {}),
    'cat': lambda L: (L.cat, ([T(L, A), T(L, B)],), {'dim': 1}),
    'stack': lambda L: (L.stack, ([T(L, A), T(L, B)],), {}),
    'hstack': lambda L: (L.hstack, ([T(L, A), T(L, B)],), {}),
    'tril': lambda L: (L.tril, (T(L, A),), {}),
    'gather': lambda L: (L.gather, (T(L, A), 1, I64(L, [[0, 2], [1, 1]])), {}),
    'index_select': lambda L: (L.index_select, (T(L, A), 1, I64(L, [2, 0])), {}),
    'masked_select': lambda L: (L.masked_select, (T(L, A), T(L, A) > 0), {}),
    'addcmul': lambda L: (L.addcmul, (T(L, A), T(L, B), T(L, P)), {'value': 0.5}),
    'addmm': lambda L: (L.addmm, (T(L, [[1.0, 2.0]]), T(L, A), T(L, M)), {}),
    'lerp': lambda L: (L.lerp, (T(L, A), T(L, B), 0.25), {}),
    'hypot': lambda L: (L.hypot, (T(L, A), T(L, B)), {}),
    'logaddexp': lambda L: (L.logaddexp, (T(L, A), T(L, B)), {}),
    'xlogy': lambda L: (L.xlogy, (T(L, P), T(L, P)), {}),
    'copysign': lambda L: (L.copysign, (T(L, A), T(L, B)), {}),
    'cross': lambda L: (L.cross, (T(L, A), T(L, B)), {'dim': 1}),
    'diff': lambda L: (L.diff, (T(L, A),), {}),
    'nan_to_num': lambda L: (L.nan_to_num, (T(L, A),), {}),
    'deg2rad': lambda L: (L.deg2rad, (T(L, A),), {}),
    'tensordot': lambda L: (L.tensordot, (T(L, A), T(L, M)), {'dims': 1}),
}
MULTI = {   # ops with (values, indices) results: `out` is a pair
    'sort': lambda L: (L.sort, (T(L, A),), {'dim': 1}),
    'topk': lambda L: (L.topk, (T(L, A), 2), {}),
    'cummax': lambda L: (L.cummax, (T(L, A), 1), {}),
    'kthvalue': lambda L: (L.kthvalue, (T(L, A), 2), {}),
}


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach().numpy())


def _run(lib, case, out):
    fn, args, kw = case(lib)
    return fn(*args, **kw, out=out)


def _result(lib, case):
    fn, args, kw = case(lib)
    return fn(*args, **kw)


def _tdt(lib, d):
    return getattr(lib, str(d).split('.')[-1])


@pytest.mark.parametrize('name', list(CASES))
def test_out_values_and_identity(name):
    got = {}
    for lib in (torch, mt):
        ref = _result(lib, CASES[name])
        out = lib.zeros(tuple(ref.shape), dtype=ref.dtype)
        with warnings.catch_warnings():
            warnings.simplefilter('error')   # the right shape: no resize warning
            r = _run(lib, CASES[name], out)
        assert r is out
        got[lib] = out
    assert str(got[mt].dtype).split('.')[-1] == str(got[torch].dtype).split('.')[-1]
    torch.testing.assert_close(torch.from_numpy(_np(got[mt]).copy()), got[torch], check_dtype=False)


@pytest.mark.parametrize('name', ['add', 'mul', 'exp', 'cat', 'stack', 'lerp', 'atan2', 'eq', 'hypot', 'diff'])
def test_out_wider_dtype(name):
    "A result that casts safely (float32 -> float64, bool -> float) is written in out's dtype."
    got = {}
    for lib in (torch, mt):
        out = lib.zeros(_result(lib, CASES[name]).shape, dtype=lib.float64)
        _run(lib, CASES[name], out)
        got[lib] = out
    assert got[mt].dtype == mt.float64
    torch.testing.assert_close(torch.from_numpy(_np(got[mt]).copy()), got[torch])


@pytest.mark.parametrize('name', ['add', 'mul', 'div', 'exp', 'sin', 'hypot', 'lerp', 'atan2'])
def test_out_dtype_refused(name):
    msgs = []
    for lib in (torch, mt):
        out = lib.zeros(_result(lib, CASES[name]).shape, dtype=lib.int64)
        with pytest.raises(RuntimeError) as e:
            _run(lib, CASES[name], out)
        msgs.append(str(e.value))
    assert msgs[1] == msgs[0] == "result type Float can't be cast to the desired output type Long"


@pytest.mark.parametrize('to', ['float64', 'int64', 'complex64'])
@pytest.mark.parametrize('name', ['neg', 'floor', 'round', 'clamp', 'clamp_min', 'sgn', 'abs_int', 'cat', 'stack',
                                  'hstack', 'tril', 'gather', 'index_select', 'masked_select', 'addmm', 'cross',
                                  'nan_to_num', 'tensordot', 'exp', 'eq', 'floor_divide'])
def test_out_dtype_rules_as_torch(name, to):
    "Ops with their own dtype rule (same dtype only; cat's TypeError): the same class and message as torch."
    res = []
    for lib in (torch, mt):
        out = lib.zeros(_result(lib, CASES[name]).shape, dtype=getattr(lib, to))
        try:
            _run(lib, CASES[name], out); res.append(None)
        except (RuntimeError, TypeError) as e:
            res.append((type(e), str(e)))
    assert res[1] == res[0]


@pytest.mark.parametrize('name', ['add', 'exp', 'eq', 'cat', 'gather', 'addcmul', 'deg2rad', 'masked_select'])
def test_out_resized_with_warning(name):
    got, warns = {}, {}
    for lib in (torch, mt):
        ref = _result(lib, CASES[name])
        out = lib.zeros(7, dtype=ref.dtype)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            r = _run(lib, CASES[name], out)
        assert r is out
        warns[lib] = [str(x.message) for x in w if issubclass(x.category, UserWarning)]
        got[lib] = out
    assert len(warns[mt]) == 1 and warns[mt][0].split('. This')[0] == warns[torch][0].split('. This')[0]
    assert tuple(got[mt].shape) == tuple(got[torch].shape)
    torch.testing.assert_close(torch.from_numpy(_np(got[mt]).copy()), got[torch], check_dtype=False)


@pytest.mark.parametrize('name', ['add', 'sin', 'stack', 'topk_values'])
def test_out_empty_resized_silently(name):
    case = CASES.get(name) or (lambda L: (lambda *a, **k: L.topk(*a, **k).values, (T(L, A), 2), {}))
    for lib in (torch, mt):
        ref = _result(lib, CASES[name]) if name in CASES else None
        if ref is None: continue
        out = lib.zeros(0, dtype=ref.dtype)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            _run(lib, CASES[name], out)
        assert tuple(out.shape) == tuple(ref.shape)


@pytest.mark.parametrize('name', ['add', 'mul', 'exp', 'clamp', 'cat', 'atan2', 'lerp', 'addmm', 'sort'])
def test_out_refused_under_autograd(name):
    case = CASES.get(name) or MULTI[name]
    msgs = []
    for lib in (torch, mt):
        fn, args, kw = case(lib)
        args = tuple([a.requires_grad_() if isinstance(a, lib.Tensor) and a.dtype.is_floating_point else
                      [x.requires_grad_() for x in a] if isinstance(a, list) else a for a in args])
        ref = fn(*args, **kw)
        out = (tuple(lib.zeros(x.shape, dtype=x.dtype) for x in ref) if name in MULTI else
               lib.zeros(ref.shape, dtype=ref.dtype))
        with pytest.raises(RuntimeError) as e:
            fn(*args, **kw, out=out)
        msgs.append(str(e.value))
        with lib.no_grad():   # without recording it is fine
            fn(*args, **kw, out=out)
    assert msgs[1].split('():')[1] == msgs[0].split('():')[1]
    assert "functions with out=... arguments don't support automatic differentiation" in msgs[1]


def test_out_requiring_grad_refused():
    for lib in (torch, mt):
        out = lib.zeros(2, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            lib.add(T(lib, A), 1, out=out)


@pytest.mark.parametrize('name', list(MULTI))
def test_out_pair(name):
    got = {}
    for lib in (torch, mt):
        ref = _result(lib, MULTI[name])
        out = (lib.zeros(ref[0].shape, dtype=ref[0].dtype), lib.zeros(ref[1].shape, dtype=ref[1].dtype))
        r = _run(lib, MULTI[name], out)
        assert r[0] is out[0] and r[1] is out[1]
        got[lib] = out
    for m, t in zip(got[mt], got[torch]):
        torch.testing.assert_close(torch.from_numpy(_np(m).copy()), t)


def test_out_not_a_tensor():
    for lib in (torch, mt):
        with pytest.raises(TypeError, match="argument 'out' must be Tensor, not int"):
            lib.atan2(T(lib, A), T(lib, B), out=3)


@pytest.mark.parametrize('fn', ['relu', 'conj', 'real', 'positive', 'unsqueeze'])
def test_no_out_where_torch_has_none(fn):
    for lib in (torch, mt):
        args = (T(lib, A), 0) if fn == 'unsqueeze' else (T(lib, A),)
        with pytest.raises(TypeError):
            getattr(lib, fn)(*args, out=lib.zeros(2, 3))


def test_out_view_written_in_place():
    "out may be a view: the base sees the result (torch writes through)."
    got = []
    for lib in (torch, mt):
        base = lib.zeros(3, 3)
        lib.mul(T(lib, [1.0, 2.0, 3.0]), 2, out=base[1])
        got.append(base)
    torch.testing.assert_close(torch.from_numpy(got[1].numpy().copy()), got[0])


def test_out_bumps_version():
    out = mt.zeros(3)
    v = out._version
    mt.add(mt.ones(3), 1, out=out)
    assert out._version > v


EXTRA = {
    'isposinf': lambda L: (L.isposinf, (T(L, A),), {}),
    'signbit': lambda L: (L.signbit, (T(L, A),), {}),
    'float_power': lambda L: (L.float_power, (T(L, P), 2), {}),
    'quantile': lambda L: (L.quantile, (T(L, A), 0.5), {}),
    'take_along_dim': lambda L: (L.take_along_dim, (T(L, A), I64(L, [[0, 1, 2], [2, 1, 0]])), {'dim': 1}),
    'msort': lambda L: (L.msort, (T(L, A),), {}),
    'triu': lambda L: (L.triu, (T(L, A),), {}),
    'clamp_max': lambda L: (L.clamp_max, (T(L, A), 0.0), {}),
    'vstack': lambda L: (L.vstack, ([T(L, A), T(L, B)],), {}),
}


@pytest.mark.parametrize('to', ['float32', 'float64', 'bool', 'int64'])
@pytest.mark.parametrize('name', list(EXTRA))
def test_out_dtype_rules_more(name, to):
    res = []
    for lib in (torch, mt):
        out = lib.zeros(_result(lib, EXTRA[name]).shape, dtype=getattr(lib, to))
        try:
            r = _run(lib, EXTRA[name], out); res.append(('ok', _np(out).tolist()))
            assert r is out
        except (RuntimeError, TypeError) as e:
            res.append((type(e), str(e)))
    if res[0][0] == 'ok':
        assert res[1][0] == 'ok'
        np.testing.assert_allclose(np.asarray(res[1][1], dtype=float), np.asarray(res[0][1], dtype=float), rtol=1e-6)
    else:
        assert res[1] == res[0]


RED = {   # ops of the reductions chapter: `_write_out`'s dtype rules checked directly (their out= wiring is there)
    'mm': lambda L: (L.mm, (T(L, A), T(L, M))),
    'bmm': lambda L: (L.bmm, (T(L, [A]), T(L, [M]))),
    'matmul': lambda L: (L.matmul, (T(L, A), T(L, M))),
    'mv': lambda L: (L.mv, (T(L, A), T(L, [1.0, 2.0, 3.0]))),
    'dot': lambda L: (L.dot, (T(L, [1.0, 2.0]), T(L, [3.0, 4.0]))),
    'cumsum': lambda L: (L.cumsum, (T(L, A), 0)),
    'sum': lambda L: (L.sum, (T(L, A), 0)),
    'logsumexp': lambda L: (L.logsumexp, (T(L, A), 0)),
    'any': lambda L: (L.any, (T(L, A),)),
}


@pytest.mark.parametrize('to', ['float64', 'int64', 'bool'])
@pytest.mark.parametrize('name', list(RED))
def test_write_out_rules_of_reductions(name, to):
    from minitorch.ops import _write_out
    if (name, to) == ('cumsum', 'bool'): pytest.skip("torch refuses in the kernel (no Bool cumsum), not in the out rule")
    res = []
    for lib in (torch, mt):
        fn, args = RED[name](lib)
        r = fn(*args)
        out = lib.zeros(r.shape, dtype=getattr(lib, to))
        try:
            if lib is torch: fn(*args, out=out)
            else: _write_out(r, out, name)
            res.append('ok')
        except RuntimeError as e:
            res.append(str(e))
    assert res[1] == res[0]
