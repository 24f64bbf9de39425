"""The fast lanes of the hot path (issue 13) give exactly what the general path gives, and PyTorch's numbers."""
import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.unary_math import _sigmoid_grad


class _Log(mt.overrides.TorchFunctionMode):
    "A function mode that writes down the op-table name of each call it sees."
    def __init__(self, seen: list):
        super().__init__()
        self.seen = seen
    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(mt.dispatch.op_name(func))
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("op", ["__mul__", "__add__", "__rmul__", "__radd__"])
def test_operator_kernel_lane_matches_the_recorded_path(op):
    a, b = mt.tensor([1.5, -2.0, 3.25]), mt.tensor([0.5, 4.0, -1.0])
    plain = getattr(a, op)(b)   # nothing requires grad: the door runs the kernel
    assert plain.grad_fn is None and not plain.requires_grad
    ag = a.detach().requires_grad_()
    rec = getattr(ag, op)(b)   # recorded: same numbers, a node
    assert rec.grad_fn is not None
    np.testing.assert_array_equal(plain.numpy(), rec.detach().numpy())
    assert getattr(a, op)(2.0).tolist() == getattr(torch.tensor(a.tolist()), op)(2.0).tolist()


def test_kernel_lane_respects_inference_mode_and_modes():
    a, b = mt.ones(3), mt.ones(3)
    with mt.inference_mode():
        r = a * b
    assert r.is_inference() and not (a * b).is_inference()
    seen = []
    with _Log(seen):
        a * b
        a + 1.0
    assert seen == ['mul', 'add']


def test_zero_grad_without_children_and_with_a_none_bias():
    lin = mt.nn.Linear(3, 2, bias=False)
    lin(mt.ones(1, 3)).sum().backward()
    assert lin.weight.grad is not None
    lin.zero_grad()
    assert lin.weight.grad is None
    lin(mt.ones(1, 3)).sum().backward()
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad.tolist() == [[0.0] * 3] * 2


def test_module_call_without_hooks_then_with_a_hook():
    lin, calls = mt.nn.Linear(2, 2), []
    x = mt.ones(1, 2)
    y0 = lin(x)
    h = lin.register_forward_hook(lambda m, i, o: calls.append(o.shape))
    y1 = lin(x)
    h.remove()
    assert calls == [(1, 2)] and y0.tolist() == y1.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_sigmoid_backward_is_pytorch_kernel_bit_for_bit(dtype, create_graph):
    # torch's cpu kernel: g * (1 - y) * y; float16 rounds each step, bfloat16 only the end (float32 opmath)
    gen = torch.Generator().manual_seed(0)
    y = torch.sigmoid(torch.randn(2000, generator=gen, dtype=torch.float64) * 4).to(getattr(torch, dtype))
    g = torch.randn(2000, generator=gen, dtype=torch.float64).to(getattr(torch, dtype))
    ref = torch.ops.aten.sigmoid_backward(g, y)
    mg = mt.tensor(g.double().numpy(), dtype=getattr(mt, dtype))
    my = mt.tensor(y.double().numpy(), dtype=getattr(mt, dtype))
    if create_graph:
        got = _sigmoid_grad(mg, None, my)
    else:
        with mt.no_grad(): got = _sigmoid_grad(mg, None, my)
    np.testing.assert_array_equal(got.double().numpy(), ref.double().numpy())


def test_sigmoid_double_backward_matches_torch():
    x = [0.3, -1.2, 2.0]
    a, b = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ga, = mt.autograd.grad(mt.sigmoid(a).sum(), a, create_graph=True)
    gb, = torch.autograd.grad(torch.sigmoid(b).sum(), b, create_graph=True)
    ga.sum().backward(); gb.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("shape", [(0,), (), (2, 0), (3,)])
@pytest.mark.parametrize("dim", [0, 5])
def test_bool_inplace_scan_as_torch(op, shape, dim):
    # PyTorch has no bool cumsum/cumprod kernel, but an empty or 0-d tensor never reaches it
    def run(lib):
        t = lib.ones(shape, dtype=lib.bool)
        try:
            r = getattr(t, op)(dim)
            return ('ok', tuple(r.shape), r.tolist(), r is t)
        except Exception as e:   # noqa: BLE001
            return (type(e).__name__, str(e))
    assert run(mt) == run(torch)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(15, 2), (3, 5, 2)])
def test_16bit_linear_rounds_once_as_torch_addmm(dtype, shape):
    # PyTorch's linear is addmm: the product and the bias summed in float32, rounded once to the 16-bit type
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(shape), rng.standard_normal((3, 2)), rng.standard_normal(3)
    T = lambda a: torch.tensor(a).to(getattr(torch, dtype))
    M = lambda a: mt.tensor(a).to(getattr(mt, dtype))
    ref = torch.nn.functional.linear(T(x), T(w), T(b)).float().numpy()
    got = mt.nn.functional.linear(M(x), M(w), M(b)).float().numpy()
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("case", [
    lambda l: l.nn.functional.linear(l.zeros(2, 3, dtype=l.float16), l.zeros(4, 3), l.zeros(4)),
    lambda l: l.nn.functional.linear(l.zeros(2, 3), l.zeros(4, 3), l.zeros(4, dtype=l.float64)),
    lambda l: l.addmm(l.zeros(2, 3), l.zeros(2, 4), l.zeros(4, 3, dtype=l.long)),
    lambda l: l.addmm(l.zeros(2, 3, 2), l.zeros(2, 4), l.zeros(4, 3, dtype=l.long)),   # dtypes before dims
    lambda l: l.addmm(l.zeros(3, dtype=l.bool), l.zeros(2, 4, dtype=l.bool), l.zeros(4, 3, dtype=l.bool))])
def test_addmm_and_linear_dtype_errors_as_torch(case):
    def run(lib):
        try:
            case(lib)
            return 'ok'
        except Exception as e:   # noqa: BLE001
            return type(e).__name__, str(e)
    assert run(mt) == run(torch)


def test_threshold_inplace_writes_its_input_as_torch():
    for lib in (torch, mt):
        x = lib.tensor([-1.0, 0.5, 2.0])
        assert lib.nn.functional.threshold(x, 0.6, -5.0, inplace=True) is x
        assert x.tolist() == [-5.0, -5.0, 2.0]
        y = lib.tensor([-1.0, 0.5, 2.0])
        lib.nn.Threshold(0.6, -5.0, inplace=True)(y)
        assert y.tolist() == [-5.0, -5.0, 2.0]


def test_numpy_names_door_lane():
    # without keywords the door calls `sum` itself; with numpy's keywords it goes through the renaming wrapper
    x = mt.arange(6.0).reshape(2, 3)
    assert x.sum().item() == 15.0 and mt.sum(x, 1).tolist() == [3.0, 12.0]
    assert x.sum(axis=0).tolist() == [3.0, 5.0, 7.0] and x.sum(axis=1, keepdims=True).shape == (2, 1)
    with pytest.raises(TypeError):
        x.sum(axis=0, dim=0)
    seen = []
    with _Log(seen):
        x.sum()
        mt.mean(x, 0)
    assert seen == ['sum', 'mean']
