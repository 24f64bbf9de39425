"""nn.RNN / LSTM / GRU, their cells and nn.utils.rnn against torch, with the weights copied from torch."""
import itertools
import warnings

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn as nn
from minitorch.nn.utils import rnn as rnn_utils


def mt(t, requires_grad=False):
    return minitorch.tensor(t.detach().numpy(), requires_grad=requires_grad)


def assert_close(ours, theirs, tol=1e-5):
    a = ours.detach().numpy() if hasattr(ours, "detach") else np.asarray(ours)
    b = theirs.detach().numpy()
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def pair(cls, *args, dtype=torch.float32, **kw):
    "The torch module and a minitorch one holding the same weights."
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls)(*args, **kw).to(dtype)
    m = getattr(nn, cls)(*args, **kw)
    m.load_state_dict({k: mt(v) for k, v in tm.state_dict().items()})
    return m, tm


def check_grads(m, tm, tol=1e-5):
    for (n, p), (tn, tp) in zip(m.named_parameters(), tm.named_parameters()):
        assert n == tn
        assert_close(p.grad, tp.grad, tol)


LAYERS = [(mode, layers, bidir, bf, bias, proj)
          for mode in ["RNN", "RNN-relu", "LSTM", "GRU"]
          for layers, bidir, bf, bias in itertools.product([1, 2], [False, True], [False, True], [True, False])
          for proj in ([0, 2] if mode == "LSTM" else [0])]


def make(mode, layers, bidir, bf, bias, proj, dtype=torch.float32):
    kw = dict(num_layers=layers, bidirectional=bidir, batch_first=bf, bias=bias)
    if proj: kw["proj_size"] = proj
    if mode == "RNN-relu": return pair("RNN", 3, 4, nonlinearity="relu", dtype=dtype, **kw)
    return pair(mode, 3, 4, dtype=dtype, **kw)


def run_both(m, tm, x_np, hx=None, lstm=False):
    tx = torch.tensor(x_np, requires_grad=True)
    x = mt(tx, True)
    if hx is None:
        th = h = None
    elif lstm:
        th = tuple(torch.tensor(v, requires_grad=True) for v in hx)
        h = tuple(mt(v, True) for v in th)
    else:
        th = torch.tensor(hx, requires_grad=True)
        h = mt(th, True)
    return (x, h, m(x, h)), (tx, th, tm(tx, th))


