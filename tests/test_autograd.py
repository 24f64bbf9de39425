"The autograd engine: graph structure, topological order, accumulation, hooks, grad modes, errors; torch as oracle."
import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.backends import use_backend


@pytest.fixture(autouse=True)
def numpy_backend():
    "The engine is backend-independent: run it on the reference backend (fast to start)."
    with use_backend('numpy'):
        yield
from minitorch.autograd import topological_sort, gradcheck, gradgradcheck, _accumulate, Function


def leaf(v, L=mt, dtype=None):
    return L.tensor(v, requires_grad=True, dtype=dtype)


@pytest.mark.task7_1
def test_topological_sort_orders_consumers_first():
    x = leaf([1., 2.])
    a = x * 2; b = a.exp(); c = a + b; d = c.sum()
    order = topological_sort([d.grad_fn])
    pos = {n: i for i, n in enumerate(order)}
    for n in order:
        for nxt, _ in n.next_functions:
            if nxt is not None: assert pos[n] < pos[nxt]
    assert order[0] is d.grad_fn and len(order) == 5      # Sum, Add, Exp, Mul, AccumulateGrad
    assert order[-1] is x.grad_fn or type(order[-1]).__name__ == 'AccumulateGrad'


@pytest.mark.task7_1
def test_topological_sort_deep_chain_no_recursion_limit():
    x = leaf([1.])
    y = x
    for _ in range(3000): y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


@pytest.mark.task7_2
def test_accumulate_buffer():
    buf = [None, None]
    _accumulate(buf, 1, mt.tensor([1.]))
    _accumulate(buf, 1, mt.tensor([2.]))
    assert buf[0] is None and buf[1].tolist() == [3.]


@pytest.mark.task7_2
def test_paths_meet_and_leaf_grads_accumulate():
    for L in (torch, mt):
        x = leaf([1., 2., 3.], L)
        y = x * x + x.exp() * x           # x used along several paths
        y.sum().backward()
        (x * 3).sum().backward()          # accumulates into .grad
        if L is torch: want = x.grad.numpy()
        else: np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)


def test_graph_attributes_like_torch():
    x = leaf([1., 2.]); w = mt.tensor([3., 4.])
    y = x * w
    assert y.grad_fn.name() == 'MulBackward0' and not y.is_leaf and x.is_leaf
    (acc, _), (none, _) = y.grad_fn.next_functions
    assert type(acc).__name__ == 'AccumulateGrad' and acc.variable is x and none is None
    assert repr(y).endswith('grad_fn=<MulBackward0>)')
    assert (x + 1).grad_fn.name() == 'AddBackward0' and x.sum().grad_fn.name() == 'SumBackward0'


def test_backward_errors():
    x = leaf([1., 2.])
    y = (x * x).sum(); y.backward()
    with pytest.raises(RuntimeError, match='Trying to backward through the graph a second time'):
        y.backward()
    with pytest.raises(RuntimeError, match='grad can be implicitly created only for scalar outputs'):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match='element 0 of tensors does not require grad'):
        mt.tensor([1.]).sum().backward()
    with pytest.raises(RuntimeError, match='a leaf Variable that requires grad is being used in an in-place'):
        x.add_(1)
    z = x.exp(); z.add_(1)
    with pytest.raises(RuntimeError, match='modified by an inplace operation'):
        z.sum().backward()


def test_retain_graph_and_gradient_argument():
    x = leaf([1., 2.])
    y = x * x
    y.backward(mt.tensor([1., 0.5]), retain_graph=True)
    y.backward(mt.tensor([1., 1.]))
    assert x.grad.tolist() == [4., 6.]


def test_autograd_grad_and_create_graph():
    for L in (torch, mt):
        x = leaf([1., 2.], L)
        y = (x ** 3).sum()
        g, = L.autograd.grad(y, x, create_graph=True)
        g2, = L.autograd.grad(g.sum(), x)
        if L is torch: want = (g.detach().numpy(), g2.numpy())
        else:
            np.testing.assert_allclose(g.detach().numpy(), want[0]); np.testing.assert_allclose(g2.numpy(), want[1])
            assert x.grad is None
    with pytest.raises(RuntimeError, match='appears to not have been used'):
        mt.autograd.grad(leaf([1.]).sum(), [leaf([1.])])
    assert mt.autograd.grad(leaf([1.]).sum(), [leaf([1.])], allow_unused=True) == (None,)


