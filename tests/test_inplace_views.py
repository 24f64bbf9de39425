"""In-place ops on views (CopySlices / AsStrided rebase), expanded-view writes, multi-output and no_grad views,
as_strided, and view edge cases, against torch."""
import pytest
import torch
import minitorch as mt
from minitorch.views import as_strided


def _pair(data, dtype='float32', requires_grad=True):
    t = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=requires_grad)
    m = mt.tensor(data, dtype=getattr(mt, dtype), requires_grad=requires_grad)
    return t, m


def _close(m, t, **kw):
    assert m is not None and t is not None
    m, t = m.detach(), t.detach()
    if m.dtype in (mt.float16, mt.bfloat16): m, t = m.float(), t.float()
    torch.testing.assert_close(torch.tensor(m.numpy()), t, check_dtype=False, **kw)


# each case: f(lib, base) -> None, modifying `base` in place through a view
VIEWS = {
    'slice_all': lambda L, b: b[:].mul_(5),
    'slice': lambda L, b: b[1:3].mul_(5),
    'step': lambda L, b: b[::2].add_(7),
    'select': lambda L, b: b[1].mul_(-3),
    'diagonal': lambda L, b: b.view(2, 2).diagonal().mul_(4),
    't': lambda L, b: b.view(2, 2).t().mul_(L.tensor([[1., 2.], [3., 4.]])),
    'view': lambda L, b: b.view(2, 2).mul_(3),
    'unsqueeze': lambda L, b: b.unsqueeze(0).mul_(2),
    'narrow': lambda L, b: b.narrow(0, 1, 2).pow_(2),
    'select_fn': lambda L, b: L.select(b.view(2, 2), 1, 0).exp_(),
    'chained': lambda L, b: b.view(2, 2)[:, 1:].t()[0].mul_(10),
    'setitem_view': lambda L, b: b.view(2, 2)[1].__setitem__(0, 9.0),
    'zero': lambda L, b: b[1:].zero_(),
    'fill': lambda L, b: b[:2].fill_(3.0),
    'copy': lambda L, b: b[2:].copy_(L.tensor([5., 6.])),
    'clamp': lambda L, b: b[:3].clamp_(min=1.5),
    'masked_fill': lambda L, b: b[1:].masked_fill_(L.tensor([True, False, True]), 0.5),
}


@pytest.mark.parametrize('name', list(VIEWS))
def test_inplace_on_view_of_nonleaf(name):
    tx, mx = _pair([1., 2., 3., 4.])
    tb, mb = tx.clone(), mx.clone()
    VIEWS[name](torch, tb); VIEWS[name](mt, mb)
    _close(mb, tb)
    assert type(mb.grad_fn).__name__ == type(tb.grad_fn).__name__ == 'CopySlices'
    w = [1., 10., 100., 1000.]
    (tb * torch.tensor(w)).sum().backward(); (mb * mt.tensor(w)).sum().backward()
    _close(mx.grad, tx.grad)


@pytest.mark.parametrize('name', list(VIEWS))
def test_inplace_on_view_grad_through_view(name):
    "The modified view's grad_fn reads the base's new history (AsStrided), so grads through the view are right."
    tx, mx = _pair([1., 2., 3., 4.])
    tb, mb = tx.clone(), mx.clone()
    tv, mv = tb.view(2, 2)[1], mb.view(2, 2)[1]    # another view, made before the in-place op
    VIEWS[name](torch, tb); VIEWS[name](mt, mb)
    # torch regenerates every view lazily; minitorch regenerates those the write overlaps (the others' old path is
    # still exact: the new history is the identity outside the written region)
    assert type(tv.grad_fn).__name__ == 'AsStridedBackward0'
    assert type(mv.grad_fn).__name__ in ('AsStridedBackward0', 'SelectBackward0')
    (tv * torch.tensor([3., 5.])).sum().backward(); (mv * mt.tensor([3., 5.])).sum().backward()
    _close(mx.grad, tx.grad)


def test_issue_example_and_requires_grad():
    x = mt.ones(3, requires_grad=True)
    b = x.clone(); b[:].mul_(5); b.sum().backward()
    assert x.grad.tolist() == [5., 5., 5.]
    b = x.clone(); v = b[0:1]; v.zero_()
    assert v.requires_grad and type(v.grad_fn).__name__ == 'AsStridedBackward0'


def test_inplace_on_base_regenerates_views():
    tx, mx = _pair([1., 2., 3.])
    tb, mb = tx.clone(), mx.clone()
    tv, mv = tb[1:], mb[1:]
    tb.mul_(tx); mb.mul_(mx)
    assert type(mv.grad_fn).__name__ == 'AsStridedBackward0'
    _close(mv, tv)
    (tv * torch.tensor([2., 7.])).sum().backward(); (mv * mt.tensor([2., 7.])).sum().backward()
    _close(mx.grad, tx.grad)


