"""Sweep of the pointwise ops of `minitorch.ops` / `minitorch.more_ops` against torch 2.13.

Every op runs over 11 dtypes x 7 layouts (contiguous, transposed, strided, offset, expanded, 0-d, empty) on
special values (0, -0, inf, -inf, nan, tiny, huge, ...). Value, dtype, shape, input gradients (floating and
complex inputs) and the exception class (and message) must agree with torch.
"""
import math
import warnings

import numpy as np
import pytest
import torch

import minitorch as mt

warnings.filterwarnings('ignore', message='.*ComplexHalf.*')

DTYPES = ['bool', 'uint8', 'int8', 'int32', 'int64', 'float16', 'bfloat16', 'float32', 'float64', 'complex64',
          'complex128']
LAYOUTS = ['contiguous', 'transposed', 'strided', 'offset', 'expanded', '0-d', 'empty']
GRAD_DTYPES = ('float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128')


def _values(dtype: str, seed: int) -> torch.Tensor:
    "12 values of `dtype` (a 3x4 block) with the special ones first, shuffled by `seed`."
    td = getattr(torch, dtype)
    if dtype == 'bool': v = torch.tensor([True, False] * 6)
    elif dtype == 'uint8': v = torch.tensor([0, 1, 2, 3, 5, 7, 127, 128, 200, 254, 255, 9], dtype=td)
    elif dtype.startswith('int'):
        ii = torch.iinfo(td)
        v = torch.tensor([0, 1, -1, 2, -3, 5, 7, -8, ii.max, ii.min, 100, -100], dtype=td)
    else:
        fd = td if td.is_floating_point else (torch.float32 if td == torch.complex64 else torch.float64)
        fi = torch.finfo(fd)
        re = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, fi.tiny, fi.max / 2, 0.5, -1.5, 2.25, -0.75,
                           3.0], dtype=torch.float64).to(fd)
        if td.is_complex:
            im = torch.tensor([0.0, 1.0, -0.0, 2.0, 0.5, -1.0, 0.0, math.inf, 0.25, -2.0, math.nan, 1.5],
                              dtype=torch.float64).to(fd)
            v = torch.complex(re, im)
        else: v = re
    g = torch.Generator().manual_seed(seed)
    if seed: v = v[torch.randperm(12, generator=g)]
    return v.reshape(3, 4)


def _to_mt(t: torch.Tensor):
    "A contiguous minitorch copy of torch tensor `t` (same dtype)."
    name = str(t.dtype).replace('torch.', '')
    if name == 'bfloat16': return mt.tensor(t.float().numpy()).to(mt.bfloat16)
    return mt.tensor(t.detach().resolve_conj().numpy().copy(), dtype=getattr(mt, name))


def _layout(lib, base, layout: str):
    "The 3x4 block `base` (a tensor of `lib`) laid out as `layout` (the result is a view where the layout says so)."
    if layout == 'contiguous': return base
    if layout == 'transposed': return base.t().contiguous().t() if lib is torch else base.t().contiguous().t()
    if layout == 'strided': return lib.stack([base, base], 2).reshape(3, 8)[:, ::2]
    if layout == 'offset': return lib.cat([base.reshape(-1)[:1], base.reshape(-1)]).narrow(0, 1, 12).reshape(3, 4)
    if layout == 'expanded': return base[1:2].expand(3, 4)
    if layout == '0-d': return base[0, 1]
    if layout == 'empty': return base[:0]
    raise ValueError(layout)


def make(dtype: str, layout: str, seed: int = 0, requires_grad: bool = False):
    "The same input for torch and minitorch: a (torch, minitorch) pair of leaves viewed as `layout`."
    tb = _values(dtype, seed)
    mb = _to_mt(tb)
    if requires_grad:
        tb = tb.clone().requires_grad_(True); mb.requires_grad_(True)
    return (tb, mb), (_layout(torch, tb, layout), _layout(mt, mb, layout))


