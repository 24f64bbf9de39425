"Chapter 26: the inductor backend: fused numba kernels equal eager, fusion by kernel counts, the on-disk cache."
import os, subprocess, sys, textwrap
from pathlib import Path
os.environ.setdefault('MINITORCH_INDUCTOR_CACHE', str(Path(__file__).parents[1] / '.numba_cache' / 'inductor'))
import numpy as np
import pytest
import torch
import minitorch
from minitorch.compiler.inductor import counters, compile_fn, lower, schedule, kernel_count
from minitorch.compiler.aot import decompose

F = minitorch.nn.functional

def _t(a): return minitorch.from_numpy(a)
def _close(got, want): torch.testing.assert_close(torch.from_numpy(got.detach().numpy()), torch.from_numpy(np.asarray(want)))

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(3, 5), (2, 3, 4)])
def test_gelu_affine_one_kernel(dtype, shape):
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(dtype) for s in (shape, shape[-1:], shape[-1:]))
    f = lambda x, w, b: F.gelu(x * w + b)
    c = compile_fn(f, [_t(x), _t(w), _t(b)])
    assert c.kernel_count == 1
    want = torch.nn.functional.gelu(torch.from_numpy(x) * torch.from_numpy(w) + torch.from_numpy(b))
    _close(c(_t(x), _t(w), _t(b)), want)

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(4, 7), (2, 3, 5)])
def test_softmax_one_kernel(dtype, shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(dtype) * 4
    c = compile_fn(lambda x: minitorch.softmax(x, -1), [_t(x)])
    assert c.kernel_count == 1
    unfused = schedule(lower(c.graph), fuse=False)
    assert kernel_count(unfused) == 5            # amax, sub, exp, sum, div: five passes unfused
    _close(c(_t(x)), torch.softmax(torch.from_numpy(x), -1))

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_layer_norm_one_kernel(dtype):
    x = np.random.default_rng(2).standard_normal((5, 6)).astype(dtype)
    c = compile_fn(lambda x: F.layer_norm(x, (6,)), [_t(x)])
    assert c.kernel_count == 1
    _close(c(_t(x)), torch.nn.functional.layer_norm(torch.from_numpy(x), (6,)))

def test_matmul_extern_and_broadcast_row_input():
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((4, 6)), rng.standard_normal((6, 3)), rng.standard_normal((4, 1))
    f = lambda x, w, b: (x @ w + b).exp()
    c = compile_fn(f, [_t(x), _t(w), _t(b)])
    assert [s.kind for s in c.steps if not hasattr(s, 'space')] == ['extern'] and c.kernel_count == 1
    want = (torch.from_numpy(x) @ torch.from_numpy(w) + torch.from_numpy(b)).exp()
    _close(c(_t(x), _t(w), _t(b)), want)

def test_unsupported_op_falls_back_per_node():
    x = np.random.default_rng(4).standard_normal((3, 4))
    f = lambda x: (x.cumsum(0).sum(0) * 2).relu()  # cumsum: not in the IR, runs eagerly; sum over dim 0: numpy
    c = compile_fn(f, [_t(x)])
    assert [getattr(s, 'kind', None) for s in c.steps][:2] == ['fallback', 'extern']
    _close(c(_t(x)), (torch.from_numpy(x).cumsum(0).sum(0) * 2).relu())

def test_compile_default_backend_inductor():
    m = minitorch.nn.Sequential(minitorch.nn.Linear(6, 6), minitorch.nn.GELU(), minitorch.nn.LayerNorm(6))
    x = minitorch.randn(3, 6)
    cm = minitorch.compile(m)
    with minitorch.no_grad():
        want, got = m(x), cm(x)
    _close(got, want.numpy())
    cm(x).sum().backward()                        # a call that needs grads goes through aot autograd
    assert m[0].weight.grad is not None

def test_second_process_compiles_nothing(tmp_path):
    code = textwrap.dedent('''
        import minitorch, time
        from minitorch.compiler.inductor import compile_fn
        x = minitorch.randn(4, 8)
        t = time.perf_counter()
        c = compile_fn(lambda x: minitorch.softmax(x, -1), [x]); c(x)
        k = c.plan[0][1]
        print(k.stats.cache_misses.__len__() and sum(k.stats.cache_misses.values()), sum(k.stats.cache_hits.values()))
    ''')
    env = dict(os.environ, MINITORCH_INDUCTOR_CACHE=str(tmp_path))
    run = lambda: subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, check=True).stdout.split()
    cold, warm = run(), run()
    assert cold == ['1', '0']          # the first process compiles the kernel
    assert warm == ['0', '1']          # the second loads machine code from the cache directory
    assert list(tmp_path.glob('k_*.py'))

