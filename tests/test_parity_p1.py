"""Parity with torch 2.13 for views, indexing, scatter, in-place ops, building ops and the in-place random ops
(issue 12): each test runs the same program in torch and minitorch and compares values, dtypes and errors."""
import warnings

import numpy as np
import pytest
import torch

import minitorch as mt

OVERLAP = "more than one element of the written-to tensor refers to a single memory location"


def same(m, t):
    "minitorch tensor `m` equals torch tensor `t` (dtype and values)."
    assert str(m.dtype).split('.')[-1] == str(t.dtype).split('.')[-1]
    torch.testing.assert_close(torch.from_numpy(np.array(m.detach().numpy(), copy=True)), t.detach(),
                               equal_nan=True, check_dtype=False)


def both(fn):
    "fn(lib) in torch and minitorch: (torch result or exception, minitorch result or exception)."
    out = []
    for lib in (torch, mt):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try: out.append(fn(lib))
            except Exception as e: out.append(e)   # noqa: BLE001
    return out


def same_error(fn, match=None):
    t, m = both(fn)
    assert isinstance(t, Exception), f"torch did not raise: {t}"
    assert isinstance(m, Exception), f"minitorch did not raise (torch: {type(t).__name__}: {t})"
    assert type(m).__name__ == type(t).__name__, f"minitorch {type(m).__name__}: {m}; torch {type(t).__name__}: {t}"
    if match: assert match in str(t) and match in str(m), (str(t), str(m))


# ---- in-place writes into an expanded view

def test_index_put_accumulate_expanded_adds_once_per_element():
    "seed 102376: two indexed rows of an expanded float16 tensor are one memory row, added to twice."
    def f(lib):
        b = lib.tensor([[-2.0605, 0.9243, 2.2285]], dtype=lib.float16)
        b.expand(3, 3).index_put_((lib.tensor([1, 0]),), lib.tensor(-0.3308, dtype=lib.float16), accumulate=True)
        return b
    t, m = both(f)
    same(m, t)


def test_index_put_expanded_last_write_wins():
    def f(lib):
        b = lib.tensor([[1., 2.]])
        b.expand(3, 2).index_put_((lib.tensor([1, 0]),), lib.tensor([[5., 6.], [7., 8.]]))
        return b
    t, m = both(f)
    same(m, t)


@pytest.mark.parametrize('name,shape,k', [('tril_', (1, 4), 0), ('triu_', (1, 4), 1), ('tril_', (4, 1), -1),
                                          ('triu_', (4, 1), 0)])
def test_tril_triu_inplace_on_expanded(name, shape, k):
    "seed 102999: tril_/triu_ zero the elements outside the triangle through an expanded view; no overlap error."
    def f(lib):
        b = lib.arange(1., 5.).reshape(*shape)
        getattr(b.expand(4, 4), name)(k)
        return b
    t, m = both(f)
    same(m, t)


@pytest.mark.parametrize('name,args', [('uniform_', ()), ('normal_', ()), ('bernoulli_', ()), ('random_', (0, 5)),
                                       ('exponential_', ())])
def test_random_inplace_on_expanded_raises(name, args):
    "seeds 100326, 101045, 103431, 100105, 102656."
    same_error(lambda lib: getattr(lib.zeros(1, 3).expand(2, 3), name)(*args), OVERLAP)


def test_inplace_unary_overlap_before_dtype():
    "seed 103745: frac_ of an expanded uint8 tensor is the overlap error (the iterator checks before the kernel)."
    same_error(lambda lib: lib.zeros(1, 3, dtype=lib.uint8).expand(3, 3).frac_(), OVERLAP)
    same_error(lambda lib: lib.zeros(1, 3, dtype=lib.uint8).expand(3, 3).xlogy_(2.), OVERLAP)
    same_error(lambda lib: lib.zeros(1, 3, dtype=lib.uint8).expand(3, 3).float_power_(2), 'float_power_')


def test_inplace_on_expanded_leaf_view_is_autograd_error_first():
    same_error(lambda lib: lib.zeros(1, 3, requires_grad=True).expand(3, 3).sin_(), 'view of a leaf Variable')
    same_error(lambda lib: lib.zeros(1, 3, requires_grad=True).expand(3, 3).frac_(), 'view of a leaf Variable')


def test_index_fill_inplace_on_expanded_writes_through():
    def f(lib):
        b = lib.zeros(1, 3)
        b.expand(3, 3).index_fill_(1, lib.tensor([1]), 2.)
        return b
    t, m = both(f)
    same(m, t)


# ---- scalar conversions

