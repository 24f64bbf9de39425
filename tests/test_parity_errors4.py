"Parity fixes (issue 12): threshold_ on expanded inputs, multi_margin_loss, pdist, embedding_bag, addmm_, index_fill."
import pytest
import numpy as np
import torch
import minitorch as mt
import minitorch.nn.functional as F
import torch.nn.functional as TF


def _same(m, t):
    torch.testing.assert_close(torch.from_numpy(np.array(m.tolist(), dtype=np.float64)).reshape(t.shape),
                               t.detach().double(), equal_nan=True)


@pytest.mark.parametrize("which", ["F", "mt"])
def test_threshold_inplace_expanded(which):
    vals = [1., -2., 0.5]
    t = torch.tensor(vals).expand(2, 3)
    m = mt.tensor(vals).expand(2, 3)
    rt = torch.threshold_(t, 0.6, 9.0)
    rm = (F.threshold_ if which == "F" else mt.threshold_)(m, 0.6, 9.0)
    assert rm is m
    _same(m, t); _same(rm, rt)


@pytest.mark.parametrize("fn", ["relu_", "elu_", "leaky_relu_", "hardtanh_", "selu_", "celu_"])
def test_other_inplace_expanded_still_refused(fn):
    t = torch.tensor([1., -2.]).expand(2, 2)
    m = mt.tensor([1., -2.]).expand(2, 2)
    with pytest.raises(RuntimeError):
        getattr(TF, fn)(t)
    with pytest.raises(RuntimeError):
        getattr(F, fn)(m)


def _t(m):
    return torch.tensor(np.array(m.tolist()))


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin_loss_nan_terms_skipped(p, weighted):
    nan = float('nan')
    xs = [[1., nan, 2.], [0., 5., -9.], [nan, 1., 2.], [0.3, 0.2, 0.25]]
    ys = [0, 1, 0, 2]
    w = [1., 2., 3.] if weighted else None
    xt = torch.tensor(xs, requires_grad=True)
    xm = mt.tensor(xs, requires_grad=True)
    for red in ('none', 'sum'):
        lt = TF.multi_margin_loss(xt, torch.tensor(ys), p=p, weight=None if w is None else torch.tensor(w), reduction=red)
        lm = F.multi_margin_loss(xm, mt.tensor(ys), p=p, weight=None if w is None else mt.tensor(w), reduction=red)
        _same(lm, lt)
    lt.backward(); lm.backward()
    _same(xm.grad, xt.grad)


def test_multi_margin_loss_empty_batch():
    lt = TF.multi_margin_loss(torch.zeros(0, 3), torch.zeros(0, dtype=torch.long), reduction='none')
    lm = F.multi_margin_loss(mt.zeros(0, 3), mt.zeros(0, dtype=mt.int64), reduction='none')
    assert tuple(lm.shape) == tuple(lt.shape)
    for s in [(0, 0), (3, 0), (0,)]:
        with pytest.raises(RuntimeError, match="Expected non-empty vector or matrix"):
            F.multi_margin_loss(mt.zeros(*s), mt.zeros(s[0] if len(s) == 2 else 1, dtype=mt.int64))


@pytest.mark.parametrize("d", ["int64", "int32", "bool", "float16", "bfloat16", "complex64"])
def test_multi_margin_loss_dtype_error(d):
    with pytest.raises(NotImplementedError) as et:
        TF.multi_margin_loss(torch.ones(2, 3, dtype=getattr(torch, d)), torch.tensor([0, 1]))
    with pytest.raises(NotImplementedError) as em:
        F.multi_margin_loss(mt.ones(2, 3, dtype=getattr(mt, d)), mt.tensor([0, 1]))
    assert str(em.value) == str(et.value)


@pytest.mark.parametrize("d", ["int16", "float16", "bool", "float32"])
def test_multi_margin_loss_empty_batch_any_dtype(d):
    lt = TF.multi_margin_loss(torch.ones(0, 3, dtype=getattr(torch, d)), torch.zeros(0, dtype=torch.long), reduction='none')
    lm = F.multi_margin_loss(mt.ones(0, 3, dtype=getattr(mt, d)), mt.zeros(0, dtype=mt.int64), reduction='none')
    assert tuple(lm.shape) == tuple(lt.shape) and str(lm.dtype).split(".")[-1] == str(lt.dtype).split(".")[-1]
    st = TF.multi_margin_loss(torch.ones(0, 3, dtype=getattr(torch, d)), torch.zeros(0, dtype=torch.long), reduction='sum')
    sm = F.multi_margin_loss(mt.ones(0, 3, dtype=getattr(mt, d)), mt.zeros(0, dtype=mt.int64), reduction='sum')
    assert tuple(sm.shape) == tuple(st.shape) and str(sm.dtype).split(".")[-1] == str(st.dtype).split(".")[-1]   # torch's value is unset memory


@pytest.mark.parametrize("s", [(1, 3), (1, 0), (3, 0)])   # (0, n): torch's PdistBackward segfaults, so left out
def test_pdist_few_rows_in_graph(s):
    t = torch.pdist(torch.ones(s, requires_grad=True))
    m = mt.pdist(mt.ones(*s, requires_grad=True))
    assert tuple(m.shape) == tuple(t.shape) and m.requires_grad and m.grad_fn is not None
    _same(m, t)


