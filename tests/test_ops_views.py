"Views, joins, gather/scatter, indexing on read and write, in-place ops: values and gradients against torch."
import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.backends import use_backend
from test_ops import check, A, B, C


@pytest.fixture(autouse=True)
def numpy_backend():
    with use_backend('numpy'):
        yield


VIEW_CASES = [
    lambda L, x: x.view(3, 2), lambda L, x: x.view(-1), lambda L, x: x.reshape(1, 6), lambda L, x: x.T,
    lambda L, x: x.t(), lambda L, x: x.mT, lambda L, x: x.reshape(1, 2, 3).permute(2, 0, 1),
    lambda L, x: x.transpose(0, 1), lambda L, x: x.unsqueeze(1).expand(2, 4, 3), lambda L, x: x[None].expand_as(L.ones(2, 2, 3)),
    lambda L, x: x.unsqueeze(0).squeeze(), lambda L, x: x.unsqueeze(-1).squeeze(-1), lambda L, x: x.flatten(),
    lambda L, x: x.reshape(1, 2, 3).flatten(1), lambda L, x: x.flatten().unflatten(0, (3, 2)),
    lambda L, x: x.narrow(1, 1, 2), lambda L, x: x.select(1, 2), lambda L, x: x.diagonal(),
    lambda L, x: x.reshape(1, 2, 3).movedim(0, 2), lambda L, x: x.split(2, 1)[1], lambda L, x: x.split([1, 2], 1)[1],
    lambda L, x: x.chunk(3, 1)[2], lambda L, x: x.unbind(1)[1], lambda L, x: x.flip(1), lambda L, x: x.flip((0, 1)),
    lambda L, x: x.roll(1, 1), lambda L, x: x.roll(-2), lambda L, x: x.repeat(2, 3), lambda L, x: x.repeat(2, 1, 1),
    lambda L, x: x.tril(), lambda L, x: x.triu(1), lambda L, x: L.cat([x, x * 2], 1), lambda L, x: L.cat([x, x], 0),
    lambda L, x: L.stack([x, x * 2]), lambda L, x: L.stack([x, x], 2),
    lambda L, x: x.gather(1, L.tensor([[0, 0], [2, 1]])), lambda L, x: x.index_select(1, L.tensor([2, 0, 2])),
    lambda L, x: x.masked_fill(x > 1, 0.), lambda L, x: L.zeros(2, 3).scatter(1, L.tensor([[0], [2]]), x[:, :1]),
    lambda L, x: x.scatter_add(1, L.tensor([[0, 0], [2, 2]]), x[:, :2]), lambda L, x: x.scatter(0, L.tensor([[1, 0, 1]]), 5.0),
    lambda L, x: x.repeat_interleave(2, 1), lambda L, x: L.tile(x, (2,)), lambda L, x: x.contiguous().view(6)[::2],
]


@pytest.mark.parametrize('i', range(len(VIEW_CASES)))
def test_views_and_joins(i):
    check(VIEW_CASES[i], A)


def test_views_share_storage_and_version():
    x = mt.zeros(2, 3)
    v = x.T; v[0, 1] = 5.
    assert x[1, 0].item() == 5. and x._version == v._version == 1
    assert x.view(6).data_ptr() == x.data_ptr() and x[1].data_ptr() != x.data_ptr()
    with pytest.raises(RuntimeError, match='view size is not compatible'):
        x.T.view(6)


INDEX_CASES = [
    lambda L, x: x[1], lambda L, x: x[-1, 1:], lambda L, x: x[:, ::2], lambda L, x: x[..., None, 1],
    lambda L, x: x[None, :, None], lambda L, x: x[[0, 0, 1]], lambda L, x: x[[0, 1], [2, 2]],
    lambda L, x: x[:, [0, 0, 2]], lambda L, x: x[x > 0], lambda L, x: x[L.tensor([True, False])],
    lambda L, x: x[L.tensor([[0, 1], [1, 1]])], lambda L, x: x[1, [2, 0]], lambda L, x: x[L.tensor(1)],
    lambda L, x: x[:, L.tensor([2, 2, 2])],
]


@pytest.mark.parametrize('i', range(len(INDEX_CASES)))
def test_indexing_read(i):
    check(INDEX_CASES[i], A)


def test_indexing_errors():
    x = mt.ones(2, 3)
    with pytest.raises(IndexError, match='index 5 is out of bounds for dimension 0 with size 2'): x[5]
    with pytest.raises(IndexError, match='out of bounds'): x[[0, 7]]
    with pytest.raises(ValueError, match='step must be greater than zero'): x[::-1]
    with pytest.raises(IndexError): x[0, 0, 0]


