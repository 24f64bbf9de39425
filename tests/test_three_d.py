"""3-D layers (nbs/12i_three_d.ipynb) against torch: conv3d / conv_transpose3d with gradients over shapes, strides,
padding, dilation, groups and dtypes; the 3-D pools (values and gradients); BatchNorm3d / InstanceNorm3d; errors."""
import pytest
import torch
import torch.nn.functional as TF

import minitorch
F = minitorch.nn.functional


def T(t, g=False): return minitorch.tensor(t.detach().numpy(), requires_grad=g)
def npy(m): return torch.from_numpy(m.detach().numpy().copy())


def check(tf, mf, tensors, tol=None, **kw):
    "Forward and backward of mf(*tensors, **kw) as tf's, with a random upstream gradient."
    tol = tol or dict(rtol=1e-5, atol=1e-4)   # float32 sums over hundreds of cells, summed in another order
    tt = [t.clone().requires_grad_() for t in tensors]
    mm = [T(t, True) for t in tensors]
    yt, ym = tf(*tt, **kw), mf(*mm, **kw)
    assert tuple(ym.shape) == tuple(yt.shape)
    assert ym.dtype == getattr(minitorch, str(yt.dtype).split('.')[-1])
    torch.testing.assert_close(npy(ym), yt.detach(), **tol)
    g = torch.randn_like(yt)
    yt.backward(g); (ym * T(g)).sum().backward()
    for a, b in zip(tt, mm): torch.testing.assert_close(npy(b.grad), a.grad, **tol)


CONV = [dict(), dict(stride=2), dict(padding=1), dict(padding=(1, 0, 2), dilation=(2, 1, 1)),
        dict(groups=2, stride=(1, 2, 1)), dict(padding='same', dilation=2), dict(padding='valid'),
        dict(groups=4, padding=(0, 1, 1), stride=(2, 1, 2)), dict(stride=3, dilation=(1, 2, 1), padding=2)]


@pytest.mark.parametrize('kw', CONV)
@pytest.mark.parametrize('shape', [(2, 4, 6, 7, 5), (4, 5, 6, 7), (1, 4, 3, 4, 9)])
@pytest.mark.parametrize('bias', [True, False])
def test_conv3d(kw, shape, bias):
    torch.manual_seed(0)
    x = torch.randn(*shape)
    w = torch.randn(8, 4 // kw.get('groups', 1), 3, 2, 3)
    ts = [x, w] + ([torch.randn(8)] if bias else [])
    check(TF.conv3d, F.conv3d, ts, **kw)


def test_conv3d_float64():
    torch.manual_seed(1)
    check(TF.conv3d, F.conv3d, [torch.randn(2, 2, 4, 4, 4, dtype=torch.float64),
                                torch.randn(3, 2, 2, 2, 2, dtype=torch.float64)], stride=(1, 2, 1), padding=1)


TCONV = [dict(), dict(stride=2), dict(stride=(2, 1, 3), padding=(1, 0, 1)), dict(stride=2, output_padding=1),
         dict(dilation=(2, 1, 1), groups=2), dict(stride=3, padding=2, output_padding=(2, 0, 1), dilation=(1, 2, 1))]


@pytest.mark.parametrize('kw', TCONV)
def test_conv_transpose3d(kw):
    torch.manual_seed(0)
    x = torch.randn(2, 4, 4, 5, 3)
    check(TF.conv_transpose3d, F.conv_transpose3d, [x, torch.randn(4, 3, 3, 2, 3), torch.randn(3 * kw.get('groups', 1))],
          **kw)


POOL = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=(2, 3, 2), stride=(1, 2, 2)),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), dict(kernel_size=(1, 3, 3), stride=(1, 2, 2))]


@pytest.mark.parametrize('kw', POOL + [dict(kernel_size=(2, 3, 2), dilation=(2, 1, 1), ceil_mode=True)])
@pytest.mark.parametrize('shape', [(2, 3, 6, 7, 5), (3, 5, 6, 7)])
def test_max_pool3d(kw, shape):
    torch.manual_seed(0)
    check(TF.max_pool3d, F.max_pool3d, [torch.randn(*shape)], **kw)


@pytest.mark.parametrize('kw', POOL)
@pytest.mark.parametrize('extra', [dict(), dict(count_include_pad=False), dict(divisor_override=5)])
def test_avg_pool3d(kw, extra):
    torch.manual_seed(0)
    check(TF.avg_pool3d, F.avg_pool3d, [torch.randn(2, 3, 6, 7, 5)], **kw, **extra)


