"""An OpInfo-style differential tester: minitorch against PyTorch, op by op and in random chains.

Modelled on PyTorch's `OpInfo` (torch/testing/_internal/common_methods_invocations.py), much smaller:

* `OPS` is the op database: one `OpInfo` per public op (its kind, the dtypes to sample, a sample generator, whether
  it is differentiable); variants (function, Tensor method, in-place method, `nn.functional`) are found by name.
* a *program* is drawn from a seed: an op (or a chain of 2-5 ops), a dtype, a layout (contiguous, transposed,
  strided, offset, expanded, 0-d, empty) and arguments. Inputs are built once in torch and copied bit for bit to
  minitorch; the layout's view ops are then applied in both libraries.
* `run_program(seed)` runs it in both libraries and returns the mismatches: value, dtype, shape, stride (views),
  grad, error-class, minitorch-raised, minitorch-did-not-raise, crash, hang.

`tests/opinfo_report.py` runs many programs and prints a report; `tests/test_opinfo.py` is the CI slice.
"""
from __future__ import annotations

import contextlib
import inspect
import math
import signal
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import ml_dtypes
import numpy as np
import torch
import torch.nn.functional as TF

import minitorch as mt
import minitorch.nn.functional as MF

# ----------------------------------------------------------------------------------------------------------------
# dtypes and layouts

DTYPES = ('bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32', 'float64',
          'complex64', 'complex128')
INTS = ('uint8', 'int8', 'int16', 'int32', 'int64')
FLOATS = ('float16', 'bfloat16', 'float32', 'float64')
COMPLEX = ('complex64', 'complex128')
INEXACT = FLOATS + COMPLEX
REAL = ('bool',) + INTS + FLOATS
NUMERIC = INTS + FLOATS + COMPLEX
ALL = DTYPES
LAYOUTS = ('contiguous', 'transposed', 'strided', 'offset', 'expanded', 'scalar', 'empty')
LAYOUT_P = (0.30, 0.15, 0.13, 0.12, 0.12, 0.09, 0.09)

# torch.testing.assert_close's default tolerances (rtol, atol)
TOL = {'float16': (1e-3, 1e-5), 'bfloat16': (1.6e-2, 1e-5), 'float32': (1.3e-6, 1e-5), 'float64': (1e-7, 1e-7),
       'complex64': (1.3e-6, 1e-5), 'complex128': (1e-7, 1e-7), 'complex32': (1e-3, 1e-5)}
GRAD_DTYPES = ('float32', 'float64', 'complex64', 'complex128')   # low precision grads: torch rounds differently


def tdt(name: str) -> torch.dtype: return getattr(torch, name)
def mdt(name: str) -> Any: return getattr(mt, name)
def tname(t) -> str: return str(t.dtype).replace('torch.', '')
def mname(m) -> str: return m.dtype.name


# ----------------------------------------------------------------------------------------------------------------
# argument placeholders: resolved to the same objects in both libraries

class _X:
    "The primary input (the program's input, or the previous op's output in a chain)."
    def __repr__(self): return 'X'
X = _X()


@dataclass(frozen=True)
class T:
    "A further tensor argument: shape, dtype, how its values are drawn, and a seed."
    shape: tuple
    dtype: str
    kind: Any = 'rand'      # 'rand', 'pos', 'prob', 'sign', 'mask', 'sorted', ('index', high), ('uindex', high, dim)
    seed: int = 0
    grad: bool = True
    def __repr__(self):
        k = '' if self.kind == 'rand' else f",{self.kind}"
        return f"T({self.shape},{self.dtype}{k})"


@dataclass(frozen=True)
class D:
    "A dtype argument."
    name: str
    def __repr__(self): return self.name


@dataclass
class Sample:
    args: tuple
    kwargs: dict = field(default_factory=dict)


def rand_values(rng: np.random.Generator, shape: tuple, dtype: str, kind: Any = 'rand') -> np.ndarray:
    "Values for a tensor: float64/complex128/int64/bool numpy array, later cast in torch."
    n = int(np.prod(shape)) if shape else 1
    if isinstance(kind, tuple) and kind[0] == 'index':
        high = kind[1]
        return rng.integers(0, max(high, 1), size=shape).astype(np.int64)
    if isinstance(kind, tuple) and kind[0] == 'uindex':   # distinct indices along `dim` (scatter determinism)
        high, dim = kind[1], kind[2]
        a = np.zeros(shape, np.int64)
        if n == 0 or not shape: return a if shape else np.asarray(0)
        moved = np.moveaxis(a, dim, -1)
        for idx in np.ndindex(moved.shape[:-1]):
            k = moved.shape[-1]
            moved[idx] = rng.permutation(max(high, k))[:k]
        return np.moveaxis(moved, -1, dim)
    if isinstance(kind, tuple) and kind[0] == 'pivots':   # LAPACK pivots (1-based, row i swaps with a row >= i)
        k = kind[1]
        return np.broadcast_to(np.array([rng.integers(i + 1, k + 1) for i in range(min(shape[-1], k))] if shape else
                                        np.zeros(0), np.int64), shape).copy()
    if isinstance(kind, tuple) and kind[0] == 'offsets':  # embedding_bag offsets: 0 first, then sorted in [0, high]
        a = np.sort(rng.integers(0, kind[1] + 1, size=shape)).astype(np.int64)
        if a.size: a[0] = 0
        return a
    if kind in ('wellcond', 'cholfactor'):                    # (batches of) matrices far from singular
        a = rng.standard_normal(shape) * (0.5 if kind == 'cholfactor' else 1.0)
        if dtype in COMPLEX: a = a + 1j * rng.standard_normal(shape) * 0.5
        if a.ndim >= 2:
            k = min(a.shape[-2:])
            i = np.arange(k)
            a[..., i, i] = (np.abs(a[..., i, i]) + 1.0) * (1 if kind == 'cholfactor' else ch(rng, [1, -1])) + \
                (0 if kind == 'cholfactor' else 2.0 * k * np.sign(a[..., i, i].real + 1e-9))
        return np.asarray(a)
    if kind == 'sign':                                          # +-1 targets of the margin losses
        return np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    if dtype == 'bool' or kind == 'mask':
        return rng.random(shape) < 0.5
    if dtype in INTS:
        lo = 1 if kind == 'pos' else (0 if dtype == 'uint8' else -9)
        a = rng.integers(lo, 10, size=shape).astype(np.int64)
        if kind == 'rand' and n > 1 and rng.random() < 0.1:    # the extremes, to see wrap-around
            info = np.iinfo(dtype)
            a.reshape(-1)[rng.integers(0, n)] = ch(rng, [info.min, info.max])
        if kind == 'sorted' and a.ndim: a = np.sort(a, axis=-1)
        return a
    if kind == 'prob':
        a = rng.uniform(0.05, 0.95, size=shape)
    elif kind == 'pos':
        a = np.abs(rng.standard_normal(shape)) * 2 + 0.25
    else:
        a = rng.standard_normal(shape) * 2.5
    if dtype in COMPLEX:
        a = a + 1j * rng.standard_normal(shape) * 2.5
    if kind == 'rand' and n > 1 and rng.random() < 0.12:       # a few special values
        for _ in range(rng.integers(1, 3)):
            a.reshape(-1)[rng.integers(0, n)] = ch(rng, [np.nan, np.inf, -np.inf, 0.0, -0.0])
    if kind == 'sorted': a = np.sort(a.real, axis=-1) if a.ndim else a
    return np.asarray(a)


def torch_from(a: np.ndarray, dtype: str) -> torch.Tensor:
    "A contiguous torch tensor of `dtype` with the values of `a` (torch's own strides, even when empty)."
    out = torch.empty(a.shape, dtype=tdt(dtype))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        out.copy_(torch.from_numpy(np.array(a, order='C')))
    return out


def to_minitorch(t: torch.Tensor, device: str = 'cpu'):
    "A bit-exact contiguous minitorch copy of the torch tensor `t`."
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        a = t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    else:
        a = t.numpy()
    m = mt.from_numpy(a.copy()) if a.ndim else mt.tensor(a.copy())
    return m.to(device) if device != 'cpu' else m


def to_numpy_t(t: torch.Tensor) -> np.ndarray:
    t = t.detach().cpu()
    if t._is_zerotensor(): t = torch.zeros(t.shape, dtype=t.dtype)
    t = t.resolve_conj().resolve_neg()
    if t.dtype == torch.bfloat16: return t.float().numpy()
    if t.dtype == torch.complex32: return t.to(torch.complex64).numpy()
    return t.numpy()


def to_numpy_m(m) -> np.ndarray:
    m = m.detach()
    if m.device.type != 'cpu': m = m.cpu()
    if m.dtype is mt.complex32: m = m.to(mt.complex64)
    a = np.asarray(m)
    if a.dtype == ml_dtypes.bfloat16: a = a.astype(np.float32)
    return a


# ----------------------------------------------------------------------------------------------------------------
# layouts: the same view ops on both libraries

def base_shape(shape: tuple, layout: str) -> tuple:
    "The shape of the contiguous base from which `layout` makes a view of `shape`."
    s = list(shape)
    if layout == 'transposed' and len(s) >= 2: s[-1], s[-2] = s[-2], s[-1]
    elif layout == 'strided' and s: s[-1] = 2 * s[-1]
    elif layout == 'offset' and s: s[0] = s[0] + 1
    elif layout == 'expanded' and s: s[0] = 1
    return tuple(s)


def apply_layout(x, layout: str, shape: tuple):
    "The view of `x` (a base of `base_shape(shape, layout)`) with `shape` (same code for torch and minitorch)."
    if layout == 'transposed' and len(shape) >= 2: return x.transpose(-2, -1)
    if layout == 'strided' and shape: return x[..., ::2]
    if layout == 'offset' and shape: return x[1:]
    if layout == 'expanded' and shape: return x.expand(*shape)
    return x


def effective_layout(layout: str, shape: tuple) -> str:
    if not shape or layout in ('scalar', 'empty'): return layout if layout in ('scalar', 'empty') else 'contiguous'
    if layout == 'transposed' and len(shape) < 2: return 'contiguous'
    return layout


# ----------------------------------------------------------------------------------------------------------------
# the op database

@dataclass
class OpInfo:
    name: str                              # the op's name (nn.functional ops: 'nn.functional.<name>')
    kind: str                              # unary, binary, ternary, reduction, scan, view, join, indexing, sort, ...
    sample: Callable                       # (rng, Meta) -> Sample, with X for the primary input
    dtypes: tuple = ALL
    grad: bool = True                      # differentiable (float/complex samples get a gradient check)
    shape: Callable | None = None          # rng -> the primary input's shape (default: 0-3 dims of 1-5)
    domain: Any = 'rand'                   # how the primary input's values are drawn
    tol: float = 1.0                       # multiplies the value tolerances
    random: bool = False                   # values are random: compare shape and dtype only
    idx_ties: bool = False                 # index outputs are compared only when the input has no ties
    chain: bool = True                     # may appear in random chains
    mutates: bool = False                  # the op writes into X (compare X afterwards, no grad on X)
    variants: tuple = ()                   # filled in from the namespaces
    torch_fn: Callable | None = None       # custom callables (e.g. indexing); default: found by name
    mt_fn: Callable | None = None
    no_x: bool = False                     # creation ops: no primary input
    layouts: tuple = LAYOUTS
    covers: tuple = ()                     # (namespace, name) pairs a custom entry stands for (coverage)

    def callables(self, variant: str):
        "(torch callable, minitorch callable) taking the resolved args."
        if self.torch_fn is not None: return self.torch_fn, self.mt_fn
        n = self.name
        if variant == 'fn': return getattr(torch, n), getattr(mt, n)
        if variant == 'nnf':
            n = n.split('.')[-1]
            return getattr(TF, n), getattr(MF, n)
        mn = n + '_' if variant == 'inplace' else n
        return (lambda x, *a, **k: getattr(x, mn)(*a, **k)), (lambda x, *a, **k: getattr(x, mn)(*a, **k))


@dataclass
class Meta:
    "What a sample generator knows of the primary input."
    shape: tuple
    dtype: str
    @property
    def nd(self): return len(self.shape)


OPS: dict[str, OpInfo] = {}


def _has_fn(n): return callable(getattr(mt, n, None)) and callable(getattr(torch, n, None))
def _has_method(n): return callable(getattr(mt.Tensor, n, None)) and callable(getattr(torch.Tensor, n, None))


def op(name: str, kind: str, sample: Callable, **kw) -> OpInfo:
    info = OpInfo(name, kind, sample, **kw)
    if info.torch_fn is not None:
        info.variants = ('custom',)
    elif name.startswith('nn.functional.'):
        n = name.split('.')[-1]
        info.variants = ('nnf',) if hasattr(MF, n) and hasattr(TF, n) else ()
    else:
        v = []
        if _has_fn(name) and not info.mutates: v.append('fn')
        if _has_method(name): v.append('method')
        if _has_method(name + '_') and not info.no_x and not name.endswith('_'): v.append('inplace')
        info.variants = tuple(v)
    if info.variants:
        OPS[name] = info
    return info


# ---- shape helpers

def rshape(rng, lo=0, hi=3, smin=1, smax=5) -> tuple:
    return tuple(int(s) for s in rng.integers(smin, smax + 1, size=rng.integers(lo, hi + 1)))


def fixed_nd(nd, smin=1, smax=5):
    return lambda rng: tuple(int(s) for s in rng.integers(smin, smax + 1, size=nd))


def nd_range(lo, hi, smin=1, smax=5):
    return lambda rng: rshape(rng, lo, hi, smin, smax)


def rdim(rng, nd: int) -> int:
    "A valid dim of an nd-tensor, negative half of the time (0 for 0-d, as torch allows)."
    if nd == 0: return int(ch(rng, [0, -1]))
    d = int(rng.integers(0, nd))
    return d - nd if rng.random() < 0.5 else d


def rdims(rng, nd: int):
    "None, an int, or a tuple of distinct dims."
    r = rng.random()
    if r < 0.25 or nd == 0: return None
    if r < 0.65 or nd == 1: return rdim(rng, nd)
    k = int(rng.integers(1, nd + 1))
    ds = rng.permutation(nd)[:k]
    return tuple(int(d) - nd if rng.random() < 0.5 else int(d) for d in ds)


def ch(rng, seq):
    "One element of `seq`, as the Python object itself (np.random's choice would make a numpy scalar of it)."
    return seq[int(rng.integers(0, len(seq)))]


