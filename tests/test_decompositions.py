"""The primitive decomposition table (nbs/25d): every op it covers, decomposed, gives eager's values and gradients
with no op left whole; the graphs use prims only, with explicit expand/convert nodes."""
import math
import pytest
from hypothesis import given, settings, strategies as st
import minitorch as mt
import minitorch.nn.functional as F
from minitorch.dispatch import op_table
from minitorch.compiler.decompositions import DECOMPOSITIONS, Prim, PRIMS_BY_KIND, decompose_to_prims, op_summary

def _close(a, b):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b): _close(x, y)
        return
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    if a.dtype.is_floating_point:
        assert mt.allclose(a.double(), b.double(), rtol=1e-4, atol=1e-5, equal_nan=True), (a, b)
    else: assert a.tolist() == b.tolist()

class Const:
    "A sample input that must not require grad (a loss's target)."
    def __init__(self, t): self.t = t

def _leaves(inputs):
    return [x.t if isinstance(x, Const) else x.detach().clone().requires_grad_(x.dtype.is_floating_point)
            if isinstance(x, mt.Tensor) else x for x in inputs]

def check(fn, *inputs, grad=True):
    "Decompose `fn` on `inputs`; values and gradients of the prim graph equal eager's; no fallback."
    gm, tr = decompose_to_prims(fn, [x.t if isinstance(x, Const) else x for x in inputs])
    assert not tr.fallbacks, dict(tr.fallbacks)
    assert all(isinstance(n.target, Prim) for n in gm.graph.nodes if n.op == 'call_function'
               and type(n.target).__name__ != 'builtin_function_or_method' and n.target.__name__ != 'getitem'
               and type(n.target).__name__ != '_Constant')
    xe, xd = _leaves(inputs), _leaves(inputs)
    oe, od = fn(*xe), gm(*xd)
    _close(od, oe)
    outs = [o for o in (oe if isinstance(oe, tuple) else (oe,)) if o.requires_grad]
    if grad and outs:
        sum(o.sum() for o in outs).backward()
        outs_d = [o for o in (od if isinstance(od, tuple) else (od,)) if o.requires_grad]
        sum(o.sum() for o in outs_d).backward()
        for a, b in zip(xd, xe):
            if isinstance(a, mt.Tensor) and a.requires_grad:
                assert (a.grad is None) == (b.grad is None)
                if a.grad is not None: _close(a.grad, b.grad)
    return gm, tr

mt.manual_seed(0)
U = mt.rand(3, 4) * 0.8 + 0.1                   # in every unary op's domain
X, Y, Yb = mt.randn(3, 4), mt.randn(3, 4), mt.randn(4)
I = mt.randint(-5, 6, (3, 4)); J = mt.randint(1, 6, (4,))
B = X > 0
T = mt.tensor([0, 2, 1])
ln = lambda f: (lambda *a: f(*a))

UNARY = '''abs absolute acos arccos arcsin arctan arcsinh arctanh asin asinh atan atanh cos cosh deg2rad digamma erf erfc
    erfinv exp exp2 expm1 frac log log10 log1p log2 logit neg negative positive rad2deg reciprocal relu rsqrt
    sigmoid sin sinh sqrt square tan tanh ceil floor trunc round sign sgn fix signbit isnan isinf isfinite isposinf
    isneginf logical_not'''.split()
BINARY = '''add sub mul div maximum minimum atan2 arctan2 fmod remainder eq ne lt le gt ge copysign
    hypot logaddexp xlogy true_divide multiply divide subtract greater greater_equal less less_equal not_equal pow
    rsub logical_and logical_or logical_xor'''.split()
INT_BINARY = 'bitwise_and bitwise_or bitwise_xor floor_divide'.split()
ACT = '''relu6 hardtanh leaky_relu elu celu selu silu mish hardsigmoid hardswish gelu softplus logsigmoid softsign
    tanhshrink hardshrink softshrink'''.split()
CAST = 'float double half bfloat16 int long short byte char bool'.split()
DROPOUT = 'dropout alpha_dropout feature_alpha_dropout dropout1d dropout2d dropout3d'.split()

