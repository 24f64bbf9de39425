"""The autograd engine against torch: per-thread grad mode, saved tensors of every Function through
`save_for_backward` (second backward, version check), queued callbacks, `autograd.grad` pruning, node hooks."""
import threading

import pytest
import torch

import minitorch as mt
from minitorch import autograd as ag, forward_ad as mfwad


@pytest.fixture(params=['torch', 'mt'])
def lib(request):
    return torch if request.param == 'torch' else mt


# ---- per-thread state -------------------------------------------------------------------------------------------
def _two_threads(lib, make_a, make_b, probe):
    seen, go = {}, threading.Barrier(2)
    def work(name, ctx):
        with ctx:
            go.wait(); seen[name] = probe(); go.wait()
    ts = [threading.Thread(target=work, args=('a', make_a())), threading.Thread(target=work, args=('b', make_b()))]
    for t in ts: t.start()
    for t in ts: t.join()
    return seen


def test_grad_mode_per_thread(lib):
    seen = _two_threads(lib, lib.no_grad, lib.enable_grad, lib.is_grad_enabled)
    assert seen == {'a': False, 'b': True}


def test_grad_mode_per_thread_records(lib):
    x = lib.ones(3, requires_grad=True)
    seen = _two_threads(lib, lib.no_grad, lib.enable_grad, lambda: (x * 2).requires_grad)
    assert seen == {'a': False, 'b': True}


def test_inference_mode_per_thread(lib):
    seen = _two_threads(lib, lib.inference_mode, lib.enable_grad, lib.is_inference_mode_enabled)
    assert seen == {'a': True, 'b': False}


def test_new_thread_starts_with_grad_on(lib):
    out = []
    with lib.no_grad():
        t = threading.Thread(target=lambda: out.append(lib.is_grad_enabled())); t.start(); t.join()
        assert not lib.is_grad_enabled()
    assert out == [True]


def test_set_grad_enabled_in_thread_leaves_main(lib):
    def work(): lib.set_grad_enabled(False)
    t = threading.Thread(target=work); t.start(); t.join()
    assert lib.is_grad_enabled()


def test_forward_ad_level_per_thread():
    for lib, fw in ((torch, torch.autograd.forward_ad), (mt, mfwad)):
        seen = {}
        with fw.dual_level():
            x = fw.make_dual(lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64))
            def work():   # another thread has no level open: its ops carry no tangent
                y = lib.ones(2, dtype=lib.float64) * 3
                seen['t'] = fw.unpack_dual(y).tangent
            t = threading.Thread(target=work); t.start(); t.join()
            assert fw.unpack_dual(x * 2).tangent is not None
        assert seen['t'] is None


# ---- saved tensors: second backward and in-place version check -----------------------------------------------
def _f64(lib, *vals, rg=True):
    return lib.tensor(list(vals), dtype=lib.float64, requires_grad=rg)

SAVED_CASES = {
    'atan2': lambda lib, a, b: lib.atan2(a, b),
    'remainder': lambda lib, a, b: lib.remainder(a, b),
    'fmod': lambda lib, a, b: lib.fmod(a, b),
    'where': lambda lib, a, b: lib.where(a > 1.5, a, b),
    'clamp_tensor': lambda lib, a, b: lib.clamp(a, min=b),
    'clamp_tensor_max': lambda lib, a, b: lib.clamp(a, max=b),
    'mul': lambda lib, a, b: a * b,
    'div': lambda lib, a, b: a / b,
    'hypot': lambda lib, a, b: lib.hypot(a, b),
    'logaddexp': lambda lib, a, b: lib.logaddexp(a, b),
    'xlogy': lambda lib, a, b: lib.xlogy(a, b),
    'copysign': lambda lib, a, b: lib.copysign(a, b),
    'addcmul': lambda lib, a, b: lib.addcmul(a, a, b),
    'addcdiv': lambda lib, a, b: lib.addcdiv(a, a, b),
    'lerp': lambda lib, a, b: lib.lerp(a, b, a * 0 + 0.3),
}