def _run(f, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return f(*args), None
    except Exception as e:   # noqa: BLE001 - any exception is compared with torch's
        return None, e


def _ulp_close(m: np.ndarray, t: np.ndarray, dtype: str, ulps: float = 1, scale: float = 0.0) -> np.ndarray:
    "Where `m` and `t` agree: equal, both nan, or within `ulps` ulps (x4 for float32/float64)."
    m, t = np.asarray(m), np.asarray(t)
    if m.dtype.kind in 'biu': return m == t
    if m.dtype.kind == 'c':
        return _ulp_close(m.real, t.real, dtype, ulps, scale) & _ulp_close(m.imag, t.imag, dtype, ulps, scale)
    m64, t64 = m.astype(np.float64), t.astype(np.float64)
    same = (m64 == t64) | (np.isnan(m64) & np.isnan(t64))
    eps, tiny = {'float16': (2.0 ** -10, 2.0 ** -24), 'bfloat16': (2.0 ** -7, 2.0 ** -133),
                 'float32': (4 * 2.0 ** -23, 2.0 ** -149), 'float64': (4 * 2.0 ** -52, 5e-324)}[dtype]
    with np.errstate(all='ignore'):
        near = np.abs(m64 - t64) <= ulps * eps * (np.abs(t64) + scale) + 2 * tiny
    return same | (near & np.isfinite(t64) & np.isfinite(m64))


def _np(x, dtype: str) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        x = x.detach().resolve_conj()
        return (x.float() if x.dtype == torch.bfloat16 else x).numpy()
    x = x.detach()
    return (x.float() if x.dtype == mt.bfloat16 else x).numpy()


def compare(f, *inputs, grad=True, what=''):
    """Run `f(lib, *xs)` on the torch and minitorch halves of `inputs` ((leaves, views) pairs).

    Returns a list of mismatch descriptions (empty when everything agrees)."""
    bad = []
    tl = [i[0][0] for i in inputs]; ml = [i[0][1] for i in inputs]
    tv = [i[1][0] for i in inputs]; mv = [i[1][1] for i in inputs]
    to, te = _run(lambda *a: f(torch, *a), tv)
    mo, me = _run(lambda *a: f(mt, *a), mv)
    if te is not None or me is not None:
        if te is None: return [f"{what}: minitorch raised {type(me).__name__}: {str(me)[:120]}"]
        if me is None: return [f"{what}: torch raised {type(te).__name__}: {str(te)[:100]}; minitorch returned"]
        if type(te).__name__ != type(me).__name__ or str(te).split('\n')[0][:60] != str(me).split('\n')[0][:60]:
            return [f"{what}: torch {type(te).__name__}: {str(te)[:90]!r} vs {type(me).__name__}: {str(me)[:90]!r}"]
        return []
    if isinstance(to, bool) or isinstance(to, (int, float)):
        return [] if to == mo else [f"{what}: value {mo} vs torch {to}"]
    tdn = str(to.dtype).replace('torch.', '')
    if mo.dtype.name != tdn: return [f"{what}: dtype {mo.dtype.name} vs torch {tdn}"]
    if tuple(mo.shape) != tuple(to.shape): return [f"{what}: shape {tuple(mo.shape)} vs torch {tuple(to.shape)}"]
    if to.numel():
        ok = _ulp_close(_np(mo, tdn), _np(to, tdn), tdn if tdn[:7] != 'complex' else
                        {'complex64': 'float32', 'complex128': 'float64'}[tdn]) if tdn != 'bool' else \
            _np(mo, tdn) == _np(to, tdn)
        if not np.all(ok):
            i = np.argwhere(~np.asarray(ok))[0]
            i = tuple(i)
            return [f"{what}: value at {i}: {_np(mo, tdn)[i]!r} vs torch {_np(to, tdn)[i]!r}"]
    if grad and to.requires_grad and (to.dtype.is_floating_point or to.dtype.is_complex):
        w = _values(tdn if tdn != 'bool' else 'float32', 7)
        w = torch.where(torch.isfinite(w), w, torch.ones_like(w)) if w.dtype.is_floating_point or w.dtype.is_complex else w
        w = (w.reshape(-1)[:1].reshape(()) if to.dim() == 0 else w.expand(*to.shape) if to.numel() else
             torch.zeros(to.shape, dtype=to.dtype)).to(to.dtype).contiguous()
        _, tge = _run(lambda: to.backward(w), [])
        _, mge = _run(lambda: mo.backward(_to_mt(w)), [])
        if tge is not None or mge is not None:
            if (tge is None) != (mge is None) or type(tge).__name__ != type(mge).__name__:
                return [f"{what}: backward torch {tge!r:.100} vs minitorch {mge!r:.100}"]
            return []
        for k, (t, m) in enumerate(zip(tl, ml)):
            if not isinstance(t, torch.Tensor) or not t.requires_grad: continue
            tg = t.grad
            if tg is not None and tg._is_zerotensor(): tg = torch.zeros(tg.shape, dtype=tg.dtype)
            if tg is None:
                if m.grad is not None: bad.append(f"{what}: grad {k} is not None (torch: None)")
                continue
            if m.grad is None: bad.append(f"{what}: grad {k} is None (torch: zeros)" if not tg.any()
                                          else f"{what}: grad {k} is None"); continue
            gd = str(tg.dtype).replace('torch.', '')
            if m.grad.dtype.name != gd: bad.append(f"{what}: grad {k} dtype {m.grad.dtype.name} vs {gd}"); continue
            rd = {'complex64': 'float32', 'complex128': 'float64'}.get(gd, gd)
            # a derivative like 1 - tanh(x)^2 turns one ulp of difference in tanh into several: 16 ulps here
            # (2 for half gradients, whose float32 intermediates are rounded once)
            # (and relative to the largest finite gradient, where a derivative cancels to about 0)
            tn = _np(tg, gd)
            fin = np.abs(tn[np.isfinite(tn)])
            ok = _ulp_close(_np(m.grad, gd), tn, rd, ulps=16 if rd in ('float32', 'float64') else 2, scale=float(fin.max()) if fin.size else 0.0)
            if not np.all(ok):
                i = tuple(np.argwhere(~np.asarray(ok))[0])
                bad.append(f"{what}: grad {k} at {i}: {_np(m.grad, gd)[i]!r} vs torch {_np(tg, gd)[i]!r} "
                           f"(input {_np(t.detach(), gd)[i]!r})")
    return bad


# ------------------------------------------------------------------------------------------------ the op tables
UNARY = {n: (lambda n: lambda L, x: getattr(L, n)(x))(n) for n in (
    'neg', 'abs', 'exp', 'exp2', 'log', 'log2', 'log10', 'log1p', 'expm1', 'sqrt', 'rsqrt', 'sin', 'cos', 'tan',
    'tanh', 'sinh', 'cosh', 'asin', 'acos', 'atan', 'asinh', 'acosh', 'atanh', 'sigmoid', 'relu', 'reciprocal',
    'square', 'erf', 'sign', 'floor', 'ceil', 'trunc', 'round', 'sgn', 'positive', 'logical_not', 'bitwise_not',
    'isnan', 'isinf', 'isfinite', 'isposinf', 'isneginf', 'signbit', 'conj', 'clone', 'logit', 'sinc', 'frac',
    'deg2rad', 'rad2deg', 'nan_to_num', 'fix', 'conj_physical')}
UNARY.update({
    'round_decimals': lambda L, x: L.round(x, decimals=2),
    'clamp': lambda L, x: L.clamp(x, -1, 2), 'clamp_min': lambda L, x: L.clamp_min(x, 0.5),
    'clamp_max': lambda L, x: L.clamp_max(x, 1), 'logit_eps': lambda L, x: L.logit(x, eps=1e-3),
    'add_scalar': lambda L, x: x + 2, 'add_alpha': lambda L, x: L.add(x, 1, alpha=2),
    'sub_scalar': lambda L, x: x - 1, 'rsub_scalar': lambda L, x: 1 - x, 'mul_float': lambda L, x: x * 2.5,
    'div_scalar': lambda L, x: x / 2, 'rdiv_scalar': lambda L, x: 2 / x, 'pow_2': lambda L, x: x ** 2,
    'pow_half': lambda L, x: x ** 0.5, 'pow_neg1': lambda L, x: x ** -1, 'rpow': lambda L, x: 2 ** x,
    'floordiv_scalar': lambda L, x: x // 2, 'mod_scalar': lambda L, x: x % 3, 'fmod_scalar': lambda L, x: L.fmod(x, 2),
    'eq_scalar': lambda L, x: x == 1, 'lt_scalar': lambda L, x: x < 1, 'ge_scalar': lambda L, x: x >= 0,
    'float_power_2': lambda L, x: L.float_power(x, 2), 'xlogy_scalar': lambda L, x: L.xlogy(x, 2.0),
    'xlogy_rscalar': lambda L, x: L.xlogy(2.0, x), 'copysign_scalar': lambda L, x: L.copysign(x, -1.0),
    'and_scalar': lambda L, x: x & 1, 'where_scalar': lambda L, x: L.where(x.detach() != 0, x, 0.5),
    'sub_true': lambda L, x: x - True, 'isclose_self': lambda L, x: L.isclose(x, x.detach()),
    'lerp_scalar': lambda L, x: L.lerp(x, x.detach() * 0 + 1 if not x.dtype == L.bool else x, 0.25),
})
# the pointwise activations of minitorch.nn.activations
UNARY.update({'F.' + n: (lambda n: lambda L, x: getattr(L.nn.functional, n)(x))(n) for n in (
    'elu', 'selu', 'celu', 'hardtanh', 'relu6', 'hardsigmoid', 'hardswish', 'mish', 'softsign', 'softshrink',
    'hardshrink', 'tanhshrink')})
UNARY['F.threshold'] = lambda L, x: L.nn.functional.threshold(x, 0.5, -2.0)

BINARY = {n: (lambda n: lambda L, x, y: getattr(L, n)(x, y))(n) for n in (
    'add', 'sub', 'mul', 'div', 'floor_divide', 'remainder', 'fmod', 'pow', 'maximum', 'minimum', 'atan2', 'eq',
    'ne', 'lt', 'le', 'gt', 'ge', 'logical_and', 'logical_or', 'logical_xor', 'bitwise_and', 'bitwise_or',
    'bitwise_xor', 'isclose', 'logaddexp', 'logaddexp2', 'hypot', 'xlogy', 'heaviside', 'float_power', 'copysign',
    'fmax', 'fmin', 'true_divide', 'rsub')}
BINARY.update({
    'div_trunc': lambda L, x, y: L.div(x, y, rounding_mode='trunc'),
    'div_floor': lambda L, x, y: L.div(x, y, rounding_mode='floor'),
    'where': lambda L, x, y: L.where(x.detach() != 0, x, y),
    'clamp_t': lambda L, x, y: L.clamp(x, min=y),
    'lerp': lambda L, x, y: L.lerp(x, y, 0.3),
    'lerp_t': lambda L, x, y: L.lerp(x, y, y.detach()),
    'addcmul': lambda L, x, y: L.addcmul(x, y, x, value=0.5),
    'addcdiv': lambda L, x, y: L.addcdiv(x, x, y, value=2),
    'equal': lambda L, x, y: L.equal(x, y),
    'allclose': lambda L, x, y: L.allclose(x, y),
})

# Known mismatches whose fix belongs to a module the owner of this file (issue 12) does not own, or where PyTorch
# itself is inconsistent; each is described in the report. They run, and are expected to fail.
_C = ('complex64', 'complex128')
_CINF = ("numpy's complex +, -, *, / and reciprocal do not spread inf/NaN parts as PyTorch's kernels "
         "(PyTorch adds a + alpha*b with a complex alpha): minitorch/backends.py (05_backends)")
XFAIL: dict = {}
for _op in ('add', 'sub', 'rsub', 'rsub_scalar', 'reciprocal', 'pow_neg1'):
    for _d in _C: XFAIL[(_op, _d)] = _CINF
for _op in ('div', 'true_divide'):
    for _d in _C: XFAIL[(_op, _d)] = "complex division: PyTorch's algorithm rounds differently from numpy's (05_backends)"
for _op in ('acosh', 'atanh', 'logaddexp', 'lerp_t', 'sgn'):
    for _d in _C: XFAIL[(_op, _d)] = "gradient at complex inf/huge/signed-zero points: " + _CINF
for _d in ('int8', 'int32', 'int64'):
    XFAIL[('sigmoid', _d)] = ("sigmoid(-100) in float32: PyTorch computes 1/(1+exp(-x)) (0 once exp overflows), the "
                              "backends a stable form (a subnormal): backends.py _np_sigmoid / numba m_sigmoid")
XFAIL[('erf', 'bfloat16')] = "erf of a tiny bfloat16: PyTorch returns 0, the numpy erf a subnormal (05_backends)"
XFAIL[('F.tanhshrink', 'float32')] = "x - tanh(x) cancels: one ulp of numpy's tanh vs PyTorch's becomes many"
for _op in ('remainder', 'fmod'):
    XFAIL[(_op, 'float64')] = "huge % tiny: PyTorch's vectorised kernel gives NaN, numpy the exact 0"
for _op in ('F.hardtanh', 'F.relu6', 'F.softshrink', 'F.hardshrink'):
    XFAIL[(_op, 'float64')] = ("gradient at NaN: PyTorch's own float64 kernels give 0 or the gradient depending on the "
                               "layout (vectorised or scalar path)")


def _cases(table):
    return [pytest.param(n, d, marks=pytest.mark.xfail(reason=XFAIL[(n, d)], strict=False)) if (n, d) in XFAIL
            else (n, d) for n in table for d in DTYPES]


CASES, BCASES = _cases(UNARY), _cases(BINARY)


def _sweep(f, dtype, nargs):
    bad = []
    for layout in LAYOUTS:
        rg = dtype in GRAD_DTYPES
        ins = [make(dtype, layout, seed=k, requires_grad=rg) for k in range(nargs)]
        bad += compare(f, *ins, what=f"{dtype}/{layout}")
    return bad


@pytest.mark.parametrize('op,dtype', CASES)
def test_unary_sweep(op, dtype):
    bad = _sweep(UNARY[op], dtype, 1)
    assert not bad, f"{op}: " + "\n".join(bad[:4])


@pytest.mark.parametrize('op,dtype', BCASES)
def test_binary_sweep(op, dtype):
    bad = _sweep(BINARY[op], dtype, 2)
    assert not bad, f"{op}: " + "\n".join(bad[:4])


# ------------------------------------------------------------------ half precision: compute in float32, round once
HALF_OPS = {
    'sinc': lambda L, x, y: L.sinc(x), 'hardsigmoid': lambda L, x, y: L.nn.functional.hardsigmoid(x),
    'hardswish': lambda L, x, y: L.nn.functional.hardswish(x), 'mish': lambda L, x, y: L.nn.functional.mish(x),
    'elu': lambda L, x, y: L.nn.functional.elu(x), 'selu': lambda L, x, y: L.nn.functional.selu(x),
    'celu': lambda L, x, y: L.nn.functional.celu(x, 0.7),
    'addcdiv': lambda L, x, y: L.addcdiv(x, y, x.abs() + 1, value=0.3),
    'addcmul': lambda L, x, y: L.addcmul(x, y, x, value=0.3),
    'lerp': lambda L, x, y: L.lerp(x, y, 0.3), 'lerp_hi': lambda L, x, y: L.lerp(x, y, 0.7),
    'lerp_t': lambda L, x, y: L.lerp(x, y, (y.abs() % 1)),
    'logaddexp': lambda L, x, y: L.logaddexp(x, y), 'logaddexp2': lambda L, x, y: L.logaddexp2(x, y),
    'hypot': lambda L, x, y: L.hypot(x, y), 'xlogy': lambda L, x, y: L.xlogy(x, y.abs()),
    'logit': lambda L, x, y: L.logit(x.abs() % 1), 'logit_eps': lambda L, x, y: L.logit(x.abs() % 1, eps=0.01),
    'frac': lambda L, x, y: L.frac(x), 'deg2rad': lambda L, x, y: L.deg2rad(x),
    'rad2deg': lambda L, x, y: L.rad2deg(x), 'round2': lambda L, x, y: L.round(x, decimals=2),
    'mul_scalar': lambda L, x, y: x * 0.1, 'div_scalar': lambda L, x, y: x / 0.3,
    'rdiv_scalar': lambda L, x, y: 3 / x, 'floordiv_scalar': lambda L, x, y: x // 0.3,
    'add_alpha': lambda L, x, y: L.add(x, y, alpha=0.3), 'copysign': lambda L, x, y: L.copysign(x, y),
    'atan2': lambda L, x, y: L.atan2(x, y), 'sigmoid': lambda L, x, y: L.sigmoid(x),
    'softsign': lambda L, x, y: L.nn.functional.softsign(x), 'pow_2': lambda L, x, y: x ** 2,
    'tanhshrink': lambda L, x, y: L.nn.functional.tanhshrink(x),
    'softshrink': lambda L, x, y: L.nn.functional.softshrink(x, 0.3),
    'hardtanh': lambda L, x, y: L.nn.functional.hardtanh(x, -1.3, 2.1),
    'threshold': lambda L, x, y: L.nn.functional.threshold(x, 0.3, -1.7),
    'nan_to_num': lambda L, x, y: L.nan_to_num(x / (y - y.round())),
    'clamp': lambda L, x, y: L.clamp(x, -0.3, 1.7), 'fmod': lambda L, x, y: L.fmod(x, 0.7),
    'remainder': lambda L, x, y: x % y, 'floordiv': lambda L, x, y: x // y,
    'sgn': lambda L, x, y: L.sgn(x),
}
HALF_KNOWN = {'floordiv': "PyTorch's div_floor rounds each intermediate (fmod, a - mod, / b) to the half dtype; the "
                          "backends compute the quotient in float32 (05_backends, 09_numba_backend)"}


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('op', [pytest.param(o, marks=pytest.mark.xfail(reason=HALF_KNOWN[o], strict=False))
                                if o in HALF_KNOWN else o for o in HALF_OPS])
def test_half_opmath_random(op, dtype):
    "Random half-precision inputs agree with torch within 1 ulp (a composite rounding each step misses by more)."
    g = torch.Generator().manual_seed(0)
    td = getattr(torch, dtype)
    x, y = (torch.randn(2000, generator=g) * 4).to(td), (torch.randn(2000, generator=g) * 4).to(td)
    f = HALF_OPS[op]
    t = f(torch, x, y)
    m = f(mt, _to_mt(x), _to_mt(y))
    assert m.dtype.name == dtype
    ok = _ulp_close(_np(m, dtype), _np(t, dtype), dtype)
    bad = np.flatnonzero(~ok)
    assert bad.size == 0, f"{bad.size} values off by more than 1 ulp, e.g. {_np(m, dtype)[bad[:3]]} vs {_np(t, dtype)[bad[:3]]}"


# ------------------------------------------------------------------ the cases named in issue 12, one by one
def _pair(data, dtype, rg=False):
    t = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=rg)
    m = mt.tensor(data, dtype=getattr(mt, dtype), requires_grad=rg)
    return t, m


