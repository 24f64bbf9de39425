"""nn.Module against torch.nn.Module: registration, tree walks, state_dict, load_state_dict errors, hooks, repr."""
import copy
import math
from collections import OrderedDict

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn as nn


def mt(t, **kw):
    "A torch tensor as a minitorch tensor."
    return minitorch.tensor(t.detach().numpy(), **kw)


class MiniBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(minitorch.zeros(2, 3))
        self.register_buffer('count', minitorch.zeros(1))
        self.register_buffer('scratch', minitorch.zeros(1), persistent=False)
        self.lin = nn.Linear(3, 2)
        self.act = nn.ReLU()


class TorchBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(2, 3))
        self.register_buffer('count', torch.zeros(1))
        self.register_buffer('scratch', torch.zeros(1), persistent=False)
        self.lin = torch.nn.Linear(3, 2)
        self.act = torch.nn.ReLU()


def pair():
    "The same architecture in both libraries (with a shared submodule)."
    m = nn.Sequential(MiniBlock(), nn.ModuleList([MiniBlock(), nn.Linear(2, 2)]), nn.ModuleDict({'x': nn.Tanh()}))
    t = torch.nn.Sequential(TorchBlock(), torch.nn.ModuleList([TorchBlock(), torch.nn.Linear(2, 2)]),
                            torch.nn.ModuleDict({'x': torch.nn.Tanh()}))
    m.add_module('shared', m[0].lin)
    t.add_module('shared', t[0].lin)
    return m, t


@pytest.mark.task10_1
def test_named_parameters_match_torch():
    m, t = pair()
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == \
        [n for n, _ in t.named_parameters(remove_duplicate=False)]
    assert [n for n, _ in m[0].named_parameters(prefix='p', recurse=False)] == \
        [n for n, _ in t[0].named_parameters(prefix='p', recurse=False)]
    assert len(list(m.parameters())) == len(list(t.parameters()))
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in m.parameters())


@pytest.mark.task10_1
def test_state_dict_keys_and_values():
    m, t = pair()
    sd, tsd = m.state_dict(), t.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == list(tsd)
    assert 'scratch' not in ''.join(sd)
    for v in sd.values():
        assert not v.requires_grad
    assert list(m.state_dict(prefix='model.')) == list(t.state_dict(prefix='model.'))
    kv = m.state_dict(keep_vars=True)
    assert kv['0.w'] is m[0].w


@pytest.mark.task10_1
def test_state_dict_round_trip():
    m, t = pair()
    m.load_state_dict({k: mt(v) for k, v in t.state_dict().items()})
    for (k, v), (tk, tv) in zip(m.state_dict().items(), t.state_dict().items()):
        assert k == tk and np.array_equal(v.numpy(), tv.numpy())
    m2, _ = pair()
    res = m2.load_state_dict(m.state_dict())
    assert repr(res) == '<All keys matched successfully>'
    assert res.missing_keys == [] and res.unexpected_keys == []
    for a, b in zip(m.parameters(), m2.parameters()):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    w = m2[0].w
    m2.load_state_dict(m.state_dict())
    assert m2[0].w is w          # copied in place: the Parameter object is kept


def _msg(fn):
    with pytest.raises(RuntimeError) as e:
        fn()
    return str(e.value)


def test_load_state_dict_strict_errors_match_torch():
    ml, tl = nn.Linear(2, 3), torch.nn.Linear(2, 3)
    bad = {'weight': torch.zeros(4, 2), 'foo': torch.zeros(1)}
    m = _msg(lambda: ml.load_state_dict({k: mt(v) for k, v in bad.items()}))
    t = _msg(lambda: tl.load_state_dict(bad))
    assert m.replace('minitorch.', 'torch.') == t
    assert m.startswith('Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". ')
    # nested modules: prefixes in the keys
    ms, ts = nn.Sequential(nn.Linear(2, 2)), torch.nn.Sequential(torch.nn.Linear(2, 2))
    bad = {'0.weight': torch.zeros(2, 2), '0.extra': torch.zeros(1), '1.weight': torch.zeros(1)}
    assert _msg(lambda: ms.load_state_dict({k: mt(v) for k, v in bad.items()})) == \
        _msg(lambda: ts.load_state_dict(bad))


