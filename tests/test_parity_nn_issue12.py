"nn functions against torch (issue 12): nll_loss's argument errors and its 16-bit CPU rounding."
import numpy as np
import pytest
import torch
import minitorch as mt


def outcome(f):
    try:
        r = f()
    except Exception as e:
        return type(e).__name__, str(e).split('\n')[0]
    return str(r.dtype).split('.')[-1], tuple(r.shape), repr(np.asarray(r.detach().float().tolist()).round(6).tolist())


def same(f):
    t, m = outcome(lambda: f(torch)), outcome(lambda: f(mt))
    assert m == t, (m, t)


X2 = np.log(np.array([[0.2, 0.8], [0.6, 0.4]]))
X4 = np.random.default_rng(0).standard_normal((2, 2, 3, 3))
F = lambda L: L.nn.functional


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('case', [
    lambda L, r: F(L).nll_loss(L.tensor(X2), L.tensor(1), reduction=r),                  # 0-d target, batch 2
    lambda L, r: F(L).nll_loss(L.tensor(X2[0]), L.tensor(1), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(X2[0]), L.tensor([1]), reduction=r),             # 1-D input, 1-D target
    lambda L, r: F(L).nll_loss(L.tensor(X2[0]), L.tensor([1, 0]), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(X4), L.tensor(1), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(X4), L.tensor([1, 0]), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(X4), L.zeros(2, 3, 2, dtype=L.int64), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(X4[0]), L.zeros(2, 3, dtype=L.int64), reduction=r),
    lambda L, r: F(L).nll_loss(L.zeros(2, 3, 4, 1, 1), L.zeros(2, 4, 1, 2, dtype=L.int64), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(X2), L.zeros(2, 3, dtype=L.int64), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor([[1, 2]], dtype=L.int32), L.tensor([1]), reduction=r),
    lambda L, r: F(L).nll_loss(L.zeros(2, 3, 4, dtype=L.int32), L.zeros(2, 4, dtype=L.int64), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(X2, dtype=L.complex64), L.tensor([1, 0]), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(1.0), L.tensor(0), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(X2), L.tensor([1, 0], dtype=L.int32), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(X2), L.tensor([1., 0.]), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(X2), L.tensor([1, 0], dtype=L.uint8), reduction=r),
    lambda L, r: F(L).nll_loss(L.tensor(X2), L.tensor([1, 0]), weight=L.ones(3), reduction=r),
])
def test_nll_loss_arguments(case, reduction):
    same(lambda L: case(L, reduction))


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('weighted', [False, True])
def test_nll_and_cross_entropy_half_cpu_rounding(dtype, weighted):
    "PyTorch reduces a 16-bit nll_loss on the CPU with cascaded partial sums, each addition rounded to the dtype."
    rng = np.random.default_rng(3)
    for _ in range(60):
        n, c = int(rng.integers(1, 70)), int(rng.integers(1, 5))
        x = rng.standard_normal((n, c)) * 2.5
        tg = rng.integers(0, c, n); tg[rng.random(n) < 0.15] = -100
        w = rng.random(c) + 0.5
        for red in ('mean', 'sum'):
            def f(L, fn):
                d = getattr(L, dtype)
                return getattr(F(L), fn)(L.tensor(x).to(d), L.tensor(tg), L.tensor(w).to(d) if weighted else None,
                                         reduction=red)
            for fn in ('nll_loss', 'cross_entropy'):
                want, got = f(torch, fn), f(mt, fn)
                assert repr(got.float().item()) == repr(want.float().item()), (fn, red, n, c)


def test_nll_loss_half_gradient():
    x = np.random.default_rng(4).standard_normal((5, 3))
    grads = []
    for L in (torch, mt):
        a = L.tensor(x).to(L.float16).requires_grad_()
        F(L).nll_loss(a, L.tensor([0, 2, 1, 1, 0])).backward()
        grads.append(np.asarray(a.grad.float().tolist()))
    np.testing.assert_array_equal(grads[1], grads[0])


@pytest.mark.parametrize('shape', [(), (2,), (3, 4), (1, 3, 4), (2, 1, 3, 4), (1, 1, 1, 3, 4), (0, 3, 4), (1, 0, 4),
                                   (2, 0, 3, 4), (2, 1, 0, 4), (0, 1, 3, 4)])
