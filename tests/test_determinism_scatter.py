"""The scatter family under use_deterministic_algorithms, on cpu and on cuda tensors (the numba.cuda simulator when
there is no GPU), against torch 2.13: scatter_add_/index_add_/scatter_/index_copy_ take torch's deterministic road on
cuda (one index_put_, no atomics) and raise nothing; put_ alerts where torch's put_ does."""
import warnings

import pytest
import torch

import minitorch
import minitorch.cuda as mcuda
from minitorch.backends import get_backend

CUDA = mcuda.is_available() or mcuda.is_simulator()
DEVICES = ['cpu'] + (['cuda'] if CUDA else [])


@pytest.fixture(autouse=True)
def _off():
    yield
    minitorch.use_deterministic_algorithms(False); torch.use_deterministic_algorithms(False)


IDX = [[0, 0, 3], [2, 2, 2]]                      # repeated targets in both rows
SRC = [[0.1, 0.2, 0.3], [1e8, 1.0, -1e8]]          # order matters for float32 sums


def _ops(lib, dev):
    "name -> f(x) running one accumulating / overwriting op in place on a copy of x."
    T = (lambda v, **k: lib.tensor(v, device=dev, **k)) if lib is minitorch else (lambda v, **k: torch.tensor(v, **k))
    i, s = T(IDX), T(SRC)
    return {
        'scatter_add_': lambda x: x.clone().scatter_add_(1, i, s),
        'scatter_': lambda x: x.clone().scatter_(1, i, s),
        'scatter_add': lambda x: lib.scatter_add(x, 1, i, s),
        'scatter_value': lambda x: x.clone().scatter_(1, i, 5.0),
        'index_add_': lambda x: x.clone().index_add_(1, T([3, 0, 3]), s, alpha=2),
        'index_copy_': lambda x: x.clone().index_copy_(1, T([3, 0, 3]), s),
        'index_put_acc': lambda x: x.clone().index_put_((T([1, 1, 0]), T([2, 2, 2])), T([1., 2., 3.]), accumulate=True),
        'index_put': lambda x: x.clone().index_put_((T([1, 0]), T([2, 2])), T([1., 2.])),
    }


@pytest.mark.parametrize('dev', DEVICES)
@pytest.mark.parametrize('name', list(_ops(torch, 'cpu')))
def test_deterministic_scatter_family_runs_and_matches_torch(dev, name):
    "torch: deterministic on cpu and cuda under the switch (no error, no warning); values as torch's cpu kernels."
    torch.use_deterministic_algorithms(True)
    want = _ops(torch, 'cpu')[name](torch.zeros(2, 4))
    for warn_only in (False, True):
        minitorch.use_deterministic_algorithms(True, warn_only=warn_only)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            got = _ops(minitorch, dev)[name](minitorch.zeros(2, 4, device=dev))
        assert got.device.type == dev
        torch.testing.assert_close(torch.tensor(got.cpu().tolist()), want, rtol=0, atol=0)


@pytest.mark.skipif(not CUDA, reason='no cuda and no simulator')
@pytest.mark.parametrize('name', ['scatter_add_', 'scatter_', 'index_add_', 'index_copy_'])
def test_cuda_takes_the_index_put_road(monkeypatch, name):
    "Under the switch the cuda scatter kernel (atomics / racing stores) is not called at all; without it, it is."
    bk = get_backend('cuda')
    calls = []
    real = type(bk).scatter
    monkeypatch.setattr(type(bk), 'scatter', lambda self, *a, **k: calls.append(a[-1]) or real(self, *a, **k))
    f = _ops(minitorch, 'cuda')[name]
    minitorch.use_deterministic_algorithms(True)
    f(minitorch.zeros(2, 4, device='cuda'))
    assert calls == []
    minitorch.use_deterministic_algorithms(False)
    f(minitorch.zeros(2, 4, device='cuda'))
    assert len(calls) == 1