SAMPLES = {n: (lambda x, n=n: getattr(mt, n)(x), U) for n in UNARY}
SAMPLES.update(acosh=(mt.acosh, U + 1.5), arccosh=(mt.arccosh, U + 1.5), bitwise_not=(mt.bitwise_not, I))
SAMPLES.update({n: (lambda a, b, n=n: getattr(mt, n)(a, b), U, Yb.abs() + 0.5) for n in BINARY})
SAMPLES.update({n: (lambda a, b, n=n: getattr(mt, n)(a, b), I, J) for n in INT_BINARY})
SAMPLES.update({n: (lambda x, n=n: getattr(F, n)(x), X) for n in ACT})
SAMPLES.update({n: (lambda x, n=n: getattr(X.__class__, n)(x), X) for n in CAST})
SAMPLES.update({n: (lambda x, n=n: getattr(F, n)(x, 0.5, False), X.reshape((3, 4) + (1,) * (int((n + '0')[7]) if
                 n[7:8].isdigit() else 2))) for n in DROPOUT})
SAMPLES.update(
    threshold=(lambda x: F.threshold(x, 0.1, 20.), X), where=(lambda c, a, b: mt.where(c, a, b), B, X, Yb),
    clamp=(lambda x: mt.clamp(x, -0.5, 0.5), X), clip=(lambda x: mt.clip(x, min=-0.5), X),
    clamp_min=(lambda x: mt.clamp_min(x, 0.1), X), clamp_max=(lambda x: mt.clamp_max(x, 0.1), X),
    lerp=(mt.lerp, X, Y, U), addcmul=(lambda x, a, b: mt.addcmul(x, a, b, value=0.5), X, Y, Yb),
    addcdiv=(lambda x, a, b: mt.addcdiv(x, a, b, value=2), X, Y, U),
    sum=(lambda x: x.sum(1, keepdim=True), I), nansum=(lambda x: mt.nansum(x, 0), X), prod=(lambda x: x.prod(1), U),
    amax=(lambda x: x.amax((0, 1)), X), amin=(lambda x: x.amin(-1, keepdim=True), X),
    mean=(lambda x: x.mean(0), X), var=(lambda x: x.var(1, keepdim=True), X), std=(lambda x: x.std(), X),
    logsumexp=(lambda x: x.logsumexp(1), X), softmax=(lambda x: x.softmax(0), X),
    log_softmax=(lambda x: F.log_softmax(x, -1), X), softmin=(lambda x: F.softmin(x, 1), X),
    cumsum=(lambda x: x.cumsum(1), X), argmax=(lambda x: x.argmax(1, keepdim=True), X), argmin=(mt.argmin, X),
    max=(lambda x: x.max(1), X), min=(lambda x: x.min(), X),
    reshape=(lambda x: x.reshape(2, -1), X), view=(lambda x: x.view(4, 3), X), reshape_as=(lambda x, y: x.reshape_as(y), X, Y.t()),
    view_as=(lambda x, y: x.view_as(y), X, Y.reshape(12)), flatten=(lambda x: x.flatten(), X), ravel=(mt.ravel, X),
    unflatten=(lambda x: x.unflatten(1, (2, -1)), X), unsqueeze=(lambda x: x.unsqueeze(-1), X),
    squeeze=(lambda x: x.squeeze(1), X.reshape(3, 1, 4)), permute=(lambda x: x.permute(2, 0, 1), X.reshape(3, 2, 2)),
    transpose=(lambda x: x.transpose(0, 1), X), swapaxes=(lambda x: x.swapaxes(0, 1), X),
    swapdims=(lambda x: x.swapdims(0, 1), X), t=(lambda x: x.t(), X),
    movedim=(lambda x: x.movedim(0, -1), X.reshape(3, 2, 2)), moveaxis=(lambda x: mt.moveaxis(x, (0, 1), (2, 0)), X.reshape(3, 2, 2)),
    expand=(lambda x: x.expand(2, -1, 4), X[:, :1]), expand_as=(lambda x, y: x.expand_as(y), Yb, X),
    broadcast_to=(lambda x: mt.broadcast_to(x, (2, 3, 4)), Yb), broadcast_tensors=(mt.broadcast_tensors, X[:, :1], Yb),
    narrow=(lambda x: x.narrow(1, 1, 2), X), select=(lambda x: x.select(1, -1), X),
    contiguous=(lambda x: x.t().contiguous(), X), clone=(lambda x: x.clone(), X),
    resolve_conj=(mt.resolve_conj, X), resolve_neg=(mt.resolve_neg, X),
    cat=(lambda a, b: mt.cat([a, b], 0), X, I), concat=(lambda a, b: mt.concat((a, b), 1), X, Y),
    concatenate=(lambda a, b: mt.concatenate([a, b]), X, Y), stack=(lambda a, b: mt.stack([a, b], -1), X, Y),
    flip=(lambda x: x.flip(0), X), gather=(lambda x, i: x.gather(1, i), X, mt.tensor([[0], [3], [1]])),
    index_select=(lambda x, i: x.index_select(0, i), X, mt.tensor([2, 0, 2])), index=(lambda x: x[1:, None, ..., ::2], X),
    to=(lambda x: x.to(mt.float64), X), type_as=(lambda x, y: x.type_as(y), X, I),
    zeros=(lambda x: x + mt.zeros(3, 4), X), ones=(lambda x: x * mt.ones((4,)), X),
    full=(lambda x: x + mt.full((3, 1), 2.), X), zeros_like=(lambda x: mt.zeros_like(x), X),
    ones_like=(lambda x: mt.ones_like(x, dtype=mt.float64), X), full_like=(lambda x: x + mt.full_like(x, 3.), X),
    arange=(lambda x: x * mt.arange(4), X),
    mm=(mt.mm, X, Y.t()), bmm=(mt.bmm, mt.randn(2, 3, 4), mt.randn(2, 4, 5)),
    matmul=(mt.matmul, mt.randn(2, 1, 3, 4), mt.randn(5, 4, 2)), mv=(mt.mv, X, Yb), dot=(mt.dot, Yb, U[0]),
    inner=(mt.inner, Yb, U[0]), vdot=(mt.vdot, Yb, U[0]), outer=(mt.outer, Yb, U[0]), ger=(mt.ger, Yb, U[0]),
    linear=(F.linear, mt.randn(2, 3, 4), mt.randn(5, 4), mt.randn(5)),
    addmm=(lambda x, a, b: mt.addmm(x, a, b, beta=0.5, alpha=2), Yb, X, Y.t().reshape(4, 3)[:, :1].expand(4, 4).contiguous()),
    baddbmm=(lambda x, a, b: mt.baddbmm(x, a, b, alpha=0.5), mt.randn(2, 3, 5), mt.randn(2, 3, 4), mt.randn(2, 4, 5)),
    conv1d=(lambda x, w, b: F.conv1d(x, w, b, padding=1), mt.randn(2, 3, 7), mt.randn(4, 3, 3), mt.randn(4)),
    conv2d=(lambda x, w: F.conv2d(x, w, stride=2), mt.randn(1, 2, 5, 5), mt.randn(3, 2, 3, 3)),
    mse_loss=(F.mse_loss, X, Y), l1_loss=(lambda x, y: F.l1_loss(x, y, reduction='sum'), X, Y),
    huber_loss=(lambda x, y: F.huber_loss(x, y, delta=0.5), X, Y), smooth_l1_loss=(lambda x, y: F.smooth_l1_loss(x, y, reduction='none', beta=0.5), X, Y),
    binary_cross_entropy=(F.binary_cross_entropy, U, (Y > 0).float()),
    binary_cross_entropy_with_logits=(F.binary_cross_entropy_with_logits, X, U), soft_margin_loss=(F.soft_margin_loss, X, Const(Y.sign())),
    nll_loss=(lambda x, t: F.nll_loss(x, t), X.log_softmax(1), T),
    cross_entropy=(lambda x, t: F.cross_entropy(x, t, ignore_index=1), X, T),
    layer_norm=(lambda x, w, b: F.layer_norm(x, (4,), w, b), X, Yb, U[0]), rms_norm=(lambda x, w: F.rms_norm(x, (4,), w), X, Yb),
    embedding=(lambda i, w: F.embedding(i, w), mt.tensor([[0, 2], [1, 1]]), mt.randn(3, 5)),
    scaled_dot_product_attention=(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                                  mt.randn(2, 3, 4), mt.randn(2, 3, 4), mt.randn(2, 3, 5)),
    normalize=(lambda x: F.normalize(x, dim=-1), X),
)