@pytest.mark.parametrize('out', [1, 3, (2, None, 4), (4, 5, 3), (6, 7, 5), (5, 2, 1)])
@pytest.mark.parametrize('which', ['avg', 'max'])
def test_adaptive_pool3d(out, which):
    torch.manual_seed(0)
    name = f'adaptive_{which}_pool3d'
    check(getattr(TF, name), getattr(F, name), [torch.randn(2, 3, 6, 7, 5)], output_size=out)


def test_modules_match_torch():
    torch.manual_seed(0)
    x = torch.randn(2, 4, 5, 6, 7)
    for tm in [torch.nn.Conv3d(4, 6, 3, stride=2, padding=1), torch.nn.Conv3d(4, 2, (1, 3, 3), padding='same', bias=False),
               torch.nn.Conv3d(4, 4, 3, padding=1, padding_mode='reflect', groups=2),
               torch.nn.ConvTranspose3d(4, 3, 3, stride=2, padding=1)]:
        mm = getattr(minitorch.nn, type(tm).__name__)(tm.in_channels, tm.out_channels, tm.kernel_size, stride=tm.stride,
                                                      padding=tm.padding, groups=tm.groups, bias=tm.bias is not None,
                                                      padding_mode=tm.padding_mode)
        assert repr(mm) == repr(tm)
        assert [tuple(p.shape) for p in mm.parameters()] == [tuple(p.shape) for p in tm.parameters()]
        mm.load_state_dict({k: T(v) for k, v in tm.state_dict().items()})
        torch.testing.assert_close(npy(mm(T(x))), tm(x).detach(), rtol=1e-4, atol=1e-5)
    for ctor, args in [('MaxPool3d', (3, 2, 1)), ('AvgPool3d', (2,)), ('AdaptiveAvgPool3d', ((2, 3, 1),)),
                       ('AdaptiveMaxPool3d', (2,))]:
        tm, mm = getattr(torch.nn, ctor)(*args), getattr(minitorch.nn, ctor)(*args)
        assert repr(mm) == repr(tm)
        torch.testing.assert_close(npy(mm(T(x))), tm(x), rtol=1e-5, atol=1e-6)