def _raises_same(fn):
    "Run `fn(lib)` for torch and minitorch: both raise RuntimeError with the same leading words, or neither does."
    res = []
    for lib in (torch, mt):
        try:
            fn(lib); res.append(None)
        except RuntimeError as e:
            res.append(str(e))
    assert (res[0] is None) == (res[1] is None), res
    if res[0] is not None:
        assert res[1][:60] == res[0][:60], res
    return res[0]


@pytest.mark.parametrize('op', list(SAVED_CASES))
def test_second_backward_raises(op):
    def run(lib):
        a, b = _f64(lib, 1., 2., 3.), _f64(lib, 0.5, 2.5, 1.)
        y = SAVED_CASES[op](lib, a, b).sum()
        y.backward()
        y.backward()
    msg = _raises_same(run)
    assert msg is not None and 'second time' in msg


@pytest.mark.parametrize('which', [0, 1])
@pytest.mark.parametrize('op', list(SAVED_CASES))
def test_inplace_change_of_saved_input(op, which):
    def run(lib):
        a0, b0 = _f64(lib, 1., 2., 3.), _f64(lib, 0.5, 2.5, 1.)
        a, b = a0 * 1, b0 * 1   # non-leaves, so they may be changed in place
        y = SAVED_CASES[op](lib, a, b).sum()
        (a, b)[which].add_(1)
        y.backward()
        return a0.grad, b0.grad
    msg = _raises_same(run)
    if msg is not None: assert 'modified by an inplace operation' in msg


def test_remainder_grad_matches_torch():
    for op in ('remainder', 'fmod', 'atan2', 'clamp_tensor', 'where', 'copysign', 'hypot'):
        g = []
        for lib in (torch, mt):
            a, b = _f64(lib, 1., 2., 3.), _f64(lib, 0.5, 2.5, 1.)
            SAVED_CASES[op](lib, a, b).sum().backward()
            g.append((a.grad, b.grad))
        for t, m in zip(*g):
            if t is None: assert m is None; continue
            torch.testing.assert_close(torch.tensor(m.numpy()), t, msg=op)


def test_scalar_mul_saves_nothing():
    for lib in (torch, mt):   # b[:,0] * 3 must not save b[:,0]: the later in-place sin_ of that column is fine
        a = lib.ones(3, 2, requires_grad=True)
        b = a.clone()
        b[:, 1].add_(b[:, 0] * 3)
        b.t()[0].sin_()
        b.sum().backward()
        assert a.grad is not None
    mg, tg = [], []
    for lib, out in ((torch, tg), (mt, mg)):
        a = lib.ones(3, 2, requires_grad=True)
        b = a.clone(); b[:, 1].add_(b[:, 0] * 3); b.t()[0].sin_(); b.sum().backward()
        out.append(a.grad)
    torch.testing.assert_close(torch.tensor(mg[0].numpy()), tg[0])


@pytest.mark.parametrize('expr', ['x * 3', '3 * x', 'x / 3', 'x * y_nograd', 'x / y_nograd'])
def test_no_save_when_not_needed(expr):
    "Changing an operand in place that backward does not need is no error (as torch)."
    def run(lib):
        x0 = _f64(lib, 1., 2.)
        x = x0 * 1
        y_nograd = lib.tensor([2., 4.], dtype=lib.float64)
        out = eval(expr, {'x': x, 'y_nograd': y_nograd})
        x.add_(1)
        if 'y_nograd' not in expr: out.sum().backward()
        else:
            y_nograd.add_(1)   # saved for x's gradient: torch raises
            out.sum().backward()
    _raises_same(run)