def seed_of(rng) -> int: return int(rng.integers(0, 2**31))


def other_dtype(rng, m: Meta) -> str:
    r = rng.random()
    if r < 0.7: return m.dtype
    return str(ch(rng, DTYPES))


def bcast_shape(rng, shape: tuple) -> tuple:
    "A shape that broadcasts with `shape`: trailing dims kept or set to 1."
    k = int(rng.integers(0, len(shape) + 1))
    s = list(shape[len(shape) - k:])
    for i in range(len(s)):
        if rng.random() < 0.4: s[i] = 1
    if rng.random() < 0.15: s = [1] + s       # a result with one more dim
    return tuple(s)


def py_scalar(rng, dtype: str):
    r = rng.random()
    if r < 0.35: return int(rng.integers(-4, 5))
    if r < 0.75: return float(ch(rng, [2.5, -1.5, 0.5, 3.0, -0.25]))
    if r < 0.88: return bool(rng.random() < 0.5)
    return complex(1.5, -0.5)


def second_operand(rng, m: Meta, scalars=True, dtype=None):
    "The second operand of a binary op: a tensor (same, broadcast, other dtype, 0-d) or a Python scalar."
    r = rng.random()
    dt = dtype or other_dtype(rng, m)
    if r < 0.35: return T(m.shape, dt, seed=seed_of(rng))
    if r < 0.55: return T(bcast_shape(rng, m.shape), dt, seed=seed_of(rng))
    if r < 0.65: return T((), str(ch(rng, DTYPES)), seed=seed_of(rng))
    if scalars: return py_scalar(rng, m.dtype)
    return T(m.shape, dt, seed=seed_of(rng))


# ---- generic sample generators per kind

def s_unary(**choices):
    "X plus optional kwargs, each drawn from its list of choices (a value _OMIT leaves it out)."
    def gen(rng, m):
        kw = {}
        for k, vals in choices.items():
            v = vals[int(rng.integers(0, len(vals)))]
            if v is not _OMIT: kw[k] = v
        return Sample((X,), kw)
    return gen


class _Omit:
    def __repr__(self): return 'OMIT'
_OMIT = _Omit()


def s_binary(scalars=True, rdtype=None, **choices):
    def gen(rng, m):
        kw = {}
        for k, vals in choices.items():
            v = vals[int(rng.integers(0, len(vals)))]
            if v is not _OMIT: kw[k] = v
        return Sample((X, second_operand(rng, m, scalars, rdtype)), kw)
    return gen


def s_rbinary(rng, m):
    "Reflected operators: scalar __rop__ tensor."
    return Sample((X, py_scalar(rng, m.dtype)))


def s_reduce(dim='any', keepdim=True, dim_required=False, tuple_ok=True, extra=None, dim_kw=True):
    def gen(rng, m):
        kw = dict(extra(rng, m)) if extra else {}
        if dim == 'any':
            d = rdims(rng, m.nd) if tuple_ok else (None if rng.random() < 0.3 else rdim(rng, m.nd))
            if d is None and dim_required: d = rdim(rng, m.nd)
        else:
            d = rdim(rng, m.nd)
        args = (X,)
        if d is not None:
            if dim_kw: kw['dim'] = d
            else: args = (X, d)
            if keepdim and rng.random() < 0.5: kw['keepdim'] = bool(rng.random() < 0.5)
        return Sample(args, kw)
    return gen


def s_scan(extra=None):
    def gen(rng, m):
        kw = dict(extra(rng, m)) if extra else {}
        return Sample((X, rdim(rng, m.nd)), kw)
    return gen


def s_dtype_kw(dtypes):
    "An optional dtype= for sum/prod/cumsum/mean."
    return lambda rng, m: ({'dtype': D(str(ch(rng, dtypes)))} if rng.random() < 0.2 else {})


# ================================================================================================================
# unary pointwise

_UNARY_MATH = ('abs absolute acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh ceil cos '
               'cosh deg2rad erf exp exp2 expm1 fix floor frac log log10 log1p log2 neg negative positive '
               'rad2deg reciprocal rsqrt sgn sigmoid sign sin sinc sinh sqrt square tan tanh trunc relu '
               'conj conj_physical resolve_conj resolve_neg clone angle').split()
for _n in _UNARY_MATH:
    op(_n, 'unary', s_unary())
op('round', 'unary', s_unary(decimals=[_OMIT, _OMIT, 0, 1, 2, -1]))
op('logit', 'unary', s_unary(eps=[_OMIT, _OMIT, 1e-6, 0.25]), domain='prob')
op('nan_to_num', 'unary', s_unary(nan=[_OMIT, 0.0, 1.5], posinf=[_OMIT, 100.0], neginf=[_OMIT, -100.0]))
for _n in ('isnan', 'isinf', 'isfinite', 'isposinf', 'isneginf', 'signbit', 'logical_not'):
    op(_n, 'unary', s_unary(), grad=False)
op('bitwise_not', 'unary', s_unary(), dtypes=('bool',) + INTS, grad=False)
op('real', 'unary', s_unary())
op('imag', 'unary', s_unary(), dtypes=COMPLEX)
op('view_as_real', 'view', s_unary(), dtypes=COMPLEX)
op('view_as_complex', 'view', s_unary(), dtypes=('float32', 'float64'),
   shape=lambda rng: rshape(rng, 0, 2) + (2,), layouts=('contiguous', 'offset', 'scalar'))


def _clamp_gen(rng, m):
    r = rng.random()
    lo, hi = -1.0, 1.5
    if m.dtype in INTS + ('bool',): lo, hi = -2, 3
    if r < 0.3: return Sample((X, lo, hi))
    if r < 0.45: return Sample((X,), {'min': lo})
    if r < 0.6: return Sample((X,), {'max': hi})
    if r < 0.8: return Sample((X, T(bcast_shape(rng, m.shape), m.dtype, seed=seed_of(rng)),
                               T(m.shape, m.dtype, seed=seed_of(rng))))
    return Sample((X,), {'min': T(m.shape, m.dtype, seed=seed_of(rng))})


op('clamp', 'unary', _clamp_gen, dtypes=REAL)
op('clip', 'unary', _clamp_gen, dtypes=REAL)
op('clamp_min', 'unary', lambda rng, m: Sample((X, float(ch(rng, [-1.0, 0.5])))), dtypes=REAL)
op('clamp_max', 'unary', lambda rng, m: Sample((X, float(ch(rng, [-1.0, 0.5])))), dtypes=REAL)

# dtype conversions and queries on a tensor
for _n in ('float', 'double', 'half', 'bfloat16', 'int', 'long', 'short', 'char', 'byte', 'bool', 'cfloat',
           'cdouble', 'chalf', 'contiguous', 'detach'):
    op(_n, 'convert', s_unary(), grad=_n in ('float', 'double', 'half', 'bfloat16', 'cfloat', 'cdouble',
                                              'contiguous'))
op('to', 'convert', lambda rng, m: Sample((X, D(str(ch(rng, DTYPES))))))
op('type', 'convert', lambda rng, m: Sample((X, D(str(ch(rng, DTYPES))))), grad=False)
op('type_as', 'convert', lambda rng, m: Sample((X, T((2,), str(ch(rng, DTYPES)), seed=seed_of(rng)))))
for _n in ('dim', 'ndimension', 'numel', 'nelement', 'element_size', 'is_contiguous', 'is_floating_point',
           'is_complex', 'is_signed', 'is_conj', 'is_neg', 'storage_offset', 'tolist'):
    op(_n, 'query', s_unary(), grad=False, chain=False)
op('size', 'query', lambda rng, m: Sample((X,) if rng.random() < 0.4 else (X, rdim(rng, m.nd))), grad=False,
   chain=False)
op('stride', 'query', lambda rng, m: Sample((X,) if rng.random() < 0.4 else (X, rdim(rng, m.nd))), grad=False,
   chain=False)
op('item', 'query', s_unary(), grad=False, chain=False, shape=lambda rng: (1,) * int(rng.integers(0, 3)))
op('is_nonzero', 'query', s_unary(), grad=False, chain=False, shape=lambda rng: (1,) * int(rng.integers(0, 3)))
op('is_same_size', 'query', lambda rng, m: Sample((X, T(m.shape if rng.random() < 0.5 else bcast_shape(rng, m.shape),
                                                           m.dtype))), grad=False, chain=False)

# ================================================================================================================
# binary pointwise

_BIN_ARITH = 'add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow float_power'.split()
for _n in _BIN_ARITH:
    kw = {}
    if _n in ('add', 'sub', 'subtract'): kw = {'alpha': [_OMIT, _OMIT, 2, 0.5]}
    if _n in ('div', 'divide'): kw = {'rounding_mode': [_OMIT, _OMIT, None, 'trunc', 'floor']}
    op(_n, 'binary', s_binary(**kw), grad=_n not in ('floor_divide',))
op('rsub', 'binary', s_binary(alpha=[_OMIT, 2]))
for _n in ('maximum', 'minimum', 'fmax', 'fmin', 'atan2', 'arctan2', 'hypot', 'copysign', 'logaddexp',
           'logaddexp2', 'xlogy'):
    op(_n, 'binary', s_binary(scalars=_n in ('xlogy', 'copysign')), dtypes=REAL)
op('heaviside', 'binary', s_binary(scalars=False), dtypes=REAL, grad=False)
for _n in 'eq ne lt le gt ge greater greater_equal less less_equal not_equal'.split():
    op(_n, 'binary', s_binary(), grad=False)
for _n in ('logical_and', 'logical_or', 'logical_xor'):
    op(_n, 'binary', s_binary(), grad=False)
for _n in ('bitwise_and', 'bitwise_or', 'bitwise_xor'):
    op(_n, 'binary', s_binary(rdtype=None), dtypes=('bool',) + INTS, grad=False)
op('isclose', 'binary', s_binary(scalars=False, rtol=[_OMIT, 1e-2], equal_nan=[_OMIT, True]), grad=False)
op('allclose', 'binary', s_binary(scalars=False, equal_nan=[_OMIT, True]), grad=False, chain=False)
op('equal', 'binary', s_binary(scalars=False), grad=False, chain=False)
op('lerp', 'ternary', lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng)),
                                             0.3 if rng.random() < 0.5 else T(bcast_shape(rng, m.shape), m.dtype,
                                                                              seed=seed_of(rng)))), dtypes=INEXACT)
op('where', 'ternary', lambda rng, m: Sample((T(bcast_shape(rng, m.shape), 'bool', seed=seed_of(rng)), X,
                                              second_operand(rng, m))), chain=True)
OPS['where'].variants = ('fn',)           # the method puts self first: x.where(condition, y)
op('Tensor.where', 'ternary', lambda rng, m: Sample((X, T(bcast_shape(rng, m.shape), 'bool', seed=seed_of(rng)),
                                                     second_operand(rng, m))),
   torch_fn=lambda x, c, y: x.where(c, y), mt_fn=lambda x, c, y: x.where(c, y), covers=(('Tensor', 'where'),))
for _n in ('addcmul', 'addcdiv'):
    op(_n, 'ternary', lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng)),
                                             T(bcast_shape(rng, m.shape), m.dtype, 'pos', seed=seed_of(rng))),
                                            {'value': 0.5} if rng.random() < 0.5 else {}), dtypes=NUMERIC)

# Python operators
_DUNDER = {'__add__': 'add', '__sub__': 'sub', '__mul__': 'mul', '__truediv__': 'div', '__floordiv__': 'floor_divide',
           '__mod__': 'remainder', '__pow__': 'pow', '__and__': 'and', '__or__': 'or', '__xor__': 'xor',
           '__eq__': 'eq', '__ne__': 'ne', '__lt__': 'lt', '__le__': 'le', '__gt__': 'gt', '__ge__': 'ge'}
for _d in _DUNDER:
    _bits = _d in ('__and__', '__or__', '__xor__')
    op(_d, 'binary', s_binary(), dtypes=('bool',) + INTS if _bits else ALL,
       grad=_d not in ('__floordiv__', '__eq__', '__ne__', '__lt__', '__le__', '__gt__', '__ge__') and not _bits,
       torch_fn=(lambda d: lambda x, y: getattr(x, d)(y))(_d), mt_fn=(lambda d: lambda x, y: getattr(x, d)(y))(_d))
for _d in ('__radd__', '__rsub__', '__rmul__', '__rtruediv__', '__rfloordiv__', '__rmod__', '__rpow__', '__rand__',
           '__ror__', '__rxor__'):
    _bits = _d in ('__rand__', '__ror__', '__rxor__')
    op(_d, 'binary', s_rbinary, dtypes=('bool',) + INTS if _bits else ALL,
       grad=_d not in ('__rfloordiv__',) and not _bits,
       torch_fn=(lambda d: lambda x, y: getattr(x, d)(y))(_d), mt_fn=(lambda d: lambda x, y: getattr(x, d)(y))(_d))
for _d in ('__iadd__', '__isub__', '__imul__', '__itruediv__', '__ifloordiv__', '__imod__', '__ipow__', '__iand__',
           '__ior__', '__ixor__'):
    _bits = _d in ('__iand__', '__ior__', '__ixor__')
    op(_d, 'binary', s_binary(), dtypes=('bool',) + INTS if _bits else ALL, grad=False, mutates=True,
       torch_fn=(lambda d: lambda x, y: getattr(x, d)(y))(_d), mt_fn=(lambda d: lambda x, y: getattr(x, d)(y))(_d))
for _d in ('__neg__', '__abs__', '__invert__', '__pos__'):
    op(_d, 'unary', s_unary(), dtypes=('bool',) + INTS if _d == '__invert__' else ALL, grad=_d != '__invert__',
       torch_fn=(lambda d: lambda x: getattr(x, d)())(_d), mt_fn=(lambda d: lambda x: getattr(x, d)())(_d))
op('__matmul__', 'matmul', lambda rng, m: Sample((X, T(m.shape[-1:] + (int(rng.integers(1, 4)),) if m.nd else (2,),
                                                     m.dtype, seed=seed_of(rng)))), dtypes=NUMERIC,
   shape=nd_range(1, 3), torch_fn=lambda x, y: x @ y, mt_fn=lambda x, y: x @ y)
for _d, _fn in (('__bool__', bool), ('__int__', int), ('__float__', float), ('__len__', len)):
    op(_d, 'query', s_unary(), grad=False, chain=False, shape=lambda rng: (1,) * int(rng.integers(0, 2)),
       torch_fn=_fn, mt_fn=_fn)