def _same(m, t, dtype=None):
    assert m.dtype.name == str(t.dtype).replace('torch.', '')
    torch.testing.assert_close(torch.from_numpy(np.array(m.detach().numpy())), t.detach(), equal_nan=True)


def test_complex_sigmoid_logaddexp_logcumsumexp():
    t, m = _pair([1 + 2j, -3 + 0.5j, 0j, 40 - 1j, -40 + 3j], 'complex128')
    _same(mt.sigmoid(m), torch.sigmoid(t))
    t2, m2 = _pair([0.5 - 1j, -3 + 0.5j, 2j, 1 + 1j, -39 + 0j], 'complex128')
    _same(mt.logaddexp(m, m2), torch.logaddexp(t, t2))
    _same(mt.logcumsumexp(m, 0), torch.logcumsumexp(t, 0))
    t, m = _pair([1 + 2j, 0.5 - 1j], 'complex128', rg=True)
    torch.sigmoid(t).backward(torch.tensor([1 + 1j, 2 - 1j], dtype=torch.complex128))
    mt.sigmoid(m).backward(mt.tensor([1 + 1j, 2 - 1j], dtype=mt.complex128))
    _same(m.grad, t.grad)


def test_float64_never_through_float32():
    t, m = _pair([1e-300, 3.0, 0.0], 'float64')
    _same(mt.xlogy(1e-300, m), torch.xlogy(1e-300, t))      # the scalar stays a float64 number
    _same(mt.xlogy(m, 1 + 1e-15), torch.xlogy(t, 1 + 1e-15))
    b_t, b_m = _pair([3, 7], 'uint8')
    e_t, e_m = _pair([1.0 + 1e-12, 0.3], 'float64', rg=True)
    torch.pow(b_t, e_t).sum().backward(); mt.pow(b_m, e_m).sum().backward()
    assert e_m.grad.dtype == mt.float64
    np.testing.assert_allclose(e_m.grad.numpy(), e_t.grad.numpy(), rtol=1e-15)