def test_every_rule_is_an_op_and_is_tested():
    "The table's keys are op-table names, and this file has a sample for every one (so the list below is the coverage)."
    assert set(DECOMPOSITIONS) <= set(op_table), set(DECOMPOSITIONS) - set(op_table)
    assert set(SAMPLES) == set(DECOMPOSITIONS), (set(DECOMPOSITIONS) - set(SAMPLES), set(SAMPLES) - set(DECOMPOSITIONS))
    assert len(DECOMPOSITIONS) >= 200 and sum(map(len, PRIMS_BY_KIND.values())) < 90

@pytest.mark.parametrize('name', sorted(SAMPLES))
def test_rule_matches_eager(name):
    fn, *inputs = SAMPLES[name]
    gm, tr = check(fn, *inputs)
    assert tr.ops[name] >= 1 or name in ('fix', 'sgn') or tr.ops, name

def test_explicit_broadcast_and_cast_nodes():
    gm, _ = check(lambda a, b: a * b, mt.arange(4, dtype=mt.int32), mt.randn(3, 4, dtype=mt.float64))
    names = [n.target.__name__ for n in gm.graph.nodes if n.op == 'call_function']
    assert names == ['convert_element_type', 'expand', 'mul'] and 'prims.expand' in gm.code

def test_fallback_is_counted():
    gm, tr = decompose_to_prims(lambda x: F.dropout(x, 0.5, True) + mt.sort(x)[0], [X])
    assert tr.fallbacks == {'dropout': 1, 'sort': 1}