# ================================================================================================================
# reductions and scans

op('sum', 'reduction', s_reduce(extra=s_dtype_kw(('float64', 'int64', 'complex128'))))
op('nansum', 'reduction', s_reduce(), dtypes=REAL)
op('mean', 'reduction', s_reduce(extra=s_dtype_kw(('float64',))), dtypes=ALL)
op('nanmean', 'reduction', s_reduce(), dtypes=INEXACT)
op('prod', 'reduction', s_reduce(tuple_ok=False, extra=s_dtype_kw(('float64', 'int64'))))
for _n in ('amax', 'amin'):
    op(_n, 'reduction', s_reduce(), dtypes=REAL)
for _n in ('max', 'min'):
    op(_n, 'reduction', s_reduce(tuple_ok=False, dim_kw=False), dtypes=REAL, idx_ties=True)
for _n in ('argmax', 'argmin'):
    op(_n, 'reduction', s_reduce(tuple_ok=False), dtypes=REAL, grad=False, idx_ties=True)
op('aminmax', 'reduction', s_reduce(tuple_ok=False), dtypes=REAL, grad=False)
for _n in ('any', 'all'):
    op(_n, 'reduction', s_reduce(), grad=False)
op('count_nonzero', 'reduction', s_reduce(keepdim=False), grad=False)
op('logsumexp', 'reduction', s_reduce(dim_required=True), dtypes=REAL)


def _var_extra(rng, m):
    r = rng.random()
    if r < 0.3: return {}
    if r < 0.6: return {'correction': int(ch(rng, [0, 1, 2]))}
    return {'unbiased': bool(rng.random() < 0.5)}


for _n in ('var', 'std', 'var_mean', 'std_mean'):
    op(_n, 'reduction', s_reduce(extra=_var_extra), dtypes=INEXACT, tol=4)
op('norm', 'reduction', s_reduce(extra=lambda rng, m: {'p': ch(rng, [2, 1, 3, float('inf'), 'fro'])}
                                 if rng.random() < 0.6 else {}), dtypes=INEXACT, tol=4)
for _n in ('median', 'nanmedian', 'mode'):   # torch 2.13's median/nanmedian with a dim read garbage from expanded
    op(_n, 'reduction', s_reduce(tuple_ok=False, dim_kw=False), dtypes=REAL, idx_ties=True,   # inputs: not an oracle
       layouts=tuple(l for l in LAYOUTS if l != 'expanded') if _n != 'mode' else LAYOUTS)
op('kthvalue', 'reduction', lambda rng, m: Sample((X, int(rng.integers(1, (m.shape[-1] if m.nd else 1) + 1))),
                                                  {'dim': -1, 'keepdim': bool(rng.random() < 0.5)}),
   dtypes=REAL, idx_ties=True)
op('quantile', 'reduction', lambda rng, m: Sample((X, float(ch(rng, [0.0, 0.25, 0.5, 0.9]))),
                                                  {'dim': rdim(rng, m.nd) if rng.random() < 0.6 else None,
                                                   'interpolation': str(ch(rng, ['linear', 'lower', 'higher',
                                                                                    'midpoint', 'nearest']))}),
   dtypes=('float32', 'float64'), idx_ties=True)
op('trace', 'reduction', s_unary(), shape=fixed_nd(2), dtypes=NUMERIC)
for _n in ('cumsum', 'cumprod'):
    op(_n, 'scan', s_scan(extra=s_dtype_kw(('float64', 'int64'))), dtypes=ALL)
for _n in ('cummax', 'cummin'):
    op(_n, 'scan', s_scan(), dtypes=REAL, idx_ties=True)
op('logcumsumexp', 'scan', s_scan(), dtypes=INEXACT)
for _n in ('softmax', 'log_softmax'):
    op(_n, 'scan', s_scan(extra=lambda rng, m: {'dtype': D('float64')} if rng.random() < 0.15 else {}),
       dtypes=FLOATS)
op('diff', 'scan', lambda rng, m: Sample((X,), {'dim': rdim(rng, m.nd), 'n': int(ch(rng, [1, 1, 2]))}),
   dtypes=NUMERIC)

# ================================================================================================================
# matmul-like


def _mat(rng): return int(rng.integers(1, 5))


op('mm', 'matmul', lambda rng, m: Sample((X, T((m.shape[-1] if m.nd else 2, _mat(rng)), m.dtype, seed=seed_of(rng)))),
   shape=fixed_nd(2), dtypes=NUMERIC, tol=4)
op('bmm', 'matmul', lambda rng, m: Sample((X, T((m.shape[0] if m.nd else 1, m.shape[-1] if m.nd else 2, _mat(rng)),
                                                m.dtype, seed=seed_of(rng)))), shape=fixed_nd(3), dtypes=NUMERIC, tol=4)
op('mv', 'matmul', lambda rng, m: Sample((X, T((m.shape[-1] if m.nd else 2,), m.dtype, seed=seed_of(rng)))),
   shape=fixed_nd(2), dtypes=NUMERIC, tol=4)
for _n in ('dot', 'vdot', 'inner', 'outer', 'ger'):
    op(_n, 'matmul', lambda rng, m, _n=_n: Sample((X, T(m.shape if _n not in ('outer', 'ger') else (_mat(rng),), m.dtype,
                                                 seed=seed_of(rng)))), shape=fixed_nd(1), dtypes=NUMERIC, tol=4)
op('matmul', 'matmul', lambda rng, m: Sample((X, T(((m.shape[-1],) if m.nd else (2,)) + (() if rng.random() < 0.3
                                                                                           else (_mat(rng),)),
                                                   m.dtype, seed=seed_of(rng)))),
   shape=nd_range(1, 3), dtypes=NUMERIC, tol=4)
op('kron', 'matmul', lambda rng, m: Sample((X, T(rshape(rng, 1, 2, 1, 3), m.dtype, seed=seed_of(rng)))),
   shape=nd_range(1, 2, 1, 3), dtypes=NUMERIC)
op('tensordot', 'matmul', lambda rng, m: Sample((X, T(m.shape[-1:] + (_mat(rng),), m.dtype, seed=seed_of(rng))),
                                                {'dims': 1}), shape=nd_range(1, 3), dtypes=NUMERIC, tol=4)
op('einsum', 'matmul', None, dtypes=NUMERIC, tol=4, shape=fixed_nd(2), chain=False,
   torch_fn=lambda eq, *a: torch.einsum(eq, *a), mt_fn=lambda eq, *a: mt.einsum(eq, *a))
OPS['einsum'].sample = lambda rng, m: (
    Sample(('ij->ji', X)) if rng.random() < 0.25 else Sample(('ij->j', X)) if rng.random() < 0.3 else
    Sample(('ij,jk->ik', X, T((m.shape[1], 3), m.dtype, seed=seed_of(rng)))))
op('addmm', 'matmul', lambda rng, m: Sample((T(bcast_shape(rng, (m.shape[0], 3)), m.dtype, seed=seed_of(rng)), X,
                                             T((m.shape[1], 3), m.dtype, seed=seed_of(rng))),
                                            {'beta': 0.5, 'alpha': 2} if rng.random() < 0.3 else {}),
   shape=fixed_nd(2), dtypes=NUMERIC, tol=4)
op('addmv', 'matmul', lambda rng, m: Sample((T((m.shape[0],), m.dtype, seed=seed_of(rng)), X,
                                             T((m.shape[1],), m.dtype, seed=seed_of(rng)))),
   shape=fixed_nd(2), dtypes=NUMERIC, tol=4)
op('addr', 'matmul', lambda rng, m: Sample((X, T((m.shape[0],), m.dtype, seed=seed_of(rng)),
                                            T((m.shape[1],), m.dtype, seed=seed_of(rng)))),
   shape=fixed_nd(2), dtypes=NUMERIC, tol=4)
op('baddbmm', 'matmul', lambda rng, m: Sample((X, T(m.shape[:2] + (2,), m.dtype, seed=seed_of(rng)),
                                               T((m.shape[0], 2, m.shape[2]), m.dtype, seed=seed_of(rng)))),
   shape=fixed_nd(3), dtypes=NUMERIC, tol=4)
op('addbmm', 'matmul', lambda rng, m: Sample((X, T((2, m.shape[0], 3), m.dtype, seed=seed_of(rng)),
                                              T((2, 3, m.shape[1]), m.dtype, seed=seed_of(rng)))),
   shape=fixed_nd(2), dtypes=NUMERIC, tol=4)
op('cross', 'matmul', lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng))), {'dim': -1}),
   shape=lambda rng: rshape(rng, 0, 1) + (3,), dtypes=NUMERIC, tol=4)
op('cdist', 'matmul', lambda rng, m: Sample((X, T((_mat(rng), m.shape[-1]), m.dtype, seed=seed_of(rng))),
                                            {'p': float(ch(rng, [2.0, 1.0, 3.0]))}),
   shape=fixed_nd(2), dtypes=('float32', 'float64'), tol=8)
op('dist', 'matmul', lambda rng, m: Sample((X, T(bcast_shape(rng, m.shape), m.dtype, seed=seed_of(rng)),
                                            float(ch(rng, [2.0, 1.0, 3.0, 0.0, float('inf')])))),
   dtypes=INEXACT, tol=4)
op('cov', 'matmul', s_unary(correction=[_OMIT, 0]), shape=nd_range(1, 2), dtypes=INEXACT, tol=8)
op('corrcoef', 'matmul', s_unary(), shape=nd_range(1, 2), dtypes=INEXACT, tol=8)

# ================================================================================================================
# views and shape ops


def _reshape_target(rng, shape):
    n = int(np.prod(shape)) if shape else 1
    r = rng.random()
    if r < 0.25: return (-1,)
    if r < 0.5: return tuple(reversed(shape))
    if r < 0.7 and n > 0: return (1, n, 1)
    if r < 0.85 and len(shape) >= 2: return (shape[0], -1)
    return (n + 1,)                                       # invalid: RuntimeError in both


op('reshape', 'view', lambda rng, m: Sample((X, _reshape_target(rng, m.shape))))
op('view', 'view', lambda rng, m: Sample((X,) + _reshape_target(rng, m.shape)))
op('view_as', 'view', lambda rng, m: Sample((X, T(tuple(reversed(m.shape)), m.dtype, grad=False))))
op('reshape_as', 'view', lambda rng, m: Sample((X, T(tuple(reversed(m.shape)), m.dtype, grad=False))))
op('flatten', 'view', lambda rng, m: Sample((X,) if rng.random() < 0.4 else (X, rdim(rng, m.nd),)))
op('ravel', 'view', s_unary())
op('unflatten', 'view', lambda rng, m: Sample((X, rdim(rng, m.nd), (-1, 1))))
op('permute', 'view', lambda rng, m: Sample((X, tuple(int(d) - (m.nd if rng.random() < 0.3 else 0)
                                                     for d in rng.permutation(m.nd)))))
for _n in ('transpose', 'swapaxes', 'swapdims'):
    op(_n, 'view', lambda rng, m: Sample((X, rdim(rng, m.nd), rdim(rng, m.nd))))
for _n in ('movedim', 'moveaxis'):
    op(_n, 'view', lambda rng, m: Sample((X, rdim(rng, m.nd), rdim(rng, m.nd))))
op('t', 'view', s_unary(), shape=nd_range(0, 2))
op('squeeze', 'view', lambda rng, m: Sample((X,) if rng.random() < 0.3 else (X, rdims(rng, m.nd) or 0)))
op('unsqueeze', 'view', lambda rng, m: Sample((X, int(rng.integers(-m.nd - 1, m.nd + 1)))))


def _expand_target(rng, shape):
    s = [int(rng.integers(2, 4)) if d == 1 and rng.random() < 0.6 else (-1 if rng.random() < 0.3 else d)
         for d in shape]
    if rng.random() < 0.3: s = [2] + s
    return tuple(s)


op('expand', 'view', lambda rng, m: Sample((X,) + _expand_target(rng, m.shape)))
op('broadcast_to', 'view', lambda rng, m: Sample((X, _expand_target(rng, m.shape))))
op('expand_as', 'view', lambda rng, m: Sample((X, T((2,) + m.shape, 'float32', grad=False))))
op('narrow', 'view', lambda rng, m: Sample((X, rdim(rng, m.nd), int(rng.integers(0, 2)), int(rng.integers(0, 3)))))
op('narrow_copy', 'view', lambda rng, m: Sample((X, rdim(rng, m.nd), int(rng.integers(0, 2)), int(rng.integers(0, 3)))))
op('select', 'view', lambda rng, m: Sample((X, rdim(rng, m.nd), int(rng.integers(-2, 2)))))
op('diagonal', 'view', lambda rng, m: Sample((X,), {'offset': int(rng.integers(-1, 2))} if rng.random() < 0.5 else {}),
   shape=nd_range(2, 3))
op('diagonal_copy', 'view', s_unary(), shape=nd_range(2, 3))
op('unbind', 'view', lambda rng, m: Sample((X, rdim(rng, m.nd))))
op('split', 'view', lambda rng, m: Sample((X, int(rng.integers(1, 3)) if rng.random() < 0.7 else
                                                 [1, max(_dimsize(m, 0) - 1, 0)], 0 if rng.random() < 0.5 else
                                                 rdim(rng, m.nd))))
op('split_with_sizes', 'view', lambda rng, m: Sample((X, [1, max((m.shape[0] if m.nd else 1) - 1, 0)])))
op('chunk', 'view', lambda rng, m: Sample((X, int(rng.integers(1, 4)), rdim(rng, m.nd))))
op('tensor_split', 'view', lambda rng, m: Sample((X, int(rng.integers(1, 4)) if rng.random() < 0.6 else [1, 2],
                                                  rdim(rng, m.nd))))
for _n, _nd in (('hsplit', 1), ('vsplit', 2), ('dsplit', 3)):
    op(_n, 'view', lambda rng, m: Sample((X, int(ch(rng, [1, 2])) if rng.random() < 0.5 else [1])),
       shape=nd_range(_nd, 3))
op('flip', 'view', lambda rng, m: Sample((X, rdims(rng, m.nd) or (0,))))
op('fliplr', 'view', s_unary(), shape=nd_range(2, 3))
op('flipud', 'view', s_unary(), shape=nd_range(1, 3))
op('roll', 'view', lambda rng, m: Sample((X, int(rng.integers(-3, 4))) if rng.random() < 0.3 else
                                         (X, int(rng.integers(-3, 4)), rdim(rng, m.nd))))
