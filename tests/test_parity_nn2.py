"Issue 12 parity, nn functions part 2: pdist, embedding_bag, softshrink, interpolate, batch_norm, attention vs torch."
import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F

nan, inf = float('nan'), float('inf')


def T(t: torch.Tensor, **kw):
    return minitorch.tensor(t.tolist(), dtype=getattr(minitorch, str(t.dtype).split('.')[-1]), **kw)


def N(t) -> torch.Tensor:
    return torch.tensor(np.asarray(t.detach().numpy() if hasattr(t, 'detach') else t.numpy()))


@pytest.mark.parametrize('p', [0, 0.5, 1, 2, 3, inf])
def test_pdist_nan_inf_follows_torch_kernel(p):
    rng = np.random.default_rng(1)
    vals = [0., 1., -2., nan, inf, -inf, 0.5]
    for _ in range(100):
        a = torch.tensor(rng.choice(vals, size=(3, int(rng.integers(1, 5)))))
        torch.testing.assert_close(N(F.pdist(T(a), p)), torch.pdist(a, p), equal_nan=True)


def test_pdist_p0_grad_zero():
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    torch.pdist(x, 0).sum().backward()
    m = T(x.detach(), requires_grad=True)
    F.pdist(m, 0).sum().backward()
    torch.testing.assert_close(N(m.grad), x.grad)


@pytest.mark.parametrize('rows', [0, 1])
def test_pdist_empty_result_requires_grad(rows):
    x = torch.zeros(rows, 4, requires_grad=True)
    m = minitorch.zeros(rows, 4, requires_grad=True)
    y, ym = torch.pdist(x), F.pdist(m)
    assert ym.requires_grad == y.requires_grad and tuple(ym.shape) == tuple(y.shape)


def _bag_case(rng, dt, mode, il):
    n, V, D = int(rng.integers(0, 6)), int(rng.integers(1, 5)), int(rng.integers(0, 3))
    idx = torch.tensor(rng.integers(0, V, n), dtype=torch.long)
    offs = torch.tensor(sorted([0] + list(rng.integers(0, n + 1, int(rng.integers(0, 3))))), dtype=torch.long)
    w = torch.empty(V, D, dtype=dt).copy_(torch.tensor(rng.standard_normal((V, D))))   # (unit strides, as minitorch's)
    return idx, offs, w


@pytest.mark.parametrize('dt', [torch.float32, torch.float64])
@pytest.mark.parametrize('mode', ['sum', 'mean', 'max'])
@pytest.mark.parametrize('il', [False, True])
def test_embedding_bag_include_last_offset(dt, mode, il):
    rng = np.random.default_rng(7)
    for _ in range(60):
        idx, offs, w = _bag_case(rng, dt, mode, il)
        if il and len(offs) < 2: continue   # (no bag at all: torch's double kernel can segfault)
        wt = w.clone().requires_grad_()
        try:
            y = torch.nn.functional.embedding_bag(idx, wt, offs, mode=mode, include_last_offset=il)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                F.embedding_bag(T(idx), T(w), T(offs), mode=mode, include_last_offset=il)
            continue
        wm = T(w, requires_grad=True)
        ym = F.embedding_bag(T(idx), wm, T(offs), mode=mode, include_last_offset=il)
        torch.testing.assert_close(N(ym), y.detach())
        if y.numel() and not (mode == 'sum' and il and dt == torch.float32):   # (torch's float32 sum backward
            g = torch.tensor(rng.standard_normal(tuple(y.shape)), dtype=dt)        # reads uninitialised rows there)
            y.backward(g)
            ym.backward(T(g))
            torch.testing.assert_close(N(wm.grad), wt.grad)


@pytest.mark.parametrize('dt', [torch.float32, torch.float64, torch.float16])
@pytest.mark.parametrize('mode', ['sum', 'mean', 'max'])
@pytest.mark.parametrize('offs,n,il', [([0, 1], 3, False), ([0, 3], 3, False), ([0, 3], 4, False), ([0, 0, 0], 4, False),
                                       ([0, 1, 3], 3, False), ([0, 1, 3], 3, True), ([0, 0, 1], 3, True), ([0, 1, 1], 3, True)])
def test_embedding_bag_zero_width_weight(dt, mode, offs, n, il):
    "fbgemm (float32/16, sum/mean) rejects a zero-width weight when the last bag starts after 0 and is not empty."
    idx, off, w = torch.zeros(n, dtype=torch.long), torch.tensor(offs), torch.zeros(3, 0, dtype=dt)
    try:
        y = torch.nn.functional.embedding_bag(idx, w, off, mode=mode, include_last_offset=il)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match='Expected i < index_size'):
            F.embedding_bag(T(idx), minitorch.zeros(3, 0, dtype=T(w).dtype), T(off), mode=mode, include_last_offset=il)
        return
    ym = F.embedding_bag(T(idx), minitorch.zeros(3, 0, dtype=T(w).dtype), T(off), mode=mode, include_last_offset=il)
    assert tuple(ym.shape) == tuple(y.shape)


@pytest.mark.parametrize('dt', [torch.float32, torch.float64])
@pytest.mark.parametrize('n,o', [(1, 3), (1, 5), (1, 7), (2, 3), (3, 7), (4, 11), (1, 8)])
def test_interpolate_linear_inf_placement(dt, n, o):
    "PyTorch computes the source index in float (a fused multiply-add): a weight of exactly 0 turns inf into NaN."
    for i in range(n):
        x = torch.zeros(1, 1, n, dtype=dt)
        x[0, 0, i] = -inf
        y = torch.nn.functional.interpolate(x, size=o, mode='linear')
        torch.testing.assert_close(N(F.interpolate(T(x), size=o, mode='linear')), y, equal_nan=True)