@pytest.mark.parametrize('k', [1, 2, 5])
def test_avg_pool2d_shapes(shape, k):
    "0-d, 1-D, 2-D, 5-D and empty inputs: torch's IndexError / RuntimeError, in its order."
    x = np.arange(int(np.prod(shape)), dtype=float).reshape(shape)
    same(lambda L: F(L).avg_pool2d(L.tensor(x), k))


X1 = np.arange(-5., 7.).reshape(1, 1, 3, 4)


@pytest.mark.parametrize('case', [
    lambda L: F(L).avg_pool2d(L.tensor(X1).long(), 2),                          # integers: truncating division
    lambda L: F(L).avg_pool2d(L.tensor(X1).long(), 2, padding=1, count_include_pad=False),
    lambda L: F(L).avg_pool2d(L.tensor(X1).int(), 2),
    lambda L: F(L).avg_pool2d(L.tensor(X1).long(), 2, divisor_override=3),
    lambda L: F(L).avg_pool2d(L.tensor(X1).bool(), 2),
    lambda L: F(L).avg_pool2d(L.tensor(X1).to(L.complex64), 2),
    lambda L: F(L).avg_pool2d(L.tensor(X1), 2, stride=0),
    lambda L: F(L).avg_pool2d(L.tensor(X1), 0),
    lambda L: F(L).avg_pool2d(L.tensor(X1), 2, padding=2),
    lambda L: F(L).avg_pool2d(L.tensor(X1), 2, padding=-1),
    lambda L: F(L).avg_pool2d(L.tensor(X1), 2, divisor_override=0),
    lambda L: F(L).avg_pool2d(L.tensor(X1), 3, ceil_mode=True, stride=2, padding=1),
])
def test_avg_pool2d_arguments(case):
    same(case)


def same_msg(f):
    "As `same`, with minitorch.Size printed as torch.Size."
    t, m = outcome(lambda: f(torch)), outcome(lambda: f(mt))
    assert tuple(str(v).replace('minitorch.Size', 'torch.Size') for v in m) == tuple(str(v) for v in t), (m, t)


NORM_SHAPES = [((1, 4), 2), ((1, 3), 2), ((1, 4), 4), ((2, 4), 4), ((0, 4, 2), 1), ((2, 0, 3), 1), ((2, 4, 0), 2),
               ((1, 2, 1), 2), ((3,), 1), ((2, 4), 0), ((2, 4), 3), ((2, 4, 3), 2)]


@pytest.mark.parametrize('shape,g', NORM_SHAPES)
def test_group_and_instance_norm_shapes(shape, g):
    x = np.random.default_rng(0).standard_normal(shape)
    same_msg(lambda L: F(L).group_norm(L.tensor(x), g))
    same_msg(lambda L: F(L).instance_norm(L.tensor(x)))


@pytest.mark.parametrize('dtype', ['int8', 'int64', 'bool', 'complex64', 'float16', 'bfloat16'])
def test_group_and_instance_norm_dtypes(dtype):
    "No kernel for integers, bool, complex; 16-bit inputs rounded as torch's CPU kernels (float16 bit for bit)."
    x = np.random.default_rng(1).standard_normal((2, 3, 5)) * 3
    same(lambda L: F(L).group_norm(L.tensor(x).to(getattr(L, dtype)), 3))
    same(lambda L: F(L).instance_norm(L.tensor(x).to(getattr(L, dtype)), weight=L.ones(3), bias=L.zeros(3)))
    if dtype != 'bfloat16':    # bfloat16's batch_norm statistics are not matched bit for bit yet
        same(lambda L: F(L).instance_norm(L.tensor(x).to(getattr(L, dtype))))


XI = np.array([[1, 0], [2, 1]])