op('rot90', 'view', lambda rng, m: Sample((X, int(rng.integers(-1, 4)), [0, 1] if rng.random() < 0.5 else [-1, 0])),
   shape=nd_range(2, 3))
op('tile', 'view', lambda rng, m: Sample((X, tuple(int(v) for v in rng.integers(1, 3, size=rng.integers(1, 4))))))
op('repeat', 'view', lambda rng, m: Sample((X,) + tuple(int(v) for v in rng.integers(1, 3, size=m.nd + int(
    rng.integers(0, 2))))))
op('repeat_interleave', 'view', lambda rng, m: Sample((X, int(rng.integers(1, 3))) if rng.random() < 0.3 else
                                                      (X, int(rng.integers(1, 3)), rdim(rng, m.nd))))
for _n in ('tril', 'triu'):
    op(_n, 'view', lambda rng, m: Sample((X, int(rng.integers(-1, 2)))), shape=nd_range(2, 3))
op('diag', 'view', lambda rng, m: Sample((X, int(rng.integers(-1, 2)))), shape=nd_range(1, 2))
op('diag_embed', 'view', s_unary(offset=[_OMIT, 1, -1]), shape=nd_range(1, 2))
op('diagflat', 'view', s_unary(offset=[_OMIT, 1]), shape=nd_range(1, 2))
op('unfold', 'view', lambda rng, m: Sample((X, rdim(rng, m.nd), int(rng.integers(1, 3)), int(rng.integers(1, 3)))))
op('as_strided', 'view', lambda rng, m: Sample((X, (2, 2), (1, int(rng.integers(0, 2))), int(rng.integers(0, 2)))),
   shape=nd_range(1, 2, 4, 5), layouts=('contiguous', 'offset', 'transposed'),
   chain=False)                           # reads the storage: a chain's intermediate storages may be laid out apart
for _n in ('atleast_1d', 'atleast_2d', 'atleast_3d'):
    op(_n, 'view', s_unary())


def _join(rng, m, same_nd=True):
    dim = rdim(rng, max(m.nd, 1)) if same_nd else 0
    n = int(rng.integers(1, 4))
    ts = [X]
    for _ in range(n - 1):
        s = list(m.shape)
        if s and rng.random() < 0.6 and -len(s) <= dim < len(s): s[dim] = int(rng.integers(0, 3))
        ts.append(T(tuple(s), other_dtype(rng, m), seed=seed_of(rng)))
    return Sample((ts,), {'dim': dim}) if rng.random() < 0.7 else Sample((ts, dim))


for _n in ('cat', 'concat', 'concatenate'):
    op(_n, 'join', _join)
op('stack', 'join', lambda rng, m: Sample(([X, T(m.shape, other_dtype(rng, m), seed=seed_of(rng))],
                                           int(rng.integers(-m.nd - 1, m.nd + 1)))))
for _n in ('hstack', 'vstack', 'dstack', 'column_stack', 'row_stack'):
    op(_n, 'join', lambda rng, m: Sample(([X, T(m.shape, other_dtype(rng, m), seed=seed_of(rng))],)))
op('block_diag', 'join', lambda rng, m: Sample((X, T(rshape(rng, 0, 2), m.dtype, seed=seed_of(rng)))),
   shape=nd_range(0, 2))
op('broadcast_tensors', 'join', lambda rng, m: Sample((X, T(bcast_shape(rng, m.shape), m.dtype, seed=seed_of(rng)))))
op('meshgrid', 'join', lambda rng, m: Sample((X, T((3,), m.dtype, seed=seed_of(rng))),
                                             {'indexing': str(ch(rng, ['ij', 'xy']))}), shape=fixed_nd(1))
op('cartesian_prod', 'join', lambda rng, m: Sample((X, T((3,), m.dtype, seed=seed_of(rng)))), shape=fixed_nd(1))
op('combinations', 'join', s_unary(r=[_OMIT, 1, 3], with_replacement=[_OMIT, True]), shape=fixed_nd(1))

# ================================================================================================================
# indexing, sorting, searching


def _dimsize(m, d): return m.shape[d] if m.nd else 1


def _gather(rng, m):
    d = rdim(rng, m.nd)
    s = tuple(max(0, int(rng.integers(0, sz + 1))) for sz in m.shape)
    return Sample((X, d, T(s, 'int64', ('index', _dimsize(m, d)), seed_of(rng))))


op('gather', 'indexing', _gather)
op('take_along_dim', 'indexing', lambda rng, m: (lambda s: Sample((X, s.args[2]), {'dim': s.args[1]}))(_gather(rng, m)))


def _scatter(rng, m, value_ok=True, reduce_ok=False):
    d = rdim(rng, m.nd)
    s = tuple(max(0, int(rng.integers(0, sz + 1))) for sz in m.shape)
    idx = T(s, 'int64', ('uindex', _dimsize(m, d), d if m.nd else 0), seed_of(rng))
    src = float(ch(rng, [1.5, -2.0])) if value_ok and rng.random() < 0.3 else \
        T(tuple(v + int(rng.integers(0, 2)) for v in s), m.dtype, seed=seed_of(rng))
    kw = {}
    if reduce_ok and rng.random() < 0.3 and not isinstance(src, float): kw['reduce'] = str(ch(rng, ['add', 'multiply']))
    return Sample((X, d, idx, src), kw)


op('scatter', 'indexing', _scatter)
op('scatter_add', 'indexing', lambda rng, m: (lambda s: Sample(s.args if not isinstance(s.args[3], float) else
                                                               s.args[:3] + (T(s.args[2].shape, m.dtype),)))
   (_scatter(rng, m, value_ok=False)))


def _index_1d(rng, m, unique=False):
    d = rdim(rng, m.nd)
    size = _dimsize(m, d)
    k = int(rng.integers(0, size + 1)) if unique else int(rng.integers(0, 5))
    kind = ('uindex', size, 0) if unique else ('index', size)
    return d, T((k,), 'int64', kind, seed_of(rng))


op('index_select', 'indexing', lambda rng, m: (lambda d, i: Sample((X, d, i)))(*_index_1d(rng, m)))


def _index_src(m, d, i):
    s = list(m.shape) or [1]
    s[d] = i.shape[0]
    return T(tuple(s) if m.nd else (i.shape[0],) if i.shape[0] != 1 else (), m.dtype)


op('index_add', 'indexing', lambda rng, m: (lambda d, i: Sample((X, d, i, _index_src(m, d, i)),
                                                                 {'alpha': 2} if rng.random() < 0.3 else {}))
   (*_index_1d(rng, m, True)), dtypes=NUMERIC)
op('index_copy', 'indexing', lambda rng, m: (lambda d, i: Sample((X, d, i, _index_src(m, d, i))))(*_index_1d(rng, m, True)))
op('index_fill', 'indexing', lambda rng, m: (lambda d, i: Sample((X, d, i, float(ch(rng, [1.5, -2.0])))))
   (*_index_1d(rng, m)))
op('masked_fill', 'indexing', lambda rng, m: Sample((X, T(bcast_shape(rng, m.shape), 'bool', seed=seed_of(rng)),
                                                     py_scalar(rng, m.dtype) if rng.random() < 0.7 else
                                                     T((), m.dtype, seed=seed_of(rng)))))
op('masked_select', 'indexing', lambda rng, m: Sample((X, T(bcast_shape(rng, m.shape), 'bool', seed=seed_of(rng)))))
op('take', 'indexing', lambda rng, m: Sample((X, T(rshape(rng, 0, 2), 'int64', ('index', int(np.prod(m.shape))),
                                                   seed_of(rng)))))
op('index_put', 'indexing', lambda rng, m: (lambda i: Sample((X, (i,), T(i.shape + m.shape[1:] if rng.random() < 0.5
                                                                         else (), m.dtype, seed=seed_of(rng))),
                                                             {'accumulate': bool(rng.random() < 0.5)}))
   (T((int(rng.integers(0, 4)),), 'int64', ('uindex', _dimsize(m, 0), 0), seed_of(rng))), shape=nd_range(1, 3))
for _n in ('nonzero', 'argwhere'):
    op(_n, 'indexing', s_unary(), grad=False)
op('sort', 'sort', lambda rng, m: Sample((X,), {'dim': rdim(rng, m.nd), 'descending': bool(rng.random() < 0.5),
                                                'stable': True}), dtypes=REAL, idx_ties=True)
op('argsort', 'sort', lambda rng, m: Sample((X,), {'dim': rdim(rng, m.nd), 'descending': bool(rng.random() < 0.5),
                                                   'stable': True}), dtypes=REAL, grad=False)
op('msort', 'sort', s_unary(), dtypes=REAL, idx_ties=True)
op('topk', 'sort', lambda rng, m: Sample((X, int(rng.integers(0, _dimsize(m, -1) + 1))),
                                         {'dim': -1, 'largest': bool(rng.random() < 0.5)}), dtypes=REAL, idx_ties=True)
op('unique', 'sort', s_unary(return_inverse=[_OMIT, True], return_counts=[_OMIT, True]), dtypes=REAL, grad=False)
op('unique_consecutive', 'sort', s_unary(return_inverse=[_OMIT, True], return_counts=[_OMIT, True]), dtypes=REAL,
   grad=False)
op('bincount', 'sort', s_unary(minlength=[_OMIT, 3]), dtypes=INTS, domain=('index', 6), grad=False,
   shape=fixed_nd(1))
op('histc', 'sort', s_unary(bins=[_OMIT, 4], min=[_OMIT, -1.0], max=[_OMIT, 1.0]), dtypes=FLOATS, grad=False)
op('searchsorted', 'sort', lambda rng, m: Sample((X, T(rshape(rng, 0, 1), m.dtype, seed=seed_of(rng)) if
                                                  rng.random() < 0.5 else 0.5), {'right': bool(rng.random() < 0.5)}),
   dtypes=REAL, domain='sorted', grad=False, shape=fixed_nd(1), chain=False)   # chains would feed unsorted input
op('bucketize', 'sort', lambda rng, m: Sample((X, T((4,), m.dtype, 'sorted', seed_of(rng))),
                                              {'right': bool(rng.random() < 0.5)}), dtypes=REAL, grad=False)
op('isin', 'sort', lambda rng, m: Sample((X, T((4,), m.dtype, seed=seed_of(rng)))), dtypes=REAL, grad=False)


def _key(rng, m):
    "A random index key: ints (negative too), slices with steps, None, Ellipsis, bool masks, int tensors."
    parts = []
    for i, s in enumerate(m.shape):
        r = rng.random()
        if r < 0.25: parts.append(int(rng.integers(-s, s)) if s else 0)
        elif r < 0.55: parts.append(slice(int(rng.integers(-s - 1, s + 1)) if rng.random() < 0.5 else None,
                                          None if rng.random() < 0.5 else int(rng.integers(-s, s + 2)),
                                          None if rng.random() < 0.5 else int(rng.integers(1, 3))))
        elif r < 0.65: parts.append(None)
        elif r < 0.75 and i == 0:
            parts.append(T((s,), 'bool', seed=seed_of(rng)))
        elif r < 0.85:
            parts.append(T((int(rng.integers(0, 3)),), 'int64', ('index', s), seed_of(rng)))
        else: parts.append(slice(None))
        if rng.random() < 0.3: break
    if rng.random() < 0.1: parts.insert(int(rng.integers(0, len(parts) + 1)), Ellipsis)
    if rng.random() < 0.05: parts.append(0)                        # one index too many: IndexError
    return parts[0] if len(parts) == 1 and rng.random() < 0.5 else tuple(parts)


op('__getitem__', 'indexing', lambda rng, m: Sample((X, _key(rng, m))),
   torch_fn=lambda x, k: x[k], mt_fn=lambda x, k: x[k])


def _setitem(x, k, v):
    x[k] = v
    return x


op('__setitem__', 'indexing', lambda rng, m: Sample((X, _key(rng, m), py_scalar(rng, m.dtype) if rng.random() < 0.5
                                                     else T((), m.dtype, seed=seed_of(rng)))),
   torch_fn=_setitem, mt_fn=_setitem, mutates=True, grad=False)

# in-place methods that have no out-of-place twin here
op('fill_', 'inplace', lambda rng, m: Sample((X, py_scalar(rng, m.dtype))), mutates=True, grad=False)
op('zero_', 'inplace', s_unary(), mutates=True, grad=False)
op('copy_', 'inplace', lambda rng, m: Sample((X, T(bcast_shape(rng, m.shape), other_dtype(rng, m), seed=seed_of(rng)))),
   mutates=True, grad=False)
op('masked_fill_', 'inplace', lambda rng, m: Sample((X, T(bcast_shape(rng, m.shape), 'bool', seed=seed_of(rng)), 1.5)),
   mutates=True, grad=False)
op('index_put_', 'inplace', lambda rng, m: Sample((X, (T((2,), 'int64', ('uindex', _dimsize(m, 0), 0), seed_of(rng)),),
                                                   T((), m.dtype))), mutates=True, grad=False, shape=nd_range(1, 3))
op('sum_to_size', 'reduction', lambda rng, m: Sample((X, bcast_shape(rng, m.shape))))

# ================================================================================================================
# creation


def _shape_arg(rng): return rshape(rng, 0, 3, 0, 4)


def _creation_dtype(rng):
    return {'dtype': D(str(ch(rng, DTYPES)))} if rng.random() < 0.6 else {}


for _n in ('zeros', 'ones', 'empty', 'rand', 'randn'):
    op(_n, 'creation', lambda rng, m: Sample(_shape_arg(rng) if rng.random() < 0.5 else (_shape_arg(rng),),
                                             _creation_dtype(rng)),
       no_x=True, grad=False, chain=False, random=_n in ('empty', 'rand', 'randn'))
op('full', 'creation', lambda rng, m: Sample((_shape_arg(rng), py_scalar(rng, 'float32')), _creation_dtype(rng)),
   no_x=True, grad=False, chain=False)
op('randint', 'creation', lambda rng, m: Sample((0, 5, _shape_arg(rng)), _creation_dtype(rng)),
   no_x=True, grad=False, chain=False, random=True)
op('randperm', 'creation', lambda rng, m: Sample((int(rng.integers(0, 6)),)), no_x=True, grad=False, chain=False,
   random=True)
