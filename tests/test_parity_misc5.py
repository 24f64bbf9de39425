"""Issue 12: index_copy_ into a view whose elements share memory (an `unfold` view) gets PyTorch's gradient (its
CopySlices copies self's gradient back through the view, so the element written last wins)."""
import numpy as np
import pytest
import torch
import minitorch


def _index_copy_unfold(lib, n, size, step, perm, dim, idx, w, dtype, use_view):
    leaf = lib.tensor(np.arange(1., 2 * n + 1).reshape(n, 2).astype(dtype), requires_grad=True)
    x = leaf * 1
    v = x.unfold(0, size, step)
    if perm: v = v.permute(*perm)
    shp = list(v.shape); shp[dim] = len(idx)
    src = lib.tensor((np.arange(np.prod(shp)).reshape(shp) + 100).astype(dtype), requires_grad=True)
    v.index_copy_(dim, lib.tensor(idx), src)
    loss = (x * lib.tensor(w.astype(dtype))).sum()
    if use_view: loss = loss + (v * v).sum()   # the view's regenerated history
    if dtype == np.complex128: loss = loss.real
    loss.backward()
    return x.detach().numpy(), leaf.grad.numpy(), src.grad.numpy()


@pytest.mark.parametrize("seed", range(40))
def test_index_copy_unfold_view_grad(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8)); size = int(rng.integers(1, n + 1)); step = int(rng.integers(1, 3))
    perm = [None, (2, 0, 1), (1, 2, 0), (0, 2, 1)][rng.integers(4)]
    shape = [(n - size) // step + 1, 2, size]
    if perm: shape = [shape[i] for i in perm]
    dim = int(rng.integers(3))
    idx = rng.permutation(shape[dim])[:rng.integers(1, shape[dim] + 1)].tolist()
    dtype = [np.float64, np.complex128][seed % 2]
    w = rng.standard_normal((n, 2)) + (1j * rng.standard_normal((n, 2)) if dtype == np.complex128 else 0)
    args = (n, size, step, perm, dim, idx, w, dtype, bool(rng.integers(2)))
    for a, b in zip(_index_copy_unfold(torch, *args), _index_copy_unfold(minitorch, *args)):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)


def test_index_copy_unfold_view_grad_last_write():
    # x[2] is v[0, 2] and v[1, 0]: index 0 overwrites v[1, 0], written after v[0, 2], so x[2] gets no gradient;
    # index 1 leaves both, and the gradient is copied (not added) back.
    w = np.arange(1., 19.).reshape(9, 2)
    for idx in ([0], [1], [1, 1]):
        t = _index_copy_unfold(torch, 9, 3, 2, (0, 2, 1), 1, idx, w, np.float64, False)
        m = _index_copy_unfold(minitorch, 9, 3, 2, (0, 2, 1), 1, idx, w, np.float64, False)
        for a, b in zip(t, m): np.testing.assert_allclose(b, a)


# layer_norm: PyTorch's CPU kernel replayed (Welford moments by lanes, the closed-form backward, its fused steps).
import minitorch.nn.functional as MF  # noqa: E402


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,n", [((2,), 1), ((4, 5, 1), 1), ((3, 5), 1), ((2, 9), 1), ((2, 3, 5), 2), ((2, 40), 1),
                                     ((1, 150), 1), ((3, 4, 5), 2)])
@pytest.mark.parametrize("affine", [0, 1, 2, 3])
def test_layer_norm_bits_and_grads(dtype, shape, n, affine):
    g = torch.Generator().manual_seed(hash((shape, n, affine)) % 1000)
    td = getattr(torch, dtype)
    x = (torch.randn(shape, generator=g, dtype=td) * 2 + 1).requires_grad_()
    ns = shape[len(shape) - n:]
    w = torch.randn(ns, generator=g, dtype=td).requires_grad_() if affine & 1 else None
    b = torch.randn(ns, generator=g, dtype=td).requires_grad_() if affine & 2 else None
    dy = torch.randn(shape, generator=g, dtype=td)
    y = torch.nn.functional.layer_norm(x, ns, w, b)
    m = [None if t is None else minitorch.tensor(t.detach().numpy(), requires_grad=True) for t in (x, w, b)]
    my = MF.layer_norm(m[0], ns, m[1], m[2])
    exact = np.prod(ns) < 16 * (8 if dtype == "float32" else 4)   # (longer rows: the composite, close)
    check = np.testing.assert_array_equal if exact else lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    check(my.detach().numpy(), y.detach().numpy())
    assert not exact or my.grad_fn.name() == y.grad_fn.name()
    (y * dy).sum().backward(); (my * minitorch.tensor(dy.numpy())).sum().backward()
    check(m[0].grad.numpy(), x.grad.numpy())
    for a, t in zip(m[1:], (w, b)):
        if t is not None: np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_layer_norm_chain_of_constant_rows():
    # an expanded (constant) input: each layer norm's gradient is a cancellation that torch's rounding decides
    for c0 in (0.3, -1.7, 2.5):
        outs = []
        for lib, F in ((torch, torch.nn.functional), (minitorch, MF)):
            x = lib.tensor(np.full((3, 5), c0, np.float32), requires_grad=True)
            w = lib.tensor(np.linspace(-1, 2, 5).astype(np.float32))
            h = F.layer_norm(F.layer_norm(x, (5,)), (5,), w, w * 0.5)
            h = F.layer_norm(F.layer_norm(h, (5,)), (5,))
            (h * lib.tensor(np.arange(15.).reshape(3, 5).astype(np.float32))).sum().backward()
            outs.append(x.grad.numpy())
        np.testing.assert_array_equal(outs[1], outs[0])


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_layer_norm_half_short_rows(dtype):
    # torch's 16-bit kernel: x * rstd + (-rstd * mean), fused: a one-element row leaves that rounding, not 0
    x = torch.randn(4, 5, 1, generator=torch.Generator().manual_seed(0)).to(getattr(torch, dtype))
    for shape in ((1,), ):
        want = torch.nn.functional.layer_norm(x, shape).float().numpy()
        got = MF.layer_norm(minitorch.tensor(x.float().numpy()).to(getattr(minitorch, dtype)), shape).float().numpy()
        np.testing.assert_array_equal(got, want)
    assert np.abs(want).max() > 0


