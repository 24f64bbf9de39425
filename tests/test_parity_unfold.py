"""Issue 12: F.unfold takes an unbatched (C, H, W) input and fails like PyTorch's im2col (class and message, in its
order of checks); conv2d with empty channels returns PyTorch's shape."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
import minitorch
import minitorch.nn.functional as F

CASES = [
    ((2,), dict(kernel_size=2)), ((2, 3), dict(kernel_size=2)), ((), dict(kernel_size=1)), ((3, 0), dict(kernel_size=1)),
    ((2, 4, 4), dict(kernel_size=2)), ((1, 2, 4, 4), dict(kernel_size=2)), ((2, 2, 4, 4, 4), dict(kernel_size=2)),
    ((0, 2, 4, 4), dict(kernel_size=2)), ((1, 0, 4, 4), dict(kernel_size=2)), ((1, 2, 0, 4), dict(kernel_size=2)),
    ((1, 2, 4, 0), dict(kernel_size=2)), ((2, 0, 4), dict(kernel_size=2)), ((0, 4, 4), dict(kernel_size=2)),
    ((1, 2, 4, 4), dict(kernel_size=2, stride=0)), ((1, 2, 4, 4), dict(kernel_size=2, stride=-1)),
    ((1, 2, 4, 4), dict(kernel_size=2, dilation=0)), ((1, 2, 4, 4), dict(kernel_size=2, dilation=(2, 0))),
    ((1, 2, 4, 4), dict(kernel_size=2, padding=-1)), ((1, 2, 4, 4), dict(kernel_size=2, padding=(0, -1))),
    ((1, 2, 4, 4), dict(kernel_size=0)), ((1, 2, 4, 4), dict(kernel_size=(2, 0))), ((1, 2, 4, 4), dict(kernel_size=5)),
    ((1, 2, 3, 3), dict(kernel_size=2, dilation=3)), ((2,), dict(kernel_size=2, stride=0)),
    ((2, 4, 4), dict(kernel_size=(2, 3), stride=(1, 2), padding=1, dilation=(1, 2))),
    ((3, 5, 6), dict(kernel_size=3, padding=(1, 0), stride=2)),
    ((1, 2, 4, 4), dict(kernel_size=(2, 2, 2))), ((1, 2, 4, 4), dict(kernel_size=2, stride=(1, 2, 3))),
    ((1, 2, 4, 4), dict(kernel_size=2, dilation=[1])), ((1, 2, 4, 4), dict(kernel_size=2, padding=(1, 2, 3))),
]


def _run(lib, FF, shape, kw, dtype='float32'):
    n = int(np.prod(shape)) if shape else 1
    x = lib.arange(n, dtype=lib.float32).reshape(shape).to(getattr(lib, dtype))
    try:
        o = FF.unfold(x, **kw)
        return 'ok', tuple(o.shape), o.float().numpy().tolist()
    except Exception as e:   # noqa: BLE001 (class and message are compared)
        return type(e).__name__, str(e)


@pytest.mark.parametrize('shape,kw', CASES, ids=[f"{s}-{k}" for s, k in CASES])
def test_unfold_like_torch(shape, kw):
    assert _run(minitorch, F, shape, kw) == _run(torch, TF, shape, kw)


@pytest.mark.parametrize('dtype', ['int64', 'bool', 'float64'])
def test_unfold_dtypes_like_torch(dtype):
    assert _run(minitorch, F, (1, 2, 4, 4), dict(kernel_size=2), dtype) == \
        _run(torch, TF, (1, 2, 4, 4), dict(kernel_size=2), dtype)


def test_unfold_unbatched_grad_like_torch():
    xt = torch.randn(3, 5, 6, requires_grad=True)
    x = minitorch.tensor(xt.detach().numpy(), requires_grad=True)
    kw = dict(kernel_size=(2, 3), padding=1, stride=(2, 1))
    g = torch.randn(TF.unfold(xt, **kw).shape)
    (TF.unfold(xt, **kw) * g).sum().backward()
    (F.unfold(x, **kw) * minitorch.tensor(g.numpy())).sum().backward()
    torch.testing.assert_close(torch.tensor(x.grad.numpy()), xt.grad)


CONV = [((1, 0, 4, 4), (3, 0, 2, 2), 1), ((1, 0, 4, 4), (0, 0, 2, 2), 1), ((2, 3, 4, 4), (0, 3, 2, 2), 1),
        ((0, 3, 4, 4), (2, 3, 2, 2), 1), ((0, 0, 4, 4), (2, 0, 2, 2), 1), ((0, 4, 4), (2, 0, 2, 2), 1),
        ((1, 0, 4), (3, 0, 2), 1), ((1, 0, 4, 4, 4), (3, 0, 2, 2, 2), 1), ((1, 0, 4, 4, 4), (0, 0, 2, 2, 2), 1),
        ((1, 4, 4, 4), (1, 2, 2, 2), 2), ((1, 4, 4, 4, 4), (1, 2, 2, 2, 2), 2)]


@pytest.mark.parametrize('xs,ws,groups', CONV)
@pytest.mark.parametrize('with_bias', [False, True])
def test_conv_empty_channels_like_torch(xs, ws, groups, with_bias):
    res = []
    for lib, FF in ((torch, TF), (minitorch, F)):
        x, w, b = lib.ones(xs), lib.ones(ws), lib.ones(ws[0]) if with_bias else None
        f = {3: FF.conv1d, 4: FF.conv2d, 5: FF.conv3d}[len(ws)]
        try:
            o = f(x, w, b, groups=groups); res.append(('ok', tuple(o.shape), o.sum().item()))
        except Exception as e:   # noqa: BLE001
            res.append((type(e).__name__, str(e)))
    assert res[1] == res[0]


EMPTY = [(TF.conv1d, F.conv1d, (), (2, 1, 1), {}), (TF.conv1d, F.conv1d, (3,), (2, 1, 1), {}),
         (TF.conv2d, F.conv2d, (3,), (2, 1, 1, 1), {}), (TF.conv2d, F.conv2d, (3, 3, 0, 4), (2, 3, 2, 2), dict(padding=1)),
         (TF.conv2d, F.conv2d, (3, 3, 0, 4), (2, 3, 1, 1), {}), (TF.conv2d, F.conv2d, (3, 0, 0, 4), (2, 0, 1, 1), {}),
         (TF.conv2d, F.conv2d, (0, 3, 0, 4), (2, 3, 1, 1), dict(padding=1)),
         (TF.conv1d, F.conv1d, (1, 1, 0), (2, 1, 1), dict(padding=1)),
         (TF.conv2d, F.conv2d, (3, 3, 0, 4), (2, 3, 2, 2), dict(padding=1, stride=2)),
         (TF.conv2d, F.conv2d, (1, 2, 3, 3), (2, 2, 2, 2), dict(dilation=3))]


@pytest.mark.parametrize('tf,mf,xs,ws,kw', EMPTY)
def test_conv_empty_and_rank_errors_like_torch(tf, mf, xs, ws, kw):
    res = []
    for lib, f in ((torch, tf), (minitorch, mf)):
        try:
            o = f(lib.zeros(xs), lib.zeros(ws), **kw); res.append(('ok', tuple(o.shape)))
        except Exception as e:   # noqa: BLE001
            res.append((type(e).__name__, str(e)))
    assert res[1] == res[0]
