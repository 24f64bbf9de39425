"""More small programs whose graph and break counts equal `torch._dynamo.explain`'s (chapter 25a/25b): inlined user
functions, comprehensions and lambdas (MAKE_FUNCTION with closures), Python-valued branches (no break), breaks on
data-dependent branches, print and tolist; each compiled program equals eager (eager and aot_eager backends)."""
import textwrap
import numpy as np
import pytest
import torch
import torch._dynamo as tdynamo
import minitorch as mt
from minitorch import _dynamo as mdynamo

MORE = {
 'nested_call': ('''
    def g(x): return x.sin()
    def f(x): return g(x) * 2''', lambda T: (T.randn(3),)),
 'int_branch': ('''
    def f(x, n):
        if n > 2: return x * 2
        return x + 1''', lambda T: (T.randn(3), 3)),
 'shape_branch': ('''
    def f(x):
        if x.shape[0] > 2: return x.cos()
        return x.sin()''', lambda T: (T.randn(3),)),
 'two_data_ifs': ('''
    def f(x):
        if x.sum() > 0: x = x * 2
        if x.mean() > 100: x = x - 1
        return x.exp()''', lambda T: (T.randn(4),)),
 'listcomp': ('''
    def f(x):
        return sum([x * i for i in range(3)])''', lambda T: (T.randn(3),)),
 'closure_const': ('''
    def make(k):
        def f(x): return x * k + 1
        return f
    f = make(3)''', lambda T: (T.randn(3),)),
 'dict_of_tensors': ('''
    def f(d):
        return d['a'] * d['b'] + 1''', lambda T: ({'a': T.randn(3), 'b': T.randn(3)},)),
 'print_twice': ('''
    def f(x):
        print("a")
        x = x + 1
        print("b")
        return x * 2''', lambda T: (T.randn(3),)),
 'tolist': ('''
    def f(x):
        y = x * 2
        v = y.tolist()
        return y + len(v)''', lambda T: (T.randn(3),)),
 'module_call': ('''
    lin = T.nn.Linear(3, 2)
    def f(x): return lin(x).relu()''', lambda T: (T.randn(4, 3),)),
 'lambda_closure': ('''
    def f(x):
        h = lambda y: y.sin() + x
        return h(x) * 2''', lambda T: (T.randn(3),)),
 'while_loop': ('''
    def f(x):
        i = 0
        while i < 3:
            x = x * 2; i += 1
        return x''', lambda T: (T.randn(3),)),
 'data_dep_while': ('''
    def f(x):
        x = x + 1
        if x.max() > 0: return x.relu()
        else: return x.abs()''', lambda T: (T.randn(3),)),
}

def _conv(a):
    if isinstance(a, torch.Tensor): return mt.tensor(a.numpy())
    if isinstance(a, dict): return {k: _conv(v) for k, v in a.items()}
    return a

def _load(src, T):
    ns = {'T': T}; exec(textwrap.dedent(src), ns); return ns['f']

@pytest.mark.parametrize('name', list(MORE))
def test_explain_counts_match_torch(name, capsys):
    src, make = MORE[name]
    torch.manual_seed(0); targs = make(torch); margs = tuple(_conv(a) for a in targs)
    tdynamo.reset(); mdynamo.reset()
    tf, mf = _load(src, torch), _load(src, mt)
    if name == 'module_call':           # the same weights in both
        mf.__globals__['lin'].weight.data = mt.tensor(tf.__globals__['lin'].weight.detach().numpy())
        mf.__globals__['lin'].bias.data = mt.tensor(tf.__globals__['lin'].bias.detach().numpy())
    te, me = tdynamo.explain(tf)(*targs), mdynamo.explain(mf)(*margs)
    assert (me.graph_count, me.graph_break_count) == (te.graph_count, te.graph_break_count)
    assert me.graph_count >= 1
    if name.startswith(('two_data', 'data_dep')):
        assert {r.reason for r in me.break_reasons} == {str(r.reason) for r in te.break_reasons}

@pytest.mark.parametrize('name', list(MORE))
@pytest.mark.parametrize('backend', ['eager', 'aot_eager'])
def test_compiled_equals_eager(name, backend, capsys):
    src, make = MORE[name]
    f = _load(src, mt); mdynamo.reset(); cf = mdynamo.compile(f, backend=backend)
    for seed in range(3):
        mt.manual_seed(seed); args = make(mt)
        torch.testing.assert_close(torch.from_numpy(np.asarray(cf(*args).detach().numpy())),
                                   torch.from_numpy(np.asarray(f(*args).detach().numpy())))

def test_comprehension_reads_the_current_value_of_its_cell():
    "A listcomp closes over the frame's variable: a rebinding before the comprehension is what it sees."
    def f(x):
        y = x + 1
        y = y * 3
        return mt.stack([y * i for i in range(2)])
    mdynamo.reset(); x = mt.randn(3)
    torch.testing.assert_close(torch.from_numpy(mdynamo.compile(f, backend='eager')(x).numpy()), torch.from_numpy(f(x).numpy()))
    assert mdynamo.explain(f)(x).graph_count == 1

from hypothesis import given, settings, strategies as st

@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=0, max_size=3), dtype=st.sampled_from(['float32', 'float64', 'int64', 'int32']),
       backend=st.sampled_from(['eager', 'aot_eager']), k=st.integers(1, 3))