@pytest.mark.parametrize("mode,layers,bidir,bf,bias,proj", LAYERS, ids=str)
def test_layer_outputs_and_gradients(mode, layers, bidir, bf, bias, proj):
    m, tm = make(mode, layers, bidir, bf, bias, proj)
    lstm = mode == "LSTM"
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
           [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    assert repr(m) == repr(tm)
    rng = np.random.default_rng(1)
    T, N, D = 5, 2, 2 if bidir else 1
    x_np = rng.standard_normal((N, T, 3) if bf else (T, N, 3)).astype("float32")
    H = proj or 4
    hx = rng.standard_normal((layers * D, N, H)).astype("float32")
    if lstm: hx = (hx, rng.standard_normal((layers * D, N, 4)).astype("float32"))
    (x, h, (out, hn)), (tx, th, (tout, thn)) = run_both(m, tm, x_np, hx, lstm)
    assert_close(out, tout)
    hs, ths = (hn, thn) if lstm else ((hn,), (thn,))
    for a, b in zip(hs, ths): assert_close(a, b)
    w = torch.linspace(-1, 1, tout.numel()).reshape(tout.shape)
    loss = (out * mt(w)).sum() + sum((k + 2.0) * s.sum() for k, s in enumerate(hs))
    tloss = (tout * w).sum() + sum((k + 2.0) * s.sum() for k, s in enumerate(ths))
    loss.backward(); tloss.backward()
    assert_close(x.grad, tx.grad)
    for a, b in (zip(h, th) if lstm else [(h, th)]): assert_close(a.grad, b.grad)
    check_grads(m, tm)


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidir", [False, True])
def test_default_state_unbatched_and_float64(mode, bidir):
    m, tm = pair(mode, 3, 4, num_layers=2, bidirectional=bidir, dtype=torch.float64)
    m = m.double()
    rng = np.random.default_rng(2)
    for shape in [(6, 2, 3), (6, 3)]:                   # batched and a single sequence
        x_np = rng.standard_normal(shape)
        (x, _, (out, hn)), (tx, _, (tout, thn)) = run_both(m, tm, x_np)
        assert_close(out, tout, 1e-12)
        for a, b in zip(hn if mode == "LSTM" else (hn,), thn if mode == "LSTM" else (thn,)):
            assert_close(a, b, 1e-12)
        out.sum().backward(); tout.sum().backward()
        assert_close(x.grad, tx.grad, 1e-12)


def test_unbatched_with_state_and_batch_first():
    m, tm = pair("LSTM", 3, 4, batch_first=True, num_layers=2)
    x = torch.randn(5, 3)
    h = (torch.randn(2, 4), torch.randn(2, 4))
    out, (hn, cn) = m(mt(x), tuple(mt(v) for v in h))
    tout, (thn, tcn) = tm(x, h)
    assert_close(out, tout); assert_close(hn, thn); assert_close(cn, tcn)


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidir", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("with_state", [False, True])
def test_packed_sequences(mode, bidir, enforce_sorted, with_state):
    m, tm = pair(mode, 3, 4, num_layers=2, bidirectional=bidir, batch_first=True)
    lengths = [6, 4, 4, 1] if enforce_sorted else [4, 6, 1, 4]
    rng = np.random.default_rng(3)
    tx = torch.tensor(rng.standard_normal((4, 6, 3)).astype("float32"), requires_grad=True)
    x = mt(tx, True)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, batch_first=True, enforce_sorted=enforce_sorted)
    p = rnn_utils.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=enforce_sorted)
    for a, b in zip(p, tp):
        if b is None: assert a is None
        else: np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy())
    D, lstm = 2 if bidir else 1, mode == "LSTM"
    th = h = None
    if with_state:
        th = torch.randn(2 * D, 4, 4, requires_grad=True)
        if lstm: th = (th, torch.randn(2 * D, 4, 4, requires_grad=True))
        h = tuple(mt(v, True) for v in th) if lstm else mt(th, True)
    out, hn = m(p, h)
    tout, thn = tm(tp, th)
    assert isinstance(out, rnn_utils.PackedSequence)
    assert_close(out.data, tout.data)
    assert out.batch_sizes.tolist() == tout.batch_sizes.tolist()
    hs, ths = (hn, thn) if lstm else ((hn,), (thn,))
    for a, b in zip(hs, ths): assert_close(a, b)
    padded, lens = rnn_utils.pad_packed_sequence(out, batch_first=True, total_length=7)
    tpadded, tlens = torch.nn.utils.rnn.pad_packed_sequence(tout, batch_first=True, total_length=7)
    assert_close(padded, tpadded)
    assert lens.tolist() == tlens.tolist()
    ((padded * padded).sum() + sum(s.sum() for s in hs)).backward()
    ((tpadded * tpadded).sum() + sum(s.sum() for s in ths)).backward()
    assert_close(x.grad, tx.grad)
    check_grads(m, tm)
    if with_state:
        for a, b in (zip(h, th) if lstm else [(h, th)]): assert_close(a.grad, b.grad)


def test_dropout_between_layers():
    m, tm = pair("GRU", 3, 4, num_layers=3, dropout=0.5)
    x = torch.randn(5, 2, 3)
    m.eval(); tm.eval()
    assert_close(m(mt(x))[0], tm(x)[0])              # no dropout in eval mode
    m.train()
    minitorch.manual_seed(0)
    a = m(mt(x))[0]
    minitorch.manual_seed(1)
    b = m(mt(x))[0]
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        nn.LSTM(3, 4, dropout=0.3)
    assert "non-zero dropout expects num_layers greater than 1" in str(w[0].message)