def test_debug_prints_groups_and_source(capsys, monkeypatch):
    monkeypatch.setenv('MINITORCH_COMPILE_DEBUG', '1')
    compile_fn(lambda x: minitorch.softmax(x, -1), [minitorch.randn(2, 3)])
    out = capsys.readouterr().out
    assert 'fusion groups' in out and '@numba.njit(parallel=False, cache=True' in out and 'for r in range(2)' in out

def test_batched_matmul_becomes_one_extern_call():
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal((2, 5, 4)).astype(np.float32), rng.standard_normal((2, 6, 4)).astype(np.float32)
    f = lambda q, k: minitorch.softmax(q @ k.transpose(-2, -1), -1)
    c = compile_fn(f, [_t(q), _t(k)])
    ext = [s.node.target.__name__ for s in c.steps if getattr(s, 'kind', None) == 'extern']
    assert ext.count('sum') == 1 and c.kernel_count == 1        # the broadcast product's sum is one matmul; views are numpy
    _close(c(_t(q), _t(k)), torch.softmax(torch.from_numpy(q) @ torch.from_numpy(k).transpose(-2, -1), -1))

@pytest.mark.parametrize('dtype', [minitorch.float32, minitorch.float64])
def test_training_step_grads_equal_eager(dtype):
    def make():
        minitorch.manual_seed(0)
        return minitorch.nn.Sequential(minitorch.nn.Linear(6, 5), minitorch.nn.GELU(), minitorch.nn.LayerNorm(5),
                                       minitorch.nn.Linear(5, 4)).to(dtype)
    m, e = make(), make()
    x = minitorch.randn(3, 6, dtype=dtype)
    before = dict(counters)
    cm = minitorch.compile(m)
    loss_c = minitorch.softmax(cm(x), -1)[:, 0].sum(); loss_c.backward()
    loss_e = minitorch.softmax(e(x), -1)[:, 0].sum(); loss_e.backward()
    _close(loss_c, loss_e.detach().numpy())
    for pc, pe in zip(m.parameters(), e.parameters()): _close(pc.grad, pe.grad.numpy())
    assert counters['graphs'] - before['graphs'] == 2 and counters['kernels'] > before['kernels']   # fw and bw compiled

@pytest.mark.parametrize('sa, sb, dims, keep', [((2, 4, 5, 1), (2, 1, 5, 3), (2,), False), ((2, 4, 1, 8), (2, 4, 4, 8), (3,), True),
                                                ((2, 4, 1, 8), (2, 4, 4, 8), (1,), True), ((3, 1, 4), (1, 5, 4), (0, 2), False)])
def test_contract_is_sum_of_product(sa, sb, dims, keep):
    from minitorch.compiler.inductor import _contract
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    want = (torch.from_numpy(a) * torch.from_numpy(b)).sum(dims, keepdim=keep)
    torch.testing.assert_close(torch.from_numpy(_contract(a, b, np.broadcast_shapes(sa, sb), dims, keep)), want)

@pytest.mark.parametrize('loss_inside', [False, True])
def test_attention_training_step_no_broadcast_product(loss_inside):
    class Attn(minitorch.nn.Module):
        def __init__(self, d):
            super().__init__()
            self.q, self.k, self.v, self.ln = (minitorch.nn.Linear(d, d), minitorch.nn.Linear(d, d), minitorch.nn.Linear(d, d),
                                               minitorch.nn.LayerNorm(d))
        def forward(self, x, loss_inside=False):
            a = minitorch.softmax((self.q(x) @ self.k(x).transpose(-2, -1)) * 0.5, -1)
            out = self.ln(a @ self.v(x) + x)
            return out.square().mean() if loss_inside else out
    minitorch.manual_seed(0); m = Attn(4)
    minitorch.manual_seed(0); e = Attn(4)
    x = minitorch.randn(2, 3, 4)
    from minitorch.compiler import inductor
    built = []
    orig = inductor.CompiledGraph.__init__
    def spy(self, *a, **k): orig(self, *a, **k); built.append(self)
    inductor.CompiledGraph.__init__ = spy
    try: minitorch.compile(m)(x, loss_inside).sum().backward()
    finally: inductor.CompiledGraph.__init__ = orig
    e(x, loss_inside).sum().backward()
    for pc, pe in zip(m.parameters(), e.parameters()): _close(pc.grad, pe.grad.numpy())
    assert len(built) == 2
    for c in built:      # every q@k^T, a@v and their gradients is an extern matmul: no kernel walks a 4-d product
        assert all(len(s.space) <= 3 for s in c.steps if hasattr(s, 'space'))
        # views and sums run in numpy; only square (recorded by 25c as a bare `pow(x)`) runs eagerly
        assert {s.node.target.__name__ for s in c.steps if getattr(s, 'kind', None) == 'fallback'} <= {'pow'}