def test_load_state_dict_non_strict():
    ml, tl = nn.Linear(2, 3), torch.nn.Linear(2, 3)
    sd = {'weight': torch.ones(3, 2), 'x': torch.zeros(3)}
    r = ml.load_state_dict({k: mt(v) for k, v in sd.items()}, strict=False)
    tr = tl.load_state_dict(sd, strict=False)
    assert (r.missing_keys, r.unexpected_keys) == (tr.missing_keys, tr.unexpected_keys)
    assert np.array_equal(ml.weight.detach().numpy(), np.ones((3, 2)))
    # shape mismatches are errors even when not strict
    with pytest.raises(RuntimeError, match='size mismatch for weight'):
        ml.load_state_dict({'weight': minitorch.zeros(1, 2)}, strict=False)
    with pytest.raises(TypeError, match='Expected state_dict to be dict-like'):
        ml.load_state_dict([1, 2])


def test_load_state_dict_assign():
    ml = nn.Linear(2, 3)
    w = minitorch.ones(3, 2)
    ml.load_state_dict({'weight': w, 'bias': minitorch.zeros(3)}, assign=True)
    assert isinstance(ml.weight, nn.Parameter) and ml.weight.requires_grad
    assert np.array_equal(ml.weight.detach().numpy(), np.ones((3, 2)))


def test_repr_matches_torch():
    m, t = pair()
    assert repr(m).replace('Mini', 'Torch') == repr(t)
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])
    assert repr(layers) == repr(torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)] + [torch.nn.ReLU()]))
    assert repr(nn.Sequential(nn.Linear(2, 3), nn.ReLU())) == \
        'Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): ReLU()\n)'
    assert repr(nn.ModuleList()) == 'ModuleList()'


