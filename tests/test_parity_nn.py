"nn.functional against torch on non-finite values, 0-d and empty inputs, dtypes and errors (issue 12)."
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as tF

import minitorch as mt

mF = mt.nn.functional


def both(f):
    return f(mt, mF), f(torch, tF)


def same(rm, rt):
    assert str(rm.dtype).split('.')[-1] == str(rt.dtype).split('.')[-1]
    assert tuple(rm.shape) == tuple(rt.shape)
    torch.testing.assert_close(torch.from_numpy(np.asarray(rm.detach().float().numpy() if 'bfloat' in str(rm.dtype) else rm.detach().numpy())),
                               torch.from_numpy(np.asarray(rt.detach().float().numpy() if 'bfloat' in str(rt.dtype) else rt.detach().numpy())),
                               equal_nan=True)


def special(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    flat = a.reshape(-1)
    flat[1], flat[-2] = math.inf, -math.inf
    return a


def grads(f, *arrs):
    "Value and input gradients of `f(lib, F, *tensors)` in both libraries, with an inf in the upstream gradient."
    out = []
    for lib, F in ((mt, mF), (torch, tF)):
        ts = [lib.tensor(a, requires_grad=True) for a in arrs]
        r = f(lib, F, *ts)
        g = np.ones(tuple(r.shape)); g.reshape(-1)[0] = math.inf
        r.backward(lib.tensor(g))
        out.append((r, [t.grad for t in ts]))
    (rm, gm), (rt, gt) = out
    same(rm, rt)
    for a, b in zip(gm, gt): same(a, b)


@pytest.mark.parametrize('out', [1, 2, 3, (2, 3), (1, 1)])
def test_adaptive_avg_pool_keeps_inf_in_its_window(out):
    x = special((2, 3, 5, 4))
    if isinstance(out, tuple): grads(lambda lib, F, t: F.adaptive_avg_pool2d(t, out), x)
    else: grads(lambda lib, F, t: F.adaptive_avg_pool1d(t, out), x[0])


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_adaptive_avg_pool_half_rounds_once(dtype):
    x = np.random.default_rng(1).standard_normal((2, 2, 5, 3))
    same(*both(lambda lib, F: F.adaptive_avg_pool2d(lib.tensor(x).to(getattr(lib, dtype)), (2, 1))))


def test_adaptive_avg_pool_empty_gives_nan():
    same(*both(lambda lib, F: F.adaptive_avg_pool2d(lib.zeros(1, 2, 4, 0), (1, 1))))
    same(*both(lambda lib, F: F.adaptive_avg_pool1d(lib.zeros(2, 2, 0), 1)))


@pytest.mark.parametrize('kw', [dict(size=5, mode='nearest'), dict(scale_factor=2.0, mode='nearest'),
                                dict(size=5, mode='linear'), dict(size=5, mode='linear', align_corners=True),
                                dict(size=4, mode='linear'), dict(scale_factor=1.7, mode='linear'),
                                dict(size=3, mode='linear'), dict(size=2, mode='linear', align_corners=True)])
def test_interpolate_reads_only_its_sources(kw):
    grads(lambda lib, F, t: F.interpolate(t, **kw), special((2, 2, 4)))


def test_interpolate_bilinear_with_inf():
    grads(lambda lib, F, t: F.interpolate(t, size=(5, 3), mode='bilinear'), special((1, 2, 3, 4)))


@pytest.mark.parametrize('stride,padding,op,groups', [(1, 0, 0, 1), (2, 0, 0, 1), (2, 1, 1, 2), (3, 2, 0, 1)])
def test_conv_transpose_inf_weight(stride, padding, op, groups):
    x, w = np.random.default_rng(2).standard_normal((2, 4, 3, 3)), special((4, 3, 3, 2), 3)
    grads(lambda lib, F, a, b: F.conv_transpose2d(a, b, stride=stride, padding=padding, output_padding=op,
                                                   groups=groups), x, w)


def test_kl_div_negative_target_nan():
    t = np.array([-0.5, 0.0, 0.3, 1.2]); x = np.array([0.1, 0.2, -0.3, 0.4])
    for red in ('none', 'sum', 'batchmean'):
        grads(lambda lib, F, a, b: F.kl_div(a, b, reduction=red), x, t)


def test_prelu_0d_and_inf():
    same(*both(lambda lib, F: F.prelu(lib.tensor(-2.0), lib.tensor([0.25]))))
    grads(lambda lib, F, a, w: F.prelu(a, w), special((3, 2, 4)), np.array([0.5, -0.25]))


def test_pixel_unshuffle_new_tensor_and_empty():
    for shape in [(1, 2, 2), (1, 2, 4, 0)]:
        xm, xt = mt.zeros(*shape), torch.zeros(*shape)
        rm, rt = mF.pixel_unshuffle(xm, 2), tF.pixel_unshuffle(xt, 2)
        assert tuple(rm.shape) == tuple(rt.shape)
        assert rm._data.storage is not xm._data.storage


def test_hinge_embedding_int_keeps_dtype():
    for red in ('none', 'sum'):
        same(*both(lambda lib, F: F.hinge_embedding_loss(lib.tensor([1, 2, 3], dtype=lib.int8),
                                                         lib.tensor([1, -1, 1], dtype=lib.int8), reduction=red)))


def test_uint8_any_all_keep_uint8():
    a = np.array([[0, 3], [1, 2]], dtype=np.uint8)
    for f in (lambda lib: lib.tensor(a).any(), lambda lib: lib.tensor(a).all(dim=1), lambda lib: lib.any(lib.tensor(a), 0, keepdim=True),
              lambda lib: lib.tensor(a).all(dim=(1, -2))):
        rm, rt = f(mt), f(torch)
        assert str(rm.dtype).split('.')[-1] == str(rt.dtype).split('.')[-1] and rm.tolist() == rt.tolist()


ERRS = [
    lambda lib, F: F.adaptive_avg_pool2d(lib.ones(3), (2, 1)), lambda lib, F: F.adaptive_avg_pool2d(lib.ones(3), 2),
    lambda lib, F: F.adaptive_avg_pool1d(lib.ones(3), 2), lambda lib, F: F.adaptive_max_pool1d(lib.ones(3), 2),
    lambda lib, F: F.adaptive_max_pool2d(lib.ones(2, 3), (2, 2)),
    lambda lib, F: F.adaptive_max_pool2d(lib.ones(1, 0, 3, 3), (2, 1)),
    lambda lib, F: F.adaptive_max_pool1d(lib.ones(1, 2, 0), 1),
    lambda lib, F: F.adaptive_avg_pool2d(lib.ones(1, 2, 0, 2), (2, 2)),
    lambda lib, F: F.adaptive_avg_pool2d(lib.ones(2, 2, 4, dtype=lib.int64), 2),
    lambda lib, F: F.adaptive_avg_pool1d(lib.ones(2, 2, 4, dtype=lib.int64), 1),
    lambda lib, F: F.adaptive_max_pool2d(lib.ones(2, 3, 3, dtype=lib.complex64), 2),
    lambda lib, F: F.adaptive_avg_pool2d(lib.ones(2, 3, 3, dtype=lib.complex64), 2),
    lambda lib, F: F.interpolate(lib.ones(1, 2, 0), size=5, mode='linear'),
    lambda lib, F: F.interpolate(lib.ones(1, 2, 0, 3), size=(2, 2)),
    lambda lib, F: F.interpolate(lib.ones(1, 0, 2, 2), size=(3, 3)),
    lambda lib, F: F.interpolate(lib.ones(1, 2, 2, dtype=lib.int64), size=5),
    lambda lib, F: F.interpolate(lib.ones(1, 2, 2, dtype=lib.int64), size=5, mode='linear'),
    lambda lib, F: F.prelu(lib.ones(2, dtype=lib.int32), lib.ones(1, dtype=lib.int32)),
    lambda lib, F: F.kl_div(lib.ones(2), lib.ones(2, dtype=lib.int64)),
    lambda lib, F: F.kl_div(lib.ones(2, dtype=lib.complex64), lib.ones(2, dtype=lib.complex64)),
    lambda lib, F: F.conv_transpose2d(lib.ones(1, 2, 2, 2, dtype=lib.int8), lib.ones(2, 2, 2, 2, dtype=lib.int8)),
    lambda lib, F: F.conv_transpose2d(lib.ones(1, 0, 3, 3), lib.ones(0, 2, 2, 2)),
    lambda lib, F: F.conv_transpose1d(lib.ones(1, 2, 0), lib.ones(2, 2, 2)),
]


@pytest.mark.parametrize('k', range(len(ERRS)))
def test_errors_like_torch(k):
    with pytest.raises(Exception) as et: ERRS[k](torch, tF)
    with pytest.raises(Exception) as em: ERRS[k](mt, mF)
    assert type(em.value) is type(et.value)
    assert str(em.value).split('\n')[0] == str(et.value).split('\n')[0]


def test_pad_and_channel_shuffle_new_tensors():
    for f in [lambda F, x: F.pad(x, (0, 0)), lambda F, x: F.pad(x, (-1, 0), value=1.5), lambda F, x: F.pad(x, (1, 1)),
              lambda F, x: F.channel_shuffle(x, 1), lambda F, x: F.channel_shuffle(x, 2)]:
        xm, xt = mt.arange(16.).reshape(2, 2, 4), torch.arange(16.).reshape(2, 2, 4)
        rm, rt = f(mF, xm), f(tF, xt)
        assert rm.tolist() == rt.tolist()
        assert (rm._data.storage is xm._data.storage) == (rt.untyped_storage().data_ptr() == xt.untyped_storage().data_ptr())
    for shape in [(5,), (2, 4)]:
        with pytest.raises(RuntimeError) as et: tF.channel_shuffle(torch.ones(shape), 2)
        with pytest.raises(RuntimeError) as em: mF.channel_shuffle(mt.ones(shape), 2)
        assert str(em.value) == str(et.value)