def test_counts_softmax_and_mlp():
    s = op_summary(lambda x: x.softmax(-1), [X])      # amax reshape expand sub exp sum reshape expand div
    assert s == dict(ops_before=1, distinct_before=1, prims_after=9, distinct_after=7, fallbacks={})
    net = mt.nn.Sequential(mt.nn.Linear(4, 8), mt.nn.GELU(), mt.nn.Linear(8, 2))
    m = op_summary(lambda x, t: F.cross_entropy(net(x), t), [X, mt.tensor([0, 1, 1])])
    assert m['fallbacks'] == {} and m['prims_after'] > m['ops_before'] and m['distinct_after'] >= m['distinct_before']

_dt = st.sampled_from([mt.float32, mt.float64, mt.int64, mt.int32])
_shape = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)

@settings(max_examples=40, deadline=None)
@given(op=st.sampled_from(['add', 'sub', 'mul', 'div', 'maximum', 'lt', 'where', 'pow']), da=_dt, db=_dt,
       sa=_shape, sb=_shape, trail=st.booleans())
def test_pointwise_promotion_and_broadcast(op, da, db, sa, sb, trail):
    "Across dtypes and broadcastable shapes: the prim graph's values (and float grads) equal eager's."
    if trail: sb = sa[len(sa) - len(sb):] if len(sb) <= len(sa) else sb[:len(sb) - len(sa)] + sa   # b has leading dims
    else: sb = tuple(1 if i % 2 else s for i, s in enumerate(sa))
    mk = lambda s, d: (mt.rand(s) * 3 + 0.5).to(d) if d.is_floating_point else mt.randint(1, 4, s, dtype=d)
    a, b = mk(sa, da), mk(sb, db)
    fn = {'where': lambda a, b: mt.where(a > 1, a, b), 'pow': lambda a, b: mt.pow(a, 2) + b}.get(op, getattr(mt, op))
    check(lambda a, b: fn(a, b), a, b)

@pytest.mark.task25_2
@pytest.mark.parametrize('shape,norm', [((3, 4), (4,)), ((2, 3, 5), (3, 5)), ((6,), (6,))])
def test_layer_norm_rule_matches_torch(shape, norm):
    "Task 25.2: layer_norm in prims; values and gradients equal torch's, and no op is left whole."
    import numpy as np, torch
    from minitorch.compiler.decompositions import layer_norm_rule
    rng = np.random.default_rng(0)
    xn, wn, bn = rng.standard_normal(shape), rng.standard_normal(norm), rng.standard_normal(norm)
    gm, tr = decompose_to_prims(lambda x, w, b: F.layer_norm(x, norm, w, b, 1e-3), [mt.tensor(xn), mt.tensor(wn), mt.tensor(bn)])
    assert not tr.fallbacks and tr.ops['layer_norm'] == 1
    assert {n.target.__name__ for n in gm.graph.nodes if isinstance(n.target, Prim)} >= {'sum', 'rsqrt', 'mul'}
    xs = [mt.tensor(a, requires_grad=True) for a in (xn, wn, bn)]
    ts = [torch.tensor(a, requires_grad=True) for a in (xn, wn, bn)]
    y, yt = gm(*xs), torch.nn.functional.layer_norm(ts[0], norm, ts[1], ts[2], 1e-3)
    g = rng.standard_normal(shape)
    (y * mt.tensor(g)).sum().backward(); (yt * torch.tensor(g)).sum().backward()
    for a, b in [(y, yt)] + [(x.grad, t.grad) for x, t in zip(xs, ts)]:
        torch.testing.assert_close(torch.from_numpy(np.asarray(a.detach().numpy())), b.detach())
    out = layer_norm_rule(mt.tensor(xn), norm)      # no weight, no bias
    torch.testing.assert_close(torch.from_numpy(np.asarray(out.numpy())), torch.nn.functional.layer_norm(torch.tensor(xn), norm))