def test_sign_nan_copysign_grad_floor_divide_remainder():
    t, m = _pair([float('nan'), -0.0, 2.0, -3.0], 'float32')
    _same(mt.sign(m), torch.sign(t)); _same(mt.sgn(m), torch.sgn(t))
    a_t, a_m = _pair([1.0, -2.0], 'float32', rg=True)
    b_t, b_m = _pair([-1.0, 2.0], 'float32', rg=True)
    torch.copysign(a_t, b_t).sum().backward(); mt.copysign(a_m, b_m).sum().backward()
    _same(a_m.grad, a_t.grad); _same(b_m.grad, b_t.grad)          # b.grad is a zero tensor, not None
    a_t, a_m = _pair([5.0, -2.0], 'float32', rg=True)
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        torch.floor_divide(a_t, 2.0).sum().backward()
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        mt.floor_divide(a_m, 2.0).sum().backward()
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        (a_m // 2.0).sum().backward()
    b_t, b_m = _pair([2.0, 3.0], 'float32', rg=True)
    torch.remainder(a_t, b_t).sum().backward(); mt.remainder(a_m, b_m).sum().backward()
    _same(a_m.grad, a_t.grad); _same(b_m.grad, b_t.grad)


def test_histc_nan():
    t, m = _pair([1.0, float('nan'), 2.0], 'float32')
    with pytest.raises(RuntimeError, match=r"torch.histc: range of \[.*nan.*\] is not finite"): mt.histc(m, bins=4)
    with pytest.raises(RuntimeError): torch.histc(t, bins=4)
    _same(mt.histc(m, bins=4, min=0, max=3), torch.histc(t, bins=4, min=0, max=3))
    t, m = _pair([1.0, float('inf')], 'float32')
    with pytest.raises(RuntimeError, match=r"range of \[1, inf\] is not finite"): mt.histc(m, bins=4)


REFUSED = {
    'abs bool': lambda L: L.abs(L.tensor([True])),
    'floor bool': lambda L: L.floor(L.tensor([True])),
    'round bool': lambda L: L.round(L.tensor([True])),
    'relu bool': lambda L: L.relu(L.tensor([True])),
    'floor_divide bool': lambda L: L.floor_divide(L.tensor([True]), L.tensor([True])),
    'clamp complex': lambda L: L.clamp(L.tensor([1j]), 0, 1),
    'sign complex': lambda L: L.sign(L.tensor([1j])),
    'round complex': lambda L: L.round(L.tensor([1j])),
    'erf complex': lambda L: L.erf(L.tensor([1j])),
    'hypot complex': lambda L: L.hypot(L.tensor([1j]), L.tensor([1j])),
    'floor complex': lambda L: L.floor(L.tensor([1j])),
    'lt complex': lambda L: L.tensor([1j]) < L.tensor([2j]),
    'maximum complex': lambda L: L.maximum(L.tensor([1j]), L.tensor([2j])),
    'bitwise_and float': lambda L: L.bitwise_and(L.tensor([1.0]), L.tensor([1.0])),
    'bitwise_not float': lambda L: L.bitwise_not(L.tensor([1.0])),
    'invert float': lambda L: ~L.tensor([1.0]),
    'int - True': lambda L: L.tensor([1, 2]) - True,
    'True - float': lambda L: True - L.tensor([1.0]),
    'bool - bool': lambda L: L.tensor([True]) - L.tensor([False]),
    'maximum scalar': lambda L: L.maximum(L.tensor([1, 2]), 1),
    'minimum scalar': lambda L: L.minimum(L.tensor([1.0]), True),
    'atan2 scalar': lambda L: L.atan2(L.tensor([1.0, 2.0]), 1),
    'atan2 scalar first': lambda L: L.atan2(1.0, L.tensor([1.0])),
    'isclose scalar': lambda L: L.isclose(L.tensor([1.0, 2.0]), 1),
    'allclose scalar': lambda L: L.allclose(L.tensor([1.0]), 1.0),
    'equal scalar': lambda L: L.equal(L.tensor([1.0]), 1.0),
    'logical_and scalar': lambda L: L.logical_and(L.tensor([1.0, 2.0]), 1),
    'logical_or scalar': lambda L: L.logical_or(L.tensor([1.0]), 1.5),
    'logical_xor None': lambda L: L.logical_xor(L.tensor([1.0]), None),
    'fmin scalar': lambda L: L.fmin(L.tensor([1.0, 2.0]), 1),
    'fmax scalar': lambda L: L.fmax(L.tensor([1.0]), 1.0),
    'heaviside scalar': lambda L: L.heaviside(L.tensor([1.0, 2.0]), 1),
    'hypot scalar': lambda L: L.hypot(L.tensor([1.0]), 1.0),
    'logaddexp scalar': lambda L: L.logaddexp(L.tensor([1.0]), 1.0),
    'isclose mixed': lambda L: L.isclose(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0], dtype=L.float64)),
    'isclose mixed int': lambda L: L.isclose(L.tensor([1]), L.tensor([1], dtype=L.int32)),
    'allclose mixed': lambda L: L.allclose(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0], dtype=L.float64)),
    'lerp mixed end': lambda L: L.lerp(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0], dtype=L.float64), 0.5),
    'lerp mixed half': lambda L: L.lerp(L.tensor([1.0]), L.tensor([1.0], dtype=L.float16), 0.5),
    'lerp mixed weight': lambda L: L.lerp(L.tensor([1.0]), L.tensor([1.0]), L.tensor([0.5], dtype=L.float64)),
    'addmm 3-d input': lambda L: L.addmm(L.zeros(1, 2, 2), L.ones(2, 2), L.ones(2, 2)),
    'addr 3-d input': lambda L: L.addr(L.zeros(1, 2, 2), L.ones(2), L.ones(2)),
    'addmv 2-d input': lambda L: L.addmv(L.zeros(1, 2), L.ones(2, 2), L.ones(2)),
    'int ** -1': lambda L: L.tensor([2, 3], dtype=L.uint8) ** -1,
    'add int alpha float': lambda L: L.add(L.tensor([1, 2]), 1, alpha=0.5),
    'sub int alpha float': lambda L: L.sub(L.tensor([1, 2]), L.tensor([1, 1]), alpha=0.5),
    'add alpha complex': lambda L: L.add(L.tensor([1.0]), 1, alpha=1j),
    'positive bool': lambda L: +L.tensor([True]),
    'isposinf complex': lambda L: L.isposinf(L.tensor([1j])),
    'signbit complex': lambda L: L.signbit(L.tensor([1j])),
    'frac int': lambda L: L.frac(L.tensor([1])),
    'deg2rad complex': lambda L: L.deg2rad(L.tensor([1j])),
    'xlogy complex': lambda L: L.xlogy(L.tensor([1j]), L.tensor([1j])),
    'logit complex': lambda L: L.logit(L.tensor([1j])),
    'round decimals int': lambda L: L.round(L.tensor([1]), decimals=1),
    'hardsigmoid int': lambda L: L.nn.functional.hardsigmoid(L.tensor([1])),
    'elu int': lambda L: L.nn.functional.elu(L.tensor([1])),
    'hardtanh bool': lambda L: L.nn.functional.hardtanh(L.tensor([True])),
    'hardtanh uint8 negative': lambda L: L.nn.functional.hardtanh(L.tensor([1], dtype=L.uint8)),
    'threshold uint8': lambda L: L.nn.functional.threshold(L.tensor([1], dtype=L.uint8), 0.5, -2.0),
    'nan_to_num complex grad': lambda L: L.nan_to_num(L.tensor([1j], requires_grad=True)),
}


