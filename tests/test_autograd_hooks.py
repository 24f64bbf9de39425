"""The autograd hooks that data-parallel training stands on, against torch."""
import pytest
import torch

import minitorch as mt
from minitorch.autograd import _grad_acc


@pytest.mark.parametrize("lib", [mt, torch], ids=["minitorch", "torch"])
def test_post_accumulate_grad_hook(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * x).sum().backward()
    (3 * x).sum().backward()
    assert seen == [[2.0, 4.0], [5.0, 7.0]]         # after accumulation, with the running .grad
    h.remove()
    (x * 1).sum().backward()
    assert len(seen) == 2
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(print)
    with pytest.raises(RuntimeError):
        lib.ones(2).register_post_accumulate_grad_hook(print)


def test_post_hooks_fire_in_the_order_gradients_become_final():
    lin1, lin2 = mt.nn.Linear(3, 4), mt.nn.Linear(4, 2)
    order = []
    for name, p in [("1.w", lin1.weight), ("1.b", lin1.bias), ("2.w", lin2.weight), ("2.b", lin2.bias)]:
        p.register_post_accumulate_grad_hook(lambda t, name=name: order.append(name))
    lin2(lin1(mt.randn(5, 3)).relu()).sum().backward()
    assert order == ["2.b", "2.w", "1.b", "1.w"]      # each once, last layer first (torch's order)


def test_accumulate_grad_node_post_hook_fires():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    _grad_acc(x).register_hook(lambda grad_inputs, grad_outputs: calls.append(grad_outputs[0].tolist()))
    (2 * x).sum().backward()
    assert calls == [[2.0, 2.0]]


def test_leaf_gradients_are_final_in_torchs_order():
    "A leaf is accumulated as soon as all of its gradients have arrived, so hooks fire in PyTorch's order."
    orders = []
    for lib in (mt, torch):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(6, 5), lib.nn.ReLU(), lib.nn.Linear(5, 4), lib.nn.Tanh(),
                              lib.nn.Linear(4, 2))
        order = []
        for name, p in m.named_parameters():
            p.register_post_accumulate_grad_hook(lambda t, name=name: order.append(name))
        (m(lib.randn(3, 6)) ** 2).mean().backward()
        orders.append(order)
    assert orders[0] == orders[1], orders
