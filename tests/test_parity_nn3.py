"nn leftovers (issue 12): empty-batch conv_transpose3d, pool int-argument TypeErrors, dtype errors."
import pytest, torch, torch.nn.functional as TF
import minitorch, minitorch.nn.functional as MF


def _err(f):
    try: f(); return None
    except Exception as e: return type(e), str(e)


def test_conv_transpose3d_empty_batch():
    x, w = torch.randn(0, 2, 3, 3, 3), torch.randn(2, 3, 2, 2, 2)
    r = MF.conv_transpose3d(minitorch.tensor(x.numpy()), minitorch.tensor(w.numpy()), stride=2)
    assert tuple(r.shape) == tuple(TF.conv_transpose3d(x, w, stride=2).shape)


@pytest.mark.parametrize('dt', ['int32', 'int16', 'uint8'])
def test_conv_transpose3d_int_error(dt):
    x, w = torch.ones(1, 2, 3, 3, 3, dtype=getattr(torch, dt)), torch.ones(2, 3, 2, 2, 2, dtype=getattr(torch, dt))
    mx, mw = (minitorch.tensor(t.numpy()) for t in (x, w))
    assert _err(lambda: MF.conv_transpose3d(mx, mw)) == _err(lambda: TF.conv_transpose3d(x, w))


CALLS = [
    ('max_pool3d', 5, (2.0,), {}), ('max_pool3d', 5, (2, 2.0), {}), ('max_pool3d', 5, ((2, 2.0, 2),), {}),
    ('max_pool3d', 5, (), {'kernel_size': 2.0}), ('avg_pool3d', 5, (2.0,), {}), ('avg_pool3d', 5, (), {'kernel_size': 2.0}),
    ('avg_pool3d', 5, (2,), {'stride': 2.0}),
    ('max_pool1d', 3, (2.0,), {}), ('max_pool1d', 3, (), {'kernel_size': 2.0}),
    ('avg_pool1d', 3, (2.0,), {}), ('avg_pool1d', 3, (), {'kernel_size': 2.0}), ('avg_pool1d', 3, (2, 1.5), {}),
    ('max_pool2d', 4, (2.0,), {}), ('avg_pool2d', 4, (2.0,), {}), ('avg_pool2d', 4, (), {'kernel_size': 2.0}),
    ('avg_pool2d', 4, (2,), {'stride': (1, 1.5)}), ('max_pool2d', 4, (2,), {'stride': 1.5})]


@pytest.mark.parametrize('name,nd,args,kw', CALLS)
def test_pool_int_arg_errors(name, nd, args, kw):
    x = torch.randn((1, 2, 4, 4, 4)[5 - nd:])
    got = _err(lambda: getattr(MF, name)(minitorch.tensor(x.numpy()), *args, **kw))
    assert got is not None and got == _err(lambda: getattr(TF, name)(x, *args, **kw))


@pytest.mark.parametrize('args', [(2.0,), ((2, 2.0, 2),), (2, 1.5)])
def test_lp_pool3d_int_arg_errors(args):
    x = torch.randn(1, 2, 4, 4, 4)
    got = _err(lambda: MF.lp_pool3d(minitorch.tensor(x.numpy()), 2, *args))
    assert got is not None and got == _err(lambda: TF.lp_pool3d(x, 2, *args))


def _pair(f, *ts, **kw):
    "f applied to torch tensors and to their minitorch copies: (minitorch outcome, torch outcome) as (class, text)."
    cv = lambda t: minitorch.tensor(t.detach().numpy(), requires_grad=t.requires_grad) if isinstance(t, torch.Tensor) else t
    ms, mkw = [cv(t) for t in ts], {k: cv(v) for k, v in kw.items()}
    return _err(lambda: getattr(MF, f)(*ms, **mkw)), _err(lambda: getattr(TF, f)(*ts, **kw))


@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('layout', ['expanded', 'transposed'])
def test_batch_norm_complex_strided_error(training, layout):
    x = (torch.ones(1, 2, dtype=torch.complex128).expand(3, 2) if layout == 'expanded'
         else torch.ones(2, 3, dtype=torch.complex128).t())
    mx = minitorch.tensor(x.contiguous().numpy())
    mx = mx[:1].expand(3, 2) if layout == 'expanded' else minitorch.tensor(x.t().contiguous().numpy()).t()
    st = lambda lib, v: lib.full((2,), v, dtype=getattr(lib, 'complex128'))
    got = _err(lambda: MF.batch_norm(mx, st(minitorch, 0), st(minitorch, 1), training=training))
    want = _err(lambda: TF.batch_norm(x, st(torch, 0), st(torch, 1), training=training))
    assert want is not None and got == want