op('arange', 'creation', lambda rng, m: Sample(tuple(ch(rng, [0, 1, -2, 2.5, 5, 7, 0.5])
                                                     for _ in range(int(rng.integers(1, 4)))), _creation_dtype(rng)),
   no_x=True, grad=False, chain=False)
op('linspace', 'creation', lambda rng, m: Sample((float(ch(rng, [-1, 0, 2.5])), float(ch(rng, [1, 3, 5.5])),
                                                  int(rng.integers(0, 6))), _creation_dtype(rng)),
   no_x=True, grad=False, chain=False)
op('logspace', 'creation', lambda rng, m: Sample((float(ch(rng, [-1, 0])), float(ch(rng, [1, 2])),
                                                  int(rng.integers(0, 6))), _creation_dtype(rng)),
   no_x=True, grad=False, chain=False, tol=4)
op('eye', 'creation', lambda rng, m: Sample(tuple(int(v) for v in rng.integers(0, 4, size=rng.integers(1, 3))),
                                            _creation_dtype(rng)), no_x=True, grad=False, chain=False)
op('tril_indices', 'creation', lambda rng, m: Sample(tuple(int(v) for v in rng.integers(0, 4, size=2)) +
                                                     (int(rng.integers(-1, 2)),)), no_x=True, grad=False, chain=False)
op('triu_indices', 'creation', lambda rng, m: Sample(tuple(int(v) for v in rng.integers(0, 4, size=2)) +
                                                     (int(rng.integers(-1, 2)),)), no_x=True, grad=False, chain=False)
op('tensor', 'creation', lambda rng, m: Sample(([[1, 2], [3, 4]] if rng.random() < 0.3 else
                                                [1.5, -2.0] if rng.random() < 0.5 else [True, 2, 3.5]
                                                if rng.random() < 0.5 else 1j,), _creation_dtype(rng)),
   no_x=True, grad=False, chain=False)
for _n in ('zeros_like', 'ones_like', 'empty_like', 'rand_like', 'randn_like'):
    op(_n, 'creation', lambda rng, m: Sample((X,), _creation_dtype(rng)), grad=False, chain=False,
       random=_n in ('empty_like', 'rand_like', 'randn_like'))
op('full_like', 'creation', lambda rng, m: Sample((X, py_scalar(rng, m.dtype)), _creation_dtype(rng)), grad=False,
   chain=False)
op('randint_like', 'creation', lambda rng, m: Sample((X, 5)), grad=False, chain=False, random=True, dtypes=REAL)
for _n in ('new_zeros', 'new_ones', 'new_empty'):
    op(_n, 'creation', lambda rng, m: Sample((X, _shape_arg(rng)), _creation_dtype(rng)), grad=False, chain=False,
       random=_n == 'new_empty')
op('new_full', 'creation', lambda rng, m: Sample((X, _shape_arg(rng), 2.5)), grad=False, chain=False)
op('new_tensor', 'creation', lambda rng, m: Sample((X, [1, 2, 3])), grad=False, chain=False)
op('vander', 'creation', s_unary(N=[_OMIT, 3], increasing=[_OMIT, True]), shape=fixed_nd(1), dtypes=NUMERIC)
op('polar', 'creation', lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng)))), dtypes=('float32', 'float64'),
   domain='pos')
op('complex', 'creation', lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng)))),
   dtypes=('float32', 'float64'))
for _n in ('uniform_', 'normal_', 'random_', 'bernoulli_', 'exponential_'):
    op(_n, 'inplace', s_unary(), mutates=True, grad=False, random=True, chain=False, dtypes=FLOATS)
op('result_type', 'query', lambda rng, m: Sample((X, second_operand(rng, m))), grad=False, chain=False)
op('promote_types', 'query', lambda rng, m: Sample((D(str(ch(rng, DTYPES))), D(str(ch(rng, DTYPES))))),
   no_x=True, grad=False, chain=False)
op('can_cast', 'query', lambda rng, m: Sample((D(str(ch(rng, DTYPES))), D(str(ch(rng, DTYPES))))),
   no_x=True, grad=False, chain=False)

# a few more namespace functions
op('trapezoid', 'reduction', s_unary(dim=[_OMIT, 0], dx=[_OMIT, 0.5]), shape=nd_range(1, 2), dtypes=INEXACT)
op('trapz', 'reduction', s_unary(dim=[_OMIT, 0]), shape=nd_range(1, 2), dtypes=INEXACT)
op('cumulative_trapezoid', 'scan', s_unary(dim=[_OMIT, 0]), shape=nd_range(1, 2), dtypes=INEXACT)
op('renorm', 'reduction', lambda rng, m: Sample((X, 2, rdim(rng, m.nd), 1.0)), shape=nd_range(1, 3), dtypes=INEXACT,
   tol=4)

# ================================================================================================================
# nn.functional


def nnf(name, sample, **kw):
    return op('nn.functional.' + name, kw.pop('kind', 'nn'), sample, **kw)


for _n in ('relu', 'relu6', 'selu', 'silu', 'mish', 'hardsigmoid', 'hardswish', 'logsigmoid', 'sigmoid',
           'softsign', 'tanh', 'tanhshrink'):
    nnf(_n, s_unary(), dtypes=FLOATS, kind='nn-activation')
nnf('gelu', s_unary(approximate=[_OMIT, 'tanh']), dtypes=FLOATS, kind='nn-activation')
nnf('elu', s_unary(alpha=[_OMIT, 0.5]), dtypes=FLOATS, kind='nn-activation')
nnf('celu', s_unary(alpha=[_OMIT, 2.0]), dtypes=FLOATS, kind='nn-activation')
nnf('leaky_relu', s_unary(negative_slope=[_OMIT, 0.2]), dtypes=FLOATS, kind='nn-activation')
nnf('hardtanh', s_unary(min_val=[_OMIT, -0.5], max_val=[_OMIT, 2.0]), dtypes=FLOATS, kind='nn-activation')
nnf('hardshrink', s_unary(lambd=[_OMIT, 1.0]), dtypes=FLOATS, kind='nn-activation')
nnf('softshrink', s_unary(lambd=[_OMIT, 1.0]), dtypes=FLOATS, kind='nn-activation')
nnf('softplus', s_unary(beta=[_OMIT, 2.0], threshold=[_OMIT, 1.0]), dtypes=FLOATS, kind='nn-activation')
nnf('threshold', lambda rng, m: Sample((X, 0.5, -1.0)), dtypes=FLOATS, kind='nn-activation')
nnf('glu', lambda rng, m: Sample((X, rdim(rng, m.nd))), dtypes=FLOATS, shape=lambda rng: rshape(rng, 0, 2) + (4,))
for _n in ('softmax', 'log_softmax', 'softmin'):
    nnf(_n, lambda rng, m: Sample((X,), {'dim': rdim(rng, m.nd)}), dtypes=FLOATS)
nnf('normalize', lambda rng, m: Sample((X,), {'p': float(ch(rng, [2.0, 1.0])), 'dim': rdim(rng, m.nd)}),
    dtypes=FLOATS, tol=4)
nnf('dropout', lambda rng, m: Sample((X,), {'p': 0.0} if rng.random() < 0.5 else {'training': False}), dtypes=FLOATS)


def _loss(target='same', reductions=('mean', 'sum', 'none'), **extra):
    def gen(rng, m):
        kw = {'reduction': str(ch(rng, reductions))} if rng.random() < 0.7 else {}
        for k, vals in extra.items(): kw[k] = vals[int(rng.integers(0, len(vals)))]
        if target == 'prob': t = T(m.shape, m.dtype, 'prob', seed_of(rng))
        else: t = T(m.shape, m.dtype, seed=seed_of(rng))
        return Sample((X, t), kw)
    return gen


nnf('mse_loss', _loss(), dtypes=FLOATS)
nnf('l1_loss', _loss(), dtypes=FLOATS)
nnf('smooth_l1_loss', _loss(beta=[1.0, 0.5]), dtypes=FLOATS)
nnf('huber_loss', _loss(delta=[1.0, 0.5]), dtypes=FLOATS)
nnf('kl_div', _loss(reductions=('sum', 'none', 'batchmean'), log_target=[False, True]), dtypes=FLOATS)
nnf('binary_cross_entropy', _loss(target='prob'), dtypes=FLOATS, domain='prob', tol=4)
nnf('binary_cross_entropy_with_logits', _loss(target='prob'), dtypes=FLOATS, tol=4)


def _ce(rng, m):
    n, c = (m.shape[0], m.shape[1]) if m.nd == 2 else (1, m.shape[0] if m.nd else 1)
    tgt = T((n,) if m.nd == 2 else (), 'int64', ('index', c), seed_of(rng))
    kw = {'reduction': str(ch(rng, ['mean', 'sum', 'none']))} if rng.random() < 0.5 else {}
    return Sample((X, tgt), kw)


nnf('cross_entropy', lambda rng, m: (lambda s: Sample(s.args, {**s.kwargs, **({'label_smoothing': 0.1}
                                                                              if rng.random() < 0.2 else {})}))(_ce(rng, m)),
    dtypes=FLOATS, shape=nd_range(1, 2), tol=4)
nnf('nll_loss', _ce, dtypes=FLOATS, shape=nd_range(1, 2))
nnf('cosine_similarity', lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng))), {'dim': rdim(rng, m.nd)}),
    dtypes=FLOATS, shape=nd_range(1, 3), tol=4)
nnf('pairwise_distance', lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng)))), dtypes=FLOATS,
    shape=nd_range(1, 2), tol=4)
nnf('linear', lambda rng, m: Sample((X, T((3, m.shape[-1] if m.nd else 1), m.dtype, seed=seed_of(rng)),
                                     T((3,), m.dtype, seed=seed_of(rng)) if rng.random() < 0.6 else None)),
    dtypes=FLOATS, shape=nd_range(1, 3), tol=4)


def _conv(nd):
    def gen(rng, m):
        c = m.shape[1] if m.nd == nd + 2 else 1
        groups = 1 if c % 2 or rng.random() < 0.5 else 2
        k = (int(rng.integers(1, 3)),) * nd
        w = T((2 * groups, c // groups) + k, m.dtype, seed=seed_of(rng))
        b = T((2 * groups,), m.dtype, seed=seed_of(rng)) if rng.random() < 0.5 else None
        return Sample((X, w, b), {'stride': int(rng.integers(1, 3)), 'padding': int(rng.integers(0, 2)),
                                  'groups': groups})
    return gen


nnf('conv1d', _conv(1), dtypes=FLOATS, shape=lambda rng: fixed_nd(3, 1, 4)(rng), tol=8, chain=False)
nnf('conv2d', _conv(2), dtypes=FLOATS, shape=lambda rng: fixed_nd(4, 1, 4)(rng), tol=8, chain=False)
nnf('embedding', lambda rng, m: Sample((T(rshape(rng, 1, 2), 'int64', ('index', m.shape[0]), seed_of(rng)), X)),
    dtypes=FLOATS, shape=fixed_nd(2), chain=False)
nnf('one_hot', s_unary(num_classes=[-1, 6]), dtypes=('int64',), domain=('index', 6), grad=False)
nnf('layer_norm', lambda rng, m: Sample((X, m.shape[-1:] if m.nd else ()),
                                        {'weight': T(m.shape[-1:], m.dtype), 'bias': T(m.shape[-1:], m.dtype)}
                                        if rng.random() < 0.5 else {}), dtypes=FLOATS, shape=nd_range(1, 3), tol=8)
nnf('rms_norm', lambda rng, m: Sample((X, m.shape[-1:] if m.nd else ()), {'eps': 1e-5}), dtypes=FLOATS,
    shape=nd_range(1, 3), tol=8)
nnf('group_norm', lambda rng, m: Sample((X, int(ch(rng, [1, 2]))), {}), dtypes=FLOATS,
    shape=lambda rng: (2, 4) + rshape(rng, 0, 1), tol=8)
nnf('batch_norm', lambda rng, m: Sample((X, T((m.shape[1],), m.dtype, grad=False), T((m.shape[1],), m.dtype, 'pos',
                                                                                    grad=False),
                                         T((m.shape[1],), m.dtype), T((m.shape[1],), m.dtype)),
                                        {'training': bool(rng.random() < 0.5)}), dtypes=('float32', 'float64'),
    shape=lambda rng: (3, 2) + rshape(rng, 0, 1), tol=8)
nnf('prelu', lambda rng, m: Sample((X, T((1,) if rng.random() < 0.5 or m.nd < 2 else (m.shape[1],), m.dtype))),
    dtypes=FLOATS, shape=nd_range(1, 3))
nnf('pad', lambda rng, m: Sample((X, tuple(int(v) for v in rng.integers(0, 3, size=2 * int(rng.integers(1, 3))))),
                                 {'mode': 'constant', 'value': 1.5} if rng.random() < 0.5 else
                                 {'mode': str(ch(rng, ['reflect', 'replicate', 'circular']))}),
    dtypes=FLOATS, shape=lambda rng: (1, 2) + rshape(rng, 1, 2, 3, 5))
for _n, _nd in (('avg_pool1d', 1), ('max_pool1d', 1), ('avg_pool2d', 2), ('max_pool2d', 2)):
    nnf(_n, lambda rng, m: Sample((X, int(rng.integers(1, 3))), {'stride': int(rng.integers(1, 3))}
                                  if rng.random() < 0.5 else {}),
        dtypes=('float32', 'float64'), shape=lambda rng, _nd=_nd: (2, 2) + rshape(rng, _nd, _nd, 2, 5),
        idx_ties=_n.startswith('max'))
nnf('adaptive_avg_pool1d', lambda rng, m: Sample((X, int(rng.integers(1, 4)))), dtypes=('float32', 'float64'),
    shape=lambda rng: (2, 2, int(rng.integers(2, 6))))
for _n in ('adaptive_avg_pool2d', 'adaptive_max_pool2d'):
    nnf(_n, lambda rng, m: Sample((X, (int(rng.integers(1, 4)), int(rng.integers(1, 3))))),
        dtypes=('float32', 'float64'), shape=lambda rng: (1, 2, int(rng.integers(2, 6)), int(rng.integers(2, 5))),
        idx_ties=_n.startswith('adaptive_max'))
for _n, _nd in (('max_unpool1d', 1), ('max_unpool2d', 2)):     # unpooling what max_pool returned
    op('nn.functional.' + _n, 'nn', s_unary(), dtypes=('float32', 'float64'), idx_ties=True,
       shape=lambda rng, _nd=_nd: (1, 2) + rshape(rng, _nd, _nd, 2, 5),
       torch_fn=(lambda n, nd: lambda x: getattr(TF, n)(*getattr(TF, f'max_pool{nd}d')(x, 2, return_indices=True), 2))
       (_n, _nd),
       mt_fn=(lambda n, nd: lambda x: getattr(MF, n)(*getattr(MF, f'max_pool{nd}d')(x, 2, return_indices=True), 2))
       (_n, _nd), covers=(('nn.functional', _n),))
nnf('pixel_shuffle', lambda rng, m: Sample((X, 2)), dtypes=FLOATS, shape=lambda rng: (1, 4, 2, 3))
nnf('pixel_unshuffle', lambda rng, m: Sample((X, 2)), dtypes=FLOATS, shape=lambda rng: (1, 2, 4, 2))
nnf('interpolate', lambda rng, m: Sample((X,), {'scale_factor': 2.0, 'mode': 'nearest'} if rng.random() < 0.4 else
                                         {'size': 5, 'mode': 'linear',
                                          'align_corners': bool(rng.random() < 0.5)}),
    dtypes=('float32', 'float64'), shape=lambda rng: (1, 2, int(rng.integers(2, 5))), tol=4)
nnf('unfold', lambda rng, m: Sample((X, 2)), dtypes=('float32', 'float64'), shape=lambda rng: (1, 2, 3, 4))
nnf('fold', lambda rng, m: Sample((X, (3, 3), 2)), dtypes=('float32', 'float64'), shape=lambda rng: (1, 8, 4))
nnf('scaled_dot_product_attention',
    lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng)), T(m.shape, m.dtype, seed=seed_of(rng))),
                          {'is_causal': bool(rng.random() < 0.5)}),
    dtypes=('float32', 'float64'), shape=lambda rng: (2,) + fixed_nd(2, 1, 4)(rng), tol=8)