@pytest.mark.parametrize("d", ["float16", "bfloat16"])
def test_pdist_half_error(d):
    with pytest.raises(NotImplementedError) as et:
        torch.pdist(torch.ones(3, 2, dtype=getattr(torch, d)))
    with pytest.raises(NotImplementedError) as em:
        mt.pdist(mt.ones(3, 2, dtype=getattr(mt, d)))
    assert str(em.value) == str(et.value)
    assert tuple(mt.pdist(mt.ones(1, 2, dtype=getattr(mt, d))).shape) == (0,)   # no kernel call for one row


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, float('inf')])
def test_pdist_no_columns(p):
    t = torch.pdist(torch.ones(4, 0, requires_grad=True), p=p)
    m = mt.pdist(mt.ones(4, 0, requires_grad=True), p=p)
    assert m.requires_grad
    _same(m, t)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_nan_row_stays_in_its_bag(mode):
    nan = float('nan')
    ws = [[1., 2.], [nan, 3.], [4., 5.]]
    wt = torch.tensor(ws, requires_grad=True)
    wm = mt.tensor(ws, requires_grad=True)
    ot = TF.embedding_bag(torch.tensor([0, 2, 2, 1]), wt, torch.tensor([0, 2, 2, 3]), mode=mode)
    om = F.embedding_bag(mt.tensor([0, 2, 2, 1]), wm, mt.tensor([0, 2, 2, 3]), mode=mode)
    _same(om, ot)
    ot.sum().backward(); om.sum().backward()
    _same(wm.grad, wt.grad)


@pytest.mark.parametrize("d", ["int64", "int32", "bool", "complex64"])
def test_embedding_bag_weight_dtype_error(d):
    with pytest.raises(RuntimeError) as et:
        TF.embedding_bag(torch.tensor([0, 1]), torch.ones(3, 2, dtype=getattr(torch, d)), torch.tensor([0]))
    with pytest.raises(RuntimeError) as em:
        F.embedding_bag(mt.tensor([0, 1]), mt.ones(3, 2, dtype=getattr(mt, d)), mt.tensor([0]))
    assert str(em.value) == str(et.value)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("pad", [None, 1])
@pytest.mark.parametrize("idx,off", [([0, 2, 1], [0, 1]), ([0, 2, 1, 0], [0, 1, 2]), ([0, 1, 1], [0, 2]), ([1, 0, 2, 2], [0, 2, 4])])
def test_embedding_bag_include_last_offset(mode, pad, idx, off):
    ws = [[1.], [10.], [100.]]
    ot = TF.embedding_bag(torch.tensor(idx), torch.tensor(ws), torch.tensor(off), mode=mode, include_last_offset=True,
                          padding_idx=pad)
    om = F.embedding_bag(mt.tensor(idx), mt.tensor(ws), mt.tensor(off), mode=mode, include_last_offset=True,
                         padding_idx=pad)
    _same(om, ot)


@pytest.mark.parametrize("shape,dim", [((2, 0, 3), 1), ((0,), 0), ((0, 4), 0)])
def test_index_fill_empty_dim(shape, dim):
    with pytest.raises(RuntimeError) as et:
        torch.ones(shape).index_fill(dim, torch.tensor([0]), 5.)
    with pytest.raises(RuntimeError) as em:
        mt.ones(*shape).index_fill(dim, mt.tensor([0]), 5.)
    assert str(em.value) == str(et.value).split('\n')[0] or str(em.value) in str(et.value)
    assert tuple(mt.ones(*shape).index_fill(dim, mt.tensor([], dtype=mt.int64), 5.).shape) == shape


@pytest.mark.parametrize("a,b,c", [("float32", "float32", "int64"), ("float32", "int64", "int64"), ("int64", "float32", "float32"),
                                   ("float32", "int64", "float32"), ("bool", "bool", "bool"), ("float64", "float32", "float32")])
def test_addmm__dtype_errors(a, b, c):
    with pytest.raises((RuntimeError, NotImplementedError)) as et:
        torch.ones(2, 2, dtype=getattr(torch, a)).addmm_(torch.ones(2, 2, dtype=getattr(torch, b)), torch.ones(2, 2, dtype=getattr(torch, c)))
    with pytest.raises((RuntimeError, NotImplementedError)) as em:
        mt.ones(2, 2, dtype=getattr(mt, a)).addmm_(mt.ones(2, 2, dtype=getattr(mt, b)), mt.ones(2, 2, dtype=getattr(mt, c)))
    assert type(em.value) is type(et.value) and str(em.value) == str(et.value)


def test_addmm__same_dtype_still_works():
    t = torch.ones(2, 2, dtype=torch.int64).addmm_(torch.ones(2, 2, dtype=torch.int64), torch.ones(2, 2, dtype=torch.int64))
    m = mt.ones(2, 2, dtype=mt.int64).addmm_(mt.ones(2, 2, dtype=mt.int64), mt.ones(2, 2, dtype=mt.int64))
    _same(m, t)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_include_last_offset_strided_weight(mode):
    wt = torch.tensor([[1., 10., 100.], [0., 0., 0.]]).t()
    wm = mt.tensor([[1., 10., 100.], [0., 0., 0.]]).t()
    ot = TF.embedding_bag(torch.tensor([0, 1, 2]), wt, torch.tensor([0, 1]), mode=mode, include_last_offset=True)
    om = F.embedding_bag(mt.tensor([0, 1, 2]), wm, mt.tensor([0, 1]), mode=mode, include_last_offset=True)
    _same(om, ot)
