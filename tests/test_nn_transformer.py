"""TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and Transformer against PyTorch with copied
weights: outputs, input and parameter gradients, masks, reprs, state-dict keys and errors."""
import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn as nn


def mt(t, requires_grad=False):
    return minitorch.tensor(t.detach().numpy(), requires_grad=requires_grad)


def close(a, b, tol=1e-8):
    a = a.detach().numpy() if hasattr(a, 'detach') else np.asarray(a)
    return a.shape == tuple(b.shape) and np.allclose(a, b.detach().numpy(), atol=tol, rtol=tol)


def copy_from(ours, theirs):
    ours.load_state_dict({k: mt(v) for k, v in theirs.state_dict().items()})
    return ours


def check_grads(ours, theirs, out, tout, inputs):
    g = torch.randn_like(tout)
    tout.backward(g)
    out.backward(mt(g))
    for o, t in inputs: assert close(o.grad, t.grad), 'input grad'
    tp = dict(theirs.named_parameters())
    for name, p in ours.named_parameters(): assert close(p.grad, tp[name].grad), name


def rand_weights(module):
    "Give every parameter of a torch module distinct random values (clones otherwise start equal)."
    with torch.no_grad():
        for p in module.parameters(): p.copy_(torch.randn_like(p) * 0.3)
    return module


@pytest.mark.parametrize('kw', [dict(), dict(norm_first=True, batch_first=True, activation='gelu'),
                                dict(batch_first=True, bias=False)])
@pytest.mark.parametrize('masks', ['none', 'causal', 'padding', 'bool'])
def test_encoder_stack(kw, masks):
    torch.manual_seed(0)
    bf = kw.get('batch_first', False)
    x = torch.randn(*((2, 5) if bf else (5, 2)), 8, dtype=torch.float64)
    tl = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=torch.float64, **kw)
    te = rand_weights(torch.nn.TransformerEncoder(tl, 3, norm=torch.nn.LayerNorm(8, dtype=torch.float64),
                                                  enable_nested_tensor=False))
    ours = copy_from(nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=minitorch.float64,
                                                                      **kw), 3,
                                           norm=nn.LayerNorm(8, dtype=minitorch.float64)), te)
    targs = {}
    if masks == 'causal': targs['mask'] = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    if masks == 'padding': targs['src_key_padding_mask'] = torch.tensor([[False] * 4 + [True], [False] * 5])
    if masks == 'bool': targs['mask'] = torch.rand(5, 5) > 0.7
    if masks == 'bool': targs['mask'].fill_diagonal_(False)
    tx, ox = x.clone().requires_grad_(), mt(x, requires_grad=True)
    tout, out = te(tx, **targs), ours(ox, **{k: mt(v) for k, v in targs.items()})
    assert close(out, tout)
    check_grads(ours, te, out, tout, [(ox, tx)])


def test_encoder_clones_are_independent_and_repr():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    enc = nn.TransformerEncoder(layer, 2)
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    with minitorch.no_grad(): enc.layers[0].linear1.weight.fill_(0.0)
    assert float(enc.layers[1].linear1.weight.abs().sum().item()) > 0
    assert float(layer.linear1.weight.abs().sum().item()) > 0
    te = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16), 2, enable_nested_tensor=False)
    assert sorted(enc.state_dict()) == sorted(te.state_dict())
    assert repr(enc) == repr(te)


@pytest.mark.parametrize('kw', [dict(), dict(norm_first=True, activation='gelu'), dict(batch_first=True)])
def test_decoder_layer_and_stack(kw):
    torch.manual_seed(1)
    bf = kw.get('batch_first', False)
    tgt = torch.randn(*((2, 4) if bf else (4, 2)), 8, dtype=torch.float64)
    mem = torch.randn(*((2, 6) if bf else (6, 2)), 8, dtype=torch.float64)
    tl = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, dtype=torch.float64, **kw)
    ol = copy_from(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, dtype=minitorch.float64, **kw), tl)
    assert close(ol(mt(tgt), mt(mem)), tl(tgt, mem)) and repr(ol) == repr(tl)
    td = rand_weights(torch.nn.TransformerDecoder(tl, 2, norm=torch.nn.LayerNorm(8, dtype=torch.float64)))
    od = copy_from(nn.TransformerDecoder(ol, 2, norm=nn.LayerNorm(8, dtype=minitorch.float64)), td)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    mpad = torch.tensor([[False] * 5 + [True], [False] * 6])
    tt, tm = tgt.clone().requires_grad_(), mem.clone().requires_grad_()
    ot, om = mt(tgt, True), mt(mem, True)
    tout = td(tt, tm, tgt_mask=tmask, memory_key_padding_mask=mpad)
    out = od(ot, om, tgt_mask=mt(tmask), memory_key_padding_mask=mt(mpad))
    assert close(out, tout)
    check_grads(od, td, out, tout, [(ot, tt), (om, tm)])


def test_transformer():
    torch.manual_seed(0)
    tt = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True, dtype=torch.float64)
    ours = copy_from(nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True, dtype=minitorch.float64), tt)
    src, tgt = torch.randn(2, 5, 8, dtype=torch.float64), torch.randn(2, 4, 8, dtype=torch.float64)
    tmask = tt.generate_square_subsequent_mask(4, dtype=torch.float64)
    tout, out = tt(src, tgt, tgt_mask=tmask), ours(mt(src), mt(tgt), tgt_mask=mt(tmask))
    assert close(out, tout)
    check_grads(ours, tt, out, tout, [])
    assert sorted(ours.state_dict()) == sorted(tt.state_dict())
    assert close(nn.Transformer.generate_square_subsequent_mask(3), torch.nn.Transformer.generate_square_subsequent_mask(3))
    fresh = nn.Transformer(8, 2, 1, 1, 16)
    w = fresh.encoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6 / (8 + 16))
    assert abs(w).max() <= bound and abs(w).max() > 0.7 * bound          # xavier-uniform init
    for a, b in [((2, 5, 8), (3, 4, 8)), ((2, 5, 8), (2, 4, 6))]:
        with pytest.raises(RuntimeError) as te:
            tt(torch.randn(*a, dtype=torch.float64), torch.randn(*b, dtype=torch.float64))
        with pytest.raises(RuntimeError) as oe:
            ours(minitorch.randn(*a, dtype=minitorch.float64), minitorch.randn(*b, dtype=minitorch.float64))
        assert str(oe.value) == str(te.value)


def test_bad_activation():
    with pytest.raises(RuntimeError, match='activation should be relu/gelu, not tanh'):
        nn.TransformerDecoderLayer(8, 2, activation='tanh')
