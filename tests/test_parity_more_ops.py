"More-ops chapter against torch: dtypes, half-precision rounding, NaN placement and errors on edge cases (issue 12)."
import math

import numpy as np
import pytest
import torch

import minitorch as mt


def both(f):
    "Run `f(lib)` on torch and minitorch; (minitorch result, torch result)."
    return f(mt), f(torch)


def same(rm, rt, exact=False):
    assert str(rm.dtype).split('.')[-1] == str(rt.dtype).split('.')[-1]
    assert tuple(rm.shape) == tuple(rt.shape)
    if 'bfloat16' in str(rt.dtype): rm, rt = rm.to(mt.float32), rt.to(torch.float32)   # exact in float32
    a, b = rm.detach().numpy(), rt.detach().numpy()
    if exact: np.testing.assert_array_equal(a, b)
    else: torch.testing.assert_close(torch.from_numpy(np.asarray(a)), torch.from_numpy(np.asarray(b)), equal_nan=True)


@pytest.mark.parametrize('dtype', ['int8', 'uint8', 'int32', 'bool', 'float16', 'float32', 'complex64'])
@pytest.mark.parametrize('N,inc', [(None, False), (3, True), (1, False), (0, True)])
def test_vander_dtype_and_values(dtype, N, inc):
    a = np.array([1, 2, 0]).astype(dtype)
    rm, rt = both(lambda lib: lib.vander(lib.tensor(a), N=N, increasing=inc))
    same(rm, rt, exact=True)


def test_vander_complex_inf_like_torch():
    rm, rt = both(lambda lib: lib.vander(lib.tensor([complex(math.inf, 0), 2 + 0j]), increasing=True))
    same(rm, rt)


@pytest.mark.parametrize('dtype', ['int8', 'float16', 'bfloat16', 'float32'])
@pytest.mark.parametrize('b', [0, 1, 3])
def test_addbmm_dtype_and_rounding(dtype, b):
    g = np.random.default_rng(b)
    x, p, q = g.standard_normal((3, 4)), g.standard_normal((b, 3, 2)), g.standard_normal((b, 2, 4))
    if dtype == 'int8': x, p, q = [(3 * v).astype(np.int8) for v in (x, p, q)]
    def f(lib):
        d = getattr(lib, dtype)
        return lib.addbmm(lib.tensor(x).to(d), lib.tensor(p).to(d), lib.tensor(q).to(d))
    rm, rt = both(f)
    same(rm, rt, exact=dtype != 'float32')


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('op', ['addmm', 'addmv', 'baddbmm'])
def test_half_blas_rounds_once(op, dtype):
    g = np.random.default_rng(1)
    shapes = {'addmm': [(4, 5), (4, 6), (6, 5)], 'addmv': [(4,), (4, 6), (6,)], 'baddbmm': [(2, 4, 5), (2, 4, 6), (2, 6, 5)]}
    arrs = [g.standard_normal(s) for s in shapes[op]]
    rm, rt = both(lambda lib: getattr(lib, op)(*[lib.tensor(a).to(getattr(lib, dtype)) for a in arrs], beta=0.5, alpha=2))
    same(rm, rt, exact=True)


def test_combinations_empty():
    for n, r in [(0, 1), (1, 3), (3, 0), (0, 0), (2, 3)]:
        xm, xt = mt.zeros(n, requires_grad=True), torch.zeros(n, requires_grad=True)
        rm, rt = mt.combinations(xm, r=r), torch.combinations(xt, r=r)
        assert tuple(rm.shape) == tuple(rt.shape) and rm.requires_grad == rt.requires_grad


@pytest.mark.parametrize('p', [0.0, 0.5, 1.0, 2.0, 3.0, math.inf])
def test_cdist_any_p(p):
    g = np.random.default_rng(2)
    a, b = g.standard_normal((3, 4)), g.standard_normal((2, 4))
    a[0] = b[1]
    rm, rt = both(lambda lib: lib.cdist(lib.tensor(a), lib.tensor(b), p=p))
    same(rm, rt)


def test_cov_corrcoef_shapes_and_complex():
    g = np.random.default_rng(3)
    for a in [g.standard_normal((1, 4)), g.standard_normal((2, 5)), g.standard_normal(4),
              g.standard_normal((2, 4)) + 1j * g.standard_normal((2, 4))]:
        same(*both(lambda lib: lib.cov(lib.tensor(a))))
        same(*both(lambda lib: lib.corrcoef(lib.tensor(a))))


@pytest.mark.parametrize('right', [False, True])
def test_searchsorted_nan_lands_last(right):
    s, v = [0.0, 1.0, 2.0, 3.0], [math.nan, 1.0, -math.inf, math.inf]
    same(*both(lambda lib: lib.searchsorted(lib.tensor(s), lib.tensor(v), right=right)), exact=True)
    same(*both(lambda lib: lib.bucketize(lib.tensor(v), lib.tensor(s), right=right)), exact=True)