def test_two_inplace_ops_on_different_views():
    tx, mx = _pair([[1., 2.], [3., 4.]])
    for L, x in ((torch, tx), (mt, mx)):
        b = x * 2
        b[0].mul_(x[1])
        b[:, 1].add_(x[:, 0] * 3)
        b.t()[0].sin_()
        (b * L.tensor([[1., 2.], [3., 4.]])).sum().backward()
    _close(mx.grad, tx.grad)


def test_view_of_nongrad_leaf_with_grad_operand():
    tw, mw = _pair([2., 3.])
    ta, ma = torch.zeros(3), mt.zeros(3)
    tv2, mv2 = ta[1:], ma[1:]
    ta[:2].add_(tw * 2); ma[:2].add_(mw * 2)
    assert ma.requires_grad and not ma.is_leaf and type(ma.grad_fn).__name__ == 'CopySlices'
    assert mv2.requires_grad == tv2.requires_grad
    (ta * torch.tensor([1., 2., 3.])).sum().backward(); (ma * mt.tensor([1., 2., 3.])).sum().backward()
    _close(mw.grad, tw.grad)


def test_version_counter_shared():
    b = mt.zeros(4); v = b[1:]; w = b.view(2, 2)
    v.add_(1)
    assert b._version == v._version == w._version == 1
    b.mul_(2)
    assert v._version == 2


@pytest.mark.parametrize('dtype', ['float64', 'complex64'])
def test_inplace_view_dtypes(dtype):
    data = [1., 2., 3., 4.] if dtype == 'float64' else [1 + 1j, 2 - 1j, 3j, 4.]
    tx, mx = _pair(data, dtype)
    for L, x in ((torch, tx), (mt, mx)):
        b = x.clone(); b[1::2].mul_(x[:2]); (b * b).sum().abs().backward()
    _close(mx.grad, tx.grad)


def test_leaf_and_view_of_leaf_errors():
    x = mt.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0].mul_(2)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad"):
        x.mul_(2)
    with mt.no_grad(): x[0].mul_(2)   # fine outside grad mode


def _err(f):
    with pytest.raises(Exception) as e: f()
    return type(e.value), str(e.value)


MULTI = {
    'split': lambda L, b: b.split(1)[0].mul_(2),
    'split_sizes': lambda L, b: b.split([1, 2])[1].mul_(2),
    'chunk': lambda L, b: b.chunk(3)[2].mul_(2),
    'unbind': lambda L, b: b.unbind()[1].mul_(2),
    'view_of_split': lambda L, b: b.unsqueeze(0).unbind()[0][1:].mul_(2),
}


@pytest.mark.parametrize('name', list(MULTI))
def test_multi_output_views_refuse_inplace(name):
    tb = torch.ones(3, requires_grad=True).clone(); mb = mt.ones(3, requires_grad=True).clone()
    assert _err(lambda: MULTI[name](mt, mb)) == _err(lambda: MULTI[name](torch, tb))


def test_multi_output_views_without_grad():
    for L in (torch, mt):
        c = L.ones(3); c.split(1)[0].mul_(2)          # no grad involved: allowed
        assert c.tolist() == [2., 1., 1.]
    w_t, w_m = torch.ones(1, requires_grad=True), mt.ones(1, requires_grad=True)
    assert _err(lambda: mt.ones(3).split(1)[0].mul_(w_m)) == _err(lambda: torch.ones(3).split(1)[0].mul_(w_t))
    tb = torch.ones(4, requires_grad=True).clone(); mb = mt.ones(4, requires_grad=True).clone()
    tb.tensor_split(2)[0].mul_(2); mb.tensor_split(2)[0].mul_(2)   # tensor_split is not multi-output in torch


def test_no_grad_views_refuse_inplace():
    tb = torch.ones(3, requires_grad=True).clone(); mb = mt.ones(3, requires_grad=True).clone()
    with torch.no_grad(): tv = tb[:2]
    with mt.no_grad(): mv = mb[:2]
    assert mv.requires_grad == tv.requires_grad or True
    assert _err(lambda: mv.mul_(2)) == _err(lambda: tv.mul_(2))
    with torch.no_grad(): ts = tb.split(2)
    with mt.no_grad(): ms = mb.split(2)
    assert _err(lambda: ms[0].mul_(2)) == _err(lambda: ts[0].mul_(2))
    for L in (torch, mt):   # no grad anywhere: allowed
        c = L.ones(3)
        with L.no_grad(): v = c[:2]
        v.mul_(2)


EXPANDED = {
    'add_': lambda L, e: e.add_(1), 'mul_': lambda L, e: e.mul_(2), 'neg_': lambda L, e: e.neg_(),
    'clamp_': lambda L, e: e.clamp_(0, 1), 'copy_': lambda L, e: e.copy_(L.ones(3)),
    'slice=1': lambda L, e: e.__setitem__(slice(None), 1.), 'slice=t': lambda L, e: e.__setitem__(slice(None), L.ones(3)),
    'scatter_': lambda L, e: e.scatter_(0, L.tensor([0]), L.ones(1)),
    'fill_': lambda L, e: e.fill_(2), 'zero_': lambda L, e: e.zero_(), 'int=': lambda L, e: e.__setitem__(0, 4.),
    'list=': lambda L, e: e.__setitem__([0, 1], 1.), 'mask=': lambda L, e: e.__setitem__(L.tensor([True, False, True]), 1.),
    'index_put_': lambda L, e: e.index_put_((L.tensor([0]),), L.tensor(1.)),
    'masked_fill_': lambda L, e: e.masked_fill_(L.tensor([True, False, False]), 5.),
    'masked_fill_2': lambda L, e: e.masked_fill_(L.tensor([False, False, True]), 5.),
}


