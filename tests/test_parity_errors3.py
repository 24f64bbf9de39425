"Issue 12 leftovers: view() with no size, batch_norm on empty inputs, in-place comparisons' shape check first."
import pytest
import torch
import minitorch
import minitorch.nn.functional as F


def _err(f):
    try: f()
    except Exception as e: return type(e), str(e)
    return None


@pytest.mark.parametrize('shape', [(2, 3), ()])
def test_view_without_size_is_type_error(shape):
    t, m = _err(lambda: torch.ones(shape).view()), _err(lambda: minitorch.ones(shape).view())
    assert t is not None and m is not None and m[0] is t[0] is TypeError
    assert m[1] == t[1]


def test_view_of_a_0d_param_by_tuple():
    p = minitorch.ones(())
    assert tuple(minitorch.zeros(1).view(tuple(p.shape)).shape) == tuple(torch.zeros(1).view(()).shape) == ()


@pytest.mark.parametrize('shape', [(0, 3), (2, 3, 0), (0, 3, 4), (2, 0)])
@pytest.mark.parametrize('training', [True, False])
def test_batch_norm_empty(shape, training):
    C = shape[1]
    tx, mx = torch.zeros(shape, requires_grad=True), minitorch.zeros(shape, requires_grad=True)
    trm, trv = torch.full((C,), 0.5), torch.full((C,), 2.0)
    mrm, mrv = minitorch.full((C,), 0.5), minitorch.full((C,), 2.0)
    args = {}
    if C:
        tw, tb = torch.ones(C, requires_grad=True), torch.zeros(C, requires_grad=True)
        mw, mb = minitorch.ones(C, requires_grad=True), minitorch.zeros(C, requires_grad=True)
    else:
        tw = tb = mw = mb = None
    ty = torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, training=training)
    my = F.batch_norm(mx, mrm, mrv, mw, mb, training=training)
    assert tuple(my.shape) == tuple(ty.shape) and str(my.dtype).split('.')[-1] == str(ty.dtype).split('.')[-1]
    assert my.data_ptr() != mx.data_ptr()                         # a copy, as PyTorch's clone
    assert mrm.tolist() == trm.tolist() and mrv.tolist() == trv.tolist()   # the stats are untouched
    ty.sum().backward(); my.sum().backward()
    assert tuple(mx.grad.shape) == tuple(tx.grad.shape)
    if C:
        assert mw.grad.tolist() == tw.grad.tolist() and mb.grad.tolist() == tb.grad.tolist()


def test_batch_norm_empty_int_input_promotes_with_weight():
    ty = torch.nn.functional.batch_norm(torch.zeros(0, 3, dtype=torch.int64), torch.zeros(3), torch.ones(3),
                                        torch.ones(3), training=True)
    my = F.batch_norm(minitorch.zeros(0, 3, dtype=minitorch.int64), minitorch.zeros(3), minitorch.ones(3),
                      minitorch.ones(3), training=True)
    assert str(my.dtype).split('.')[-1] == str(ty.dtype).split('.')[-1]


def test_batch_norm_one_value_per_channel_still_refused():
    t = _err(lambda: torch.nn.functional.batch_norm(torch.zeros(1, 3), torch.zeros(3), torch.ones(3), training=True))
    m = _err(lambda: F.batch_norm(minitorch.zeros(1, 3), minitorch.zeros(3), minitorch.ones(3), training=True))
    assert t[0] is m[0] is ValueError and 'Expected more than 1 value per channel' in m[1]


@pytest.mark.parametrize('op', ['ge_', 'lt_', 'eq_', 'ne_', 'greater_equal_'])
@pytest.mark.parametrize('dtype,sa,sb', [('complex128', (), (1,)), ('complex128', (), (3,)), ('float32', (), (1,)),
                                         ('complex64', (2,), (3,))])
def test_inplace_comparison_checks_shape_before_kernel(op, dtype, sa, sb):
    def run(lib):
        d = getattr(lib, dtype)
        return _err(lambda: getattr(lib.ones(sa, dtype=d), op)(lib.ones(sb, dtype=d)))
    t, m = run(torch), run(minitorch)
    assert t is not None and m is not None and m[0] is t[0]
    assert m[1] == t[1]


@pytest.mark.parametrize('dtype,reduce,n', [('bool', 'mean', 2), ('bool', 'mean', 0), ('complex64', 'amax', 2),
                                            ('complex128', 'amin', 1), ('complex64', 'amax', 0)])
def test_scatter_reduce_kernel_dtypes(dtype, reduce, n):
    def run(lib):
        d = getattr(lib, dtype)
        x, i, s = lib.zeros(3, dtype=d), lib.zeros(n, dtype=lib.int64), lib.ones(n, dtype=d)
        return _err(lambda: x.scatter_reduce(0, i, s, reduce))
    t, m = run(torch), run(minitorch)
    assert (t is None) == (m is None)
    if t is not None: assert m[0] is t[0] and m[1] == t[1]