@pytest.mark.parametrize('expr', ['lib.lerp(x, x + 2, 0.3)', 'x + x', 'x - 2'])
def test_nothing_saved_backward_twice(expr):
    """A node that keeps no tensor may run backward again (torch frees nothing there; minitorch's `x * 3` keeps no
    tensor either, where torch keeps the wrapped scalar 3)."""
    def run(lib):
        x = _f64(lib, 1., 2.)
        y = eval(expr, {'x': x, 'lib': lib}).sum()
        y.backward(); y.backward()
        return x.grad
    assert _raises_same(run) is None


# ---- the engine: queued callbacks, pruning in autograd.grad, node hooks on AccumulateGrad ----------------------
def _engine(lib):
    return lib.autograd.Variable._execution_engine


def test_queue_callback_outside_backward_raises(lib):
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass"):
        _engine(lib).queue_callback(lambda: None)


def test_queue_callback_runs_after_last_gradient(lib):
    w1 = lib.ones(3, requires_grad=True)
    w2 = lib.ones(3, requires_grad=True)
    log = []
    def on_first_grad(t):
        log.append('acc')
        if len(log) == 1:
            _engine(lib).queue_callback(lambda: log.append(('done', w1.grad.tolist(), w2.grad.tolist())))
    w1.register_post_accumulate_grad_hook(on_first_grad)
    w2.register_post_accumulate_grad_hook(on_first_grad)
    ((w1 * 2).sum() + (w2 * w2 * 3).sum()).backward()
    assert log == ['acc', 'acc', ('done', [2.0] * 3, [6.0] * 3)]
    # the queue is emptied: a second backward runs no callback unless one is queued again
    log.clear()
    w1.grad = w2.grad = None
    ((w1 * 2).sum() + (w2 * 2).sum()).backward()
    assert log == ['acc', 'acc', ('done', [2.0] * 3, [2.0] * 3)]


def test_queue_callback_can_queue_more(lib):
    w = lib.ones(2, requires_grad=True)
    log = []
    def first():
        log.append(1); _engine(lib).queue_callback(lambda: log.append(2))
    h = w.register_hook(lambda g: _engine(lib).queue_callback(first))
    (w * 3).sum().backward()
    assert log == [1, 2]


def test_nested_backward_keeps_own_queue(lib):
    outer_w = lib.ones(2, requires_grad=True)
    log = []
    def hook(g):
        _engine(lib).queue_callback(lambda: log.append('outer done'))
        inner = lib.ones(2, requires_grad=True)
        def inner_hook(g2):
            _engine(lib).queue_callback(lambda: log.append('inner done'))
        inner.register_hook(inner_hook)
        with lib.enable_grad():   # hooks run with grad mode off
            (inner * 5).sum().backward()
        log.append('inner returned')
    outer_w.register_hook(hook)
    (outer_w * 2).sum().backward()
    assert log == ['inner done', 'inner returned', 'outer done']


def test_callbacks_dropped_after_failed_backward(lib):
    class Boom(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x): return x.clone()
        @staticmethod
        def backward(ctx, g): raise ValueError("boom")
    w = lib.ones(2, requires_grad=True)
    log = []
    w.register_hook(lambda g: None)
    y = Boom.apply(w * 1)
    y.register_hook(lambda g: _engine(lib).queue_callback(lambda: log.append('ran')))
    with pytest.raises(ValueError):
        y.sum().backward()
    assert log == []
    with pytest.raises(RuntimeError):   # no backward running now
        _engine(lib).queue_callback(lambda: None)


def _boom_fn(lib, calls):
    class Boom(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x): return x.clone()
        @staticmethod
        def backward(ctx, g):
            calls.append('boom'); raise RuntimeError("Boom.backward must not run")
    return Boom


def test_grad_skips_nodes_not_leading_to_inputs(lib):
    calls = []
    x = lib.ones(3, requires_grad=True)
    w = lib.ones(3, requires_grad=True)
    y = (_boom_fn(lib, calls).apply(w) * 4 + x * x * 2).sum()
    gx, = lib.autograd.grad(y, x)
    assert gx.tolist() == [4.0] * 3 and calls == []