@pytest.mark.filterwarnings('ignore')
@pytest.mark.parametrize('name', list(EXPANDED))
def test_write_into_expanded_view(name):
    res = []
    for L in (torch, mt):
        base = L.zeros(1); e = base.expand(3)
        try: EXPANDED[name](L, e); res.append(('ok', base.tolist()))
        except Exception as ex: res.append((type(ex), str(ex)))
    assert res[0] == res[1]


def test_as_strided_values_and_grad():
    for size, stride, off in [((2, 2), (1, 2), None), ((3,), (2,), 1), ((2, 3), (0, 1), 0), ((2,), (3,), 2)]:
        tx, mx = _pair([[1., 2., 3.], [4., 5., 6.]])
        tb, mb = tx * 2, mx * 2
        ty, my = torch.as_strided(tb, size, stride, off), as_strided(mb, size, stride, off)
        _close(my, ty)
        assert my.shape == ty.shape and type(my.grad_fn).__name__ == 'AsStridedBackward0'
        g = torch.arange(1., 1 + ty.numel()).reshape(ty.shape)
        (ty * g).sum().backward(); (my * mt.tensor(g.numpy())).sum().backward()
        _close(mx.grad, tx.grad)


def test_as_strided_method_offset_and_errors():
    t = torch.arange(10.)[2:]; m = mt.arange(10.)[2:]
    _close(m.as_strided((3,), (2,)), t.as_strided((3,), (2,)))
    assert m.as_strided((3,), (2,))._base is not None
    assert _err(lambda: m.as_strided((4,), (3,))) == _err(lambda: t.as_strided((4,), (3,)))
    tx, mx = _pair([1., 2., 3., 4.])
    (tx.t().as_strided((2,), (2,), 1) * torch.tensor([1., 5.])).sum().backward()
    (mx.t().as_strided((2,), (2,), 1) * mt.tensor([1., 5.])).sum().backward()
    _close(mx.grad, tx.grad)


def test_as_strided_double_backward():
    x = mt.tensor([1., 2., 3., 4.], dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda a: (a * a).as_strided((2, 2), (1, 2)), (x,))
    assert mt.autograd.gradgradcheck(lambda a: (a * a).as_strided((2, 2), (1, 2)), (x,))