@pytest.mark.parametrize('dtype', ['int32', 'int64', 'bool', 'complex64', 'float32'])
@pytest.mark.parametrize('case', [
    lambda L, x: F(L).mse_loss(x, x), lambda L, x: F(L).smooth_l1_loss(x, x), lambda L, x: F(L).huber_loss(x, x),
    lambda L, x: F(L).multilabel_soft_margin_loss(x, x), lambda L, x: F(L).binary_cross_entropy_with_logits(x, x),
    lambda L, x: F(L).binary_cross_entropy(x, x), lambda L, x: F(L).layer_norm(x, (2,)),
    lambda L, x: F(L).rms_norm(x, (2,)), lambda L, x: F(L).glu(x), lambda L, x: L.kthvalue(x, 1)[0],
    lambda L, x: F(L).mse_loss(x, x.float()), lambda L, x: F(L).huber_loss(x.float(), x.real if x.dtype.is_complex else x),   # common dtype
])
def test_kernel_dtypes(case, dtype):
    "Integer, bool and complex inputs: PyTorch's NotImplementedError naming the kernel (or the same result)."
    same(lambda L: case(L, L.tensor(XI).to(getattr(L, dtype))))


@pytest.mark.parametrize('name', ['layer_norm', 'rms_norm'])
def test_empty_normalized_shape(name):
    same(lambda L: getattr(F(L), name)(L.ones(()), ()))
    same(lambda L: getattr(F(L), name)(L.ones(2, 3), ()))


POOL_SHAPES = [(), (2,), (3, 4), (1, 3, 4), (2, 1, 3, 4), (1, 1, 1, 3, 4), (0, 3, 4), (1, 0, 4), (2, 0, 3, 4),
               (2, 1, 0, 4), (0, 1, 3, 4), (2, 0, 4), (2, 3, 0)]


@pytest.mark.parametrize('shape', POOL_SHAPES)
@pytest.mark.parametrize('fn', ['max_pool2d', 'max_pool2d_with_indices', 'max_pool1d', 'avg_pool1d'])
def test_pool_shapes(shape, fn):
    x = np.arange(int(np.prod(shape)), dtype=float).reshape(shape)
    same(lambda L: (lambda r: r[0] if isinstance(r, tuple) else r)(getattr(F(L), fn)(L.tensor(x), 2)))


@pytest.mark.parametrize('dtype', ['int64', 'int32', 'bool', 'complex64', 'float16'])
def test_pool_dtypes(dtype):
    x = np.arange(12.).reshape(1, 1, 3, 4)
    same(lambda L: F(L).max_pool2d(L.tensor(x).to(getattr(L, dtype)), 2))
    same(lambda L: F(L).max_pool1d(L.tensor(x[0]).to(getattr(L, dtype)), 2))
    same(lambda L: F(L).avg_pool1d(L.tensor(x[0]).to(getattr(L, dtype)), 2))


@pytest.mark.parametrize('kw', [dict(kernel_size=0), dict(kernel_size=2, stride=0), dict(kernel_size=2, dilation=0),
                                dict(kernel_size=2, padding=2), dict(kernel_size=5), dict(kernel_size=3, padding=1,
                                                                                           ceil_mode=True, stride=2)])
def test_max_pool2d_arguments(kw):
    x = np.arange(12.).reshape(1, 1, 3, 4)
    same(lambda L: F(L).max_pool2d(L.tensor(x), **kw))


SDPA = [((4,), (4,)), ((3, 4), (3, 4)), ((2, 3, 0), (2, 3, 0)), ((2, 0, 4), (2, 5, 4)), ((2, 3, 4), (2, 0, 4)),
        ((0, 3, 4), (0, 3, 4)), ((2, 3, 4), (2, 5, 6)), ((2, 3, 4), (3, 5, 4)), ((), ())]


@pytest.mark.parametrize('qs,ks', SDPA)
@pytest.mark.parametrize('causal', [False, True])
def test_sdpa_shapes(qs, ks, causal):
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal(qs), rng.standard_normal(ks)
    same(lambda L: F(L).scaled_dot_product_attention(L.tensor(q), L.tensor(k), L.tensor(k), is_causal=causal))


@pytest.mark.parametrize('dtype', ['int64', 'bool', 'complex64', 'float16', 'bfloat16'])
def test_sdpa_dtypes(dtype):
    "16-bit inputs: float32 math rounded once (torch's CPU kernel), bit for bit."
    q = np.random.default_rng(1).standard_normal((2, 3, 4))
    same(lambda L: F(L).scaled_dot_product_attention(*(L.tensor(q).to(getattr(L, dtype)),) * 3))
    same(lambda L: F(L).scaled_dot_product_attention(L.tensor(q).float(), L.tensor(q), L.tensor(q)))