@pytest.mark.parametrize('case', list(REFUSED))
def test_refuses_what_torch_refuses(case):
    "The same exception class and message as PyTorch (its dtype names, never numpy's or Python's internals)."
    f = REFUSED[case]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with pytest.raises(Exception) as te: f(torch)
        with pytest.raises(Exception) as me: f(mt)
    assert type(me.value).__name__ == type(te.value).__name__, (me.value, te.value)
    tm, mm = str(te.value).split('\n')[0], str(me.value).split('\n')[0]
    if case.startswith('lerp mixed') or case.startswith('add'):
        assert mm == tm
    else:
        assert mm.replace('minitorch', 'torch')[:40] == tm[:40], (mm, tm)


ACCEPTED = {
    'int ** negative int tensor': lambda L: L.tensor([0, 1, -1, 2, -2, 3]) ** L.tensor([-1, -1, -1, -2, -3, 2]),
    'scalar ** negative int tensor': lambda L: 2 ** L.tensor([-1, 2, 0]),
    'int8 ** negative': lambda L: L.pow(L.tensor([-1, 1, 4], dtype=L.int8), L.tensor([-3, -2, -1], dtype=L.int8)),
    'add float alpha': lambda L: L.add(L.tensor([1.0, 2.0]), 1, alpha=0.5),
    'sub float alpha': lambda L: L.sub(L.tensor([1.0, 2.0]), L.tensor([3.0, 1.0]), alpha=0.5),
    'add int tensor + float tensor alpha': lambda L: L.add(L.tensor([1, 2]), L.tensor([1.0, 2.0]), alpha=0.5),
    'erf 0-d': lambda L: L.erf(L.tensor(0.5)),
    'erf 0-d int': lambda L: L.erf(L.tensor(1)),
    'gelu 0-d': lambda L: L.nn.functional.gelu(L.tensor(0.5)),
    'square bool': lambda L: L.square(L.tensor([True, False])),
    'hardtanh int8': lambda L: L.nn.functional.hardtanh(L.tensor([-5, 0, 5], dtype=L.int8), -1.5, 2.7),
    'threshold int8': lambda L: L.nn.functional.threshold(L.tensor([-5, 0, 5], dtype=L.int8), 0.5, -2.7),
    'nan_to_num complex': lambda L: L.nan_to_num(L.tensor([complex(float('nan'), 1), complex(float('inf'), -float('inf'))])),
    'copysign half scalar': lambda L: L.copysign(L.tensor(2.0, dtype=L.float16), -1.0),
}