def test_fill_half_with_complex_or_too_big():
    "seed 103938."
    for v in [1.5 - 0.5j, 70000., 1e300]:
        same_error(lambda lib: lib.zeros(2, dtype=lib.float16).fill_(v), 'c10::Half without overflow')
    same_error(lambda lib: lib.zeros(2, dtype=lib.bfloat16).fill_(1e39), 'c10::BFloat16 without overflow')
    for v in [1 + 0j, float('inf'), 65504.]:
        t, m = both(lambda lib: lib.zeros(2, dtype=lib.float16).fill_(v))
        same(m, t)


def test_index_fill_int_value_is_converted_first():
    "seed 102513: INT32_MAX next to a filled column must not go through float32."
    def f(lib):
        x = lib.tensor([[2147483647, 5, -3], [1, 2, 3]], dtype=lib.int32)
        return x.index_fill(1, lib.tensor([1, 1]), -2.0)
    t, m = both(f)
    same(m, t)
    for v in [2.7, True, -3]:
        t, m = both(lambda lib: lib.zeros(2, 3, dtype=lib.uint8).index_fill(1, lib.tensor([0]), v))
        same(m, t)
    same_error(lambda lib: lib.zeros(2, 3, dtype=lib.uint8).index_fill(1, lib.tensor([0]), -2.5), 'uint8_t')
    for v in [1000, float('nan'), 1e10, 1 + 2j]:
        same_error(lambda lib: lib.zeros(2, 3, dtype=lib.int8).index_fill(1, lib.tensor([0]), v))
    same_error(lambda lib: lib.zeros(2, 3).index_fill(1, lib.tensor([0]), 1 + 2j), 'complex Scalar')


# ---- errors

def test_repeat_and_sum_to_size_need_their_argument():
    "seed 102702."
    same_error(lambda lib: lib.tensor(3).repeat(), 'repeat() missing 1 required positional arguments')
    same_error(lambda lib: lib.ones(2, 3).sum_to_size(), 'sum_to_size() missing 1 required positional arguments')
    t, m = both(lambda lib: lib.tile(lib.tensor(3.), ()))
    same(m, t)


def test_split_with_sizes_0d():
    "seed 103369."
    same_error(lambda lib: lib.split_with_sizes(lib.tensor(1.), [1, 0]), 'split expects at least a 1-dimensional')


@pytest.mark.parametrize('case', range(6))
def test_tensordot_0d_and_dims_bounds(case):
    "seed 101930: a 0-d operand's dims are checked as PyTorch does (no ZeroDivisionError)."
    def f(lib):
        a, b = lib.tensor(2.), lib.ones(2)
        return [lambda: lib.tensordot(a, b, dims=([0], [0])), lambda: lib.tensordot(a, b, dims=0),
                lambda: lib.tensordot(b, b, dims=([3], [0])), lambda: lib.tensordot(a, a, dims=([], [])),
                lambda: lib.tensordot(b, b, dims=2), lambda: lib.tensordot(b, a, dims=1)][case]()
    t, m = both(f)
    if isinstance(t, Exception):
        assert type(m) is type(t) and str(m) == str(t), (m, t)
    else: same(m, t)


def test_cross_dtypes():
    "seed 101130: bool has no cross kernel; mixed dtypes are refused."
    same_error(lambda lib: lib.cross(lib.ones(1, 3, dtype=lib.bool), lib.ones(1, 3, dtype=lib.bool), dim=-1),
               '"cross" not implemented for \'Bool\'')
    same_error(lambda lib: lib.cross(lib.ones(3, dtype=lib.int64), lib.ones(3), dim=0),
               'expected scalar type Long but found Float')


def test_index_add_checks():
    "seed 100542: index_func_meta_impl's checks, in its order and with its messages."
    def run(lib):
        T = lambda *s, **k: lib.ones(s, **k)   # noqa: E731
        I = lambda v, d=None: lib.tensor(v, dtype=d or lib.int64)   # noqa: E731
        cases = [(T(), 0, I([]), T(0)), (T(3, 2), 0, I([0, 2]), T(2)), (T(3, 2), 0, I([0]), T(2, 2)),
                 (T(3, 2), 1, I([0]), T(3)), (T(3, 2), 0, I([[0]]), T(1, 2)), (T(3, 2), 0, I([0], lib.int16), T(1, 2)),
                 (T(3, 2), 0, I([0]), T(1, 2, dtype=lib.float64)), (T(3), 0, I([1]), T()), (T(3), 0, I([1, 2]), T()),
                 (T(), 0, I([0]), T()), (T(3, 2), -1, I([0]), T(3, 1)), (T(3, 2), 5, I([0]), T(3, 1))]
        out = []
        for c in cases:
            try: out.append(('ok', tuple(lib.index_add(*c).shape)))
            except Exception as e: out.append((type(e).__name__, str(e)))   # noqa: BLE001
        return out
    assert run(mt) == run(torch)


