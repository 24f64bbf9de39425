"nn parity (issue 12), fourth batch: softshrink's signed zeros, pool int-argument errors, pad and max_unpool errors."
import numpy as np
import pytest, torch, torch.nn.functional as TF
import minitorch, minitorch.nn.functional as MF


def _err(f):
    try: f(); return None
    except Exception as e: return type(e), str(e)


def _m(t: torch.Tensor):
    "A minitorch copy of `t` with t's dtype and strides (a permuted or sliced view of a copy of t's base)."
    return minitorch.tensor(t.detach().double().numpy(), dtype=getattr(minitorch, str(t.dtype).split('.')[1]))


# ---- softshrink: the CPU kernel's scalar tail gives `x * 0` in the band (-0.0 for a negative x), its vector body +0.0

def _layout(t, lay):
    return {'contiguous': t, 'transposed': t.transpose(0, 1), 'sliced': t[:, ::2]}[lay]


@pytest.mark.parametrize('dt', ['float32', 'float64', 'bfloat16', 'float16'])
@pytest.mark.parametrize('shape', [(5, 2), (3, 70), (70, 3), (40, 5)])
@pytest.mark.parametrize('lay', ['contiguous', 'transposed', 'sliced'])
def test_softshrink_zero_signs(dt, shape, lay):
    g = torch.Generator().manual_seed(sum(shape))
    x = (torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1)
    x.view(-1)[::7] = float('nan'); x.view(-1)[::11] = -0.0
    x = x.to(getattr(torch, dt))
    t = TF.softshrink(_layout(x, lay), 0.5)
    m = MF.softshrink(_layout(_m(x), lay), 0.5)
    tn, mn = t.double().numpy(), m.double().numpy()
    assert np.array_equal(np.isnan(tn), np.isnan(mn))
    assert np.array_equal(np.signbit(tn) & ~np.isnan(tn), np.signbit(mn) & ~np.isnan(mn))
    torch.testing.assert_close(torch.from_numpy(mn), torch.from_numpy(tn), equal_nan=True)
    assert m.stride() == t.stride()


def test_softshrink_zero_sign_seed_309158():
    # renorm_ > softshrink > x **= int16: (-0.0) ** -3 is -inf, (+0.0) ** -3 is inf
    x = torch.tensor([[0.5, -0.8633], [0.8672, 0.5], [-0.668, 0.3262], [-0.105, 0.9922], [-0.9922, -0.124]],
                     dtype=torch.bfloat16)
    e = torch.tensor([[-9, -8], [4, -5], [-3, -4], [6, 9], [-7, -5]], dtype=torch.int16)
    t = TF.softshrink(x, 1.0); t **= e
    m = MF.softshrink(_m(x), 1.0); m **= minitorch.tensor(e.numpy())
    assert np.array_equal(m.double().numpy(), t.double().numpy())


def test_softshrink_grad_unchanged():
    x = torch.tensor([-0.3, 0.2, -0.0, 0.7, -0.7, float('nan')] * 8, dtype=torch.float64, requires_grad=True)
    t = TF.softshrink(x, 0.5); t.backward(torch.arange(48.0, dtype=torch.float64))
    xm = minitorch.tensor(x.detach().numpy(), requires_grad=True)
    m = MF.softshrink(xm, 0.5); m.backward(minitorch.tensor(np.arange(48.0)))
    assert type(m.grad_fn).__name__ == 'SoftshrinkBackward0'
    torch.testing.assert_close(torch.from_numpy(xm.grad.numpy()), x.grad, equal_nan=True)


# ---- 1-d/2-d pools: PyTorch's parser refuses a non-int `int[]` argument with a TypeError naming it