def test_layer_norm_double_backward():
    x = torch.randn(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1)).requires_grad_()
    w = torch.randn(4, dtype=torch.float64).requires_grad_()
    mx, mw = (minitorch.tensor(t.detach().numpy(), requires_grad=True) for t in (x, w))
    gt, = torch.autograd.grad((torch.nn.functional.layer_norm(x, (4,), w) ** 3).sum(), x, create_graph=True)
    gm, = minitorch.autograd.grad((MF.layer_norm(mx, (4,), mw) ** 3).sum(), mx, create_graph=True)
    np.testing.assert_allclose(gm.detach().numpy(), gt.detach().numpy(), rtol=1e-10)
    ggt = torch.autograd.grad(gt.sum(), (x, w)); ggm = minitorch.autograd.grad(gm.sum(), (mx, mw))
    for a, b in zip(ggm, ggt): np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-10)


# detach_() refuses views (torch's rule: `self.is_view()`), so an op must return a view exactly when torch does.
@pytest.mark.parametrize("affine", [False, True])
def test_group_norm_result_is_not_a_view(affine):
    x = np.arange(12.).reshape(2, 6)
    for lib, F in ((torch, torch.nn.functional), (minitorch, MF)):
        w = lib.tensor(np.ones(6)) if affine else None
        y = F.group_norm(lib.tensor(x), 3, w)
        assert (y._is_view() if lib is torch else y._base is not None) is False
        assert y.detach_() is y


@pytest.mark.parametrize("index", [3, [1, 2], [[1, 2], [3, 4]]])
def test_take_result_detaches_in_place(index):
    x = np.arange(10.).reshape(5, 2)
    assert torch.take(torch.tensor(x), torch.tensor(index)).detach_() is not None   # torch: not a view
    y = minitorch.take(minitorch.tensor(x), minitorch.tensor(index))
    assert y.detach_() is y


# group_norm: the tensor ops' values, PyTorch's kernel gradient (groups of two elements cancel, like layer norm's rows).
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,G", [((2, 4), 2), ((2, 4), 1), ((1, 6, 3), 3), ((2, 4, 2, 5), 2), ((3, 2), 2), ((2, 16, 3), 2)])
@pytest.mark.parametrize("affine", [0, 1, 3])
def test_group_norm_kernel_grads(dtype, shape, G, affine):
    g = torch.Generator().manual_seed(len(shape) * 5 + G + affine)
    td = getattr(torch, dtype)
    x = (torch.randn(shape, generator=g, dtype=td) * 0.01 + 1).requires_grad_()
    w = torch.randn(shape[1], generator=g, dtype=td).requires_grad_() if affine & 1 else None
    b = torch.randn(shape[1], generator=g, dtype=td).requires_grad_() if affine & 2 else None
    dy = torch.randn(shape, generator=g, dtype=td)
    y = torch.nn.functional.group_norm(x, G, w, b); (y * dy).sum().backward()
    m = [None if t is None else minitorch.tensor(t.detach().numpy(), requires_grad=True) for t in (x, w, b)]
    my = MF.group_norm(m[0], G, m[1], m[2]); (my * minitorch.tensor(dy.numpy())).sum().backward()
    np.testing.assert_allclose(my.detach().numpy(), y.detach().numpy(), rtol=1e-3, atol=1e-4)   # (the exercise's values)
    if np.prod(shape[1:]) // G < 16: np.testing.assert_array_equal(m[0].grad.numpy(), x.grad.numpy())
    else: np.testing.assert_allclose(m[0].grad.numpy(), x.grad.numpy(), rtol=1e-4, atol=1e-4)   # (an ulp here and there)
    assert my.grad_fn.name() == y.grad_fn.name()
    for a, t in zip(m[1:], (w, b)):
        if t is not None: np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_group_norm_double_backward():
    x = torch.randn(2, 6, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(3)).requires_grad_()
    mx = minitorch.tensor(x.detach().numpy(), requires_grad=True)
    gt, = torch.autograd.grad((torch.nn.functional.group_norm(x, 3) ** 3).sum(), x, create_graph=True)
    gm, = minitorch.autograd.grad((MF.group_norm(mx, 3) ** 3).sum(), mx, create_graph=True)
    np.testing.assert_allclose(gm.detach().numpy(), gt.detach().numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(minitorch.autograd.grad(gm.sum(), mx)[0].numpy(), torch.autograd.grad(gt.sum(), x)[0].numpy(),
                               rtol=1e-7, atol=1e-9)


# batch_norm: the tensor ops' values, PyTorch's kernel gradient for (N, C) inputs (per-thread fused sums; seeds 910051, 910064).
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 2), (2, 5), (9, 4), (17, 12), (6, 3, 1, 1)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_kernel_grads(dtype, shape, training, affine):
    rng = np.random.default_rng(sum(shape) + 7 * training + affine)
    C = shape[1]
    x, dy = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
    w, b, rm = (rng.standard_normal(C).astype(dtype) for _ in range(3))
    rv = (rng.random(C) + 0.5).astype(dtype)
    grads = []
    for lib in (torch, minitorch):
        F = torch.nn.functional if lib is torch else MF
        ts = [lib.tensor(a, requires_grad=True) for a in (x, w, b)]
        y = F.batch_norm(ts[0], lib.tensor(rm), lib.tensor(rv), ts[1] if affine else None, ts[2] if affine else None,
                         training=training)
        y.backward(lib.tensor(dy))
        grads.append([t.grad.numpy() for t in (ts if affine else ts[:1])])
    for g, m in zip(*grads): np.testing.assert_array_equal(m, g)