def test_permute_0d_complex_grad():
    "KNOWN_FAILING 'permute' (seed 110110): the backward of a 0-d permute."
    t, m = both(lambda lib: lib.tensor(1 + 2j, requires_grad=True))
    for x in (t, m):
        (x.permute(()) * 3).abs().backward()
    same(m.grad, t.grad)


def test_cross_complex_inf_and_grad():
    "seed 300116: the kernel's `a1*b2 - a2*b1` (no alpha multiply) and PyTorch's cross-product derivative."
    t, m = both(lambda lib: lib.cross(lib.tensor([[1 + 1j, -3.6641 + 0.6959j, 2 + 0j]]),
                                      lib.tensor([[1 + 1j, complex(-float('inf'), 0), 2 + 0j]]), dim=-1))
    same(m, t)
    def g(lib):
        x = lib.tensor(np.arange(6.).reshape(2, 3) + 1j, requires_grad=True)
        y = lib.tensor(np.array([[1., -2, 4]]) * (1 - 2j), requires_grad=True)
        (lib.cross(x, y, dim=-1) * lib.tensor([[1 + 2j, 3, 4j]])).abs().sum().backward()
        return x.grad, y.grad
    (tx, ty), (mx, my) = both(g)
    same(mx, tx); same(my, ty)
    same_error(lambda lib: lib.cross(lib.ones(3), lib.ones(1, 3)), 'same number of dimensions')
    same_error(lambda lib: lib.cross(lib.ones(2, 3), lib.ones(2, 3), dim=5), 'Dimension out of range')


@pytest.mark.parametrize('name,dtype', [('uniform_', 'int32'), ('normal_', 'int32'), ('bernoulli_', 'complex64'),
                                        ('random_', 'complex64'), ('exponential_', 'int32'), ('exponential_', 'complex64')])
@pytest.mark.parametrize('expanded', [False, True])
def test_random_inplace_dtype_errors_and_their_order(name, dtype, expanded):
    "seeds 301022, 301972: each sampler's dtype check, before or after the overlap check as in PyTorch."
    def f(lib):
        x = lib.zeros(1, 3, dtype=getattr(lib, dtype))
        return getattr(x.expand(2, 3) if expanded else x, name)()
    same_error(f, None)
    t, m = both(f)
    assert str(t) == str(m)


@pytest.mark.parametrize('call', ["uniform_(1, 0)", "normal_(0, -1)", "exponential_(-1)", "bernoulli_(2)", "random_(5, 2)"])
def test_random_inplace_argument_errors(call):
    t, m = both(lambda lib: eval(f"lib.zeros(2, 3).{call}"))
    assert type(t) is type(m) and str(t) == str(m), (t, m)


def test_topk_unique_dtypes_on_cpu():
    "seeds 300319, 300150."
    same_error(lambda lib: lib.ones(3, dtype=lib.bool).topk(2), 'topk does not support bool dtypes on CPU')
    same_error(lambda lib: lib.ones(3, dtype=lib.bool).topk(5), 'selected index k out of range')
    same_error(lambda lib: lib.ones(3, dtype=lib.complex64).topk(2), 'topk does not support complex dtypes')
    same_error(lambda lib: lib.unique_consecutive(lib.ones(3, dtype=lib.complex64)), '"unique" not implemented')
    same_error(lambda lib: lib.unique(lib.ones(3, dtype=lib.complex128)), '"unique" not implemented')


def test_scatter_scalar_value_must_fit():
    "seed 300218."
    i = [[0, 0, 0]]
    for v in [-2.0, 300, 1 + 1j, 1e10]:
        same_error(lambda lib: lib.zeros(2, 3, dtype=lib.uint8).scatter(0, lib.tensor(i), v), 'uint8_t without overflow')
    for v in [2.5, -3]:
        t, m = both(lambda lib: lib.zeros(2, 3, dtype=lib.uint8).scatter(0, lib.tensor(i), v))
        same(m, t)


def test_inplace_arith_complex_operand_is_a_cast_error_first():
    "seeds 300496, 301088: `int8 %= 1j` is the cast error, not remainder's missing complex kernel."
    for call in ["__imod__(1.5 - 0.5j)", "__ifloordiv__(1j)", "fmod_(1j)", "remainder_(1j)", "__ipow__(1j)",
                 "atan2_(lib.ones(3, dtype=lib.complex64))"]:
        t, m = both(lambda lib: eval(f"lib.zeros(3, dtype=lib.int8).{call}"))
        assert type(t) is type(m) and str(t) == str(m), (call, t, m)
    t, m = both(lambda lib: lib.zeros(3, dtype=lib.bfloat16).__ifloordiv__(1.5 - 0.5j))
    assert type(t) is type(m) and str(t) == str(m), (t, m)


