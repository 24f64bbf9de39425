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