POOL_CALLS = [
    ('max_pool1d', 3, (2,), {'padding': 1.0}), ('max_pool1d', 3, (2,), {'dilation': 1.0}),
    ('max_pool1d', 3, ((2, 1.0),), {}), ('max_pool1d', 3, (True,), {}), ('max_pool1d', 3, (2.0,), {'return_indices': True}),
    ('max_pool2d', 4, (2,), {'padding': (0, 1.0)}), ('max_pool2d', 4, (2,), {'return_indices': True, 'stride': 1.5}),
    ('max_pool2d', 4, (2.0,), {'return_indices': True}), ('max_pool2d', 4, (), {'kernel_size': (2, 2.0)}),
    ('avg_pool1d', 3, (2,), {'padding': 0.0}), ('avg_pool1d', 3, (2, None, 0.5), {}),
    ('avg_pool2d', 4, (2,), {'padding': 0.0}), ('avg_pool2d', 4, ((2.0, 2),), {}), ('avg_pool2d', 4, (2, 1, (0, 0.5)), {}),
]


@pytest.mark.parametrize('name,nd,args,kw', POOL_CALLS)
def test_pool_int_arg_errors(name, nd, args, kw):
    x = torch.randn((1, 2, 4, 4)[4 - nd:])
    want = _err(lambda: getattr(TF, name)(x, *args, **kw))
    assert want is not None and want[0] is TypeError
    assert _err(lambda: getattr(MF, name)(minitorch.tensor(x.numpy()), *args, **kw)) == want


@pytest.mark.parametrize('name,nd,args,kw', [('avg_pool2d', 4, (2,), {'stride': ()}), ('avg_pool1d', 3, (2,), {'stride': ()}),
                                              ('max_pool1d', 3, (2,), {'stride': None})])
def test_pool_int_args_accepted(name, nd, args, kw):
    x = torch.randn((1, 2, 4, 4)[4 - nd:])
    margs = tuple(minitorch.tensor(a.numpy()) if isinstance(a, torch.Tensor) else a for a in args)
    torch.testing.assert_close(torch.from_numpy(getattr(MF, name)(minitorch.tensor(x.numpy()), *margs, **kw).numpy()),
                               getattr(TF, name)(x, *args, **kw))


# ---- F.pad's reflect/replicate/circular modes: PyTorch's size checks (an empty dim, negative pads), in its order

PAD_SHAPES = [(0, 3), (3, 0), (2, 0, 3), (0, 2, 3), (2, 3, 0), (1, 0, 2, 3), (1, 2, 0, 3), (0, 2, 3, 3), (1, 2, 0, 0),
              (1, 1, 0, 2, 2), (0, 1, 2, 2, 2), (2, 1), (1, 2, 3), (1, 1, 2, 3), (1, 2, 2, 2, 2)]
PAD_PADS = [(1, 1), (0, 0), (1, 0), (-1, 0), (2, 2), (1, 1, 1, 1), (0, 0, 1, 1), (1, 1, 0, 0), (1, 1, 1, 1, 1, 1),
            (-3, 0), (-2, -1), (1, -2), (2, 0, -5, 0), (-4, 0, 3, 0), (3, 0, 3, 0), (-3, 0, -2, 0), (-1,) * 6,
            (-2, 0, -2, 0, -2, 0), (0, 0, 0, 0, 3, 0)]


def _shape_or_err(f):
    try: return tuple(f().shape)
    except Exception as e: return type(e), str(e)


