"""The dispatcher chapter (17a): the op table covers the public namespace, modes see what they must, nest, unwind,
stay per thread, and the two example modes (logging, FLOP counting) agree with PyTorch."""
import threading

import pytest
import torch
import torch.utils.flop_counter

import minitorch as mt
from minitorch import dispatch
from minitorch.autograd import _State
from minitorch.overrides import TorchFunctionMode
from minitorch.utils._python_dispatch import TorchDispatchMode
from minitorch.utils.flop_counter import FlopCounterMode


class Record(TorchDispatchMode):
    def __init__(self): self.ops = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(func.__name__)
        return func(*args, **(kwargs or {}))


class RecordFn(TorchFunctionMode):
    def __init__(self): self.ops = []
    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.ops.append(dispatch.op_name(func))
        return func(*args, **(kwargs or {}))


def test_every_public_callable_is_in_the_table():
    missing = [f"{getattr(ns, '__name__', ns)}.{attr}" for ns, attr, name in dispatch.public_ops()
               if dispatch.kind_of(name) == '?']
    assert missing == []


def test_every_table_op_has_a_door():
    for ns, attr, name in dispatch.public_ops():
        if dispatch.kind_of(name) is None: continue
        f = vars(ns)[attr] if ns is mt.Tensor else getattr(ns, attr)
        assert dispatch.op_name(f) is not None, f"{attr} has no door"
    assert dispatch.op_table['mul'].function is mt.ops.Mul
    assert dispatch.op_table['linear'].kind == 'matmul' and dispatch.op_table['add_'].kind == 'inplace'


def test_doors_keep_names_and_signatures():
    import inspect
    assert mt.mul.__name__ == 'mul' and 'input' in inspect.signature(mt.mul).parameters
    assert mt.nn.functional.linear.__doc__ and mt.Tensor.sum.__name__ == 'sum'


def test_dispatch_mode_sees_forward_backward_and_accumulation():
    lin = mt.nn.Linear(3, 2)
    x = mt.randn(4, 3, requires_grad=True)
    with Record() as r:
        y = lin(x)
        m = y > 0
        y2 = y.clone()
        y2.masked_fill_(~m, 0.0)
        z = mt.zeros(4, 2) + y2
        z.sum().backward()
    for op in ('linear', 'gt', 'clone', 'masked_fill_', 'zeros', 'add', 'sum', 'mm', 'accumulate_grad'):
        assert op in r.ops, op
    assert r.ops.count('accumulate_grad') == 3   # weight, bias, x
    assert x.grad is not None and lin.weight.grad is not None


def test_function_mode_sees_user_calls_only():
    x = mt.randn(3, requires_grad=True)
    with RecordFn() as r:
        y = mt.nn.functional.softmax(x * 2, dim=0)
        y[0].backward()
    assert r.ops[:3] == ['mul', 'softmax', 'index']
    assert 'accumulate_grad' not in r.ops and 'mm' not in r.ops   # backward's ops are below the public API


def test_function_mode_can_change_arguments():
    class Double(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if dispatch.op_name(func) == 'add': args = (args[0], args[1] * 2)
            return func(*args, **(kwargs or {}))
    with Double():
        assert (mt.ones(2) + mt.ones(2)).tolist() == [3.0, 3.0]
    assert (mt.ones(2) + mt.ones(2)).tolist() == [2.0, 2.0]


def test_modes_nest_and_unwind_on_exceptions():
    seen = []

    class Tag(TorchDispatchMode):
        def __init__(self, name): self.name = name
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((self.name, func.__name__))
            return func(*args, **(kwargs or {}))
    with pytest.raises(ValueError):
        with Tag('outer'), Tag('inner'):
            mt.ones(2) * 3
            raise ValueError
    assert seen == [('inner', 'ones'), ('outer', 'ones'), ('inner', 'mul'), ('outer', 'mul')]
    assert _State.dispatch_modes == [] and _State.function_modes == []
    assert mt.autograd._modes_on[0] == 0


def test_mode_raising_inside_handler_is_restored():
    class Boom(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None): raise KeyError('boom')
    m = Boom()
    with pytest.raises(KeyError):
        with m:
            mt.ones(2)
    assert _State.dispatch_modes == []


def test_modes_and_grad_mode_are_per_thread():
    out = {}

    def worker():
        out['grad'] = mt.is_grad_enabled()
        out['modes'] = list(_State.dispatch_modes)
        with Record() as r: mt.ones(1) + 1
        out['ops'] = r.ops
    with mt.no_grad(), Record() as main:
        t = threading.Thread(target=worker); t.start(); t.join()
        mt.ones(1)
    assert out == {'grad': True, 'modes': [], 'ops': ['ones', 'add']}
    assert main.ops == ['ones']


def test_forward_ad_runs_as_a_mode_under_another_mode():
    fwad = mt.autograd.forward_ad
    with Record() as r, fwad.dual_level():
        x = fwad.make_dual(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 0.0]))
        y = (x * x).sin()
        t = fwad.unpack_dual(y).tangent
    assert 'mul' in r.ops and 'sin' in r.ops
    import math
    assert t.tolist() == pytest.approx([2 * math.cos(1.0), 0.0])
    assert _State.dispatch_modes == []


def _torch_flops(fn):
    with torch.utils.flop_counter.FlopCounterMode(display=False) as c: fn()
    return c.get_total_flops()


def _mt_flops(fn):
    with FlopCounterMode(display=False) as c: fn()
    return c.get_total_flops()