def test_grad_skips_branch_below_nonleaf_input(lib):
    "An intermediate input: nothing below it runs (the Boom node feeds it but the gradient stops there)."
    calls = []
    w = lib.ones(3, requires_grad=True)
    h = _boom_fn(lib, calls).apply(w) * 3
    y = (h * h).sum()
    gh, = lib.autograd.grad(y, h)
    assert gh.tolist() == [6.0] * 3 and calls == []


def test_backward_inputs_skips_other_branches(lib):
    calls = []
    x = lib.ones(3, requires_grad=True)
    w = lib.ones(3, requires_grad=True)
    y = (_boom_fn(lib, calls).apply(w) + x * 3).sum()
    y.backward(inputs=[x])
    assert x.grad.tolist() == [3.0] * 3 and w.grad is None and calls == []


def test_grad_still_runs_shared_paths(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    h = x * w
    y = (h.exp() * x + w.sin()).sum()
    gx, = lib.autograd.grad(y, [x])
    ref = (h.exp() * w * x + h.exp()).detach()
    assert [round(v, 4) for v in gx.tolist()] == [round(v, 4) for v in ref.tolist()]


def test_node_prehook_on_accumulate_grad(lib):
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    assert type(acc).__name__ == 'AccumulateGrad'
    log = []
    acc.register_prehook(lambda go: (log.append(('pre', type(go).__name__, len(go))), (go[0] * 10,))[1])
    acc.register_hook(lambda gi, go: log.append(('post', len(gi), go[0].tolist())))
    y.grad_fn.register_prehook(lambda go: log.append(('mul pre', type(go).__name__)))
    y.sum().backward()
    assert log == [('mul pre', 'tuple'), ('pre', 'tuple', 1), ('post', 0, [20.0, 20.0])]
    assert x.grad.tolist() == [20.0, 20.0]


def test_node_prehook_replaces_gradient(lib):
    x = lib.ones(2, requires_grad=True)
    y = x * 3
    z = y * 2
    h = z.grad_fn.register_prehook(lambda go: (go[0] + 1,))
    z.sum().backward()
    assert x.grad.tolist() == [12.0, 12.0]   # (1 + 1) * 2 * 3
    h.remove()
    x.grad = None
    (x * 3 * 2).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_tensor_hook_then_node_prehook_order(lib):
    x = lib.ones(2, requires_grad=True)
    y = x * 3
    log = []
    y.grad_fn.register_prehook(lambda go: log.append('node'))
    y.register_hook(lambda g: log.append('tensor'))
    y.sum().backward()
    assert log == ['tensor', 'node']


def test_variable_alias(lib):
    t = lib.ones(2)
    v = lib.autograd.Variable(t)
    assert isinstance(v, lib.Tensor) and v.tolist() == [1.0, 1.0] and not v.requires_grad


INDEX_CASES = {
    'gather': lambda lib, x, i: lib.gather(x, 0, i),
    'scatter': lambda lib, x, i: lib.zeros(3, dtype=lib.float64).scatter(0, i, x[:2]),
    'scatter_add': lambda lib, x, i: lib.zeros(3, dtype=lib.float64).scatter_add(0, i, x[:2]),
}


@pytest.mark.parametrize('op', list(INDEX_CASES))
def test_saved_index_version_and_free(op):
    "The index tensor is saved through save_for_backward: an in-place change of it and a second backward raise."
    def changed(lib):
        x, i = _f64(lib, 1., 2., 3.), lib.tensor([0, 2])
        y = INDEX_CASES[op](lib, x * 1, i)
        i.add_(0)
        y.sum().backward()
    assert 'modified by an inplace operation' in _raises_same(changed)
    def twice(lib):
        x, i = _f64(lib, 1., 2., 3.), lib.tensor([0, 2])
        y = INDEX_CASES[op](lib, x, i).sum()
        y.backward(); y.backward()
    assert 'second time' in _raises_same(twice)