@pytest.mark.parametrize('case', list(ACCEPTED))
def test_accepts_what_torch_accepts(case):
    f = ACCEPTED[case]
    _same(f(mt), f(torch))


def _strides(lib, make):
    x = make(lib)
    return tuple(x.stride())


CLONES = {
    'transposed': lambda L: L.arange(6.0).reshape(2, 3).t(),
    'permuted 3-d': lambda L: L.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1),
    'strided': lambda L: L.arange(12.0).reshape(3, 4)[:, ::2],
    'transposed strided': lambda L: L.arange(12.0).reshape(4, 3).t()[:, ::2],
    'permuted sliced': lambda L: L.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)[1:],
    'expanded': lambda L: L.ones(1, 3).expand(2, 3),
    'size-1 dims': lambda L: L.ones(3, 1).t(),
    'empty transposed': lambda L: L.empty(0, 3).t(),
    'offset': lambda L: L.arange(13.0)[1:].reshape(3, 4).t(),
}


@pytest.mark.parametrize('case', list(CLONES))
@pytest.mark.parametrize('fmt', ['default', 'preserve_format', 'contiguous_format'])
def test_clone_memory_format(case, fmt):
    "clone keeps the strides of a dense layout (preserve_format), else lays the copy out densely in the same order."
    def f(L):
        x = CLONES[case](L)
        if fmt == 'default': return x.clone()
        return x.clone(memory_format=getattr(L, fmt) if L is torch else getattr(mt.ops, fmt))
    t, m = f(torch), f(mt)
    assert tuple(m.stride()) == tuple(t.stride())
    assert m.is_contiguous() == t.is_contiguous()
    _same(m, t)