def test_batch_norm_chain_of_constant_channels():
    # an expanded (constant) input: the gradients of a chain are pure rounding, and agree only bit for bit
    x0 = np.random.default_rng(3).standard_normal((1, 2)).astype('float32')
    ps = [np.random.default_rng(k).standard_normal(2).astype('float32') for k in range(4)]
    ps[1] = np.abs(ps[1]) + 0.5
    grads = []
    for lib in (torch, minitorch):
        F = torch.nn.functional if lib is torch else MF
        w, b = lib.tensor(ps[2], requires_grad=True), lib.tensor(ps[3], requires_grad=True)
        y = lib.tensor(x0).expand(3, 2)
        for training in (False, True, False, False, True):
            y = F.batch_norm(y, lib.tensor(ps[0]), lib.tensor(ps[1]), w, b, training=training)
        y.sum().backward()
        grads.append((w.grad.numpy(), b.grad.numpy()))
    for g, m in zip(*grads): np.testing.assert_array_equal(m, g)


def test_batch_norm_double_backward():
    x = np.random.default_rng(5).standard_normal((4, 3))
    tx, mx = torch.tensor(x, requires_grad=True), minitorch.tensor(x, requires_grad=True)
    gt, = torch.autograd.grad((torch.nn.functional.batch_norm(tx, None, None, training=True) ** 3).sum(), tx, create_graph=True)
    gm, = minitorch.autograd.grad((MF.batch_norm(mx, None, None, training=True) ** 3).sum(), mx, create_graph=True)
    torch.testing.assert_close(torch.tensor(gm.detach().numpy()), gt.detach())
    (ht,), (hm,) = torch.autograd.grad(gt.sum(), tx), minitorch.autograd.grad(gm.sum(), mx)
    torch.testing.assert_close(torch.tensor(hm.numpy()), ht)


@pytest.mark.parametrize("shape", [(4, 3, 5), (2, 3, 9), (2, 2, 3, 3), (5, 2, 17), (1, 3, 40)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_kernel_grads_float32_planes(shape, training):
    # planes of several values: each sample's plane summed in vectors (the tail fused), dX's `- (x - mean)*k` fused
    test_batch_norm_kernel_grads("float32", shape, training, True)
    test_batch_norm_kernel_grads("float32", shape, training, False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 2), (9, 5), (2, 3, 9)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_kernel_values(dtype, shape, training):
    # a contiguous input that will take the gradient replay gets the kernel's bits: x*alpha + beta, fused
    if training and dtype == "float64" and len(shape) > 2: pytest.skip("double planes keep the tensor ops")
    rng = np.random.default_rng(len(shape) + training)
    C = shape[1]
    x = rng.standard_normal(shape).astype(dtype)
    w, b, rm = (rng.standard_normal(C).astype(dtype) for _ in range(3))
    rv = (rng.random(C) + 0.5).astype(dtype)
    want = torch.nn.functional.batch_norm(torch.tensor(x), torch.tensor(rm), torch.tensor(rv), torch.tensor(w),
                                          torch.tensor(b), training=training).numpy()
    got = MF.batch_norm(minitorch.tensor(x, requires_grad=True), minitorch.tensor(rm), minitorch.tensor(rv),
                        minitorch.tensor(w), minitorch.tensor(b), training=training)
    np.testing.assert_array_equal(got.detach().numpy(), want)