@pytest.mark.parametrize('mode', ['reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('shape', PAD_SHAPES)
def test_pad_mode_size_checks(mode, shape):
    x = torch.randn(shape)
    for p in PAD_PADS:
        want = _shape_or_err(lambda: TF.pad(x, p, mode=mode))
        if isinstance(want[0], int) and min(want) < 0: continue     # PyTorch's empty-batch reflect: a negative size
        assert _shape_or_err(lambda: MF.pad(minitorch.tensor(x.numpy()), p, mode=mode)) == want, p


@pytest.mark.parametrize('mode', ['reflect', 'replicate', 'circular'])
def test_pad_mode_values_and_grad(mode):
    for shape, p in [((2, 5), (-1, 2)), ((1, 2, 4, 5), (1, 2, -1, 1)), ((1, 2, 3, 4, 5), (0, -1, 1, 0, -1, 2)),
                     ((0, 2, 4), (1, 1)), ((2, 1), (1, -2))]:
        try: want = TF.pad(torch.randn(shape), p, mode=mode)
        except RuntimeError: continue
        x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
        t = TF.pad(x, p, mode=mode)
        xm = minitorch.tensor(x.detach().numpy(), requires_grad=True)
        m = MF.pad(xm, p, mode=mode)
        assert np.array_equal(m.detach().numpy(), t.detach().numpy()), (shape, p)
        w = torch.randn(t.shape, dtype=torch.float64)
        t.backward(w); m.backward(minitorch.tensor(w.numpy()))
        torch.testing.assert_close(torch.from_numpy(xm.grad.numpy()), x.grad)


# ---- max_unpool1d/2d: an empty non-batch dim is an error; the dtype is checked only when there is something to write

@pytest.mark.parametrize('fn', ['max_unpool1d', 'max_unpool2d'])
@pytest.mark.parametrize('dt', ['int8', 'int64', 'bool', 'complex64', 'float32', 'float16'])
@pytest.mark.parametrize('shape', [(0, 2, 5, 3), (1, 2, 4, 2), (2, 0, 4, 2), (0, 2, 0, 2), (2, 4, 2), (0, 4, 2),
                                   (2, 2, 0, 2), (2, 0, 2)])
def test_max_unpool_empty_and_dtype(fn, dt, shape):
    if fn == 'max_unpool1d': shape = shape[:-1]
    x = torch.zeros(shape, dtype=getattr(torch, dt)); idx = torch.zeros(shape, dtype=torch.int64)
    want = _shape_or_err(lambda: getattr(TF, fn)(x, idx, 2))
    mx = minitorch.tensor(x.numpy(), dtype=getattr(minitorch, dt))
    assert _shape_or_err(lambda: getattr(MF, fn)(mx, minitorch.tensor(idx.numpy()), 2)) == want


def test_max_unpool2d_seed_115654():        # int8, empty batch: PyTorch returns the empty image, no dtype error
    x = torch.zeros(0, 2, 5, 3, dtype=torch.int8)
    r = MF.max_unpool2d(minitorch.tensor(x.numpy()), minitorch.tensor(x.long().numpy()), 2)
    t = TF.max_unpool2d(x, x.long(), 2)
    assert tuple(r.shape) == tuple(t.shape) and r.dtype == minitorch.int8


@pytest.mark.parametrize('mode', ['reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('dt', ['bool', 'uint8', 'int64', 'float16', 'complex64'])
def test_pad_mode_dtypes(mode, dt):     # the CPU reflect/replicate kernels refuse bool, after the size checks (seed 600809)
    for shape, p in [((1, 2, 3), (0, 2)), ((1, 2, 3, 3), (1, 1, 1, 1)), ((1, 2, 3, 3, 3), (1,) * 6), ((2, 0, 3), (1, 1)),
                     ((1, 2, 3), (3, 3)), ((1, 2, 3, 3), (0, 0, -4, 0))]:
        x = torch.zeros(shape, dtype=getattr(torch, dt))
        want = _shape_or_err(lambda: TF.pad(x, p, mode=mode))
        got = _shape_or_err(lambda: MF.pad(minitorch.zeros(shape, dtype=getattr(minitorch, dt)), p, mode=mode))
        assert got == want, (shape, p)


@pytest.mark.parametrize("fn,shape", [("max_pool2d", (1, 2, 6, 6)), ("avg_pool2d", (1, 2, 6, 6)),
                                      ("max_pool1d", (1, 2, 6)), ("avg_pool1d", (1, 2, 6))])
@pytest.mark.parametrize("k", [2, [2]])
def test_pool_integer_tensor_arguments(fn, shape, k):
    "A 0-d or one-element integer tensor is an int to PyTorch's parser (was a numba TypingError)."
    x = torch.rand(shape)
    want = getattr(torch.nn.functional, fn)(x, torch.tensor(k), stride=torch.tensor(k))
    got = getattr(minitorch.nn.functional, fn)(minitorch.tensor(x.tolist()), minitorch.tensor(k), stride=minitorch.tensor(k))
    assert got.tolist() == want.tolist()