def test_conv3d_trains_and_output_size_of_transposed():
    "ConvTranspose3d(output_size=...) picks output_padding as torch does."
    torch.manual_seed(0)
    tm = torch.nn.ConvTranspose3d(2, 2, 3, stride=2, padding=1)
    mm = minitorch.nn.ConvTranspose3d(2, 2, 3, stride=2, padding=1)
    mm.load_state_dict({k: T(v) for k, v in tm.state_dict().items()})
    x = torch.randn(1, 2, 3, 4, 3)
    torch.testing.assert_close(npy(mm(T(x), output_size=(6, 8, 6))), tm(x, output_size=(6, 8, 6)).detach(),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('affine', [True, False])
def test_norms(affine):
    torch.manual_seed(0)
    x = torch.randn(3, 4, 3, 5, 2)
    bt, bm = torch.nn.BatchNorm3d(4, affine=affine), minitorch.nn.BatchNorm3d(4, affine=affine)
    for _ in range(2): torch.testing.assert_close(npy(bm(T(x))), bt(x).detach(), rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(npy(bm.running_mean), bt.running_mean)
    torch.testing.assert_close(npy(bm.running_var), bt.running_var)
    bt.eval(); bm.eval()
    torch.testing.assert_close(npy(bm(T(x))), bt(x).detach(), rtol=1e-4, atol=1e-5)
    it, im = torch.nn.InstanceNorm3d(4, affine=affine), minitorch.nn.InstanceNorm3d(4, affine=affine)
    torch.testing.assert_close(npy(im(T(x))), it(x).detach(), rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(npy(im(T(x[0]))), it(x[0]).detach(), rtol=1e-4, atol=1e-5)
    assert repr(bm) == repr(bt)


def _same_error(tf, mf):
    with pytest.raises(Exception) as et: tf()
    with pytest.raises(type(et.value)) as em: mf()
    return str(et.value), str(em.value)


@pytest.mark.parametrize('case', ['rank', 'channels', 'string', 'same_strided', 'too_small', 'out_groups'])
def test_conv3d_errors(case):
    x, w = torch.randn(1, 4, 3, 3, 3), torch.randn(2, 4, 2, 2, 2)
    args = {'rank': ((torch.randn(4, 3, 3), w), {}), 'channels': ((x, torch.randn(2, 3, 2, 2, 2)), {}),
            'string': ((x, w), dict(padding='full')), 'same_strided': ((x, w), dict(padding='same', stride=2)),
            'too_small': ((x, torch.randn(2, 4, 4, 2, 2)), {}), 'out_groups': ((x, torch.randn(3, 2, 2, 2, 2)), dict(groups=2))}[case]
    t, m = _same_error(lambda: TF.conv3d(*args[0], **args[1]),
                       lambda: F.conv3d(*[T(a) for a in args[0]], **args[1]))
    assert m.split(':')[0] in t or m[:30] == t[:30]


def test_module_errors_and_paths():
    for ctor in (torch.nn.BatchNorm3d, minitorch.nn.BatchNorm3d):
        with pytest.raises(ValueError, match='expected 5D input'): ctor(2)(torch.randn(2, 2, 3, 3) if ctor is torch.nn.BatchNorm3d else minitorch.randn(2, 2, 3, 3))
    with pytest.raises(ValueError, match='padding_mode'): minitorch.nn.Conv3d(2, 2, 3, padding_mode='bad')
    with pytest.raises(RuntimeError): F.max_pool3d(minitorch.randn(2, 3, 3), 2)
    for sub, names in [('conv', ['Conv3d', 'ConvTranspose3d']), ('pooling', ['MaxPool3d', 'AvgPool3d',
                        'AdaptiveAvgPool3d', 'AdaptiveMaxPool3d']), ('batchnorm', ['BatchNorm3d']),
                       ('instancenorm', ['InstanceNorm3d'])]:
        for n in names:
            assert getattr(getattr(minitorch.nn.modules, sub), n) is getattr(minitorch.nn, n)
            assert hasattr(getattr(torch.nn.modules, sub), n)
    for n in ['conv3d', 'conv_transpose3d', 'max_pool3d', 'avg_pool3d', 'adaptive_avg_pool3d', 'adaptive_max_pool3d']:
        assert callable(getattr(F, n)) and hasattr(TF, n)


@pytest.mark.parametrize('p', [2, 1.5, 1, float('inf')])
@pytest.mark.parametrize('kw', [dict(kernel_size=2), dict(kernel_size=(3, 2, 2), stride=2, ceil_mode=True)])
def test_lp_pool3d(p, kw):
    torch.manual_seed(0)
    x = torch.rand(2, 3, 6, 7, 5) + 0.1          # positive: x^p and its gradient are finite for every p
    check(lambda v: TF.lp_pool3d(v, p, **kw), lambda v: F.lp_pool3d(v, p, **kw), [x])
    xn = torch.randn(2, 3, 6, 7, 5)              # NaN where torch has NaN (negative sums under a fractional p)
    torch.testing.assert_close(npy(minitorch.nn.LPPool3d(p, **kw)(T(xn))), torch.nn.LPPool3d(p, **kw)(xn), equal_nan=True)
    assert repr(minitorch.nn.LPPool3d(p, **kw)) == repr(torch.nn.LPPool3d(p, **kw))


def test_lazy_3d_modules():
    torch.manual_seed(0)
    x = torch.randn(2, 4, 5, 6, 3)
    for name, args in [('LazyConv3d', (3, 2)), ('LazyConvTranspose3d', (3, 2)), ('LazyBatchNorm3d', ())]:
        tm, mm = getattr(torch.nn, name)(*args), getattr(minitorch.nn, name)(*args)
        yt, ym = tm(x), mm(T(x))
        assert type(mm).__name__ == type(tm).__name__ and tuple(ym.shape) == tuple(yt.shape)
        assert [tuple(p.shape) for p in mm.parameters()] == [tuple(p.shape) for p in tm.parameters()]
        mm.load_state_dict({k: T(v) for k, v in tm.state_dict().items()})
        tm.eval(); mm.eval()
        torch.testing.assert_close(npy(mm(T(x))), tm(x).detach(), rtol=1e-4, atol=1e-5)


MAXIDX = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=(2, 3, 2), stride=(1, 2, 2)),
          dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), dict(kernel_size=2, stride=1)]