def test_init_is_uniform_in_bounds():
    minitorch.manual_seed(0)
    m = nn.LSTM(3, 16, num_layers=2, bidirectional=True)
    for p in m.parameters():
        v = p.detach().numpy()
        assert np.abs(v).max() <= 0.25 and v.std() > 0.1   # U(-1/4, 1/4): std 0.144
    c = nn.GRUCell(3, 100)
    assert np.abs(c.weight_hh.detach().numpy()).max() <= 0.1


@pytest.mark.parametrize("cls,kw", [("RNNCell", {}), ("RNNCell", dict(nonlinearity="relu")),
                                    ("RNNCell", dict(bias=False)), ("LSTMCell", {}), ("LSTMCell", dict(bias=False)),
                                    ("GRUCell", {}), ("GRUCell", dict(bias=False))])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [True, False])
def test_cells(cls, kw, batched, with_state):
    m, tm = pair(cls, 3, 5, **kw)
    assert repr(m) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
           [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    lstm = cls == "LSTMCell"
    tx = torch.randn(*((4, 3) if batched else (3,)), requires_grad=True)
    x = mt(tx, True)
    th = h = None
    if with_state:
        shape = (4, 5) if batched else (5,)
        th = (torch.randn(*shape, requires_grad=True), torch.randn(*shape, requires_grad=True)) if lstm \
            else torch.randn(*shape, requires_grad=True)
        h = tuple(mt(v, True) for v in th) if lstm else mt(th, True)
    out, tout = m(x, h), tm(tx, th)
    outs, touts = (out, tout) if lstm else ((out,), (tout,))
    for a, b in zip(outs, touts): assert_close(a, b)
    sum((k + 1.0) * (o * o).sum() for k, o in enumerate(outs)).backward()
    sum((k + 1.0) * (o * o).sum() for k, o in enumerate(touts)).backward()
    assert_close(x.grad, tx.grad)
    check_grads(m, tm)
    if with_state:
        for a, b in (zip(h, th) if lstm else [(h, th)]): assert_close(a.grad, b.grad)


def test_cell_loop_equals_layer():
    "Unrolling an LSTMCell over time gives nn.LSTM's output when the weights are shared."
    layer, cell = nn.LSTM(3, 4), nn.LSTMCell(3, 4)
    cell.load_state_dict({k[:-3]: v for k, v in layer.state_dict().items()})
    x = minitorch.randn(5, 2, 3)
    h = c = minitorch.zeros(2, 4)
    outs = []
    for t in range(5):
        h, c = cell(x[t], (h, c))
        outs.append(h)
    np.testing.assert_allclose(minitorch.stack(outs).detach().numpy(), layer(x)[0].detach().numpy(), rtol=1e-6, atol=1e-6)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    raise AssertionError("no error")


ERRORS = [
    lambda lib: lib.nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda lib: lib.nn.GRU(3, 4, proj_size=2),
    lambda lib: lib.nn.RNN(3, 4, proj_size=2),
    lambda lib: lib.nn.LSTM(3, 4, proj_size=4),
    lambda lib: lib.nn.LSTM(3, 4, proj_size=-1),
    lambda lib: lib.nn.LSTM(3, 4, dropout=1.5),
    lambda lib: lib.nn.LSTM(3, 0),
    lambda lib: lib.nn.LSTM(0, 3),
    lambda lib: lib.nn.LSTM(3, 3, num_layers=0),
    lambda lib: lib.nn.LSTM(3.0, 3),
    lambda lib: lib.nn.LSTM(3, 3, bias=1),
    lambda lib: lib.nn.LSTM(3, 4)(lib.zeros(2, 2, 2, 3)),
    lambda lib: lib.nn.GRU(3, 4)(lib.zeros(3)),
    lambda lib: lib.nn.RNN(3, 4)(lib.zeros(2, 2, 2, 3)),
    lambda lib: lib.nn.RNN(3, 4)(lib.zeros(5, 2, 2)),
    lambda lib: lib.nn.RNN(3, 4)(lib.zeros(5, 2, 3), lib.zeros(1, 3, 4)),
    lambda lib: lib.nn.RNN(3, 4)(lib.zeros(5, 2, 3), lib.zeros(2, 4)),
    lambda lib: lib.nn.LSTM(3, 4)(lib.zeros(5, 2, 3), (lib.zeros(1, 2, 4), lib.zeros(1, 2, 5))),
    lambda lib: lib.nn.LSTM(3, 4)(lib.zeros(5, 2, 3), (lib.zeros(1, 3, 4), lib.zeros(1, 2, 4))),
    lambda lib: lib.nn.LSTM(3, 4)(lib.zeros(5, 3), (lib.zeros(1, 2, 4), lib.zeros(1, 2, 4))),
    lambda lib: lib.nn.LSTM(3, 4)(lib.zeros(5, 2, 3, dtype=lib.float64)),
    lambda lib: lib.nn.RNNCell(3, 4)(lib.zeros(2, 2, 3)),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.zeros(2, 3), (lib.zeros(1, 2, 4), lib.zeros(2, 4))),
    lambda lib: lib.nn.GRUCell(3, 4)(lib.zeros(2, 3), lib.zeros(1, 2, 4)),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2), [1, 3]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2), [3, 0]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2), [3, 2, 1]),
    lambda lib: lib.nn.utils.rnn.pad_sequence([lib.zeros(2)], padding_side="middle"),
    lambda lib: lib.nn.utils.rnn.pad_packed_sequence(lib.nn.utils.rnn.pack_sequence([lib.zeros(3)]), total_length=2),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    import torch.nn.utils.rnn  # noqa: F401
    cls, msg = _error(lambda: ERRORS[i](torch))
    with pytest.raises(cls) as info:
        ERRORS[i](minitorch)
    assert str(info.value).replace("minitorch.", "torch.") == msg   # dtypes print as minitorch.float64