def _setitem_program(L):
    x = L.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    w = L.tensor([0.5, -1.5], requires_grad=True)
    y = x * 1
    y[0, 1] = 10.
    y[:, 0] = w
    y[y > 5] = 0.
    y[[1, 1], [2, 2]] = w.sum()
    y[1] += w[0]
    z = y.clone(); z.mul_(x).add_(w[1]).clamp_(max=20.)
    h = L.zeros(3); h[1] = w[0] * 3
    loss = (z * z).sum() + (h * h).sum()
    loss.backward()
    return y.detach().tolist(), z.detach().tolist(), x.grad.tolist(), w.grad.tolist()


def test_setitem_and_inplace_gradients():
    t, m = _setitem_program(torch), _setitem_program(mt)
    for a, b in zip(t, m): np.testing.assert_allclose(np.array(b), np.array(a), rtol=1e-6)


def test_inplace_ops_values_and_rules():
    for name, args in [('add_', (1.5,)), ('sub_', (mt.ones(3),)), ('mul_', (2,)), ('div_', (4,)), ('zero_', ()),
                       ('fill_', (7,)), ('clamp_', (0.5, 1.0)), ('pow_', (2,)), ('neg_', ()), ('exp_', ())]:
        t = torch.tensor([0.25, 1.5, 3.0]); m = mt.tensor([0.25, 1.5, 3.0])
        targs = tuple(torch.tensor(a.numpy()) if isinstance(a, mt.Tensor) else a for a in args)
        r = getattr(m, name)(*args)
        getattr(t, name)(*targs)
        assert r is m and m._version == 1
        np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-6)
    x = mt.ones(3, dtype=mt.float32); x += mt.tensor([1, 2, 3])
    assert x.dtype is mt.float32 and x.tolist() == [2., 3., 4.]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        y = mt.tensor([1, 2]); y += 1.5
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        mt.ones(3).add_(mt.ones(2, 3))
    p = mt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match='a leaf Variable that requires grad is being used in an in-place operation'):
        p.mul_(2)
    with mt.no_grad():
        p.mul_(2); p -= 1
    assert p.tolist() == [1., 1.] and p.requires_grad and p.is_leaf
    c = mt.ones(2); c.copy_(mt.tensor([3, 4])); assert c.tolist() == [3., 4.]
    u = mt.empty(1000).uniform_(-1, 1); assert -1 <= u.min().item() and u.max().item() < 1
    n = mt.empty(1000).normal_(2., 0.5); assert abs(n.mean().item() - 2) < 0.1


@pytest.mark.parametrize('f', [
    lambda L, x: x.sort()[0], lambda L, x: x.sort(0, descending=True)[0], lambda L, x: x.sort(1)[1],
    lambda L, x: x.argsort(1), lambda L, x: x.topk(2)[0], lambda L, x: x.topk(1, 0, largest=False)[1],
])
def test_sort_topk(f):
    check(f, A)


def test_new_factories():
    x = mt.ones(2, dtype=mt.float64)
    assert x.new_zeros(3).dtype is mt.float64 and x.new_ones((2, 2)).shape == (2, 2)
    assert x.new_full((2,), 3).tolist() == [3., 3.] and x.new_tensor([1, 2]).dtype is mt.float64


def test_unique_bincount():
    for L in (torch, mt):
        x = L.tensor([3, 1, 1, 2])
        r = (x.unique().tolist(), [v.tolist() for v in x.unique(return_inverse=True, return_counts=True)],
             x.bincount().tolist(), L.tensor([0, 2, 2]).bincount(L.tensor([1., 2., 3.])).tolist())
        if L is torch: want = r
    assert r == want


def test_fill_and_zero_on_0d_tensors():
    import torch
    for lib in (mt, torch):
        t = lib.tensor(3)
        t.zero_()
        assert t.item() == 0
        t.fill_(5)
        assert t.item() == 5 and t.shape == ()
    mt.nn.BatchNorm1d(3).reset_running_stats()


def test_t_and_transpose_gradients_record_their_own_node():
    "With create_graph, the gradient through `t()` is made by `t` (TBackward0), through `transpose` by transpose."
    w0 = np.random.rand(3, 4).astype(np.float32)
    for f in (lambda w: w.t(), lambda w: w.transpose(0, 1), lambda w: w.mT):
        names = []
        for lib in (mt, torch):
            w = lib.tensor(w0, requires_grad=True)
            g, = lib.autograd.grad((f(w) ** 2).sum(), w, create_graph=True)
            names.append(g.grad_fn.name())
            (g * g).sum().backward()
            names.append(np.asarray(w.grad.tolist()))
        assert names[0] == names[2]
        np.testing.assert_allclose(names[1], names[3], rtol=1e-6)