def test_clone_channels_last_and_independent_storage():
    x_t = torch.arange(24.0).reshape(1, 2, 3, 4); x_m = mt.arange(24.0).reshape(1, 2, 3, 4)
    c_t, c_m = x_t.clone(memory_format=torch.channels_last), x_m.clone(memory_format=mt.ops.channels_last)
    assert tuple(c_m.stride()) == tuple(c_t.stride()); _same(c_m, c_t)
    cc_t, cc_m = x_t.contiguous(memory_format=torch.channels_last), x_m.contiguous(memory_format=mt.ops.channels_last)
    assert tuple(cc_m.stride()) == tuple(cc_t.stride()) and cc_m.contiguous(memory_format=mt.ops.channels_last) is cc_m
    assert tuple(cc_m.contiguous().stride()) == tuple(cc_t.contiguous().stride())
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        mt.ones(2, 3).clone(memory_format=mt.ops.channels_last)
    x = mt.arange(6.0).reshape(2, 3).t()
    c = x.clone()
    f = c.flatten()                       # c is not contiguous: flatten copies, as in PyTorch
    f[0] = 100.0
    assert x[0, 0].item() == 0.0 and c[0, 0].item() == 0.0
    c2 = x.clone()
    c2[0, 0] = 7.0                         # the clone has its own storage
    assert x[0, 0].item() == 0.0
    y = mt.arange(6.0, requires_grad=True)
    z = y.reshape(2, 3).t().clone()
    (z * mt.arange(6.0).reshape(3, 2)).sum().backward()
    assert y.grad.tolist() == [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]