def test_hooks_and_retain_grad():
    out = []
    for L in (torch, mt):
        x = leaf([1., 2.], L)
        y = x * 2; y.retain_grad()
        y.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: g + 1)
        (y * y).sum().backward()
        out.append((x.grad.tolist(), y.grad.tolist()))
    assert out[0] == out[1]


def test_grad_modes():
    x = leaf([1.])
    with mt.no_grad():
        assert not (x * 2).requires_grad and not mt.is_grad_enabled()
        with mt.enable_grad(): assert (x * 2).requires_grad
    @mt.no_grad()
    def f(): return x * 2
    assert not f().requires_grad and mt.is_grad_enabled()
    with mt.set_grad_enabled(False): assert not (x * 2).requires_grad
    assert mt.is_grad_enabled()
    with mt.inference_mode():
        y = x * 2
    assert y.is_inference() and not y.requires_grad
    with pytest.raises(RuntimeError, match='Inference tensors cannot be saved for backward'):
        x * y
    with pytest.raises(RuntimeError, match='Inplace update to inference tensor outside InferenceMode'):
        y.add_(1)
    assert not y.clone().is_inference()


def test_custom_function():
    class MyExp(Function):
        @staticmethod
        def forward(ctx, x, k):
            y = x.exp() * k
            ctx.save_for_backward(y)
            assert ctx.needs_input_grad == (True, False)
            return y
        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y, None
    x = leaf([0.5, 1.])
    y = MyExp.apply(x, 2.0)
    assert type(y.grad_fn).__name__ == 'MyExpBackward'
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([0.5, 1.]), rtol=1e-6)


def test_inplace_rebases_history():
    res = []
    for L in (torch, mt):
        x = leaf([1., 2., 3.], L)
        y = x * 1; y[1] = 10; y.mul_(x); y[:2] *= 2
        h = L.zeros(3); a = leaf(2., L); h[0] = a * 3
        (y.sum() + (h * h).sum()).backward()
        res.append((x.grad.tolist(), a.grad.tolist(), y.tolist()))
    assert res[0] == res[1]


def test_broadcast_grad_and_dtype_cast():
    x = leaf([[1.], [2.]]); b = leaf([1., 2., 3.], dtype=mt.float64)
    (x * b).sum().backward()
    assert x.grad.shape == (2, 1) and x.grad.dtype is mt.float32 and b.grad.dtype is mt.float64
    assert x.grad.tolist() == [[6.], [6.]] and b.grad.tolist() == [3., 3., 3.]


def test_gradcheck_and_gradgradcheck():
    x = mt.tensor([[0.3, -0.7], [1.1, 0.4]], dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda t: (t @ t).tanh().softmax(1), (x,))
    assert gradgradcheck(lambda t: (t * t.sigmoid()).sum(0), (x,))
    with pytest.raises(RuntimeError, match='Jacobian mismatch'):
        gradcheck(lambda t: _Wrong.apply(t), (x,))


class _Wrong(Function):
    @staticmethod
    def forward(ctx, x): return x * 2
    @staticmethod
    def backward(ctx, g): return g * 3


def test_modified_saved_tensor_message_names_current_history():
    "A saved input is named by its grad_fn at backward time (CopySlices after a write through a view), an output by its node."
    def msg(L, case):
        x = L.ones(3, requires_grad=True)
        if case == 'view':
            b = x * 1; y = b.sin(); b[0].mul_(2)
        elif case == 'input':
            b = x * 1; y = b.sin(); b.add_(1)
        else:
            y = x.exp(); y.add_(1)
        with pytest.raises(RuntimeError) as e: y.sum().backward()
        return str(e.value)
    for case in ('view', 'input', 'output'):
        assert msg(mt, case) == msg(torch, case)