@pytest.mark.parametrize('dtype', ['float16', 'float32', 'float64'])
def test_trapezoid_torch_formula(dtype):
    y = np.array([[1.0, math.inf, 2.0, -math.inf], [0.1, 0.2, 0.3, 0.7]]).astype(dtype)
    for kw in [{}, {'dx': 0.5}]:
        same(*both(lambda lib: lib.trapezoid(lib.tensor(y), **kw)))
        same(*both(lambda lib: lib.cumulative_trapezoid(lib.tensor(y), **kw)))
    same(*both(lambda lib: lib.trapezoid(lib.tensor(y), lib.tensor(np.array([0, 1, 3, 4.0]).astype(dtype)))))
    same(*both(lambda lib: lib.trapezoid(lib.zeros(2, 0, dtype=lib.uint8))), exact=True)
    same(*both(lambda lib: lib.cumulative_trapezoid(lib.zeros(3, 0))), exact=True)


ERRS = [
    lambda lib: lib.vander(lib.ones(2, 2)), lambda lib: lib.vander(lib.tensor(1.)),
    lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 3), p=-1.0), lambda lib: lib.cdist(lib.ones(3), lib.ones(2, 3)),
    lambda lib: lib.cdist(lib.ones(2, 3, dtype=lib.bfloat16), lib.ones(2, 3, dtype=lib.bfloat16)),
    lambda lib: lib.cov(lib.ones(2, 2, 2)), lambda lib: lib.cov(lib.ones(2, dtype=lib.bool)),
    lambda lib: lib.corrcoef(lib.ones(2, 2, 2)),
    lambda lib: lib.meshgrid(lib.ones(2, 2), lib.ones(2), indexing='ij'),
    lambda lib: lib.cartesian_prod(lib.ones(2, 2), lib.ones(2)), lambda lib: lib.cartesian_prod(lib.tensor(2.)),
    lambda lib: lib.isin(lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool)),
    lambda lib: lib.isin(lib.ones(2, dtype=lib.complex64), lib.ones(2, dtype=lib.complex64)),
    lambda lib: lib.searchsorted(lib.zeros(2, dtype=lib.bool), lib.zeros(2, dtype=lib.bool)),
    lambda lib: lib.searchsorted(lib.tensor(1.), 0.5), lambda lib: lib.searchsorted(lib.ones(2, 2), lib.tensor(0.5)),
    lambda lib: lib.renorm(lib.ones(3), 2, 0, 1.0), lambda lib: lib.renorm(lib.tensor(1.), 2, 0, 1.0),
    lambda lib: lib.trapezoid(lib.tensor(1.), dim=0), lambda lib: lib.trapezoid(lib.ones(3, dtype=lib.bool)),
    lambda lib: lib.cumulative_trapezoid(lib.tensor(1.)),
    lambda lib: lib.cumulative_trapezoid(lib.ones(3, dtype=lib.bool)),
    lambda lib: lib.take_along_dim(lib.tensor(1.), lib.tensor(0), dim=0),
]


@pytest.mark.parametrize('k', range(len(ERRS)))
def test_errors_like_torch(k):
    with pytest.raises(Exception) as et: ERRS[k](torch)
    with pytest.raises(Exception) as em: ERRS[k](mt)
    assert type(em.value) is type(et.value)
    assert str(em.value).split('\n')[0][:60] == str(et.value).split('\n')[0][:60]


def test_sum_to_size_and_conj_physical_like_torch():
    for lib in (mt, torch):
        x = lib.tensor(3, dtype=lib.int32)
        assert str(x.sum_to_size(()).dtype).endswith('int64')
    xm, xt = mt.ones(2, 3), torch.ones(2, 3)
    assert (xm.sum_to_size(2, 3) is xm) and xt.sum_to_size(2, 3).data_ptr() == xt.data_ptr()
    assert mt.conj_physical(xm) is xm and torch.conj_physical(xt).data_ptr() == xt.data_ptr()


@pytest.mark.parametrize('shapes', [((2, 2), (3,)), ((), (3,)), ((2,), (2, 1)), ((2,), ())])
def test_outer_needs_vectors(shapes):
    for f in ('outer', 'ger'):
        with pytest.raises(RuntimeError) as et: getattr(torch, f)(torch.ones(shapes[0]), torch.ones(shapes[1]))
        with pytest.raises(RuntimeError) as em: getattr(mt, f)(mt.ones(shapes[0]), mt.ones(shapes[1]))
        assert str(em.value) == str(et.value)