# the layers chapter's later additions
for _n in ('relu_', 'selu_', 'elu_', 'celu_', 'leaky_relu_', 'hardtanh_'):
    nnf(_n, s_unary(), dtypes=FLOATS, mutates=True, grad=False, kind='nn-activation')
nnf('threshold_', lambda rng, m: Sample((X, 0.5, -1.0)), dtypes=FLOATS, mutates=True, grad=False, kind='nn-activation')
nnf('rrelu', s_unary(training=[False]), dtypes=FLOATS, kind='nn-activation')
nnf('rrelu_', s_unary(training=[False]), dtypes=FLOATS, mutates=True, grad=False, kind='nn-activation')
for _n in ('dropout1d', 'dropout2d', 'dropout3d', 'alpha_dropout', 'feature_alpha_dropout'):
    nnf(_n, lambda rng, m: Sample((X,), {'training': False}), dtypes=FLOATS,
        shape={'dropout1d': fixed_nd(3), 'dropout2d': fixed_nd(4), 'dropout3d': fixed_nd(5, 1, 3)}.get(_n, nd_range(1, 3)))
nnf('gumbel_softmax', lambda rng, m: Sample((X,), {'tau': 1.0}), dtypes=('float32', 'float64'), random=True,
    grad=False, chain=False, shape=nd_range(1, 2))
nnf('channel_shuffle', lambda rng, m: Sample((X, 2)), dtypes=FLOATS, shape=lambda rng: (1, 4, 2, 3), grad=False)
nnf('instance_norm', lambda rng, m: Sample((X,)), dtypes=('float32', 'float64'), shape=lambda rng: (2, 3, 4), tol=8)
nnf('bilinear', lambda rng, m: Sample((X, T((m.shape[0], 3), m.dtype, seed=seed_of(rng)),
                                       T((2, m.shape[1], 3), m.dtype, seed=seed_of(rng)),
                                       T((2,), m.dtype, seed=seed_of(rng)))),
    dtypes=('float32', 'float64'), shape=fixed_nd(2), tol=8, chain=False)
for _n, _nd in (('conv_transpose1d', 1), ('conv_transpose2d', 2)):
    nnf(_n, lambda rng, m, _nd=_nd: Sample((X, T((m.shape[1], 2) + (2,) * _nd, m.dtype, seed=seed_of(rng))),
                                           {'stride': int(rng.integers(1, 3))}),
        dtypes=('float32', 'float64'), shape=lambda rng, _nd=_nd: (1, 2) + rshape(rng, _nd, _nd, 2, 4), tol=8,
        chain=False)
for _n, _nd in (('max_pool1d_with_indices', 1), ('max_pool2d_with_indices', 2), ('lp_pool1d', 1), ('lp_pool2d', 2)):
    nnf(_n, lambda rng, m: Sample((X, 2) if 'max' in _n else (X, 2.0, 2)), dtypes=('float32', 'float64'),
        shape=lambda rng, _nd=_nd: (1, 2) + rshape(rng, _nd, _nd, 2, 5), idx_ties='max' in _n, tol=4)
for _n, _nd in (('adaptive_max_pool1d', 1), ('adaptive_max_pool1d_with_indices', 1),
                ('adaptive_max_pool2d_with_indices', 2)):
    nnf(_n, lambda rng, m, _nd=_nd: Sample((X, int(rng.integers(1, 3)) if _nd == 1 else (2, 1))),
        dtypes=('float32', 'float64'), shape=lambda rng, _nd=_nd: (1, 2) + rshape(rng, _nd, _nd, 2, 5), idx_ties=True)


def _pair_loss(target):
    "Losses of (input, target) with a target of the given kind: 'sign' (+-1), 'binary' (0/1), 'pos'."
    def gen(rng, m):
        kw = {'reduction': str(ch(rng, ['mean', 'sum', 'none']))} if rng.random() < 0.7 else {}
        if target == 'sign': t = T(m.shape, m.dtype, 'sign', seed_of(rng))
        elif target == 'binary': t = T(m.shape, m.dtype, 'prob', seed_of(rng))
        else: t = T(m.shape, m.dtype, 'pos', seed_of(rng))
        return Sample((X, t), kw)
    return gen


nnf('soft_margin_loss', _pair_loss('sign'), dtypes=FLOATS, tol=4)
nnf('hinge_embedding_loss', _pair_loss('sign'), dtypes=FLOATS, tol=4)
nnf('multilabel_soft_margin_loss', _pair_loss('binary'), dtypes=('float32', 'float64'), shape=fixed_nd(2), tol=4)
nnf('poisson_nll_loss', _pair_loss('pos'), dtypes=('float32', 'float64'), tol=4)
nnf('gaussian_nll_loss', lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng)),
                                                T(m.shape, m.dtype, 'pos', seed_of(rng)))),
    dtypes=('float32', 'float64'), shape=nd_range(1, 2), tol=4)
nnf('margin_ranking_loss', lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng)),
                                                  T(m.shape, m.dtype, 'sign', seed_of(rng)))),
    dtypes=('float32', 'float64'), shape=nd_range(1, 1), tol=4)
nnf('cosine_embedding_loss', lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng)),
                                                    T((m.shape[0],), m.dtype, 'sign', seed_of(rng)))),
    dtypes=('float32', 'float64'), shape=fixed_nd(2), tol=4)
nnf('triplet_margin_loss', lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng)),
                                                  T(m.shape, m.dtype, seed=seed_of(rng)))),
    dtypes=('float32', 'float64'), shape=fixed_nd(2), tol=4)


# ================================================================================================================
# linear algebra at the top level, random sampling, and the last nn.functional ops

def _square(rng): 
    n = int(rng.integers(1, 5))
    return rshape(rng, 0, 1, 1, 3) + (n, n)


_LINALG_LAYOUTS = ('contiguous', 'transposed', 'empty')
for _n in ('det', 'logdet', 'slogdet', 'inverse', 'matrix_exp'):
    op(_n, 'linalg', s_unary(), dtypes=('float32', 'float64', 'complex64', 'complex128'), shape=_square,
       domain='wellcond', tol=16, layouts=_LINALG_LAYOUTS, chain=False)
op('matrix_power', 'linalg', lambda rng, m: Sample((X, int(rng.integers(-2, 4)))), shape=_square, domain='wellcond',
   dtypes=('float32', 'float64', 'complex64', 'complex128'), tol=16, layouts=_LINALG_LAYOUTS, chain=False)
op('pinverse', 'linalg', s_unary(), dtypes=('float32', 'float64'), shape=lambda rng: fixed_nd(2, 1, 4)(rng),
   domain='wellcond', tol=16, layouts=_LINALG_LAYOUTS, chain=False)
op('cholesky_inverse', 'linalg', s_unary(upper=[_OMIT, False, True]), dtypes=('float32', 'float64'), shape=_square,
   domain='cholfactor', tol=16, layouts=_LINALG_LAYOUTS, chain=False)
op('cholesky_solve', 'linalg', lambda rng, m: Sample((X, T((m.shape[-2],) * 2, m.dtype, 'cholfactor', seed_of(rng))),
                                                     {'upper': bool(rng.random() < 0.5)} if rng.random() < 0.6 else {}),
   dtypes=('float32', 'float64'), shape=lambda rng: fixed_nd(2, 1, 4)(rng), tol=16, layouts=_LINALG_LAYOUTS, chain=False)
op('lu_unpack', 'linalg', lambda rng, m: Sample((X, T(m.shape[:-1], 'int32', ('pivots', m.shape[-1]), seed_of(rng),
                                                      grad=False)),
                                                {'unpack_data': False} if rng.random() < 0.15 else
                                                {'unpack_pivots': False} if rng.random() < 0.15 else {}),
   dtypes=('float32', 'float64', 'complex64', 'complex128'), shape=lambda rng: _square(rng) if rng.random() < 0.9
   else (0, 0), layouts=('contiguous', 'transposed'), chain=False)
op('geqrf', 'linalg', s_unary(), dtypes=('float32', 'float64', 'complex64', 'complex128'),
   shape=lambda rng: fixed_nd(2, 1, 4)(rng), domain='wellcond', tol=16, grad=False, layouts=_LINALG_LAYOUTS, chain=False)

# random sampling: values differ by design, so shapes, dtypes and errors are compared (statistics: test_parity_coverage)
op('multinomial', 'random', lambda rng, m: Sample((X, int(rng.integers(1, (m.shape[-1] if m.nd else 1) + 1))),
                                                  {'replacement': bool(rng.random() < 0.5)}),
   dtypes=('float32', 'float64'), shape=nd_range(1, 2), domain='prob', random=True, grad=False, chain=False)
op('normal', 'random', lambda rng, m: Sample((X, 1.5) if rng.random() < 0.5 else
                                             (X, T(m.shape, m.dtype, 'pos', seed_of(rng)))),
   dtypes=FLOATS, random=True, grad=False, chain=False)
OPS['normal'].variants = ('fn',)     # Tensor.normal_ (the in-place fill) has its own entry
op('poisson', 'random', s_unary(), dtypes=FLOATS, domain='pos', random=True, grad=False, chain=False)
op('bernoulli', 'random', s_unary(p=[_OMIT, _OMIT, 0.3]), dtypes=FLOATS, domain='prob', random=True, grad=False,
   chain=False)


def _put(rng, m):
    n = int(np.prod(m.shape)) if m.shape else 1
    acc = bool(rng.random() < 0.3)
    k = int(rng.integers(0, min(n, 4) + 1))
    idx = T((k,), 'int64', ('index', n) if acc else ('uindex', n, 0), seed_of(rng), grad=False)
    return Sample((X, idx, T((k,), m.dtype, seed=seed_of(rng))), {'accumulate': True} if acc else {})


op('put', 'indexing', _put, tol=4)
op('scatter_reduce', 'indexing', lambda rng, m: (lambda s: Sample(
    s.args[:3] + (s.args[3] if not isinstance(s.args[3], float) else T(s.args[2].shape, m.dtype, seed=seed_of(rng)),
                  str(ch(rng, ['sum', 'prod', 'mean', 'amax', 'amin']))),
    {'include_self': bool(rng.random() < 0.5)} if rng.random() < 0.5 else {}))(_scatter(rng, m)), tol=4)
for _n in ('bitwise_left_shift', 'bitwise_right_shift'):
    op(_n, 'binary', s_binary(), dtypes=INTS, grad=False)
nnf('pdist', s_unary(p=[_OMIT, 1.0, 3.0, 0.0, float('inf')]), dtypes=('float32', 'float64'),
    shape=lambda rng: fixed_nd(2, 1, 4)(rng), tol=8)
nnf('local_response_norm', lambda rng, m: Sample((X, int(rng.integers(1, 4))),
                                                 {'alpha': 0.5, 'beta': 0.6, 'k': 2.0} if rng.random() < 0.5 else {}),
    dtypes=('float32', 'float64'), shape=lambda rng: (2,) + rshape(rng, 2, 3, 1, 4), tol=4)
nnf('multi_margin_loss', lambda rng, m: Sample((X, T(m.shape[:1], 'int64', ('index', m.shape[1]), seed_of(rng),
                                                     grad=False)),
                                               dict(p=int(ch(rng, [1, 2])), margin=float(ch(rng, [1.0, 0.5])),
                                                    # an empty batch: torch's 'sum'/'mean' read uninitialised memory
                                                    reduction=str(ch(rng, ['mean', 'sum', 'none'])) if m.shape[0] else 'none',
                                                    **({'weight': T(m.shape[1:], m.dtype, 'pos', seed_of(rng), grad=False)}
                                                       if rng.random() < 0.3 else {}))),
    dtypes=('float32', 'float64'), shape=fixed_nd(2), tol=4)
nnf('triplet_margin_with_distance_loss',
    lambda rng, m: Sample((X, T(m.shape, m.dtype, seed=seed_of(rng)), T(m.shape, m.dtype, seed=seed_of(rng))),
                          dict(margin=float(ch(rng, [1.0, 0.5])), swap=bool(rng.random() < 0.5),
                               reduction=str(ch(rng, ['mean', 'sum', 'none'])))),
    dtypes=('float32', 'float64'), shape=fixed_nd(2), tol=4)


