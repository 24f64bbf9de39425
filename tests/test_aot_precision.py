"""AOT autograd and decomposition (nbs/25c, 25d) record what the program computed: `square` is `pow(x, 2)` with its
exponent, and low-precision normalisations are decomposed in float32, so compiled values and gradients equal eager's
and torch's."""
import numpy as np
import pytest
import torch
import minitorch as mt
from minitorch import nn
from minitorch.compiler.graph import GraphModule
from minitorch.compiler.aot import make_joint, decompose
from minitorch.compiler.decompositions import decompose_to_prims
from minitorch._dynamo import compile as mcompile

def _t(x, dtype=None):
    t = torch.from_numpy(np.array(x.detach().float().numpy() if x.dtype in (mt.float16, mt.bfloat16) else x.detach().numpy()))
    return t.to(getattr(torch, dtype)) if dtype else t

def close(a, b, **kw): torch.testing.assert_close(_t(a).double(), (b if isinstance(b, torch.Tensor) else _t(b)).detach().double(), **kw)

def _pows(g): return [n for n in g.nodes if getattr(n.target, '__name__', '') == 'pow']

def test_square_is_recorded_as_pow_with_exponent():
    x = mt.randn(2, 3, requires_grad=True)
    assert [n.args[1:] for n in _pows(decompose(lambda x: x.square(), [x]))] == [(2,)]
    joint, _, _ = make_joint(lambda x: x.square().sum(), [x])
    assert [n.args[1:] for n in _pows(joint)] == [(2,)]
    out = GraphModule({}, joint)(x, mt.ones(()))
    close(out[0], (x * x).sum()); close(out[1], 2 * x)

@pytest.mark.parametrize('backend', ['eager', 'aot_eager'])
def test_square_compiled_values_and_grads_match_eager_and_torch(backend):
    def f(T, x, w): return ((x.square() * w).sum(-1).square() + w.square().mean()).sum()
    mt.manual_seed(0)
    x, w = mt.randn(4, 3, requires_grad=True), mt.randn(3, requires_grad=True)
    xe, we = (t.detach().clone().requires_grad_() for t in (x, w))
    xt, wt = (_t(t).requires_grad_() for t in (x, w))
    c = mcompile(lambda x, w: f(mt, x, w), backend=backend)
    y = c(x, w); y.backward(); ye = f(mt, xe, we); ye.backward(); yt = f(torch, xt, wt); yt.backward()
    close(y, ye); close(y, yt)
    for a, b, t in ((x, xe, xt), (w, we, wt)): close(a.grad, b.grad); close(a.grad, t.grad)

def test_square_in_a_joint_graph_decomposes_to_prims():
    x = mt.randn(2, 3, requires_grad=True)
    joint, _, _ = make_joint(lambda x: (x.square() * 3).sum(), [x], decompose=False)
    jgm = GraphModule({}, joint)
    gm, tr = decompose_to_prims(jgm.forward, [x, mt.ones(())])
    assert dict(tr.fallbacks) == {}                     # pow(x) without its exponent used to stay whole
    assert all(n.target.__name__ != 'pow' or n.args[1:] == (2,) for n in gm.graph.nodes if n.op == 'call_function')
    for a, b in zip(gm(x, mt.ones(())), jgm(x, mt.ones(()))): close(a, b)
    xg = x.detach().clone().requires_grad_()               # the decomposed forward differentiates like eager
    gm2, _ = decompose_to_prims(lambda x: (x.square() * 3).sum(), [xg])
    gm2(xg).backward(); close(xg.grad, 6 * x)

@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('shape', [(4, 1), (2, 3, 1), (5, 6)])
def test_aot_eager_low_precision_layer_norm_grads(dtype, shape):
    mt.manual_seed(1)
    ln = nn.LayerNorm(shape[-1])
    with mt.no_grad(): ln.weight.copy_(mt.randn(shape[-1])); ln.bias.copy_(mt.randn(shape[-1]))
    ln = ln.to(getattr(mt, dtype))
    tl = torch.nn.LayerNorm(shape[-1]).to(getattr(torch, dtype))
    with torch.no_grad(): tl.weight.copy_(_t(ln.weight)); tl.bias.copy_(_t(ln.bias))
    x = mt.randn(*shape).to(getattr(mt, dtype)).requires_grad_()
    xe, xt = x.detach().clone().requires_grad_(), _t(x, dtype).requires_grad_()
    g = mt.randn(*shape).to(getattr(mt, dtype))
    c = mcompile(ln, backend='aot_eager')
    y = c(x); (y * g).sum().backward()
    grads = [x.grad, ln.weight.grad.clone(), ln.bias.grad.clone()]; ln.zero_grad()
    (ln(xe) * g).sum().backward()
    (tl(xt) * _t(g, dtype)).sum().backward()
    tol = dict(rtol=2e-2, atol=2e-2)
    close(y, ln(xe), **tol); close(y, tl(xt), **tol)
    for a, b, t in zip(grads, [xe.grad, ln.weight.grad, ln.bias.grad], [xt.grad, tl.weight.grad, tl.bias.grad]):
        assert not a.isnan().any().item()
        close(a, b, **tol); close(a, t, **tol)

def test_low_precision_softmax_decomposes_in_float32():
    x = mt.randn(3, 7).half()
    g = decompose(lambda x: x.softmax(-1), [x])
    out = GraphModule({}, g)(x)
    assert out.dtype == mt.float16
    close(out, x.softmax(-1), rtol=0, atol=0)            # one rounding at the end, as eager
    g2 = decompose(lambda x: x.softmax(-1, dtype=mt.float32), [x])
    assert GraphModule({}, g2)(x).dtype == mt.float32

def test_view_is_recorded_without_its_copy_flag():
    "view/reshape's Function takes an internal copy flag: recorded as torch records it, reshape(x, shape) / view(x, shape)."
    mt.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 3))
    params, x = list(net.parameters()), mt.randn(4, 5)
    joint, _, _ = make_joint(lambda x: net(x).log_softmax(-1).sum(), [x], params)
    views = [n for n in joint.nodes if getattr(n.target, '__name__', '') in ('view', 'reshape')]
    assert views and all(len(n.args) == 2 for n in views)
    jgm = GraphModule({}, joint)
    gm, tr = decompose_to_prims(jgm.forward, [x, *params, mt.ones(())])
    assert 'view' not in tr.fallbacks and 'reshape' not in tr.fallbacks
    for a, b in zip(gm(x, *params, mt.ones(())), jgm(x, *params, mt.ones(()))): close(a, b)
    y = x.t().contiguous().t()                              # not contiguous: reshape copies where view cannot
    jv, _, _ = make_joint(lambda x: x.reshape(20).sum(), [y.requires_grad_()])
    close(GraphModule({}, jv)(y, mt.ones(()))[1], mt.ones(4, 5))