@pytest.mark.skipif(not CUDA, reason='no cuda and no simulator')
def test_deterministic_scatter_add_gradients_on_cuda():
    x = minitorch.zeros(2, 4, device='cuda', requires_grad=True)
    s = minitorch.tensor(SRC, device='cuda', requires_grad=True)
    w = minitorch.arange(8., device='cuda').view(2, 4)
    minitorch.use_deterministic_algorithms(True)
    y = x.scatter_add(1, minitorch.tensor(IDX, device='cuda'), s)
    assert type(y.grad_fn).__name__ == 'ScatterAddBackward0'
    (y * w).sum().backward()
    tx, ts = torch.zeros(2, 4, requires_grad=True), torch.tensor(SRC, requires_grad=True)
    (tx.scatter_add(1, torch.tensor(IDX), ts) * torch.arange(8.).view(2, 4)).sum().backward()
    assert x.grad.cpu().tolist() == tx.grad.tolist() and s.grad.cpu().tolist() == ts.grad.tolist()


def test_scatter_bounds_error_on_the_deterministic_road():
    for dev in DEVICES:
        minitorch.use_deterministic_algorithms(True)
        with pytest.raises(RuntimeError, match='index 4 is out of bounds for dimension 1 with size 4'):
            minitorch.zeros(2, 4, device=dev).scatter_add(1, minitorch.tensor([[4]], device=dev),
                                                          minitorch.ones(1, 1, device=dev))


def _msg(f):
    try: f()
    except Exception as e: return type(e), str(e)
    return None


@pytest.mark.parametrize('dev', DEVICES)
@pytest.mark.parametrize('accumulate', [False, True])
def test_put_alerts_like_torch(dev, accumulate):
    "put_: alerts with accumulate=False on every device, with accumulate=True only on cuda."
    torch.use_deterministic_algorithms(True); minitorch.use_deterministic_algorithms(True)
    tf = lambda: torch.zeros(2, 3).put_(torch.tensor([1, 1]), torch.tensor([1., 2.]), accumulate=accumulate)
    mf = lambda: minitorch.zeros(2, 3, device=dev).put_(minitorch.tensor([1, 1], device=dev),
                                                       minitorch.tensor([1., 2.], device=dev), accumulate=accumulate)
    alerts = not accumulate or dev == 'cuda'
    if alerts:
        err = _msg(mf)
        assert err[0] is RuntimeError and err[1].startswith('put_ does not have a deterministic implementation')
        if dev == 'cpu': assert err == _msg(tf)
        minitorch.use_deterministic_algorithms(True, warn_only=True)
        with pytest.warns(UserWarning, match='put_ does not have a deterministic implementation'):
            r = mf()
    else:
        assert _msg(mf) is None and _msg(tf) is None
        r = mf()
    torch.use_deterministic_algorithms(False)
    assert r.cpu().tolist() == tf().tolist()
    minitorch.use_deterministic_algorithms(False)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        mf()                                          # off: silent


@pytest.mark.parametrize('args', [
    ([0, 5, -1], [1., 2., 3.], {}), ([1, 1, 0], [1., 2., 3.], {'accumulate': True}), ([[0, 1]], [[1.], [2.]], {}),
    ([6], [1.], {}), ([0, -7], [1., 2.], {}), ([0, 1], [1., 2., 3.], {}), ([], [], {})])
def test_put_values_and_errors(args):
    idx, src, kw = args
    t = _msg(lambda: torch.arange(6.).view(2, 3).put(torch.tensor(idx, dtype=torch.long), torch.tensor(src), **kw))
    m = _msg(lambda: minitorch.arange(6.).view(2, 3).put(minitorch.tensor(idx, dtype=minitorch.int64),
                                                          minitorch.tensor(src), **kw))
    assert m == t
    if t is None:
        got = minitorch.arange(6.).view(2, 3).put(minitorch.tensor(idx, dtype=minitorch.int64), minitorch.tensor(src), **kw)
        assert got.tolist() == torch.arange(6.).view(2, 3).put(torch.tensor(idx, dtype=torch.long), torch.tensor(src), **kw).tolist()