@pytest.mark.parametrize('kw', MAXIDX + [dict(kernel_size=(2, 3, 2), dilation=(2, 1, 1), ceil_mode=True)])
@pytest.mark.parametrize('batched', [True, False])
def test_max_pool3d_indices_ties_and_nan(kw, batched):
    "Indices as torch's: the first maximum of each window, a NaN wins; values keep their gradient."
    torch.manual_seed(0)
    x = torch.randn(2, 3, 6, 7, 5).round()          # many ties
    x[0, 0, 1, 1, 1] = float('nan')
    if not batched: x = x[0]
    vt, it = TF.max_pool3d(x, return_indices=True, **kw)
    vm, im = F.max_pool3d(T(x), return_indices=True, **kw)
    torch.testing.assert_close(npy(vm), vt, equal_nan=True)
    assert im.dtype == minitorch.int64 and (im.numpy() == it.numpy()).all()
    vm2, im2 = F.max_pool3d_with_indices(T(x), **kw)
    assert (im2.numpy() == it.numpy()).all()


@pytest.mark.parametrize('kw', MAXIDX)
def test_max_unpool3d(kw):
    torch.manual_seed(1)
    x = torch.randn(2, 3, 6, 7, 5)
    vt, it = TF.max_pool3d(x, return_indices=True, **kw)
    vm, im = F.max_pool3d(T(x), return_indices=True, **kw)
    args = (kw['kernel_size'], kw.get('stride'), kw.get('padding', 0))
    torch.testing.assert_close(npy(F.max_unpool3d(vm, im, *args, output_size=x.shape)),
                               TF.max_unpool3d(vt, it, *args, output_size=x.shape))
    tm, mm = torch.nn.MaxUnpool3d(*args), minitorch.nn.MaxUnpool3d(*args)
    assert repr(mm) == repr(tm)
    g = torch.randn_like(x)
    v = vt.clone().requires_grad_(); (tm(v, it, x.shape) * g).sum().backward()
    w = T(vt, True); (mm(w, im, x.shape) * T(g)).sum().backward()
    torch.testing.assert_close(npy(w.grad), v.grad)


def test_max_unpool3d_errors():
    x = torch.randn(1, 1, 4, 4, 4)
    vt, it = TF.max_pool3d(x, 2, return_indices=True)
    vm, im = F.max_pool3d(T(x), 2, return_indices=True)
    with pytest.raises(ValueError) as et: TF.max_unpool3d(vt, it, 2, output_size=(9, 4, 4))
    with pytest.raises(ValueError) as em: F.max_unpool3d(vm, im, 2, output_size=(9, 4, 4))
    assert str(em.value) == str(et.value)
    torch.testing.assert_close(npy(F.max_unpool3d(vm, im, 2)), TF.max_unpool3d(vt, it, 2))   # the default size
    with pytest.raises(RuntimeError, match='Found an invalid max index'): F.max_unpool3d(vm, im + 100, 2)


@pytest.mark.parametrize('out', [1, 3, (2, None, 4), (4, 5, 3), (6, 7, 5)])
def test_adaptive_max_pool3d_indices(out):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 6, 7, 5).round()
    vt, it = TF.adaptive_max_pool3d(x, out, return_indices=True)
    vm, im = F.adaptive_max_pool3d(T(x), out, return_indices=True)
    torch.testing.assert_close(npy(vm), vt)
    assert (im.numpy() == it.numpy()).all()
    tm, mm = torch.nn.AdaptiveMaxPool3d(out, return_indices=True), minitorch.nn.AdaptiveMaxPool3d(out, return_indices=True)
    assert (mm(T(x))[1].numpy() == tm(x)[1].numpy()).all()


@pytest.mark.parametrize('dims', [1, 2, 3])
@pytest.mark.parametrize('kw', [dict(), dict(affine=False), dict(affine=True, track_running_stats=False),
                                dict(affine=False, track_running_stats=False)])
def test_lazy_instance_norm(dims, kw):
    torch.manual_seed(0)
    x = torch.randn(2, 3, *(4, 5, 3)[:dims])
    name = f'LazyInstanceNorm{dims}d'
    tm, mm = getattr(torch.nn, name)(**kw), getattr(minitorch.nn, name)(**kw)
    yt, ym = tm(x), mm(T(x))
    assert type(mm).__name__ == type(tm).__name__ and repr(mm) == repr(tm)
    assert [tuple(p.shape) for p in mm.parameters()] == [tuple(p.shape) for p in tm.parameters()]
    torch.testing.assert_close(npy(ym), yt.detach(), rtol=1e-4, atol=1e-5)