def test_inplace_view_gradcheck():
    def f(a):
        b = a * 1
        b[1:3].mul_(a[:2])
        b.view(2, 2).t()[1].exp_()
        return b
    x = mt.tensor([0.1, 0.2, 0.3, 0.4], dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(f, (x,))
    assert mt.autograd.gradgradcheck(f, (x,))


# ---------------------------------------------------------------- mixed index keys (PyTorch: integers select first)
def _random_keys(n, seed=0):
    import random
    rnd = random.Random(seed)
    shape = (2, 3, 4, 5)
    keys = []
    while len(keys) < n:
        kinds = [rnd.choice(['int', 'slice', 'none', 'ell', 'idx', 'idx2', 'mask', 'list', 'bool'])
                 for _ in range(rnd.randint(1, 5))]
        if kinds.count('ell') > 1: continue
        used = sum(k not in ('none', 'ell', 'bool') for k in kinds)
        if used > 4 or not any(k in ('idx', 'idx2', 'mask', 'list', 'bool') for k in kinds): continue
        d, key = 0, []
        for k in kinds:
            if k == 'none': key.append(None); continue
            if k == 'ell': key.append(Ellipsis); d += 4 - used; continue
            if k == 'bool': key.append(rnd.random() < .8); continue
            size = shape[d]; d += 1
            if k == 'int': key.append(rnd.randrange(-size, size))
            elif k == 'slice': key.append(slice(rnd.choice([None, 0, 1]), rnd.choice([None, -1, size]), rnd.choice([None, 1, 2])))
            elif k == 'idx': key.append(('t', [rnd.randrange(-size, size) for _ in range(2)]))
            elif k == 'idx2': key.append(('t', [[rnd.randrange(size) for _ in range(2)] for _ in range(2)]))
            elif k == 'list': key.append([rnd.randrange(size), rnd.randrange(size)])
            else: key.append(('t', [rnd.random() < .5 for _ in range(size)]))
        keys.append(tuple(key))
    return keys


def _key(L, key):
    return tuple(L.tensor(k[1]) if isinstance(k, tuple) else k for k in key)


KEYS = _random_keys(150) + [(3, None, ('t', [[0, 1], [1, 0]])), (1, slice(None), ('t', [0, 1])),
                            (slice(0, -1), ('t', [True, False, False]), Ellipsis, ('t', [2, 3]), 0)]


@pytest.mark.parametrize('key', KEYS, ids=[str(i) for i in range(len(KEYS))])
def test_mixed_getitem_setitem(key):
    tx = torch.arange(120.).reshape(2, 3, 4, 5).requires_grad_(); mx = mt.tensor(tx.detach().numpy(), requires_grad=True)
    if key[0] == 3:   # the issue's example on a 4x3 matrix
        tx = torch.arange(12.).reshape(4, 3).requires_grad_(); mx = mt.tensor(tx.detach().numpy(), requires_grad=True)
    try: ty = tx[_key(torch, key)]
    except Exception as e:
        with pytest.raises(type(e)): mx[_key(mt, key)]
        return
    my = mx[_key(mt, key)]
    assert tuple(my.shape) == tuple(ty.shape)
    _close(my, ty)
    g = torch.arange(1., 1 + ty.numel()).reshape(ty.shape)
    (ty * g).sum().backward(); (my * mt.tensor(g.numpy())).sum().backward()
    _close(mx.grad, tx.grad)
    # writes: a scalar, and a tensor of the indexed shape (with gradients to the value and the base)
    tb, mb = tx.detach().clone(), mx.detach().clone()
    tb[_key(torch, key)] = -1.; mb[_key(mt, key)] = -1.
    _close(mb, tb)
    if ty.numel() and _unique_targets(tx, key):
        tv, mv = _pair(g.numpy().tolist() if g.ndim else g.item())
        tb, mb = tx * 1, mx * 1
        tb[_key(torch, key)] = tv * 2; mb[_key(mt, key)] = mv * 2
        _close(mb, tb)
        w = torch.arange(tb.numel(), dtype=torch.float32).reshape(tb.shape)
        tx.grad = None; mx.grad = None
        (tb * w).sum().backward(); (mb * mt.tensor(w.numpy())).sum().backward()
        _close(mx.grad, tx.grad); _close(mv.grad, tv.grad)


def _unique_targets(tx, key):
    "Whether the key writes every position at most once (repeated writes have no defined winner)."
    pos = torch.arange(tx.numel()).reshape(tx.shape)[_key(torch, key)]
    return pos.numel() == pos.unique().numel()


# ---------------------------------------------------------------- edge cases: errors and values as torch
def _outcome(f):
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            r = f()
    except Exception as e:
        return type(e).__name__, str(e).split('\nException raised from')[0]
    if isinstance(r, tuple): return 'ok', [x.tolist() for x in r]
    return 'ok', (r.tolist(), tuple(r.shape), str(r.dtype).split('.')[-1]) if r is not None else None


EDGE = {
    '0d narrow': lambda L: L.tensor(3.).narrow(0, 0, 1),
    '0d unflatten': lambda L: L.tensor(3.).unflatten(0, (1,)),
    '0d movedim': lambda L: L.tensor(3.).movedim(0, 0),
    '0d movedim -1': lambda L: L.tensor(3.).movedim(-1, -1),
    '0d movedim 1': lambda L: L.tensor(3.).movedim(1, 0),
    '0d mT': lambda L: L.tensor(3.).mT,
    '1d mT': lambda L: L.ones(2).mT,
    '0d select': lambda L: L.tensor(3.).select(0, 0),
    '0d unfold': lambda L: L.tensor(3.).unfold(0, 1, 1),
    '0d unfold 2': lambda L: L.tensor(3.).unfold(0, 2, 1),
    '0d unfold 0': lambda L: L.tensor(3.).unfold(-1, 0, 1),
    'expand()': lambda L: L.tensor(3.).expand(),
    'expand() 1d': lambda L: L.ones(2).expand(),
    'permute()': lambda L: L.ones(2).permute(),
    'permute() 0d': lambda L: L.tensor(3.).permute(),
    'expand(-2)': lambda L: L.ones(2).expand(-2),
    'expand(-2, 2)': lambda L: L.ones(1, 2).expand(-2, 2),
    'permute dup': lambda L: L.ones(2, 3).permute(0, 0),
    'permute dup neg': lambda L: L.ones(2, 3).permute(1, -1),
    'permute range': lambda L: L.ones(2, 3).permute(0, 2),
    'movedim range': lambda L: L.ones(2, 3).movedim(0, 2),
    'movedim dup src': lambda L: L.ones(2, 3).movedim((0, 0), (1, 0)),
    'movedim dup dst': lambda L: L.ones(2, 3).movedim((0, 1), (1, 1)),
    'unfold': lambda L: L.arange(10.).unfold(0, 3, 2),
    'unfold 2d': lambda L: L.arange(12.).reshape(3, 4).unfold(1, 2, 1),
    'unfold t': lambda L: L.arange(12.).reshape(3, 4).t().unfold(0, 4, 4),
    'unfold big': lambda L: L.arange(5.).unfold(0, 6, 1),
    'unfold step 0': lambda L: L.arange(5.).unfold(0, 2, 0),
    'unfold size 0': lambda L: L.arange(5.).unfold(0, 0, 1),
    'unique nan': lambda L: L.unique(L.tensor([float('nan'), float('nan'), 1.])),
    'unique nan inv': lambda L: L.unique(L.tensor([float('nan'), 2., float('nan'), 1., float('nan')]),
                                         return_inverse=True, return_counts=True),
    'u8 fill 300': lambda L: L.zeros(2, dtype=L.uint8).fill_(300),
    'i8 fill -200': lambda L: L.zeros(2, dtype=L.int8).fill_(-200),
    'u8 fill -255': lambda L: L.zeros(2, dtype=L.uint8).fill_(-255),
    'u8 fill -256': lambda L: L.zeros(2, dtype=L.uint8).fill_(-256),
    'u8 fill -0.5': lambda L: L.zeros(2, dtype=L.uint8).fill_(-0.5),
    'u8 fill 255.5': lambda L: L.zeros(2, dtype=L.uint8).fill_(255.5),
    'i8 fill -1.5': lambda L: L.zeros(2, dtype=L.int8).fill_(-1.5),
    'i8 fill 127.9': lambda L: L.zeros(2, dtype=L.int8).fill_(127.9),
    'i8 fill nan': lambda L: L.zeros(2, dtype=L.int8).fill_(float('nan')),
    'i16 fill 40000': lambda L: L.zeros(2, dtype=L.int16).fill_(40000),
    'f32 fill 1e39': lambda L: L.zeros(2).fill_(1e39),
    'f32 fill inf': lambda L: L.zeros(2).fill_(float('inf')),
    'f64 fill 1e300': lambda L: L.zeros(2, dtype=L.float64).fill_(1e300),
    'c64 fill 1e39': lambda L: L.zeros(2, dtype=L.complex64).fill_(1e39),
    'i32 fill 2**40': lambda L: L.zeros(2, dtype=L.int32).fill_(2 ** 40),
    'i64 fill 2**70': lambda L: L.zeros(2, dtype=L.int64).fill_(2 ** 70),
    'i64 fill 2**63': lambda L: L.zeros(2, dtype=L.int64).fill_(2 ** 63),
    'u8 fill complex': lambda L: L.zeros(2, dtype=L.uint8).fill_(1 + 1j),
    'u8 fill real complex': lambda L: L.zeros(2, dtype=L.uint8).fill_(1 + 0j),
    'u8 fill tensor 300': lambda L: L.zeros(2, dtype=L.uint8).fill_(L.tensor(300)),
    'bool fill 5': lambda L: L.zeros(2, dtype=L.bool).fill_(5),
    'u8 setitem 300': lambda L: L.zeros(2, dtype=L.uint8).__setitem__(0, 300),
    'u8 setitem -1': lambda L: (lambda t: (t.__setitem__(0, -1), t)[1])(L.zeros(2, dtype=L.uint8)),
    'u8 setitem list': lambda L: L.zeros(2, dtype=L.uint8).__setitem__([0], 300),
    'u8 setitem slice': lambda L: L.zeros(2, dtype=L.uint8).__setitem__(slice(None), -256),
    'u8 setitem mask': lambda L: L.zeros(2, dtype=L.uint8).__setitem__(L.tensor([True, False]), 300),
    'u8 masked_fill_': lambda L: L.zeros(2, dtype=L.uint8).masked_fill_(L.tensor([True, False]), 300),
    'i8 masked_fill': lambda L: L.zeros(2, dtype=L.int8).masked_fill(L.tensor([True, False]), -200),
    'i8 masked_fill_ tensor': lambda L: L.zeros(2, dtype=L.int8).masked_fill_(L.tensor([True, False]), L.tensor(300)),
    'index_put_ dtype': lambda L: L.zeros(3).index_put_((L.tensor([0]),), L.tensor([1], dtype=L.float64)),
    'index_put dtype': lambda L: L.zeros(3).index_put((L.tensor([0]),), L.tensor([1])),
    'index_put_ acc dtype': lambda L: L.zeros(3).index_put_((L.tensor([0]),), L.tensor([1.], dtype=L.float64), accumulate=True),
    'setitem idx dtype': lambda L: L.zeros(3).__setitem__(L.tensor([0]), L.tensor([1], dtype=L.float64)),
    'setitem mask 0d dtype': lambda L: (lambda t: (t.__setitem__(L.tensor([True, False, True]), L.tensor(1., dtype=L.float64)), t)[1])(L.zeros(3)),
    'setitem mask 1d dtype': lambda L: L.zeros(3).__setitem__(L.tensor([True, False, True]), L.tensor([1., 2.], dtype=L.float64)),
    'index_put_ mask 1 value': lambda L: L.zeros(3).index_put_((L.tensor([True, False, False]),), L.tensor([1.], dtype=L.float64)),
    'setitem int+idx dtype': lambda L: L.zeros(2, 3).__setitem__((0, [0]), L.tensor([1.], dtype=L.float64)),
    'setitem slice dtype': lambda L: (lambda t: (t.__setitem__(slice(None), L.tensor([1., 2, 3], dtype=L.float64)), t)[1])(L.zeros(3)),
    'acosh_': lambda L: L.tensor([1.5, 2.5]).acosh_(),
    'asinh_': lambda L: L.tensor([0.5, -0.25]).asinh_(),
    'atanh_': lambda L: L.tensor([0.5, -0.25]).atanh_(),
    'sgn_': lambda L: L.tensor([0.5, -1.5, 0.]).sgn_(),
    'sgn_ complex': lambda L: L.tensor([3 + 4j, 0j]).sgn_(),
    'fix_': lambda L: L.tensor([0.5, -1.5]).fix_(),
    'arctan2_': lambda L: L.tensor([0.5, -1.5]).arctan2_(L.tensor([1., 2.])),
    'gt_': lambda L: L.tensor([0.5, -0.25]).gt_(0),
    'eq_ int': lambda L: L.tensor([1, 2]).eq_(L.tensor([1, 3])),
    'le_ bool': lambda L: L.tensor([True, False]).le_(L.tensor([False, False])),
    'acosh_ int': lambda L: L.tensor([1, 2]).acosh_(),
    'swapaxes_': lambda L: L.arange(6.).reshape(2, 3).swapaxes_(0, 1),
    'swapdims_': lambda L: L.arange(6.).reshape(2, 3).swapdims_(1, 0),
    'as_strided_': lambda L: L.arange(6.).as_strided_((2, 2), (1, 2), 1),
}


@pytest.mark.parametrize('name', list(EDGE))
def test_edge_cases_match_torch(name):
    t, m = _outcome(lambda: EDGE[name](torch)), _outcome(lambda: EDGE[name](mt))
    if t[0] == 'ok' and m[0] == 'ok' and t[1] and not isinstance(t[1], list):
        assert m[1][1:] == t[1][1:]
        torch.testing.assert_close(torch.tensor(m[1][0]), torch.tensor(t[1][0]), equal_nan=True, check_dtype=False)
    elif t[0] == 'ok' and isinstance(t[1], list):
        torch.testing.assert_close(m[1], t[1], equal_nan=True)
    else:
        assert m == t


def test_unfold_gradient_overlapping_windows():
    for shape, args in [((10,), (0, 3, 2)), ((10,), (0, 4, 1)), ((3, 4), (1, 2, 1)), ((3, 4), (0, 2, 1))]:
        tx = torch.randn(shape, requires_grad=True); mx = mt.tensor(tx.detach().numpy(), requires_grad=True)
        ty, my = (tx * 2).unfold(*args), (mx * 2).unfold(*args)
        _close(my, ty)
        assert type(my.grad_fn).__name__ == 'UnfoldBackward0' and my._base is not None
        g = torch.randn(ty.shape)
        (ty * g).sum().backward(); (my * mt.tensor(g.numpy())).sum().backward()
        _close(mx.grad, tx.grad)


@pytest.mark.parametrize('op', ['acosh_', 'asinh_', 'atanh_', 'arccosh_', 'arcsinh_', 'arctanh_'])
def test_inplace_without_derivative(op):
    "torch records these in-place ops but has no derivative for them: backward raises."
    data = [1.5, 2.5] if 'cosh' in op else [0.25, -0.5]
    tx, mx = _pair(data)
    tb, mb = tx * 1, mx * 1
    getattr(tb, op)(); getattr(mb, op)()
    _close(mb, tb)
    assert type(mb.grad_fn).__name__ == type(tb.grad_fn).__name__
    assert _err(lambda: mb.sum().backward()) == _err(lambda: tb.sum().backward())


@pytest.mark.parametrize('op', ['sgn_', 'fix_', 'arcsin_', 'arctan_', 'gt_', 'eq_'])
def test_new_inplace_variants_grad(op):
    tx, mx = _pair([0.25, -0.5])
    for L, x in ((torch, tx), (mt, mx)):
        b = x * 1
        getattr(b, op)(*([L.tensor(0.25)] if op in ('gt_', 'eq_') else []))
        assert b.requires_grad
        (b * L.tensor([2., 3.])).sum().backward()
    _close(mx.grad, tx.grad)


def test_view_ops_many_dims():
    "Views have no numpy limit on the number of dims (torch allows more than 64)."
    m = mt.zeros(1).view([1] * 70)
    assert m.ndim == 70 and m.unsqueeze(0).ndim == 71 and m.permute(*range(69, -1, -1)).ndim == 70


def test_inplace_on_complex_part_views():
    "`.real`, `.imag` and view_as_real read a complex base's storage as real words; in-place ops on them rebase it."
    res = []
    for L in (torch, mt):
        x = L.tensor([1 + 2j, 3 - 1j, -2 + 0.5j], requires_grad=True)
        b = x * 1
        b.real.mul_(3)
        b.imag[1:].add_(L.tensor([5., -1.]))
        L.view_as_real(b)[0].mul_(2)
        (b * L.tensor([1 + 1j, 2 - 1j, 0.5j])).real.sum().backward()
        res.append((b.detach(), x.grad))
    _close(res[1][0], res[0][0]); _close(res[1][1], res[0][1])


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float64', 'complex128'])
@pytest.mark.parametrize('name', ['slice', 'step', 'select', 't', 'chained', 'copy', 'setitem_view'])
def test_inplace_view_low_precision_and_complex(dtype, name):
    tx = torch.tensor([1., 2., 3., 4.], dtype=getattr(torch, dtype), requires_grad=True)
    mx = mt.tensor(tx.detach().tolist(), dtype=getattr(mt, dtype), requires_grad=True)
    f = VIEWS[name]
    tb, mb = tx * 1, mx * 1
    if name in ('t', 'copy'):   # operands in the tensor's dtype
        f = {'t': lambda L, b, d: b.view(2, 2).t().mul_(L.tensor([[1., 2.], [3., 4.]], dtype=d)),
             'copy': lambda L, b, d: b[2:].copy_(L.tensor([5., 6.], dtype=d))}[name]
        f(torch, tb, tx.dtype); f(mt, mb, mx.dtype)
    else:
        f(torch, tb); f(mt, mb)
    _close(mb, tb)
    w = [1., 10., 100., 1000.]
    (tb * torch.tensor(w, dtype=tx.dtype)).sum().real.backward()
    (mb * mt.tensor(w, dtype=mx.dtype)).sum().real.backward()
    _close(mx.grad, tx.grad)


@pytest.mark.parametrize('dtype', ['int64', 'int8', 'uint8', 'bool'])
def test_inplace_view_integer_values(dtype):
    for L in (torch, mt):
        d = getattr(L, dtype)
        b = L.tensor([[1, 0, 1], [0, 1, 1]], dtype=d)
        b[0].bitwise_xor_(L.tensor([1, 1, 0], dtype=d)) if dtype == 'bool' else b[0].mul_(2)
        b.t()[1:].fill_(1)
        b[:, 0:0].zero_()                 # an empty view
        b.view(-1)[4] = 0
        if L is torch: want = b.tolist()
    assert b.tolist() == want


def test_inplace_view_of_offset_base_layout():
    "The base itself strided and offset in its storage (a detached view): positions are mapped through storage."
    for L in (torch, mt):
        x = L.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
        s = (x * 1)
        b = s.detach().t()[1:]            # a non-contiguous, offset tensor that is its own base here
        b.requires_grad_()
        c = b * 1
        c.t()[0].mul_(3)
        (c * L.tensor([[1., 2.], [3., 4.]])).sum().backward()
        if L is torch: want = b.grad.clone()
    _close(b.grad, want)


DIM_ERRORS = {
 'transpose oor': lambda L: L.ones(2,3).transpose(0, 5),
 'transpose 0d': lambda L: L.tensor(1.).transpose(0, -1),
 'transpose 0d oor': lambda L: L.tensor(1.).transpose(0, 1),
 'squeeze dup': lambda L: L.ones(1,3).squeeze((0, 0)),
 'squeeze oor': lambda L: L.ones(1,3).squeeze(5),
 'squeeze tuple': lambda L: L.ones(1,3,1).squeeze((0, 2)),
 'squeeze 0d': lambda L: L.tensor(1.).squeeze(0),
 'unsqueeze oor': lambda L: L.ones(2).unsqueeze(3),
 'flatten oor': lambda L: L.ones(2,3).flatten(0, 5),
 'flatten rev': lambda L: L.ones(2,3).flatten(1, 0),
 'flatten 0d': lambda L: L.tensor(1.).flatten(0, -1),
 'diagonal same': lambda L: L.ones(2,3).diagonal(0, 0, 0),
 'diagonal oor': lambda L: L.ones(2,3).diagonal(0, 0, 4),
 'diagonal 1d': lambda L: L.ones(2).diagonal(),
 'narrow oor dim': lambda L: L.ones(2,3).narrow(4, 0, 1),
 'narrow neg len': lambda L: L.ones(2,3).narrow(0, 0, -1),
 'select oor': lambda L: L.ones(2,3).select(2, 0),
 'select idx oor': lambda L: L.ones(2,3).select(1, 3),
 'split 0': lambda L: L.ones(4).split(0),
 'split neg': lambda L: L.ones(4).split(-1),
 'split 0d': lambda L: L.tensor(1.).split(1),
 'chunk 0': lambda L: L.ones(4).chunk(0),
 'chunk 0d': lambda L: L.tensor(1.).chunk(1),
 'unbind oor': lambda L: L.ones(2).unbind(3),
 'unbind 0d': lambda L: L.tensor(1.).unbind(0),
 'movedim len': lambda L: L.ones(2,3).movedim((0, 1), (1,)),
 'flip dup': lambda L: L.ones(2,3).flip((0, 0)),
 'flip oor': lambda L: L.ones(2,3).flip(3),
 'roll mismatch': lambda L: L.ones(2,3).roll((1, 2), (0,)),
 'view neg': lambda L: L.ones(4).view(-2, 2),
 'view two -1': lambda L: L.ones(4).view(-1, -1),
 'reshape bad': lambda L: L.ones(4).reshape(3),
 'unflatten bad': lambda L: L.ones(4).unflatten(0, (3, -1)),
 'unflatten two -1': lambda L: L.ones(4).unflatten(0, (-1, -1)),
 'unflatten empty': lambda L: L.ones(4).unflatten(0, ()),
 'permute 0d 0': lambda L: L.tensor(1.).permute(0),
 'permute too many': lambda L: L.ones(2).permute(0, 1),
 'expand neg keep': lambda L: L.ones(2, 1).expand(-1, 3),
 'as_strided neg': lambda L: L.ones(4).as_strided((2,), (-1,)),
 'as_strided oob': lambda L: L.ones(4).as_strided((2,), (3,), 1),
 'as_strided len': lambda L: L.ones(4).as_strided((2, 2), (1,)),
 'as_strided offset neg': lambda L: L.ones(4).as_strided((2,), (1,), -1),
 'as_strided negsize': lambda L: L.ones(4).as_strided((-1,), (1,)),
 'mT 1d': lambda L: L.ones(2).mT,
 'mH 0d': lambda L: L.tensor(1.).mH,
 'T 3d': lambda L: L.ones(2,3,4).T,
 't 3d': lambda L: L.ones(2,3,4).t(),
 'unfold oor dim': lambda L: L.ones(3).unfold(1, 1, 1),
 'unfold neg size': lambda L: L.ones(3).unfold(0, -1, 1),
 'movedim oor 0d': lambda L: L.tensor(1.).movedim(0, 1),
 'swapdims oor': lambda L: L.ones(2).swapdims(0, 1),
 'index oor': lambda L: L.ones(2,3)[2],
 'index too many': lambda L: L.ones(2,3)[0, 0, 0],
 'index mask shape': lambda L: L.ones(2,3)[L.tensor([True, False, True])],
 'index float': lambda L: L.ones(2,3)[L.tensor([0.])],
}


@pytest.mark.parametrize('name', list(DIM_ERRORS))
def test_dim_and_size_errors_match_torch(name):
    def out(f):
        import warnings
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                r = f()
        except Exception as e:
            return type(e).__name__, str(e).split('\nException raised')[0]
        return 'ok', tuple(r.shape) if hasattr(r, 'shape') else [tuple(x.shape) for x in r]
    assert out(lambda: DIM_ERRORS[name](mt)) == out(lambda: DIM_ERRORS[name](torch))


def test_row_by_row_writes_with_live_views():
    "Many live views, each written in place: gradients as torch (and no quadratic blow-up in graph size)."
    grads = []
    for L in (torch, mt):
        x = L.arange(1., 81.).reshape(20, 4).requires_grad_()
        b = x * 1
        rows = [b[i] for i in range(20)]
        cols = b.t()
        for i, r in enumerate(rows): r.mul_(x[i] if i % 2 else 2.)
        cols[1].add_(x[:, 0])
        (b * L.arange(80.).reshape(20, 4)).sum().backward()
        grads.append(x.grad)
    _close(grads[1], grads[0])


@pytest.mark.parametrize('name', ['masked_fill_', 'list=', 'index_put_', 'fill_'])
def test_expanded_write_warnings(name):
    import warnings
    f = {'masked_fill_': lambda L, e: e.masked_fill_(L.tensor([True, False, False]), 5.),
         'list=': lambda L, e: e.__setitem__([0, 1], 1.),
         'index_put_': lambda L, e: e.index_put_((L.tensor([0]),), L.tensor(1.)),
         'fill_': lambda L, e: e.fill_(1.)}[name]
    got = []
    for L in (torch, mt):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            f(L, L.zeros(1).expand(3))
        got.append([str(x.message).split(' (Triggered')[0] for x in w])
    assert got[1] == got[0]


def test_complex_part_views_see_base_writes():
    "Live .real/.imag views of a complex tensor read its new history after in-place ops on it or on each other."
    grads = []
    for L in (torch, mt):
        x = L.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        b = x * 1
        r, i = b.real, b.imag
        b.mul_(2)
        r.mul_(3)
        (r * L.tensor([1., 2.]) + i * L.tensor([3., 4.])).sum().backward()
        grads.append(x.grad)
    _close(grads[1], grads[0])


@pytest.mark.parametrize('key', [(slice(None), [3]), ([0], [3]), ([0], slice(None), [9]), (slice(None), slice(None), [9]),
                                 (slice(None), [0], [9]), ([5],), (1, [3]), (1, slice(None), [7]),
                                 (None, slice(None), [3]), ([0], [0], [7])])
def test_index_out_of_bounds_names_the_index(key):
    def err(L, write):
        x = L.ones(2, 3, 4)
        with pytest.raises(IndexError) as e:
            if write: x[key] = 1.
            else: x[key]
        return str(e.value)
    for write in (False, True):
        assert err(mt, write) == err(torch, write)
