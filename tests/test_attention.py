"""scaled_dot_product_attention, MultiheadAttention, TransformerEncoderLayer, clip_grad_*, parametrize: vs PyTorch."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.nn.utils import parametrize

tF = torch.nn.functional
DTYPES = [(minitorch.float32, torch.float32, 1e-4), (minitorch.float64, torch.float64, 1e-9)]
SETTINGS = dict(max_examples=25, deadline=None)


def mt(t, requires_grad=False):
    return minitorch.tensor(t.detach().numpy(), requires_grad=requires_grad)


def close(a, b, tol):
    a = a.detach().numpy() if hasattr(a, 'detach') else np.asarray(a)
    return np.allclose(a, b.detach().numpy(), atol=tol, rtol=tol, equal_nan=True)


def copy_weights(ours, theirs):
    ours.load_state_dict({k: mt(v) for k, v in theirs.state_dict().items()})


# --- scaled_dot_product_attention ---------------------------------------------------------------------------

@pytest.mark.task12_1
@settings(**SETTINGS)
@given(batch=st.sampled_from([(), (2,), (2, 3)]), L=st.integers(1, 5), S=st.integers(1, 5), E=st.integers(1, 4),
       Ev=st.integers(1, 4), mask=st.sampled_from(['none', 'bool', 'float', 'causal']),
       scale=st.sampled_from([None, 0.5]), dt=st.sampled_from(DTYPES))
def test_sdpa_forward_and_grads(batch, L, S, E, Ev, mask, scale, dt):
    md, td, tol = dt
    q, k, v = (torch.randn(*batch, n, e, dtype=td) for n, e in [(L, E), (S, E), (S, Ev)])
    kw = dict(scale=scale)
    if mask == 'bool':
        kw['attn_mask'] = torch.rand(L, S) > 0.4
    elif mask == 'float':
        kw['attn_mask'] = torch.randn(L, S, dtype=td)
    elif mask == 'causal':
        kw['is_causal'] = True
    okw = {key: (mt(val) if key == 'attn_mask' else val) for key, val in kw.items()}
    tq, tk, tv = (x.clone().requires_grad_() for x in (q, k, v))
    oq, ok, ov = (mt(x, requires_grad=True) for x in (q, k, v))
    tout = tF.scaled_dot_product_attention(tq, tk, tv, **kw)
    out = F.scaled_dot_product_attention(oq, ok, ov, **okw)
    assert tuple(out.shape) == tuple(tout.shape)
    assert close(out, tout, tol)
    g = torch.randn_like(tout)
    tout.backward(g)
    out.backward(mt(g))
    for o, t in [(oq, tq), (ok, tk), (ov, tv)]:
        assert close(o.grad, t.grad, tol)


@pytest.mark.task12_1
def test_sdpa_masks_semantics():
    q, k, v = torch.randn(2, 4, 3), torch.randn(2, 6, 3), torch.randn(2, 6, 2)
    # causal with L != S is the top-left triangle
    assert close(F.scaled_dot_product_attention(mt(q), mt(k), mt(v), is_causal=True),
                 tF.scaled_dot_product_attention(q, k, v, is_causal=True), 1e-5)
    # a fully masked query row gives 0, not NaN
    m = torch.ones(4, 6, dtype=torch.bool)
    m[1] = False
    out = F.scaled_dot_product_attention(mt(q), mt(k), mt(v), attn_mask=mt(m))
    assert not np.isnan(out.numpy()).any() and np.all(out.numpy()[:, 1] == 0)
    assert close(out, tF.scaled_dot_product_attention(q, k, v, attn_mask=m), 1e-5)
    # broadcast masks
    m3 = torch.rand(2, 1, 6) > 0.3
    assert close(F.scaled_dot_product_attention(mt(q), mt(k), mt(v), attn_mask=mt(m3)),
                 tF.scaled_dot_product_attention(q, k, v, attn_mask=m3), 1e-5)
    with pytest.raises(RuntimeError, match='attn_mask should not be set when is_causal=True'):
        F.scaled_dot_product_attention(mt(q), mt(k), mt(v), attn_mask=mt(m), is_causal=True)


@pytest.mark.task12_1
def test_sdpa_gqa_and_dropout():
    q, k, v = torch.randn(2, 4, 5, 3), torch.randn(2, 2, 5, 3), torch.randn(2, 2, 5, 3)
    assert close(F.scaled_dot_product_attention(mt(q), mt(k), mt(v), enable_gqa=True),
                 tF.scaled_dot_product_attention(q, k, v, enable_gqa=True), 1e-5)
    # dropout: same shape, mean preserved roughly, different from no-dropout
    qq = minitorch.zeros(1, 200, 4)
    vv = minitorch.ones(1, 200, 4)
    out = F.scaled_dot_product_attention(qq, qq, vv, dropout_p=0.5)
    assert tuple(out.shape) == (1, 200, 4) and 0.7 < out.numpy().mean() < 1.3
    assert not np.allclose(out.numpy(), 1)


def test_sdpa_grad_fully_masked_row_is_zero():
    q, k, v = (mt(torch.randn(3, 2), requires_grad=True) for _ in range(3))
    m = minitorch.tensor([[True, True, False], [False, False, False], [True, False, True]])
    F.scaled_dot_product_attention(q, k, v, attn_mask=m).sum().backward()
    assert np.all(q.grad.numpy()[1] == 0) and not np.isnan(k.grad.numpy()).any()


# --- MultiheadAttention ---------------------------------------------------------------------------------------

@settings(**SETTINGS)
@given(L=st.integers(1, 4), S=st.integers(1, 4), N=st.integers(1, 3), heads=st.sampled_from([1, 2]),
       batch_first=st.booleans(), need_weights=st.booleans(), average=st.booleans(), bias=st.booleans(),
       self_attn=st.booleans(), use_kpm=st.booleans(), mask=st.sampled_from(['none', 'bool', 'float']),
       dt=st.sampled_from(DTYPES))
def test_mha_forward_and_grads(L, S, N, heads, batch_first, need_weights, average, bias, self_attn, use_kpm, mask,
                               dt):
    md, td, tol = dt
    E = 4
    if self_attn:
        S = L
    theirs = torch.nn.MultiheadAttention(E, heads, bias=bias, batch_first=batch_first, dtype=td)
    ours = nn.MultiheadAttention(E, heads, bias=bias, batch_first=batch_first, dtype=md)
    copy_weights(ours, theirs)

    def seq(n):
        return torch.randn(N, n, E, dtype=td) if batch_first else torch.randn(n, N, E, dtype=td)
    q = seq(L)
    k = q if self_attn else seq(S)
    v = q if self_attn else seq(S)
    kw = dict(need_weights=need_weights, average_attn_weights=average)
    if use_kpm:
        kpm = torch.zeros(N, S, dtype=torch.bool)
        kpm[:, -1] = S > 1
        kw['key_padding_mask'] = kpm
    if mask == 'bool':
        kw['attn_mask'] = torch.triu(torch.ones(L, S, dtype=torch.bool), 1)
    elif mask == 'float':
        kw['attn_mask'] = torch.randn(L, S, dtype=td)
    okw = {key: (mt(val) if isinstance(val, torch.Tensor) else val) for key, val in kw.items()}
    tq = q.clone().requires_grad_()
    oq = mt(q, requires_grad=True)
    if self_attn:
        tout, tw = theirs(tq, tq, tq, **kw)
        out, w = ours(oq, oq, oq, **okw)
    else:
        tout, tw = theirs(tq, k, v, **kw)
        out, w = ours(oq, mt(k), mt(v), **okw)
    assert close(out, tout, tol)
    assert (w is None) == (tw is None)
    if tw is not None:
        assert tuple(w.shape) == tuple(tw.shape) and close(w, tw, tol)
    g = torch.randn_like(tout)
    tout.backward(g)
    out.backward(mt(g))
    assert close(oq.grad, tq.grad, tol)
    tp = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        assert close(p.grad, tp[name].grad, tol), name


def test_mha_variants_and_repr():
    for kw in [dict(kdim=3, vdim=5), dict(add_bias_kv=True), dict(add_zero_attn=True)]:
        theirs = torch.nn.MultiheadAttention(4, 2, **kw).double()
        ours = nn.MultiheadAttention(4, 2, **kw).double()
        assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
        assert list(ours.state_dict()) == list(theirs.state_dict())
        copy_weights(ours, theirs)
        q = torch.randn(3, 2, 4, dtype=torch.float64)
        k = torch.randn(5, 2, kw.get('kdim', 4), dtype=torch.float64)
        v = torch.randn(5, 2, kw.get('vdim', 4), dtype=torch.float64)
        (to, tw), (oo, ow) = theirs(q, k, v), ours(mt(q), mt(k), mt(v))
        assert close(oo, to, 1e-10) and close(ow, tw, 1e-10)
        assert repr(ours) == repr(theirs)
    # unbatched input
    theirs, ours = torch.nn.MultiheadAttention(4, 2), nn.MultiheadAttention(4, 2)
    copy_weights(ours, theirs)
    x = torch.randn(3, 4)
    (to, tw), (oo, ow) = theirs(x, x, x), ours(mt(x), mt(x), mt(x))
    assert close(oo, to, 1e-5) and close(ow, tw, 1e-5)
    with pytest.raises(AssertionError, match='embed_dim must be divisible by num_heads'):
        nn.MultiheadAttention(5, 2)
    with pytest.raises(RuntimeError, match='Need attn_mask if specifying the is_causal hint'):
        ours(mt(x), mt(x), mt(x), is_causal=True)


def test_mha_causal_hint():
    theirs, ours = torch.nn.MultiheadAttention(4, 2, batch_first=True), nn.MultiheadAttention(4, 2, batch_first=True)
    copy_weights(ours, theirs)
    x = torch.randn(2, 5, 4)
    m = torch.nn.Transformer.generate_square_subsequent_mask(5)
    to, _ = theirs(x, x, x, attn_mask=m, is_causal=True, need_weights=False)
    oo, _ = ours(mt(x), mt(x), mt(x), attn_mask=mt(m), is_causal=True, need_weights=False)
    assert close(oo, to, 1e-5)


def test_mha_default_init():
    m = nn.MultiheadAttention(8, 2)
    b = math.sqrt(6 / (24 + 8))
    assert abs(m.in_proj_weight.detach().numpy()).max() <= b
    assert np.all(m.in_proj_bias.detach().numpy() == 0) and np.all(m.out_proj.bias.detach().numpy() == 0)


# --- TransformerEncoderLayer ---------------------------------------------------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('norm_first', [False, True])
@pytest.mark.parametrize('activation', ['relu', 'gelu'])
@pytest.mark.parametrize('batch_first', [False, True])
def test_transformer_encoder_layer(dt, norm_first, activation, batch_first):
    md, td, tol = dt
    kw = dict(dim_feedforward=12, dropout=0.0, activation=activation, batch_first=batch_first, norm_first=norm_first)
    theirs = torch.nn.TransformerEncoderLayer(8, 2, dtype=td, **kw)
    ours = nn.TransformerEncoderLayer(8, 2, dtype=md, **kw)
    copy_weights(ours, theirs)
    x = torch.randn(3, 4, 8, dtype=td)
    kpm = torch.zeros(3 if batch_first else 4, 4 if batch_first else 3, dtype=torch.bool)
    kpm[0, -1] = True
    mask = torch.nn.Transformer.generate_square_subsequent_mask(x.shape[1] if batch_first else x.shape[0], dtype=td)
    for call in [dict(), dict(src_key_padding_mask=kpm), dict(src_mask=mask)]:
        tx, ox = x.clone().requires_grad_(), mt(x, requires_grad=True)
        tout = theirs(tx, **call)
        out = ours(ox, **{key: mt(val) for key, val in call.items()})
        assert close(out, tout, tol)
        g = torch.randn_like(tout)
        tout.backward(g)
        out.backward(mt(g))
        assert close(ox.grad, tx.grad, tol)
        tp = dict(theirs.named_parameters())
        for name, p in ours.named_parameters():
            assert close(p.grad, tp[name].grad, tol), name
        theirs.zero_grad(); ours.zero_grad()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_transformer_encoder_layer_repr_defaults():
    assert repr(nn.TransformerEncoderLayer(8, 2, 16)) == repr(torch.nn.TransformerEncoderLayer(8, 2, 16))
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    assert layer.training and layer.dropout.p == 0.1 and layer.self_attn.batch_first is False
    with pytest.raises(RuntimeError, match='activation should be relu/gelu'):
        nn.TransformerEncoderLayer(8, 2, activation='tanh')


# --- clip_grad -----------------------------------------------------------------------------------------------

@settings(**SETTINGS)
@given(norm_type=st.sampled_from([1.0, 2.0, 3.0, math.inf]), max_norm=st.sampled_from([0.1, 1.0, 100.0]),
       shapes=st.lists(st.sampled_from([(3,), (2, 2), (4, 1)]), min_size=1, max_size=3))
def test_clip_grad_norm(norm_type, max_norm, shapes):
    ps, tps = [], []
    for s in shapes:
        g = torch.randn(*s) * 5
        p = minitorch.zeros(*s, requires_grad=True)
        p.grad = mt(g)
        tp = torch.zeros(*s, requires_grad=True)
        tp.grad = g.clone()
        ps.append(p); tps.append(tp)
    n = nn.utils.clip_grad_norm_(ps, max_norm, norm_type)
    tn = torch.nn.utils.clip_grad_norm_(tps, max_norm, norm_type)
    assert math.isclose(n.item(), tn.item(), rel_tol=1e-5)
    for p, tp in zip(ps, tps):
        assert close(p.grad, tp.grad, 1e-5)


def test_clip_grad_value_and_edge_cases():
    p = minitorch.zeros(4, requires_grad=True)
    p.grad = minitorch.tensor([-3.0, -0.5, 0.5, 3.0])
    nn.utils.clip_grad_value_(p, 1.0)
    assert np.array_equal(p.grad.numpy(), [-1.0, -0.5, 0.5, 1.0])
    assert nn.utils.clip_grad_norm_([minitorch.zeros(2, requires_grad=True)], 1.0).item() == 0.0
    p.grad = minitorch.tensor([math.inf, 0.0, 0.0, 0.0])
    with pytest.raises(RuntimeError, match='non-finite'):
        nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    lin = nn.Linear(3, 2)
    lin(minitorch.ones(4, 3)).sum().backward()
    total = nn.utils.clip_grad_norm_(lin.parameters(), 0.01)
    assert total.item() > 0.01
    after = math.sqrt(sum((p.grad.numpy() ** 2).sum() for p in lin.parameters()))
    assert math.isclose(after, 0.01, rel_tol=1e-3)


# --- parametrize -----------------------------------------------------------------------------------------------

class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).mT

    def right_inverse(self, A):
        return A.triu()


class TSymmetric(torch.nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).mT

    def right_inverse(self, A):
        return A.triu()


def test_register_parametrization_like_torch():
    ours, theirs = nn.Linear(3, 3), torch.nn.Linear(3, 3)
    copy_weights(ours, theirs)
    w0 = ours.weight
    parametrize.register_parametrization(ours, 'weight', Symmetric())
    torch.nn.utils.parametrize.register_parametrization(theirs, 'weight', TSymmetric())
    assert type(ours).__name__ == 'ParametrizedLinear'
    assert repr(ours) == repr(theirs).replace('TSymmetric', 'Symmetric')
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ['bias', 'parametrizations.weight.original']
    assert ours.parametrizations.weight.original is w0            # the same Parameter object
    assert close(ours.weight, theirs.weight, 1e-6)
    W = ours.weight.detach().numpy()
    assert np.allclose(W, W.T)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    x = torch.randn(2, 3)
    theirs(x).sum().backward()
    ours(mt(x)).sum().backward()
    assert close(ours.parametrizations.weight.original.grad, theirs.parametrizations.weight.original.grad, 1e-5)
    # assignment goes through right_inverse
    S = torch.randn(3, 3); S = S + S.T
    ours.weight = mt(S)
    assert close(ours.weight, S, 1e-6)
    assert parametrize.is_parametrized(ours) and parametrize.is_parametrized(ours, 'weight')
    assert not parametrize.is_parametrized(ours, 'bias')
    assert parametrize.type_before_parametrizations(ours) is nn.Linear


def test_parametrize_cached_and_remove():
    lin = nn.Linear(3, 3)
    parametrize.register_parametrization(lin, 'weight', Symmetric())
    assert lin.weight is not lin.weight
    with parametrize.cached():
        assert lin.weight is lin.weight
    W = lin.weight.detach().numpy().copy()
    original = lin.parametrizations.weight.original
    parametrize.remove_parametrizations(lin, 'weight')
    assert type(lin) is nn.Linear and not hasattr(lin, 'parametrizations')
    assert lin.weight is original and isinstance(lin.weight, nn.Parameter)
    assert np.allclose(lin.weight.detach().numpy(), W)
    with pytest.raises(ValueError, match='does not have a parametrization on weight'):
        parametrize.remove_parametrizations(lin, 'weight')
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        parametrize.register_parametrization(lin, 'nope', Symmetric())
    # two parametrizations chain
    parametrize.register_parametrization(lin, 'weight', Symmetric())
    parametrize.register_parametrization(lin, 'weight', Symmetric())
    assert len(lin.parametrizations.weight) == 2
    parametrize.remove_parametrizations(lin, 'weight', leave_parametrized=False)
    assert type(lin) is nn.Linear


@pytest.mark.parametrize('shape', [(4, 4), (3, 5), (5, 2)])
def test_orthogonal(shape):
    theirs = torch.nn.Linear(shape[1], shape[0]).double()
    ours = nn.Linear(shape[1], shape[0]).double()
    copy_weights(ours, theirs)
    torch.nn.utils.parametrizations.orthogonal(theirs)
    nn.utils.parametrizations.orthogonal(ours)
    assert close(ours.weight, theirs.weight, 1e-8)
    W = ours.weight.detach().numpy()
    G = W @ W.T if shape[0] <= shape[1] else W.T @ W
    assert np.allclose(G, np.eye(min(shape)), atol=1e-10)
    # still orthogonal after a gradient step on the unconstrained tensor
    ours(minitorch.ones(2, shape[1], dtype=minitorch.float64)).sum().backward()
    orig = ours.parametrizations.weight.original
    with minitorch.no_grad():
        orig.sub_(orig.grad * 0.1)
    W = ours.weight.detach().numpy()
    G = W @ W.T if shape[0] <= shape[1] else W.T @ W
    assert np.allclose(G, np.eye(min(shape)), atol=1e-8)
    if shape[0] == shape[1]:
        x = torch.randn(2, shape[1], dtype=torch.float64)
        o2, t2 = nn.Linear(4, 4).double(), torch.nn.Linear(4, 4).double()
        copy_weights(o2, t2)
        nn.utils.parametrizations.orthogonal(o2); torch.nn.utils.parametrizations.orthogonal(t2)
        t2(x).square().sum().backward(); o2(mt(x)).square().sum().backward()
        assert close(o2.parametrizations.weight.original.grad, t2.parametrizations.weight.original.grad, 1e-8)