def test_compiled_matches_torch_over_dtypes(shape, dtype, backend, k):
    "Values (and, for floats, gradients) of a compiled program equal torch's, over shapes, dtypes, a Python int."
    def f(T, x, y, k):
        z = x * k + y.abs()
        w = (z - 1) * (z > 0)
        return w.sum(-1) if w.dim() else w, (w * 2).amax()
    rng = np.random.default_rng(len(shape) * 7 + k)
    xn, yn = (rng.integers(-5, 5, shape) if 'int' in dtype else rng.standard_normal(shape)).astype(dtype), \
             (rng.integers(-5, 5, shape) if 'int' in dtype else rng.standard_normal(shape)).astype(dtype)
    grad = 'float' in dtype
    xm, ym = mt.tensor(xn, requires_grad=grad), mt.tensor(yn, requires_grad=grad)
    xt, yt = torch.tensor(xn, requires_grad=grad), torch.tensor(yn, requires_grad=grad)
    mdynamo.reset()
    cf = mdynamo.compile(lambda x, y, k: f(mt, x, y, k), backend=backend)
    om, ot = cf(xm, ym, k), f(torch, xt, yt, k)
    for a, b in zip(om, ot):
        assert str(a.dtype).split('.')[-1] == str(b.dtype).split('.')[-1]
        torch.testing.assert_close(torch.from_numpy(np.asarray(a.detach().numpy())), b.detach())
    if grad:
        (om[0].sum() + om[1]).backward(); (ot[0].sum() + ot[1]).backward()
        for a, b in ((xm, xt), (ym, yt)): torch.testing.assert_close(torch.from_numpy(np.asarray(a.grad.numpy())), b.grad)

from minitorch import nn as mnn

def _models():
    mt.manual_seed(1)
    return {
        'conv_net': (mnn.Sequential(mnn.Conv2d(2, 4, 3, padding=1), mnn.BatchNorm2d(4), mnn.ReLU(), mnn.MaxPool2d(2),
                                    mnn.Flatten(), mnn.Linear(4 * 2 * 2, 3)), lambda: (mt.randn(2, 2, 4, 4),)),
        'embedding_layernorm': (mnn.Sequential(mnn.Embedding(10, 6), mnn.LayerNorm(6), mnn.GELU(), mnn.Linear(6, 2)),
                                lambda: (mt.randint(0, 10, (3, 5)),)),
        'mha': (mnn.MultiheadAttention(8, 2, batch_first=True), lambda: (mt.randn(2, 4, 8),) * 3),
        'gru': (mnn.GRU(4, 5, batch_first=True), lambda: (mt.randn(2, 3, 4),)),
        'transformer_decoder_layer': (mnn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
                                      lambda: (mt.randn(2, 3, 8), mt.randn(2, 4, 8))),
    }

@pytest.mark.parametrize('name', ['conv_net', 'embedding_layernorm', 'mha', 'gru', 'transformer_decoder_layer'])
@pytest.mark.parametrize('backend', ['eager', 'aot_eager'])
def test_nn_modules_compiled_equal_eager(name, backend):
    "Layers of the nn chapters, compiled: outputs and parameter gradients equal eager's (train mode: batch-norm stats)."
    m, make = _models()[name]
    args = make()
    first = lambda o: o[0] if isinstance(o, tuple) else o
    mdynamo.reset()
    y1 = first(mdynamo.compile(m, backend=backend)(*args)); y1.sum().backward()
    g1 = [p.grad.clone() for p in m.parameters()]; m.zero_grad()
    if name == 'conv_net':                                   # running stats moved once: reset to compare
        m[1].running_mean.zero_(); m[1].running_var.fill_(1.)
    y0 = first(m(*args)); y0.sum().backward()
    torch.testing.assert_close(torch.from_numpy(np.asarray(y1.detach().numpy())), torch.from_numpy(np.asarray(y0.detach().numpy())))
    for a, p in zip(g1, m.parameters()):
        torch.testing.assert_close(torch.from_numpy(np.asarray(a.numpy())), torch.from_numpy(np.asarray(p.grad.numpy())), atol=1e-5, rtol=1e-4)

def test_each_guard_recompiles_like_torch():
    "One program, a sequence of changed assumptions; after each, the number of compiles equals torch's and no stale graph runs."
    src = '''
        K = 2
        def f(x): return (x * K).sin().sum(0)'''
    tf, mf = _load(src, torch), _load(src, mt)
    calls = {'t': 0, 'm': 0}
    def tb(gm, ex): calls['t'] += 1; return gm.forward
    def mb(gm, ex): calls['m'] += 1; return gm.forward
    tdynamo.reset(); mdynamo.reset()
    ctf, cmf = torch.compile(tf, backend=tb), mdynamo.compile(mf, backend=mb)
    steps = [('first', lambda: None, np.float32, (3, 2), False), ('same', lambda: None, np.float32, (3, 2), False),
             ('dtype', lambda: None, np.float64, (3, 2), False), ('requires_grad', lambda: None, np.float64, (3, 2), True),
             ('global int', lambda: (tf.__globals__.update(K=3), mf.__globals__.update(K=3)), np.float64, (3, 2), True),
             ('shape', lambda: None, np.float64, (4, 2), True)]
    rng = np.random.default_rng(0)
    for name, change, dt, shape, rg in steps:
        change()
        xn = rng.standard_normal(shape).astype(dt)
        got = cmf(mt.tensor(xn, requires_grad=rg)); want = ctf(torch.tensor(xn, requires_grad=rg))
        torch.testing.assert_close(torch.from_numpy(np.asarray(got.detach().numpy())), want.detach())
        assert calls['m'] == calls['t'], (name, calls)
    with torch.no_grad(), mt.no_grad():                  # grad mode
        xn = rng.standard_normal((4, 2))
        cmf(mt.tensor(xn, requires_grad=True)); ctf(torch.tensor(xn, requires_grad=True))
    assert calls['m'] == calls['t'] == 6