def test_utils_rnn_helpers():
    from torch.nn.utils import rnn as trnn
    seqs = [torch.randn(n, 2) for n in (3, 5, 1, 5)]
    ours = [mt(s) for s in seqs]
    for bf, side, pv in itertools.product([False, True], ["left", "right"], [0.0, -2.5]):
        assert_close(rnn_utils.pad_sequence(ours, batch_first=bf, padding_value=pv, padding_side=side),
                     trnn.pad_sequence(seqs, batch_first=bf, padding_value=pv, padding_side=side))
    tp, p = trnn.pack_sequence(seqs, enforce_sorted=False), rnn_utils.pack_sequence(ours, enforce_sorted=False)
    assert_close(p.data, tp.data)
    for a, b in zip(p[1:], tp[1:]): assert a.tolist() == b.tolist()
    for a, b in zip(rnn_utils.unpack_sequence(p), trnn.unpack_sequence(tp)): assert_close(a, b)
    padded, lengths = trnn.pad_packed_sequence(tp)
    for a, b in zip(rnn_utils.unpad_sequence(mt(padded), mt(lengths)), trnn.unpad_sequence(padded, lengths)):
        assert_close(a, b)
    assert rnn_utils.invert_permutation(mt(tp.sorted_indices)).tolist() == tp.unsorted_indices.tolist()
    q = rnn_utils.PackedSequence(p.data, p.batch_sizes)
    assert q.sorted_indices is None and q.unsorted_indices is None
    assert p.double().data.dtype == minitorch.float64 and p.to(minitorch.float64).batch_sizes is p.batch_sizes
    assert nn.utils.rnn is rnn_utils and nn.utils.rnn.PackedSequence is nn.rnn.PackedSequence