# ------------------------------------------------------------------ mixed dtypes: promotion and the errors that go with it
SECOND = ['float32', 'int64', 'bfloat16', 'complex64', '0-d float64', '0-d int32', 'python float', 'python int',
          'python bool', 'python complex']


def _second(kind: str, seed: int = 3):
    if kind.startswith('python'):
        v = {'python float': 2.5, 'python int': 3, 'python bool': True, 'python complex': 1 - 2j}[kind]
        return (v, v), (v, v)
    if kind.startswith('0-d'):
        (tb, mb), _ = make(kind.split()[1], 'contiguous', seed)
        return (tb, mb), (tb[2, 3], mb[2, 3])
    return make(kind, 'contiguous', seed)


MIXED = [n for n in BINARY if n not in ('where', 'equal', 'allclose', 'lerp_t', 'clamp_t')]
# pairs left out, each a known mismatch of another module listed in XFAIL above: complex inf/NaN arithmetic,
# PyTorch's less exact complex pow, and huge % tiny
_CPLX = ('complex64', 'python complex')
KNOWN_MIXED = {(op, k): _CINF for op in ('add', 'sub', 'rsub', 'pow', 'float_power', 'logaddexp', 'div', 'true_divide',
                                        'mul', 'addcmul', 'addcdiv', 'lerp', 'xlogy', 'div_trunc', 'div_floor')
               for k in _CPLX}
KNOWN_MIXED.update({(op, k): XFAIL[('fmod', 'float64')] for op in ('remainder', 'fmod')
                    for k in ('0-d float64', 'float32', 'int64', '0-d int32')})


@pytest.mark.parametrize('op', MIXED)
@pytest.mark.parametrize('dtype', ['bool', 'uint8', 'int32', 'float16', 'float32', 'float64', 'complex128'])
def test_binary_mixed_dtypes(op, dtype):
    "The op on a tensor of `dtype` and a second operand of each other kind: result dtype, values and errors as torch."
    bad = []
    for kind in SECOND:
        if (op, kind) in KNOWN_MIXED or (dtype == 'complex128' and (op, 'complex64') in KNOWN_MIXED): continue
        a = make(dtype, 'contiguous', 0)
        bad += compare(BINARY[op], a, _second(kind), grad=False, what=f"{dtype} with {kind}")
        bad += compare(BINARY[op], _second(kind), a, grad=False, what=f"{kind} with {dtype}")
    assert not bad, f"{op}: " + "\n".join(bad[:6])


@pytest.mark.parametrize('case', list(CLONES))
def test_cast_keeps_layout(case):
    "`.to(dtype)` copies with `preserve_format` too, as PyTorch."
    t, m = CLONES[case](torch).double(), CLONES[case](mt).double()
    assert tuple(m.stride()) == tuple(t.stride())
    _same(m, t)
    t = CLONES[case](torch).to(torch.float16, memory_format=torch.contiguous_format)
    m = CLONES[case](mt).to(mt.float16, memory_format=mt.ops.contiguous_format)
    assert tuple(m.stride()) == tuple(t.stride())


MESSAGES = {
    'index_add dtypes': lambda L: L.ones(3).index_add(0, L.tensor([0]), L.ones(1, dtype=L.float64)),
    'index_copy dtypes': lambda L: L.ones(3).index_copy(0, L.tensor([0]), L.ones(1, dtype=L.float64)),
    'float_power_': lambda L: L.ones(3).float_power_(2),
    'hypot_ int': lambda L: L.ones(3, dtype=L.int64).hypot_(L.ones(3)),
    'xlogy_ int': lambda L: L.ones(3, dtype=L.int64).xlogy_(L.ones(3)),
    'cdist dtypes': lambda L: L.cdist(L.ones(2, 2), L.ones(2, 2, dtype=L.float64)),
    'cdist int': lambda L: L.cdist(L.ones(2, 2, dtype=L.int64), L.ones(2, 2, dtype=L.int64)),
    'meshgrid dtypes': lambda L: L.meshgrid(L.ones(2), L.ones(2, dtype=L.float64), indexing='ij'),
    'nanmean int': lambda L: L.nanmean(L.ones(2, dtype=L.int64)),
}


@pytest.mark.parametrize('case', list(MESSAGES))
def test_messages_use_pytorch_dtype_names(case):
    with pytest.raises(Exception) as te: MESSAGES[case](torch)
    with pytest.raises(Exception) as me: MESSAGES[case](mt)
    assert type(me.value) is type(te.value) and str(me.value) == str(te.value)