def test_inplace_on_empty_expanded_is_fine():
    "seed 407201: nothing is written into an expanded view with no elements: no overlap error."
    for shp, tgt in [((0,), (2, 0)), ((0, 1), (0, 3))]:
        t, m = both(lambda lib: lib.zeros(shp).expand(tgt).sub_(1))
        same(m, t)


def test_searchsorted_follows_the_binary_search():
    "seed 402250: on a sequence that is not sorted PyTorch's binary search gives its own answer; so must ours."
    t, m = both(lambda lib: lib.searchsorted(lib.tensor([False, False, True, True, False]), 0.5))
    same(m, t)
    rng = np.random.default_rng(0)
    for it in range(100):
        s = rng.integers(-3, 4, size=(2, int(rng.integers(0, 7)))).astype(np.float32)
        if it % 2: s.sort(-1)
        if it % 5 == 0 and s.shape[1]: s[0, 0] = np.nan
        v = rng.integers(-4, 5, size=(2, 3)).astype(np.float32)
        for right in (False, True):
            t, m = both(lambda lib: lib.searchsorted(lib.tensor(s), lib.tensor(v), right=right))
            same(m, t)


def test_view_changes_in_place_refuse_leaf_views():
    "seeds 400511, 406900: t_/transpose_/squeeze_... are in-place ops for autograd."
    for call in ["transpose_(0, 1)", "t_()", "squeeze_()", "unsqueeze_(0)", "swapdims_(0, 1)", "as_strided_((2,), (1,))"]:
        same_error(lambda lib: eval(f"lib.ones(4, 2, 2, requires_grad=True).swapdims(-2, -3).{call}"),
                   'a view of a leaf Variable')
    same_error(lambda lib: lib.ones(4, 2, 2, requires_grad=True).transpose_(0, 1), 'a leaf Variable')


def test_topk_outputs_are_new_contiguous_tensors():
    "seed 403102: a view_as of topk's output works in PyTorch."
    t, m = both(lambda lib: lib.arange(24.).reshape(2, 3, 4).transpose(0, 2).topk(2, dim=1))
    for a, b in zip(m, t):
        same(a, b)
        assert a.stride() == b.stride()


def test_index_fill_empty_index_on_cuda_simulator():
    if not (mt.cuda.is_available() or mt.cuda.is_simulator()): pytest.skip('no cuda')
    x = mt.tensor([[-8], [5]], dtype=mt.int32, device='cuda')
    r = x.index_fill(-1, mt.tensor([], dtype=mt.int64, device='cuda'), -2.0)
    assert r.device.type == 'cuda' and r.cpu().tolist() == [[-8], [5]]


@pytest.mark.parametrize('call', [
    "lib.zeros(2, dtype=lib.float64).__ixor__(lib.ones(1, 2, dtype=lib.float64))",       # seed 501751
    "lib.zeros(5, dtype=lib.complex128).__imod__(lib.ones(1, 1, dtype=lib.complex128))",  # seed 502759
    "lib.zeros(0, dtype=lib.uint8).__setitem__((lib.tensor([0]),), 1.5 - 0.5j)",          # seed 501541
    "lib.searchsorted(lib.tensor(True), lib.tensor(True))",                               # seed 500924
    "lib.searchsorted(lib.tensor([True, False]), lib.tensor([True]))"])
def test_error_order(call):
    "The output-shape check comes before the dtype checks; a put value is converted before the index is checked."
    t, m = both(lambda lib: eval(call))
    assert type(t) is type(m) and str(t) == str(m), (t, m)


def test_scatter_scalar_with_no_index_is_not_converted():
    "seed 504885: an empty index writes nothing, so the value is never converted."
    t, m = both(lambda lib: lib.zeros(0, 3, dtype=lib.uint8).scatter_(0, lib.zeros(0, 3, dtype=lib.int64), -2.0))
    same(m, t)


@pytest.mark.parametrize('case', range(4))
def test_index_put_with_nothing_to_write_checks_no_index(case):
    "seed 600101: PyTorch's kernel never reads the indices when the indexed result has no elements."
    def f(lib):
        return [lambda: lib.index_put(lib.zeros(1, 0), (lib.tensor([1, 0]),), lib.tensor(1.), accumulate=True),
                lambda: lib.index_put(lib.zeros(1, 0, 3), (lib.tensor([2]),), lib.ones(1, 0, 3)),
                lambda: lib.zeros(1, 4, 0).index_put_((lib.tensor([1, 0]),), lib.ones(2, 4, 0), accumulate=True),
                lambda: lib.index_put(lib.zeros(2, 3), (lib.tensor([2]),), lib.tensor(1.))][case]()
    t, m = both(f)
    if isinstance(t, Exception): assert type(m) is type(t), (m, t)
    else: same(m, t)