@pytest.mark.parametrize('dtype', ['bool', 'uint8', 'int8', 'int64', 'bfloat16', 'float16', 'float32'])
@pytest.mark.parametrize('reduce', ['amax', 'amin', 'mean', 'prod', 'sum'])
@pytest.mark.parametrize('include_self', [True, False])
def test_scatter_reduce_identities(dtype, reduce, include_self):
    if dtype == 'bool' and reduce == 'mean': return
    vals, src, idx = [5, 3, 0, 1], [1, 2, 7, 0, 4], [0, 0, 2, 3, 3]
    def run(lib):
        d = getattr(lib, dtype)
        x, s = lib.tensor(vals).to(d), lib.tensor(src).to(d)
        return x.scatter_reduce(0, lib.tensor(idx), s, reduce, include_self=include_self).float().tolist()
    assert run(minitorch) == run(torch)


def test_scatter_reduce_bfloat16_mean():
    def run(lib):
        x, s = lib.tensor([1., 2.], dtype=lib.bfloat16), lib.tensor([1.5, 2.5, 3.], dtype=lib.bfloat16)
        return x.scatter_reduce(0, lib.tensor([0, 0, 1]), s, 'mean').float().tolist()
    assert run(minitorch) == run(torch)


def test_masked_fill_on_expanded_writes_only_masked():
    import warnings
    def run(lib):
        b = lib.tensor([[float('nan')], [2.], [3.]])
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            b.expand(3, 4).masked_fill_(lib.tensor([[True, False, False, False], [False] * 4, [False, False, True, False]]), 1.5)
            b.expand(3, 4).masked_fill_(lib.tensor([False, False, False, True]), -1.0)
        return b.flatten().tolist()
    assert run(minitorch) == run(torch)


def _scatter_cases(lib):
    c = lib.complex64
    x = lib.zeros(3, dtype=c, requires_grad=True)
    return [lambda: x.scatter_reduce(0, lib.tensor([0]), lib.ones(1, dtype=c), 'sum'),
            lambda: x.scatter_reduce(0, lib.tensor([7]), lib.ones(1, dtype=c), 'sum'),
            lambda: lib.zeros(2, 1, dtype=lib.bool).expand(2, 2).scatter_reduce_(
                1, lib.zeros(0, 0, dtype=lib.int64), lib.zeros(1, 0, dtype=lib.bool), 'mean', include_self=False)]


@pytest.mark.parametrize('k', range(3))
def test_scatter_reduce_check_order(k):
    t, m = _err(_scatter_cases(torch)[k]), _err(_scatter_cases(minitorch)[k])
    assert t is not None and m is not None and m[0] is t[0] and m[1] == t[1]


def test_scatter_reduce_complex_mean_empty_index_divides():
    def run(lib):
        x = lib.tensor([complex(float('inf'), 0), 1j])
        r = x.scatter_reduce(0, lib.zeros(0, dtype=lib.int64), lib.zeros(0, dtype=lib.complex64), 'mean')
        return lib.view_as_real(r)
    torch.testing.assert_close(torch.from_numpy(run(minitorch).numpy()), run(torch), equal_nan=True)


def _norm_cases(lib):
    F = lib.nn.functional
    i8, b = lib.int8, lib.bool
    return [lambda: lib.ones(2).ge_(lib.ones(2, dtype=lib.complex64)),
            lambda: lib.ones(2).add_(lib.ones(2, dtype=lib.complex64)),
            lambda: F.batch_norm(lib.ones(3, 2, 2, dtype=i8), lib.ones(2, dtype=i8), lib.ones(2, dtype=i8)),
            lambda: F.batch_norm(lib.ones(3, 2, dtype=b), lib.ones(2, dtype=b), lib.ones(2, dtype=b), lib.ones(2, dtype=b),
                                 lib.ones(2, dtype=b)),
            lambda: F.instance_norm(lib.ones(2, 3, 4, dtype=i8)),
            lambda: tuple(F.instance_norm(lib.ones(0, 3, 4, dtype=i8)).shape)]


@pytest.mark.parametrize('k', range(6))
def test_kernel_dtype_errors(k):
    t, m = _err(_norm_cases(torch)[k]), _err(_norm_cases(minitorch)[k])
    assert (t is None) == (m is None)
    if t is not None: assert m[0] is t[0] and m[1] == t[1]


@pytest.mark.parametrize('dtype', ['int8', 'bool', 'int64'])
@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('layout', ['contiguous', 'transposed', 'expanded'])
def test_batch_norm_integer_inputs(dtype, training, layout):
    def run(lib):
        d = getattr(lib, dtype)
        x = {'contiguous': lambda: lib.ones(3, 2, dtype=d), 'transposed': lambda: lib.ones(2, 3, dtype=d).t(),
             'expanded': lambda: lib.ones(1, 2, dtype=d).expand(3, 2)}[layout]()
        p = [lib.ones(2, dtype=d) for _ in range(4)]
        return _err(lambda: lib.nn.functional.batch_norm(x, *p, training=training))
    t, m = run(torch), run(minitorch)
    assert t is not None and m is not None and m[0] is t[0] and m[1] == t[1]


def test_scatter_reduce_inplace_complex_with_grad_is_allowed():
    def run(lib):
        x = lib.ones(3, dtype=lib.complex64, requires_grad=True) * 1
        x.scatter_reduce_(0, lib.tensor([0]), lib.ones(1, dtype=lib.complex64) * 2, 'sum')
        return x.detach().tolist()
    assert run(minitorch) == run(torch)