def _embedding_bag(rng, m):
    n = m.shape[0]
    mode = str(ch(rng, ['sum', 'mean', 'max']))
    kw = {'mode': mode}
    if rng.random() < 0.5:
        idx = T((int(rng.integers(1, 4)), int(rng.integers(1, 4))), 'int64', ('index', n), seed_of(rng), grad=False)
        args = (idx, X)
        shape = idx.shape
    else:
        k = int(rng.integers(0, 6))
        idx = T((k,), 'int64', ('index', n), seed_of(rng), grad=False)
        nb = int(rng.integers(1, 4))
        args = (idx, X, T((nb,), 'int64', ('offsets', k), seed_of(rng), grad=False))
        shape = idx.shape
        if nb > 1 and rng.random() < 0.3: kw['include_last_offset'] = True   # (torch 2.13 crashes on one offset)
    if mode == 'sum' and rng.random() < 0.3: kw['per_sample_weights'] = T(shape, m.dtype, seed=seed_of(rng))
    if rng.random() < 0.2: kw['padding_idx'] = int(rng.integers(0, n))
    return Sample(args, kw)


nnf('embedding_bag', _embedding_bag, dtypes=('float32', 'float64'), shape=fixed_nd(2), tol=4, chain=False)

# ================================================================================================================
# building samples and running them in both libraries

class Timeout(BaseException):
    "Raised by the alarm when a program runs too long (a BaseException so `except Exception` in ops can't eat it)."


@contextlib.contextmanager
def time_limit(seconds: float):
    if seconds is None or seconds <= 0:
        yield
        return
    def handler(signum, frame): raise Timeout()
    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class Step:
    op: OpInfo
    variant: str
    sample: Sample


@dataclass
class Program:
    seed: int
    dtype: str
    layout: str
    shape: tuple
    steps: list
    device: str = 'cpu'
    input_seed: int = 0
    input_grad: bool = False

    def repro(self) -> str:
        s = ' > '.join(f"{st.op.name}[{st.variant}]{fmt_args(st.sample)}" for st in self.steps)
        x = '' if self.steps[0].op.no_x else f"X={self.dtype} {self.layout} {self.shape}" + \
            (' cuda' if self.device != 'cpu' else '') + ' | '
        return f"{x}{s}  (seed {self.seed})"

    @property
    def name(self) -> str:
        return ' > '.join(st.op.name for st in self.steps)


def fmt_args(s: Sample) -> str:
    a = ', '.join(_fmt(v) for v in s.args)
    k = ', '.join(f"{k}={_fmt(v)}" for k, v in s.kwargs.items())
    return f"({a}{', ' if a and k else ''}{k})"


def _fmt(v) -> str:
    if isinstance(v, slice):
        return ':'.join('' if p is None else str(p) for p in (v.start, v.stop, v.step)).rstrip(':') or ':'
    if isinstance(v, tuple): return '(' + ', '.join(_fmt(x) for x in v) + (',)' if len(v) == 1 else ')')
    if isinstance(v, list): return '[' + ', '.join(_fmt(x) for x in v) + ']'
    if v is Ellipsis: return '...'
    return repr(v)


def pick(rng, seq, p=None):
    return seq[int(rng.choice(len(seq), p=p))]


def op_list(names=None) -> list:
    return [OPS[n] for n in (names or OPS)]


def draw_shape(rng, info: OpInfo, layout: str) -> tuple:
    s = info.shape(rng) if info.shape else rshape(rng, 1, 3)
    if layout == 'scalar': return ()
    if layout == 'empty':
        s = list(s) or [0]
        s[int(rng.integers(0, len(s)))] = 0
        return tuple(s)
    if layout == 'transposed' and len(s) < 2: return s
    return s


def draw_program(seed: int, ops: list | None = None, chain_p: float = 0.4, cuda_p: float = 0.0) -> Program:
    "The program of `seed`: one op, or (with probability chain_p) a chain of 2-5 chainable ops."
    rng = np.random.default_rng(seed)
    ops = ops or op_list()
    info = pick(rng, ops)
    dtypes = info.dtypes if rng.random() < 0.9 else DTYPES
    dtype = pick(rng, dtypes)
    layouts = [l for l in info.layouts]
    p = np.array([LAYOUT_P[LAYOUTS.index(l)] for l in layouts]); p /= p.sum()
    for attempt in range(6):       # a sampler may not take every shape (mm of a 0-d input): draw again
        layout = pick(rng, layouts, p) if attempt < 5 else 'contiguous'
        shape = draw_shape(rng, info, layout)
        layout = effective_layout(layout, shape)
        variant = pick(rng, info.variants)
        try:
            steps = [Step(info, variant, info.sample(rng, Meta(shape, dtype)))]
            break
        except (IndexError, ValueError, ZeroDivisionError, TypeError):
            if attempt == 5: raise
    device = 'cuda' if cuda_p and rng.random() < cuda_p and (mt.cuda.is_available() or mt.cuda.is_simulator()) else 'cpu'
    prog = Program(seed, dtype, layout, shape, steps, device, seed_of(rng))
    if info.chain and not info.no_x and rng.random() < chain_p:
        prog.chain_rng = rng          # later steps are drawn as the chain runs (they need the current shape)
        prog.chain_len = int(rng.integers(2, 6))
        prog.chain_ops = [o for o in ops if o.chain and not o.no_x]
    return prog


# ---- resolving placeholders


def make_tensor(spec_shape, dtype, kind, seed, lib, device):
    rng = np.random.default_rng(seed)
    a = rand_values(rng, tuple(spec_shape), dtype, kind)
    t = torch_from(a, dtype)
    return t, to_minitorch(t, device)


def resolve(v, lib: str, env: dict):
    "Replace placeholders by torch ('t') or minitorch ('m') objects; tensors come from env (built once)."
    if v is X: return env['X_' + lib]
    if isinstance(v, T):
        key = id(v)
        if key not in env:
            t, m = make_tensor(v.shape, v.dtype, v.kind, v.seed, lib, env['device'])
            if v.grad and env['grad'] and v.dtype in GRAD_DTYPES:
                t.requires_grad_(True); m.requires_grad_(True)
                env['leaves'].append((t, m, repr(v)))
            env[key] = (t, m)
        return env[key][0 if lib == 't' else 1]
    if isinstance(v, D): return tdt(v.name) if lib == 't' else mdt(v.name)
    if isinstance(v, tuple): return tuple(resolve(x, lib, env) for x in v)
    if isinstance(v, list): return [resolve(x, lib, env) for x in v]
    if isinstance(v, dict): return {k: resolve(x, lib, env) for k, x in v.items()}
    return v


# ---- comparing results

@dataclass
class Mismatch:
    kind: str
    op: str
    repro: str
    detail: str
    seed: int
    dtype: str = ''
    layout: str = ''
    variant: str = ''


ERR_CLASSES = (NotImplementedError, IndexError, TypeError, ValueError, ZeroDivisionError, RuntimeError)


def err_class(e: BaseException) -> str | None:
    for c in ERR_CLASSES:
        if isinstance(e, c): return c.__name__
    return None


def _short(e: BaseException) -> str:
    return f"{type(e).__name__}: {str(e).splitlines()[0][:140] if str(e) else ''}"


def _is_t(x): return isinstance(x, torch.Tensor)
def _is_m(x): return isinstance(x, mt.Tensor)


def flat_outputs(r) -> list:
    if isinstance(r, (tuple, list)) and not isinstance(r, (torch.Size, mt.Size)): return [y for x in r for y in flat_outputs(x)]
    return [r]


def close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> tuple[bool, str]:
    "NaN-aware closeness of float arrays `a` (minitorch) and `b` (torch)."
    a = a.astype(np.float64); b = b.astype(np.float64)
    with np.errstate(all='ignore'):
        return _close(a, b, rtol, atol)


def _close(a, b, rtol, atol):
    na, nb = np.isnan(a), np.isnan(b)
    if (na != nb).any():
        i = np.argwhere(na != nb)[0]
        return False, f"NaN mismatch at {tuple(int(j) for j in i)}: got {a[tuple(i)]}, want {b[tuple(i)]}"
    ia, ib = np.isinf(a), np.isinf(b)
    if (ia | ib).any() and not np.array_equal(a[ia | ib], b[ia | ib]):
        i = np.argwhere((ia | ib) & (a != b))[0]
        return False, f"inf mismatch at {tuple(int(j) for j in i)}: got {a[tuple(i)]}, want {b[tuple(i)]}"
    f = ~(na | ia | ib)
    err = np.abs(a - b)
    bad = f & (err > atol + rtol * np.abs(b))
    if bad.any():
        i = np.argwhere(bad)[0]
        i = tuple(int(j) for j in i)
        return False, f"at {i}: got {a[i]!r}, want {b[i]!r} (max abs err {err[f].max():.3g})"
    return True, ''


def compare_tensor(t: torch.Tensor, m, tol: float, what: str = 'value') -> tuple[str, str] | None:
    "None, or (kind, detail) for the first difference of the minitorch tensor `m` from the torch tensor `t`."
    if not _is_m(m): return 'value', f"{what}: want a Tensor, got {type(m).__name__}"
    if tname(t) != mname(m): return 'dtype', f"{what}: dtype {mname(m)}, want {tname(t)}"
    if tuple(t.shape) != tuple(m.shape): return 'shape', f"{what}: shape {tuple(m.shape)}, want {tuple(t.shape)}"
    try:
        a, b = to_numpy_m(m), to_numpy_t(t)
    except Exception as e:                                           # noqa: BLE001
        return 'crash', f"{what}: reading the result failed: {_short(e)}"
    if a.shape != b.shape: return 'shape', f"{what}: numpy shape {a.shape}, want {b.shape}"
    name = tname(t)
    if name in INEXACT + ('complex32',):
        rtol, atol = TOL[name]
        rtol, atol = rtol * tol, atol * tol
        if name in COMPLEX + ('complex32',):
            for part, fa, fb in (('real', a.real, b.real), ('imag', a.imag, b.imag)):
                ok, d = close(fa, fb, rtol, atol)
                if not ok: return 'value', f"{what} ({part}): {d}"
            return None
        ok, d = close(a, b, rtol, atol)
        return None if ok else ('value', f"{what}: {d}")
    if not np.array_equal(a, b):
        i = tuple(int(j) for j in np.argwhere(a != b)[0]) if a.ndim else ()
        return 'value', f"{what}: at {i}: got {a[i]!r}, want {b[i]!r}"
    return None


def compare_outputs(rt, rm, info: OpInfo, x_t=None, tol_mult: float = 1.0, strides: bool = True):
    "Compare whole results (tensors, tuples, Python values); returns (kind, detail) or None."
    ft, fm = flat_outputs(rt), flat_outputs(rm)
    if len(ft) != len(fm): return 'shape', f"{len(fm)} outputs, want {len(ft)}"
    ties = info.idx_ties and x_t is not None and _has_ties(x_t)
    for i, (t, m) in enumerate(zip(ft, fm)):
        what = f"output {i}" if len(ft) > 1 else 'output'
        if _is_t(t):
            if ties and t.dtype == torch.int64 and i > 0: continue      # indices of tied values may differ
            if info.random:
                if not _is_m(m): return 'value', f"{what}: want a Tensor, got {type(m).__name__}"
                if tname(t) != mname(m): return 'dtype', f"{what}: dtype {mname(m)}, want {tname(t)}"
                if tuple(t.shape) != tuple(m.shape): return 'shape', f"{what}: shape {tuple(m.shape)}, want {tuple(t.shape)}"
                continue
            if info.name == 'signbit' and _is_m(m) and x_t is not None and x_t.is_floating_point() \
                    and x_t.shape == t.shape and bool(torch.isnan(x_t).any()):
                # the sign of a NaN is unspecified: torch's own kernels give -NaN on their vector path and +NaN on the
                # scalar tail (`torch.full((64,), -inf) % 1` vs the same on one element), so NaN inputs are not compared
                nan = torch.isnan(x_t)
                t = t.masked_fill(nan, False)
                m = mt.tensor(np.where(nan.numpy(), False, m.numpy()))
            r = compare_tensor(t, m, info.tol * tol_mult, what)
            if r: return r
            if strides and info.kind == 'view' and info.name not in ('diagonal_copy', 'narrow_copy', 'diag', 'diag_embed',
                                                          'diagflat', 'flip', 'fliplr', 'flipud', 'roll', 'rot90',
                                                          'tile', 'repeat', 'repeat_interleave', 'tril', 'triu',
                                                          'reshape', 'flatten', 'ravel', 'reshape_as') \
                    and t.numel() > 1 and _strides(t) != _strides(m):
                return 'stride', f"{what}: strides {tuple(m.stride())}, want {tuple(t.stride())}"
        elif isinstance(t, torch.dtype):
            if not (isinstance(m, mt.dtype) and m.name == str(t).replace('torch.', '')):
                return 'value', f"{what}: {m!r}, want {t}"
        elif isinstance(t, (torch.Size, tuple, list)):
            if not (isinstance(m, (tuple, list)) and tuple(m) == tuple(t)):
                return 'value', f"{what}: {m!r}, want {tuple(t)}"
        elif isinstance(t, (bool, int, float, complex)):
            if type(m) is not type(t) and not (isinstance(t, float) and isinstance(m, float)):
                return 'value', f"{what}: {m!r} ({type(m).__name__}), want {t!r} ({type(t).__name__})"
            if isinstance(t, float) and math.isnan(t) and isinstance(m, float) and math.isnan(m): continue
            if isinstance(t, (float, complex)) and isinstance(m, (float, complex)):
                if abs(m - t) > 1e-5 + 1e-5 * abs(t): return 'value', f"{what}: {m!r}, want {t!r}"
            elif m != t: return 'value', f"{what}: {m!r}, want {t!r}"
        elif t is None:
            if m is not None: return 'value', f"{what}: {m!r}, want None"
    return None


def _bit_equal(t, m) -> bool:
    "Whether the torch tensor `t` and the minitorch tensor `m` hold exactly the same values."
    if not (_is_t(t) and _is_m(m)) or tname(t) != mname(m) or tuple(t.shape) != tuple(m.shape): return False
    try:
        a, b = to_numpy_m(m), to_numpy_t(t)
    except Exception:                                                # noqa: BLE001
        return False
    return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in 'fc'))