def test_registration_errors():
    m = nn.Module()
    with pytest.raises(KeyError, match='contain'):
        m.register_buffer('a.b', None)
    with pytest.raises(KeyError, match='empty'):
        m.register_parameter('', None)
    with pytest.raises(TypeError, match='parameter or None required|torch.nn.Parameter or None required'):
        m.register_parameter('p', minitorch.zeros(1))
    m.w = nn.Parameter(minitorch.zeros(1))
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'w'"):
        m.w = minitorch.zeros(1)
    m.w = None
    assert 'w' in m._parameters and m.w is None
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        m.nope
    with pytest.raises(AttributeError, match='before Module.__init__'):
        class Bad(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(minitorch.zeros(1))
        Bad()
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(1)
    del m.w
    assert 'w' not in m._parameters


def test_named_modules_children_buffers():
    m, t = pair()
    assert [n for n, _ in m.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in m.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert m.get_submodule('1.0.lin') is m[1][0].lin
    assert m.get_parameter('1.0.w') is m[1][0].w


def test_train_eval_requires_grad_zero_grad_apply():
    m, _ = pair()
    m.eval()
    assert all(not x.training for x in m.modules())
    m.train()
    assert all(x.training for x in m.modules())
    with pytest.raises(ValueError, match='boolean'):
        m.train('yes')
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    out = m[0].lin(minitorch.ones(4, 3)).sum()
    out.backward()
    assert m[0].lin.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert np.array_equal(m[0].lin.weight.grad.numpy(), np.zeros((2, 3)))
    m.zero_grad()
    assert m[0].lin.weight.grad is None
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen[-1] == 'Sequential' and seen[0] == 'Linear'


def test_to_dtype_keeps_parameters():
    bn = nn.BatchNorm1d(3)
    w = bn.weight
    bn.to(minitorch.float64)
    assert bn.weight is w and bn.weight.dtype == minitorch.float64
    assert bn.running_mean.dtype == minitorch.float64
    assert bn.num_batches_tracked.dtype == minitorch.int64       # integer buffers keep their dtype
    bn.float()
    assert bn.weight.dtype == minitorch.float32
    bn.double()
    assert bn.running_var.dtype == minitorch.float64
    with pytest.raises(TypeError, match='floating point or complex'):
        bn.to(minitorch.int32)
    bn.to('cpu')
    assert bn.weight.device.type == 'cpu'


def test_forward_hooks():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda mod, args, out: calls.append(tuple(out.shape)))
    out = lin(minitorch.ones(3, 2))
    assert calls == [(3, 2)]
    assert np.allclose(out.detach().numpy(), np.broadcast_to(lin.bias.detach().numpy(), (3, 2)))
    h1.remove()
    h2.remove()
    h2.remove()            # a second remove is a no-op
    lin(minitorch.ones(3, 2))
    assert calls == [(3, 2)]
    with lin.register_forward_hook(lambda mod, args, out: out * 0):
        assert lin(minitorch.ones(1, 2)).abs().sum().item() == 0
    assert lin(minitorch.ones(1, 2)).abs().sum().item() != 0
    kw = []
    lin.register_forward_hook(lambda mod, args, kwargs, out: kw.append(kwargs), with_kwargs=True)
    lin(input=minitorch.ones(1, 2))
    assert 'input' in kw[0]


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    assert isinstance(seq[:2], nn.Sequential) and len(seq[:2]) == 2
    with pytest.raises(IndexError):
        seq[3]
    seq.append(nn.Tanh())
    assert list(seq._modules) == ['0', '1', '2', '3']
    del seq[1]
    assert list(seq._modules) == ['0', '1', '2']
    od = nn.Sequential(OrderedDict([('a', nn.ReLU()), ('b', nn.Tanh())]))
    assert list(od._modules) == ['a', 'b']
    ml = nn.ModuleList([nn.ReLU()])
    ml.append(nn.Tanh()); ml.extend([nn.Sigmoid()]); ml.insert(0, nn.Identity())
    assert [type(x).__name__ for x in ml] == ['Identity', 'ReLU', 'Tanh', 'Sigmoid']
    assert len(ml[1:]) == 3
    md = nn.ModuleDict({'a': nn.ReLU()})
    md['b'] = nn.Tanh()
    assert list(md.keys()) == ['a', 'b'] and 'a' in md and len(md) == 2
    assert isinstance(md.pop('a'), nn.ReLU) and list(md) == ['b']


def test_parameter():
    p = nn.Parameter(minitorch.ones(2))
    assert p.requires_grad and p.is_leaf and isinstance(p, minitorch.Tensor)
    assert repr(p).startswith('Parameter containing:\ntensor(')
    q = nn.Parameter(minitorch.ones(2), requires_grad=False)
    assert not q.requires_grad
    assert tuple(nn.Parameter().shape) == (0,)
    c = copy.deepcopy(nn.Linear(2, 2))
    assert isinstance(c.weight, nn.Parameter)


def test_backward_hooks_match_torch():
    def seen(lin, x):
        out = []
        lin.register_full_backward_pre_hook(lambda m, go: out.append(('pre', [g.detach().numpy().copy() for g in go])))
        lin.register_full_backward_hook(
            lambda m, gi, go: out.append(('full', [None if g is None else g.detach().numpy().copy() for g in gi + go])))
        (lin(x) ** 2).sum().backward()
        return out
    for requires_grad in (True, False):
        tl, ol = torch.nn.Linear(2, 3), nn.Linear(2, 3)
        ol.load_state_dict({k: mt(v) for k, v in tl.state_dict().items()})
        x = torch.randn(4, 2)
        ts = seen(tl, x.clone().requires_grad_(requires_grad))
        os_ = seen(ol, mt(x, requires_grad=requires_grad))
        assert [k for k, _ in os_] == [k for k, _ in ts]
        for (_, a), (_, b) in zip(os_, ts):
            assert len(a) == len(b)
            for u, v in zip(a, b):
                assert (u is None and v is None) or np.allclose(u, v, atol=1e-5)
    # a hook may replace the input gradient
    lin = nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0,))
    x = minitorch.ones(1, 2, requires_grad=True)
    lin(x).sum().backward()
    assert np.all(x.grad.numpy() == 0) and lin.weight.grad is not None


def test_buffer_registers_like_torch():
    "nn.Buffer (PyTorch 2.5): assigning one registers a buffer; persistent=False keeps it out of the state_dict."
    import torch
    import minitorch
    import minitorch.nn as mnn

    def build(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = lib.nn.Buffer(lib.ones(2))
                self.b = lib.nn.Buffer(lib.zeros(3), persistent=False)
                self.lin = lib.nn.Linear(2, 2)
        return M()
    ours, theirs = build(minitorch), build(torch)
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert isinstance(ours.a, mnn.Buffer) and type(ours.a) is minitorch.Tensor
    assert not isinstance(minitorch.ones(1), mnn.Buffer)
    assert mnn.Buffer(minitorch.ones(2, requires_grad=True)).requires_grad
    ours.a = mnn.Buffer(minitorch.zeros(2), persistent=False)
    theirs.a = torch.nn.Buffer(torch.zeros(2), persistent=False)
    assert list(ours.state_dict()) == list(theirs.state_dict())