def test_flop_counter_matches_torch_mlp():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    mm = mt.nn.Sequential(mt.nn.Linear(8, 16), mt.nn.ReLU(), mt.nn.Linear(16, 4))
    tx, mx = torch.randn(5, 8, requires_grad=True), mt.randn(5, 8, requires_grad=True)
    assert _mt_flops(lambda: mm(mx).sum().backward()) == _torch_flops(lambda: tm(tx).sum().backward())
    assert _mt_flops(lambda: mm(mx)) == _torch_flops(lambda: tm(tx))


def test_flop_counter_matches_torch_bmm_and_conv_forward():
    a, b = torch.randn(3, 4, 5), torch.randn(3, 5, 6)
    assert _mt_flops(lambda: mt.bmm(mt.randn(3, 4, 5), mt.randn(3, 5, 6))) == _torch_flops(lambda: torch.bmm(a, b))
    x, w = torch.randn(2, 3, 8, 8), torch.randn(4, 3, 3, 3)
    assert (_mt_flops(lambda: mt.nn.functional.conv2d(mt.randn(2, 3, 8, 8), mt.randn(4, 3, 3, 3), padding=1))
            == _torch_flops(lambda: torch.nn.functional.conv2d(x, w, padding=1)))


@pytest.mark.parametrize('name', sorted(dispatch.decompositions))
def test_decompositions_match_the_op_and_its_gradient(name):
    F = mt.nn.functional
    g = mt.Generator().manual_seed(0)
    r = lambda *s: mt.randn(*s, generator=g)
    x, w, b = r(5, 4).requires_grad_(), r(3, 4), r(3)
    cases = {
        'linear': (F.linear, (x, w, b)), 'softmax': (F.softmax, (x, 1)), 'log_softmax': (F.log_softmax, (x, 0)),
        'addmm': (mt.addmm, (b, x, w.t())), 'bmm': (mt.bmm, (r(2, 3, 4).requires_grad_(), r(2, 4, 5))),
        'baddbmm': (mt.baddbmm, (r(2, 3, 5), r(2, 3, 4).requires_grad_(), r(2, 4, 5))),
        'layer_norm': (F.layer_norm, (x, (4,), r(4), r(4))),
        'cross_entropy': (F.cross_entropy, (x, mt.tensor([0, 3, 1, 2, 0]))),
        'conv2d': (F.conv2d, (r(2, 3, 6, 5).requires_grad_(), r(4, 3, 3, 2), r(4), 2, 1)),
        'conv1d': (F.conv1d, (r(2, 3, 7).requires_grad_(), r(4, 3, 3), None, 1, 1)),
        'scaled_dot_product_attention': (F.scaled_dot_product_attention,
                                         (r(2, 3, 4).requires_grad_(), r(2, 5, 4), r(2, 5, 4))),
    }
    op, args = cases[name]
    want, got = op(*args), dispatch.decompositions[name](*args)
    assert mt.allclose(want, got, atol=1e-5, rtol=1e-4)
    leaf = next(a for a in args if isinstance(a, mt.Tensor) and a.requires_grad)
    gw, = mt.autograd.grad(want.sum(), leaf)
    gg, = mt.autograd.grad(got.sum(), leaf)
    assert mt.allclose(gw, gg, atol=1e-5, rtol=1e-4)


def test_post_accumulate_hooks_fire_once_in_order_and_callback_last():
    lin1, lin2 = mt.nn.Linear(3, 3), mt.nn.Linear(3, 1)
    order = []
    for name, p in [('w1', lin1.weight), ('b1', lin1.bias), ('w2', lin2.weight), ('b2', lin2.bias)]:
        p.register_post_accumulate_grad_hook(lambda p, name=name: order.append(name))

    def hook(_):
        mt.autograd.Variable._execution_engine.queue_callback(lambda: order.append('done'))
    x = mt.randn(2, 3)
    h = lin2(lin1(x))
    h.register_hook(hook)
    h.sum().backward()
    assert sorted(order[:4]) == ['b1', 'b2', 'w1', 'w2'] and order[4] == 'done' and len(order) == 5
    assert set(order[:2]) == {'w2', 'b2'}   # the last layer's gradients are final first


def _linear_counts(device):
    "Live bytes after a Linear(64, 64) forward on a (32, 64) batch, and after its backward (on `device`)."
    import gc
    from minitorch.tensor_data import memory_allocated
    lin = mt.nn.Linear(64, 64).to(device)
    x = mt.randn(32, 64, device=device)
    gc.collect()
    before = memory_allocated(device)
    y = lin(x)
    gc.collect()
    fwd = memory_allocated(device) - before
    y.sum().backward()
    gc.collect()
    return fwd, memory_allocated(device) - before


def test_memory_counters_equal_a_hand_count_cpu():
    from minitorch.tensor_data import count_cpu_memory
    with count_cpu_memory():
        fwd, bwd = _linear_counts('cpu')
    assert fwd == 32 * 64 * 4                               # the output
    assert bwd == fwd + 64 * 64 * 4 + 64 * 4                 # + weight.grad and bias.grad


@pytest.mark.skipif(not (mt.cuda.is_available() or mt.cuda.is_simulator()), reason="needs cuda or its simulator")
def test_memory_counters_equal_a_hand_count_cuda():
    fwd, bwd = _linear_counts('cuda')
    assert fwd == 32 * 64 * 4 and bwd == fwd + 64 * 64 * 4 + 64 * 4
    mt.cuda.reset_peak_memory_stats()
    assert mt.cuda.max_memory_allocated() == mt.cuda.memory_allocated()