def _shares_t(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.numel() > 0 and b.numel() > 0 and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _shares_m(a, b) -> bool:
    sa, sb = getattr(a._data, 'storage', None), getattr(b._data, 'storage', None)
    if not isinstance(sa, np.ndarray) or not isinstance(sb, np.ndarray): return False
    return a.numel() > 0 and b.numel() > 0 and np.may_share_memory(sa, sb)


def _alias_check(rt, rm, x_t, x_m):
    "('alias', detail) when an output shares memory with the input in one library only."
    if not (_is_t(x_t) and _is_m(x_m)): return None
    for i, (t, m) in enumerate(zip(flat_outputs(rt), flat_outputs(rm))):
        if _is_t(t) and _is_m(m):
            ts, ms = _shares_t(t, x_t), _shares_m(m, x_m)
            if ts != ms:
                return 'alias', (f"output {i} {'shares' if ms else 'does not share'} memory with the input; "
                                 f"torch's {'does' if ts else 'does not'}")
    return None


def _strides(x) -> tuple:
    "The strides of the dims longer than 1 (a size-1 dim's stride is never used)."
    return tuple(st for sz, st in zip(x.shape, x.stride()) if sz > 1)


def _has_ties(t: torch.Tensor) -> bool:
    a = to_numpy_t(t).reshape(-1)
    if a.dtype.kind == 'f' and np.isnan(a).any(): return True
    return len(np.unique(a)) != a.size


def first_tensor(r):
    for x in flat_outputs(r):
        if _is_t(x) or _is_m(x): return x
    return None


def _call(fn, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return fn(*args, **kwargs)


def _grad_enabled(info, variant):
    return info.grad and not info.mutates and variant != 'inplace'


def run_program(prog: Program, timeout: float = 10.0, check_grad: bool = True) -> list[Mismatch]:
    "Run `prog` in torch and minitorch; the list of mismatches (empty when they agree)."
    out: list[Mismatch] = []
    first = prog.steps[0]

    def report(kind, detail, step_i=None, op_name=None):
        st = prog.steps[step_i if step_i is not None else 0]
        out.append(Mismatch(kind, op_name or st.op.name, prog.repro(), detail, prog.seed, prog.dtype, prog.layout,
                            st.variant))

    try:
        with time_limit(timeout):
            try:
                _run(prog, report, check_grad)
            except Exception as e:                                   # noqa: BLE001 (a bug of this harness)
                import traceback
                tb = traceback.extract_tb(e.__traceback__)[-1]
                report('crash', f"harness: {_short(e)} at {tb.name}:{tb.lineno}", op_name='<harness>')
    except Timeout:
        report('hang', f"program ran past {timeout}s", len(prog.steps) - 1)
    for m in out:
        if m.kind == 'grad' and m.op.startswith('chain: '):
            m.op = _blame_grad(prog, timeout)
    return out


def _blame_grad(prog: Program, timeout: float) -> str:
    "The op of a chain whose gradient goes wrong first: the shortest prefix of the chain with a grad mismatch."
    for k in range(1, len(prog.steps)):
        sub = Program(prog.seed, prog.dtype, prog.layout, prog.shape, prog.steps[:k], prog.device, prog.input_seed)
        sub.chain_len = k             # replays the first k recorded steps (no chain_rng: it draws none)
        if any(m.kind == 'grad' for m in run_program(sub, timeout)):
            return prog.steps[k - 1].op.name
    return prog.steps[-1].op.name


def _build_input(prog: Program, env: dict, grad: bool):
    bshape = base_shape(prog.shape, prog.layout)
    t, m = make_tensor(bshape, prog.dtype, prog.steps[0].op.domain, prog.input_seed, 't', prog.device)
    if grad:
        t.requires_grad_(True); m.requires_grad_(True)
        env['leaves'].append((t, m, 'X'))
    env['base'] = (t, m)
    xt = apply_layout(t, prog.layout, prog.shape)
    xm = apply_layout(m, prog.layout, prog.shape)
    return xt, xm


def _run(prog: Program, report, check_grad: bool):
    first = prog.steps[0]
    grad = check_grad and _grad_enabled(first.op, first.variant) and prog.dtype in GRAD_DTYPES
    env = {'device': prog.device, 'grad': grad, 'leaves': []}
    if not first.op.no_x:
        try:
            xt, xm = _build_input(prog, env, grad)
        except Exception as e:                                       # noqa: BLE001
            report('crash', f"building the {prog.layout} input failed: {_short(e)}", op_name=f"<layout {prog.layout}>")
            return
        if tuple(xt.shape) != tuple(xm.shape) or (xt.numel() > 1 and _strides(xt) != _strides(xm)):
            report('stride', f"{prog.layout} input: shape/strides {tuple(xm.shape)}/{xm.stride()}, "
                             f"want {tuple(xt.shape)}/{xt.stride()}", op_name=f"<layout {prog.layout}>")
            return
        env['X_t'], env['X_m'] = xt, xm
    i = 0
    chain_rng = getattr(prog, 'chain_rng', None)
    n_steps = getattr(prog, 'chain_len', 1)
    all_grad = grad
    while True:
        st = prog.steps[i]
        info = st.op
        ft, fm = info.callables(st.variant)
        x_t = env.get('X_t')
        try:
            at = resolve(st.sample.args, 't', env); kt = resolve(st.sample.kwargs, 't', env)
            am = resolve(st.sample.args, 'm', env); km = resolve(st.sample.kwargs, 'm', env)
        except Exception as e:                                       # noqa: BLE001
            report('crash', f"building the arguments failed: {_short(e)}", i, op_name='<sampler>')
            return
        exact_in, x_t_in = True, x_t
        if i > 0 and _is_t(x_t):      # inputs of a later chain step may differ within tolerance: note it, keep a copy
            exact_in = _bit_equal(x_t, env.get('X_m'))
            if not exact_in: x_t_in = x_t.detach().clone()
        et = em = None
        try:
            rt = _call(ft, at, kt)
        except Timeout: raise
        except Exception as e: et = e                               # noqa: BLE001
        try:
            rm = _call(fm, am, km)
        except Timeout: raise
        except Exception as e: em = e                               # noqa: BLE001
        except BaseException as e:                                   # noqa: BLE001 (e.g. a kernel's SystemExit)
            em = e
        if et is not None or em is not None:
            if et is not None and em is not None:
                ct, cm = err_class(et) or type(et).__name__, err_class(em) or type(em).__name__
                if ct != cm:
                    report('error-class', f"minitorch {_short(em)}; torch {_short(et)}", i)
            elif em is not None:
                kind = 'minitorch-raised' if err_class(em) else 'crash'
                report(kind, f"minitorch {_short(em)}", i)
            else:
                report('minitorch-did-not-raise', f"torch {_short(et)}", i)
            return
        x_m = env.get('X_m')
        same_in = x_t is None or not _is_m(x_m) or _strides(x_t) == _strides(x_m)
        d = compare_outputs(rt, rm, info, x_t, strides=same_in)     # a view's strides follow its input's
        if d is None and (info.mutates or st.variant == 'inplace') and not info.no_x:
            d = compare_outputs(env['X_t'], env['X_m'], info, strides=same_in)   # the written-to input
            if d is None and 'base' in env:
                d = compare_outputs(env['base'][0], env['base'][1], info, strides=same_in)
                if d: d = (d[0], 'base after the in-place write: ' + d[1])
            elif d: d = (d[0], 'input after the in-place write: ' + d[1])
        if d is None and same_in and x_t is not None and prog.device == 'cpu' and not info.mutates and \
                st.variant != 'inplace':
            d = _alias_check(rt, rm, x_t, x_m)
        if d is not None and d[0] == 'value' and not exact_in:
            # the step's inputs already differed within tolerance: run minitorch again on torch's exact input,
            # and report only if the op itself still disagrees (else it was rounding amplified by this op)
            try:
                env2 = dict(env, X_m=to_minitorch(x_t_in, prog.device))
                am2 = resolve(st.sample.args, 'm', env2); km2 = resolve(st.sample.kwargs, 'm', env2)
                d = compare_outputs(rt, _call(fm, am2, km2), info, x_t, strides=False)
            except Exception:                                        # noqa: BLE001
                pass
            if d is None: return
        if d is not None:
            report(d[0], d[1], i)
            return
        all_grad = all_grad and _grad_enabled(info, st.variant) and not info.random and not (
            info.idx_ties and x_t is not None and _has_ties(x_t)) and not (     # ties: which element gets the grad differs
            info.name == 'nn.functional.pdist' and x_t is not None and x_t.shape[0] == 0)   # torch's backward crashes
        i += 1
        if i >= n_steps: break
        nt, nm = first_tensor(rt), first_tensor(rm)
        if nt is None or nm is None or not _is_t(nt): break
        env['X_t'], env['X_m'] = nt, nm
        if i < len(prog.steps): continue          # a step already recorded (a replayed chain): run it again
        if chain_rng is None: break
        meta = Meta(tuple(nt.shape), tname(nt))
        cands = [o for o in prog.chain_ops if meta.dtype in o.dtypes]
        if not cands: break
        for _ in range(8):
            nxt = pick(chain_rng, cands)
            try:
                smp = nxt.sample(chain_rng, meta)
                break
            except Exception:                                        # noqa: BLE001 (sampler needs another shape)
                smp = None
        if smp is None: break
        prog.steps.append(Step(nxt, pick(chain_rng, nxt.variants), smp))
    if all_grad and env['leaves']:
        _check_grads(prog, env, rt, rm, report, len(prog.steps) - 1)


def _check_grads(prog, env, rt, rm, report, step_i):
    ft, fm = flat_outputs(rt), flat_outputs(rm)
    outs_t, outs_m, ws_t, ws_m = [], [], [], []
    rng = np.random.default_rng(prog.seed + 7)
    for t, m in zip(ft, fm):
        if _is_t(t) and t.requires_grad and tname(t) in GRAD_DTYPES:
            if not (_is_m(m) and m.requires_grad):
                report('grad', "an output that requires grad in torch does not in minitorch", step_i,
                       op_name=_grad_op(prog))
                return
            w = torch_from(rand_values(rng, tuple(t.shape), tname(t), 'pos'), tname(t))
            outs_t.append(t); outs_m.append(m); ws_t.append(w); ws_m.append(to_minitorch(w, prog.device))
    if not outs_t: return
    et = em = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore'); torch.autograd.backward(outs_t, ws_t)
    except Exception as e: et = e                                    # noqa: BLE001
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore'); mt.autograd.backward(outs_m, ws_m)
    except Timeout: raise
    except Exception as e: em = e                                    # noqa: BLE001
    if et is not None or em is not None:
        if em is not None and et is None:
            report('grad', f"backward raised in minitorch only: {_short(em)}", step_i, op_name=_grad_op(prog))
        return
    for t, m, label in env['leaves']:
        gt, gm = t.grad, m.grad
        if gt is None and gm is None: continue
        if gt is None: gt = torch.zeros_like(t)
        if gm is None:
            if not (gt == 0).all():
                report('grad', f"grad of {label}: None in minitorch", step_i, op_name=_grad_op(prog))
                return
            continue
        d = compare_tensor(gt, gm, 4 * max(o.op.tol for o in prog.steps), f"grad of {label}")
        if d is not None:
            report('grad', d[1], step_i, op_name=_grad_op(prog))
            return


def _grad_op(prog):
    return prog.steps[0].op.name if len(prog.steps) == 1 else 'chain: ' + prog.name


# ================================================================================================================
# namespace coverage

NOT_OPS = {  # public callables that are not tensor ops (state, I/O, autograd plumbing): not sampled
    'manual_seed', 'seed', 'initial_seed', 'get_rng_state', 'set_rng_state', 'set_default_dtype', 'get_default_dtype',
    'set_printoptions', 'save', 'load', 'is_grad_enabled', 'is_inference_mode_enabled', 'is_tensor', 'from_numpy',
    'as_tensor', 'backward', 'register_hook', 'retain_grad', 'requires_grad_', 'numpy', 'data_ptr', 'cpu', 'cuda',
    'get_device', 'is_inference', 'detach_', 'new_tensor', 'Sequence', 'register_post_accumulate_grad_hook',
}


def public_callables() -> dict[str, list[str]]:
    "The public callables of minitorch that torch also has: namespace functions, Tensor methods, nn.functional."
    ns = sorted(n for n in dir(mt) if not n.startswith('_') and callable(getattr(mt, n))
                and not inspect.isclass(getattr(mt, n)) and not inspect.ismodule(getattr(mt, n)) and hasattr(torch, n))
    meth = sorted(n for n in dir(mt.Tensor) if (not n.startswith('_') or n in _DUNDER_ALL) and
                  callable(getattr(mt.Tensor, n, None)) and hasattr(torch.Tensor, n))
    nnf_ = sorted(n for n in dir(MF) if not n.startswith('_') and callable(getattr(MF, n)) and
                  not inspect.isclass(getattr(MF, n)) and hasattr(TF, n))
    return {'minitorch': ns, 'Tensor': meth, 'nn.functional': nnf_}


_DUNDER_ALL = set(k for k in list(OPS) if k.startswith('__'))


THREE_D = set('adaptive_avg_pool3d adaptive_max_pool3d adaptive_max_pool3d_with_indices avg_pool3d conv3d '
               'conv_transpose3d lp_pool3d max_pool3d max_pool3d_with_indices max_unpool3d'.split())

def coverage() -> dict:
    "How many public callables have an entry (by namespace), and which do not."
    pub = public_callables()
    covered = {'minitorch': set(), 'Tensor': set(), 'nn.functional': set()}
    for name, info in OPS.items():
        if 'fn' in info.variants: covered['minitorch'].add(name)
        if 'method' in info.variants: covered['Tensor'].add(name)
        if 'inplace' in info.variants: covered['Tensor'].add(name + '_')
        if 'nnf' in info.variants: covered['nn.functional'].add(name.split('.')[-1])
        if 'custom' in info.variants and name.startswith('__'): covered['Tensor'].add(name)
        if 'custom' in info.variants and hasattr(mt, name): covered['minitorch'].add(name)
        if info.mutates and _has_method(name): covered['Tensor'].add(name)
        for ns, n in info.covers: covered[ns].add(n)
    covered['nn.functional'] |= THREE_D   # tests/test_three_d.py compares each with torch (values, gradients, errors)
    import minitorch.nn.functional as F   # a top-level alias that is F's own function is covered where F's is
    for n in pub['minitorch']:
        if n in covered['nn.functional'] and getattr(F, n, None) is getattr(mt, n, None): covered['minitorch'].add(n)
    res = {}
    for ns, names in pub.items():
        have = [n for n in names if n in covered[ns]]
        res[ns] = {'total': len(names), 'covered': len(have), 'not_ops': sorted(n for n in names if n in NOT_OPS and n not in covered[ns]),
                   'missing': sorted(n for n in names if n not in covered[ns] and n not in NOT_OPS)}
    return res