def test_small_kernels_run_on_one_thread():
    from minitorch.compiler.inductor import PARALLEL_MIN
    small = compile_fn(lambda x: minitorch.softmax(x, -1), [minitorch.randn(4, 8)])
    assert 'parallel=False' in small.sources[0] and 'prange' not in small.sources[0]
    big = compile_fn(lambda x: minitorch.softmax(x, -1), [minitorch.randn(PARALLEL_MIN // 64, 64)])
    assert 'parallel=True' in big.sources[0] and 'numba.prange' in big.sources[0]

from hypothesis import given, settings, strategies as st, HealthCheck

DTYPES = [minitorch.float32, minitorch.float64, minitorch.float16, minitorch.bfloat16]
TOL = {minitorch.float32: 1e-5, minitorch.float64: 1e-10, minitorch.float16: 1e-2, minitorch.bfloat16: 5e-2}

@settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(rows=st.sampled_from([(1,), (3,), (2, 3)]), n=st.integers(2, 6), dtype=st.sampled_from(DTYPES), seed=st.integers(0, 99))
def test_compiled_equals_eager_hypothesis(rows, n, dtype, seed):
    """Outputs and gradients of a LayerNorm(GELU(affine)) + softmax block, compiled (aot + kernels) against eager.
    (n = 1 is left out: aot autograd gives NaN grads for a 1-wide fp16 LayerNorm, eager 0; chapter 25c.)"""
    def make():
        minitorch.manual_seed(seed)
        return minitorch.nn.Sequential(minitorch.nn.Linear(n, n), minitorch.nn.GELU(), minitorch.nn.LayerNorm(n),
                                       minitorch.nn.Softmax(-1)).to(dtype)
    m, e = make(), make()
    x = minitorch.randn(*rows, n).to(dtype)
    with minitorch.no_grad(): got_inf, want_inf = minitorch.compile(m)(x), e(x)
    minitorch._dynamo.reset()
    out_c, out_e = minitorch.compile(m)(x), e(x)
    (out_c * out_c).sum().backward(); (out_e * out_e).sum().backward()
    tol = TOL[dtype]
    chk = lambda a, b: torch.testing.assert_close(torch.from_numpy(a.detach().float().numpy()),
                                                  torch.from_numpy(b.detach().float().numpy()), rtol=tol, atol=tol)
    assert got_inf.dtype == want_inf.dtype == dtype and out_c.dtype == dtype
    chk(got_inf, want_inf); chk(out_c, out_e)
    for pc, pe in zip(m.parameters(), e.parameters()): chk(pc.grad, pe.grad)

def test_loss_inside_module_both_graphs_compile():
    "cross_entropy's backward holds a tensor constant (a zero-argument node): it runs eagerly, the rest compiles."
    class WithLoss(minitorch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = minitorch.nn.Sequential(minitorch.nn.Linear(6, 8), minitorch.nn.GELU(), minitorch.nn.LayerNorm(8))
        def forward(self, x, y): return F.cross_entropy(self.net(x), y)
    minitorch.manual_seed(0); m = WithLoss()
    minitorch.manual_seed(0); e = WithLoss()
    x, y = minitorch.randn(4, 6), minitorch.tensor([0, 3, 7, 1])
    before = counters['graphs']
    minitorch.compile(m)(x, y).backward(); e(x, y).backward()
    assert counters['graphs'] - before == 2
    for pc, pe in zip(m.parameters(), e.parameters()): _close(pc.grad, pe.grad.numpy())

def test_trace_switches_print_graph_groups_and_each_kernel(capsys, monkeypatch):
    "MINITORCH_COMPILE_DEBUG, config.trace and the backend's options={'trace': ...} all print graph, groups, sources."
    from minitorch.compiler import inductor
    f = lambda x: minitorch.softmax(x * 2, -1).relu() + x.cumsum(-1)     # cumsum: an eager step between two kernels
    x = minitorch.randn(2, 3)
    monkeypatch.delenv('MINITORCH_COMPILE_DEBUG', raising=False)
    c = compile_fn(f, [x])
    assert capsys.readouterr().out == ''                                  # off by default
    monkeypatch.setattr(inductor.config, 'trace', True)
    compile_fn(f, [x])
    out = capsys.readouterr().out
    assert out.index('=== inductor (cpu): graph') < out.index('=== fusion groups: 2 kernels') < out.index('=== kernel 0') < out.index('=== kernel 1')
    assert 'aten.cumsum' in out and 'fallback:cumsum' in out and out.count('@numba.njit') == 2 == c.kernel_count
    assert all(s in out for s in c.sources)
    compile_fn(f, [x], trace=False)                                       # the caller's word wins
    assert capsys.readouterr().out == ''
    monkeypatch.setattr(inductor.config, 'trace', False)
    m = minitorch.nn.Sequential(minitorch.nn.Linear(3, 3), minitorch.nn.LayerNorm(3))
    backend = lambda gm, ex: inductor.compile_fx(gm, ex, options={'trace': True})
    minitorch.compile(m, backend=backend)(x).sum().backward()            # training: forward and backward graphs traced
    out = capsys.readouterr().out
    assert out.count('=== inductor (cpu): graph') == 2 and '=== kernel 0' in out
    with minitorch.no_grad(): minitorch.compile(m, backend=backend)(x)  # inference graph
    assert out.count('=== fusion groups') == 2 and '=== inductor (cpu): graph' in capsys.readouterr().out

@pytest.mark.parametrize('shape', [(3, 1), (2, 2, 1)])
def test_rows_one_element_long(shape):
    "A reduction over a last dimension of size 1 has the rows' shape and the space's: still computed per row."
    rng = np.random.default_rng(7)
    x, b = rng.standard_normal(shape).astype(np.float32), rng.standard_normal(shape).astype(np.float32)
    f = lambda x, b: minitorch.softmax(F.layer_norm(x * b, (1,)) * 3, -1) + (x * b).sum(-1, keepdim=True)
    c = compile_fn(f, [_t(x), _t(b)])
    assert c.kernel_count == 1
    xt, bt = torch.from_numpy(x), torch.from_numpy(b)
    _close(c(_t(x), _t(b)), torch.softmax(torch.nn.functional.layer_norm(xt * bt, (1,)) * 3, -1) + (xt * bt).sum(-1, keepdim=True))

def test_compile_options_trace_enabled_reaches_inductor(capsys, monkeypatch):
    "minitorch.compile(options={'trace.enabled': True}) (torch's flat name) prints through the default backend."
    monkeypatch.delenv('MINITORCH_COMPILE_DEBUG', raising=False)
    minitorch._dynamo.reset()
    f = lambda x: minitorch.softmax(x, -1) * 3
    x = minitorch.randn(2, 5)
    with minitorch.no_grad():
        got = minitorch.compile(f, options={'trace.enabled': True})(x)
    out = capsys.readouterr().out
    assert '=== inductor (cpu): graph' in out and '=== kernel 0' in out and 'for r in range(2)' in out
    _close(got, torch.softmax(torch.from_numpy(x.numpy()), -1) * 3)
    minitorch._dynamo.reset()
    with minitorch.no_grad(): minitorch.compile(f)(x)
    assert '=== inductor' not in capsys.readouterr().out

def test_mode_reduce_overhead_goes_to_static_replay(monkeypatch):
    from minitorch.compiler import reduce_overhead
    seen = []
    orig = reduce_overhead.compile_fx_static
    monkeypatch.setattr(reduce_overhead, 'compile_fx_static', lambda gm, ex, **k: seen.append(1) or orig(gm, ex, **k))
    minitorch._dynamo.reset()
    m = minitorch.nn.Sequential(minitorch.nn.Linear(4, 4), minitorch.nn.GELU())
    x = minitorch.randn(3, 4)
    with minitorch.no_grad():
        c = minitorch.compile(m, mode='reduce-overhead')
        for _ in range(3): got = c(x)
        want = m(x)
    assert seen == [1]                   # one graph, compiled by chapter 26c's backend
    _close(got, want.numpy())


def test_scalar_output_that_needs_grad_is_0d():
    "A compiled loss is a 0-d tensor as eager's (np.ascontiguousarray made 0-d arrays 1-d: shape [1])."
    from minitorch.compiler.inductor import _tensor
    assert tuple(_tensor(np.zeros((), np.float32)).shape) == ()
    fns = [lambda x: (x * 2).sum(), lambda x: x.exp().mean(), lambda x: x.sum() * 3, lambda x: (x * x).sum(1).sum()]
    for f in fns:
        minitorch._dynamo.reset()
        x = minitorch.randn(4, 3, requires_grad=True); xe = x.detach().clone().requires_grad_(True)
        out = minitorch.compile(f)(x)
        assert tuple(out.shape) == () and out.requires_grad
        out.backward(); f(xe).backward()
        _close(x.grad, xe.grad.numpy())
        with minitorch.no_grad(): assert tuple(minitorch.compile(f)(x).shape) == ()

@pytest.mark.parametrize('sa, sb, dims, keep', [((2, 4, 5, 1), (2, 1, 5, 3), (2,), False), ((2, 4, 1, 8), (2, 4, 4, 8), (3,), True),
                                                ((2, 4, 1, 8), (2, 4, 4, 8), (1,), True), ((3, 1, 4), (1, 5, 4), (0, 2), False),
                                                ((4, 1, 6), (5, 6), (2,), False)])
def test_contract_planned_once_is_sum_of_product(sa, sb, dims, keep):
    from minitorch.compiler.inductor import _contract_np
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    want = (torch.from_numpy(a) * torch.from_numpy(b)).sum(dims, keepdim=keep)
    f = _contract_np(sa, sb, np.broadcast_shapes(sa, sb), dims, keep)
    torch.testing.assert_close(torch.from_numpy(np.asarray(f(a, b))), want)

def test_softmax_kernel_computes_exp_once():
    c = compile_fn(lambda x: minitorch.softmax(x, -1), [minitorch.randn(6, 16)])
    assert c.kernel_count == 1 and c.sources[0].count('math.exp(') == 1     # stored in a row buffer for the divide
    x = np.random.default_rng(3).standard_normal((6, 16)).astype(np.float32)
    _close(c(_t(x)), torch.softmax(torch.from_numpy(x), -1))

def test_a_view_between_fusable_ops_does_not_split_the_kernel():
    f = lambda a, b: (a * 2) + b.reshape(4, 8)             # mul, then a view of an input, then add: one kernel
    a, b = np.random.default_rng(4).standard_normal((4, 8)), np.random.default_rng(5).standard_normal((32,))
    c = compile_fn(f, [_t(a), _t(b)])
    assert c.kernel_count == 1
    _close(c(_t(a), _t(b)), torch.from_numpy(a) * 2 + torch.from_numpy(b).reshape(4, 8))
    g = lambda r, x: x + r.sum(-1, keepdim=True).expand(4, 8)   # a kernel reads an expand through its source
    c = compile_fn(g, [_t(a), _t(a)])
    _close(c(_t(a), _t(a)), torch.from_numpy(a) + torch.from_numpy(a).sum(-1, keepdim=True))

def test_cse_merges_repeated_pure_ops_only():
    from minitorch.compiler.aot import cse, op_counts
    f = lambda x: (x - x.mean(-1, keepdim=True)) * (x - x.mean(-1, keepdim=True))
    x = minitorch.randn(3, 5)
    g = decompose(f, [x])
    before = op_counts(g)
    assert cse(g) >= 2 and op_counts(g)['sub'] == 1 and op_counts(g)['mean'] < before['mean']
    from minitorch.compiler.inductor import CompiledGraph
    _close(CompiledGraph(g)(x), f(x).numpy())
    d = decompose(lambda x: x * 0.0 + x * -0.0, [x])       # -0.0 is not 0.0
    assert cse(d) == 0

@pytest.mark.parametrize('op', ['softmax', 'log_softmax', 'cross_entropy'])
def test_softmax_family_backward_has_no_max_chain(op):
    "The max shift is a constant to autograd: no eq / count chain in the joint graph, gradients as torch's."
    from minitorch.compiler.aot import make_joint, op_counts
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal((5, 7)), rng.integers(0, 7, 5)
    f = {'softmax': lambda x: (minitorch.softmax(x, -1) ** 2).sum(), 'log_softmax': lambda x: (F.log_softmax(x, -1) ** 2).sum(),
         'cross_entropy': lambda x: F.cross_entropy(x, minitorch.from_numpy(y))}[op]
    xt = minitorch.from_numpy(x).requires_grad_(True)
    joint, _, _ = make_joint(f, [xt])
    eqs = [n for n in joint.nodes if getattr(n.target, '__name__', '') == 'eq']    # (cross_entropy's ignore_index check: ints)
    assert not [n for n in eqs if n.args[0].meta['val'].is_floating_point()]
    minitorch._dynamo.reset()
    xc = minitorch.from_numpy(x.copy()).requires_grad_(True)
    minitorch.compile(f)(xc).backward()
    tx = torch.from_numpy(x).requires_grad_(True)
    tf = {'softmax': lambda x: (torch.softmax(x, -1) ** 2).sum(), 'log_softmax': lambda x: (torch.log_softmax(x, -1) ** 2).sum(),
          'cross_entropy': lambda x: torch.nn.functional.cross_entropy(x, torch.from_numpy(y))}[op]
    tf(tx).backward()
    _close(xc.grad, tx.grad.numpy())

@pytest.mark.parametrize('xs, js, dim', [((5, 7), (5, 1), 1), ((4, 6), (2, 6), 0), ((3, 4, 5), (3, 2, 5), 1), ((3, 4, 5), (2, 4, 3), 2)])
def test_gather_scatter_add_run_in_numpy(xs, js, dim):
    "cross_entropy's gather and its backward's scatter_add are numpy index steps, not dispatcher fallbacks."
    rng = np.random.default_rng(9)
    x, j, s = rng.standard_normal(xs), rng.integers(0, xs[dim], js), rng.standard_normal(js)
    g = compile_fn(lambda x, j: x.gather(dim, j), [_t(x), _t(j)])
    assert not [st for st in g.steps if getattr(st, 'kind', None) == 'fallback' and 'gather' in st.node.name]
    _close(g(_t(x), _t(j)), torch.from_numpy(x).gather(dim, torch.from_numpy(j)))
    sa = compile_fn(lambda b, j, s: b.scatter_add(dim, j, s), [_t(x), _t(j), _t(s)])
    assert not [st for st in sa.steps if getattr(st, 'kind', None) == 'fallback' and 'scatter' in st.node.name]
    _close(sa(_t(x), _t(j), _t(s)), torch.from_numpy(x).scatter_add(dim, torch.from_numpy(j), torch.from_numpy(s)))
    bad = j.copy(); bad.flat[0] = xs[dim]            # out of range: the eager op raises PyTorch's error
    with pytest.raises(RuntimeError) as e: g(_t(x), _t(bad))
    with pytest.raises(RuntimeError) as te: torch.from_numpy(x).gather(dim, torch.from_numpy(bad))
    assert type(e.value) is type(te.value)

def test_mlp_cross_entropy_step_has_no_fallbacks():
    sys.path.insert(0, str(Path(__file__).parents[1] / 'kernels'))
    from bench_compile import make, step_fn
    from minitorch.compiler import inductor
    built = []
    orig = inductor.CompiledGraph.__init__
    def spy(self, *a, **k): orig(self, *a, **k); built.append(self)
    inductor.CompiledGraph.__init__ = spy
    try:
        net, opt, xy = make(minitorch, 'mlp', small=True); step_fn(minitorch.compile(net), opt, xy)()
        ref, ropt, rxy = make(minitorch, 'mlp', small=True); step_fn(ref, ropt, rxy)()
    finally: inductor.CompiledGraph.__init__ = orig
    assert len(built) == 2 and not [s for c in built for s in c.steps if getattr(s, 'kind', None) == 'fallback']
    for pc, pe in zip(net.parameters(), ref.parameters()): _close(pc, pe.detach().numpy())   # one SGD step alike