@pytest.mark.parametrize('dt', ['bfloat16', 'float16'])
@pytest.mark.parametrize('shape', [(2, 4, 3), (2, 4, 2, 3), (2, 4, 2, 3, 2)])
def test_local_response_norm_half_cpu(dt, shape):
    x = torch.rand(shape).to(getattr(torch, dt))
    mx = minitorch.tensor(x.float().numpy()).to(getattr(minitorch, dt))
    got = _err(lambda: MF.local_response_norm(mx, 2))
    assert got == _err(lambda: TF.local_response_norm(x, 2))


def test_multi_margin_loss_complex_and_weight_dtype():
    empty = torch.ones(0, 4, dtype=torch.complex128, requires_grad=True)
    got, want = _pair('multi_margin_loss', empty, torch.zeros(0, dtype=torch.long))
    assert want is not None and got == want
    x, t = torch.rand(3, 4), torch.tensor([0, 1, 2])
    for w in (torch.ones(4, dtype=torch.complex128), torch.ones(4, dtype=torch.float64)):
        got, want = _pair('multi_margin_loss', x, t, weight=w)
        assert want is not None and got == want


@pytest.mark.parametrize('fn', ['selu', 'elu', 'celu'])
@pytest.mark.parametrize('n,at,dt', [(32, 0, 'float32'), (33, 32, 'float32'), (48, 40, 'float32'), (64, 63, 'float32'),
                                     (16, 0, 'float32'), (16, 0, 'float64'), (20, 17, 'float64')])
def test_elu_family_nan_grad_lanes(fn, n, at, dt):
    "PyTorch's CPU elu_backward: a NaN input in the vectorized body gets a NaN gradient, in the scalar tail the linear one."
    a = torch.linspace(-2, 2, n, dtype=getattr(torch, dt)); a[at] = float('nan')
    t = a.clone().requires_grad_(); m = minitorch.tensor(a.numpy(), requires_grad=True)
    w = torch.rand(n, dtype=getattr(torch, dt)) + 0.5
    getattr(TF, fn)(t).backward(w); getattr(MF, fn)(m).backward(minitorch.tensor(w.numpy()))
    torch.testing.assert_close(torch.tensor(m.grad.tolist(), dtype=t.dtype), t.grad, equal_nan=True)


INF, NAN = float('inf'), float('nan')


@pytest.mark.parametrize('rows', [[[INF, 1.], [0., 2.]], [[INF, 1.], [-INF, 2.]], [[NAN, 1.], [0., 2.]], [[1., 5.], [0., 2.]],
                                  [[INF, INF], [0., 2.]], [[INF, 1.], [0., 2.], [3., INF]], [[1., 3.], [2., 2.]]])
@pytest.mark.parametrize('dt', ['float32', 'float64'])
def test_pdist_inf_grad(rows, dt):
    "PyTorch's _pdist_backward for p=inf: ties each get the whole gradient; inf - inf or a NaN distance gives NaN."
    t = torch.tensor(rows, dtype=getattr(torch, dt), requires_grad=True)
    m = minitorch.tensor(rows, dtype=getattr(minitorch, dt), requires_grad=True)
    k = len(rows) * (len(rows) - 1) // 2
    w = torch.rand(k, dtype=t.dtype) + 0.5
    torch.pdist(t, p=INF).backward(w); minitorch.pdist(m, p=INF).backward(minitorch.tensor(w.numpy()))
    torch.testing.assert_close(torch.tensor(m.grad.tolist(), dtype=t.dtype), t.grad, equal_nan=True)


@pytest.mark.parametrize('shape', [(3, 2), (4, 3, 5), (2, 3, 2, 2)])
def test_batch_norm_bfloat16_eval_rounding(shape):
    "PyTorch's eval kernel: float alpha/beta from the bfloat16 stats, x * alpha + beta rounded once."
    g = torch.Generator().manual_seed(sum(shape))
    C = shape[1]
    ts = [torch.randn(shape, generator=g) * 3, torch.randn(C, generator=g), torch.rand(C, generator=g) + 0.1,
          torch.randn(C, generator=g), torch.randn(C, generator=g)]
    ts = [t.to(torch.bfloat16) for t in ts]
    want = TF.batch_norm(*ts, training=False)
    got = MF.batch_norm(*[minitorch.tensor(t.float().numpy()).to(minitorch.bfloat16) for t in ts], training=False)
    assert torch.equal(torch.tensor(got.float().tolist()).to(torch.bfloat16), want)


@pytest.mark.parametrize('shape,r', [((1, 0, 2, 3), 2), ((1, 4, 2, 3), 1)])
def test_pixel_shuffle_returns_new_tensor(shape, r):
    "torch's pixel_shuffle never returns a view of its input: an in-place op on an empty or r=1 result of a leaf works."
    t = torch.zeros(shape, requires_grad=True); m = minitorch.zeros(shape, requires_grad=True)
    TF.selu_(TF.pixel_shuffle(t, r))
    MF.selu_(MF.pixel_shuffle(m, r))