def test_put_dtype_errors_and_gradient():
    e = lambda f: _msg(f)
    assert e(lambda: minitorch.zeros(3).put(minitorch.tensor([0], dtype=minitorch.int32), minitorch.ones(1))) == \
        e(lambda: torch.zeros(3).put(torch.tensor([0], dtype=torch.int32), torch.ones(1)))
    assert e(lambda: minitorch.zeros(3).put(minitorch.tensor([0]), minitorch.ones(1, dtype=minitorch.float64))) == \
        e(lambda: torch.zeros(3).put(torch.tensor([0]), torch.ones(1, dtype=torch.float64)))
    for acc in (False, True):
        a, s = minitorch.zeros(2, 3, requires_grad=True), minitorch.tensor([1., 2.], requires_grad=True)
        (a.put(minitorch.tensor([1, 4]), s, accumulate=acc) * minitorch.arange(6.).view(2, 3)).sum().backward()
        ta, ts = torch.zeros(2, 3, requires_grad=True), torch.tensor([1., 2.], requires_grad=True)
        (ta.put(torch.tensor([1, 4]), ts, accumulate=acc) * torch.arange(6.).view(2, 3)).sum().backward()
        assert a.grad.tolist() == ta.grad.tolist() and s.grad.tolist() == ts.grad.tolist()
    x, t = minitorch.zeros(2, 3), torch.zeros(2, 3)
    x.t().put_(minitorch.tensor([1]), minitorch.tensor([7.])); t.t().put_(torch.tensor([1]), torch.tensor([7.]))
    assert x.tolist() == t.tolist()                   # a non-contiguous self is indexed in its logical order


@pytest.mark.parametrize('dev', DEVICES)
def test_take_backward_is_put_accumulate(dev):
    "torch's take backward is put_(accumulate=True): silent on cpu, the put_ alert on cuda (forward silent on both)."
    idx = [[0, 0], [5, -1]]
    minitorch.use_deterministic_algorithms(True)
    x = minitorch.arange(6., device=dev).view(2, 3).requires_grad_()
    y = x.take(minitorch.tensor(idx, device=dev))
    assert type(y.grad_fn).__name__ == 'TakeBackward0'
    if dev == 'cuda':
        with pytest.raises(RuntimeError, match='^put_ does not have a deterministic implementation'):
            y.sum().backward(retain_graph=True)
        minitorch.use_deterministic_algorithms(False)
    y.sum().backward()
    t = torch.arange(6.).view(2, 3).requires_grad_()
    t.take(torch.tensor(idx)).sum().backward()
    assert x.grad.cpu().tolist() == t.grad.tolist()


@pytest.mark.parametrize('dev', DEVICES)
@pytest.mark.parametrize('args', [(2, 1), (1, 1), (1, None), (3, None), ([1, 2], 0)])
def test_repeat_interleave_on_each_device(dev, args):
    "Values, gradients (torch: deterministic on cuda under the switch) and a fresh result, never a view of the input."
    reps, dim = args
    minitorch.use_deterministic_algorithms(True)
    x = minitorch.tensor([[1., 2.], [3., 4.]], device=dev).requires_grad_()
    t = torch.tensor([[1., 2.], [3., 4.]]).requires_grad_()
    r = minitorch.tensor(reps, device=dev) if isinstance(reps, list) else reps
    y = x.repeat_interleave(r, dim=dim)
    ty = t.repeat_interleave(torch.tensor(reps) if isinstance(reps, list) else reps, dim=dim)
    assert y.device.type == dev and y.tolist() == ty.tolist()
    w = minitorch.arange(float(y.numel()), device=dev).reshape(tuple(y.shape))
    (y * w).sum().backward(); (ty * torch.arange(float(ty.numel())).reshape(ty.shape)).sum().backward()
    assert x.grad.cpu().tolist() == t.grad.tolist()
    y.detach().zero_()
    assert x.detach().cpu().tolist() == [[1., 2.], [3., 4.]]