def test_interpolate_int16_chain_neg_inf():
    x = torch.tensor([[[0], [3]], [[-2], [0]]], dtype=torch.int16)
    y = torch.nn.functional.interpolate(-1.5 / x, size=5, mode='linear', align_corners=False)
    ym = F.interpolate(-1.5 / T(x), size=5, mode='linear', align_corners=False)
    torch.testing.assert_close(N(ym), y, equal_nan=True)


@pytest.mark.parametrize('shape,sf', [((1, 1, 3), 2.3), ((1, 1, 2), 2.3), ((1, 1, 3), 1.2), ((1, 1, 3, 4), 2.3),
                                      ((1, 1, 1, 3), 1.2), ((1, 1, 6, 3), (2.3, 2.3))])
def test_interpolate_nearest_indices(shape, sf):
    "1-d nearest always floors j / scale in float; the 2-d kernel copies when o == n and halves when o == 2n."
    x = torch.arange(float(np.prod(shape))).reshape(shape)
    y = torch.nn.functional.interpolate(x, scale_factor=sf, mode='nearest')
    torch.testing.assert_close(N(F.interpolate(T(x), scale_factor=sf, mode='nearest')), y)


@pytest.mark.parametrize('fn', ['softshrink', 'hardshrink'])
@pytest.mark.parametrize('shape', [(9, 20), (5, 5, 40)])
def test_shrink_chain_keeps_layout_nan_grad(fn, shape):
    "The output keeps x's strides as PyTorch's does, so a chained backward's NaN lanes (vector body: 0) match."
    base = torch.randn(shape[::-1], dtype=torch.float64)
    base[base > 1.5] = nan
    xt = base.permute(*range(len(shape) - 1, -1, -1)).requires_grad_()
    xm = T(base, requires_grad=True)
    xmt = xm.permute(*range(len(shape) - 1, -1, -1))
    ft, fm = getattr(torch.nn.functional, fn), getattr(F, fn)
    yt, ym = xt, xmt
    for _ in range(4): yt, ym = ft(yt), fm(ym)
    assert ym.stride() == yt.stride()
    g = torch.randn(yt.shape, dtype=torch.float64)
    yt.backward(g); ym.backward(T(g))
    torch.testing.assert_close(N(xm.grad), xt.grad.permute(*range(len(shape) - 1, -1, -1)))


@pytest.mark.parametrize('dt', [torch.float16, torch.bfloat16])
@pytest.mark.parametrize('shape,size,ac', [((1, 2, 3), 5, False), ((2, 1, 6), 11, True), ((1, 1, 4, 5), (7, 3), False),
                                           ((1, 2, 3, 6), (5, 11), True)])
def test_interpolate_16bit_rounds_once(dt, shape, size, ac):
    "PyTorch sums a 16-bit input in float and rounds once (linear's weights rounded to the dtype, bilinear's not)."
    x = torch.randn(shape).to(dt)
    mode = 'linear' if len(shape) == 3 else 'bilinear'
    y = torch.nn.functional.interpolate(x, size=size, mode=mode, align_corners=ac)
    ym = F.interpolate(T(x.float()).to(getattr(minitorch, str(dt)[6:])), size=size, mode=mode, align_corners=ac)
    torch.testing.assert_close(torch.tensor(ym.float().numpy()).to(dt), y, rtol=0, atol=0)


@pytest.mark.parametrize('dt', [torch.complex64, torch.complex128, torch.int64])
def test_cosine_similarity_non_float_raises(dt):
    a = torch.ones(3, 2, dtype=dt)
    with pytest.raises(RuntimeError, match='expected common dtype to be floating point') as e:
        torch.nn.functional.cosine_similarity(a, a)
    with pytest.raises(RuntimeError, match=str(e.value).split(', yet')[0]):
        F.cosine_similarity(T(a), T(a))


def test_pdist_p1_nan_difference_grad_is_nan():
    x = torch.tensor([[inf, 1., 2.], [inf, 0., 1.], [3., 4., 5.], [1., 1., 1.]], requires_grad=True)
    torch.pdist(x, 1).sum().backward()
    xm = T(x.detach(), requires_grad=True)
    F.pdist(xm, 1).sum().backward()
    torch.testing.assert_close(N(xm.grad), x.grad, equal_nan=True)


def test_embedding_bag_padded_per_sample_weight_grad_zero():
    w = torch.tensor([[1., 2.], [inf, nan], [3., 4.]])
    idx = torch.tensor([[0, 1, 2], [1, 1, 0]])
    ps = torch.rand(2, 3, requires_grad=True)
    torch.nn.functional.embedding_bag(idx, w, mode='sum', per_sample_weights=ps, padding_idx=1).sum().backward()
    pm = T(ps.detach(), requires_grad=True)
    F.embedding_bag(T(idx), T(w), mode='sum', per_sample_weights=pm, padding_idx=1).sum().backward()
    torch.testing.assert_close(N(pm.grad), ps.grad, equal_nan=True)


@pytest.mark.parametrize('causal', [False, True])
@pytest.mark.parametrize('nd', [3, 4])
def test_sdpa_nan_query_row(causal, nd):
    "PyTorch's fused 4-d kernel gives a row of NaN scores zeros (its max is -inf); the 3-d math path gives NaN."
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn((1,) * (nd - 2) + (3, 2), dtype=torch.float64, generator=g) for _ in range(3))
    q[..., 2, 0] = nan
    y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    ym = F.scaled_dot_product_attention(T(q), T(k), T(v), is_causal=causal)
    torch.testing.assert_close(N(ym), y, equal_nan=True)
