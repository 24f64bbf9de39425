"Torch-vs-minitorch checks for parity fixes found by the random-program comparison (issue 12)."
import pytest
import torch
import minitorch as mt


def same_error(f):
    "Run `f(torch)` and `f(mt)`: both must raise the same exception class with the same message."
    with pytest.raises(Exception) as te: f(torch)
    with pytest.raises(Exception) as me: f(mt)
    assert type(me.value) is type(te.value), (type(me.value), type(te.value))
    assert str(me.value) == str(te.value)


@pytest.mark.parametrize("case", [
    lambda L: L.tensor([1, 2]).__iand__(0.5),
    lambda L: L.tensor([1, 2]).__ior__(L.tensor([1., 2.])),
    lambda L: L.tensor([1, 2]).bitwise_xor_(0.5),
    lambda L: L.tensor([True, False]).__ior__(L.tensor([1, 2])),
    lambda L: L.tensor([1., 2.]).__ior__(1),
    lambda L: L.tensor([1, 2]).add_(0.5),
])
def test_inplace_cast_error(case):
    same_error(case)


def test_bitwise_inplace_still_works():
    for L in (torch, mt):
        t = L.tensor([6, 3]); t &= 5; t |= L.tensor([8, 0]); t ^= 1
        assert t.tolist() == [13, 0]


@pytest.mark.parametrize("dst,src", [((), (1,)), ((1,), (2,)), ((2,), (3,)), ((2, 3), (3, 3))])
def test_copy_shape_error(dst, src):
    same_error(lambda L: L.zeros(dst).copy_(L.ones(src)))


def test_copy_broadcast_ok():
    for L in (torch, mt):
        t = L.zeros(2, 3); t.copy_(L.arange(3.)); assert t.tolist() == [[0., 1., 2.]] * 2
        z = L.zeros(()); z.copy_(L.tensor(4.)); assert z.item() == 4.


@pytest.mark.parametrize("conv", [int, float, complex, bool])
@pytest.mark.parametrize("data", [[1., 2.], []])
def test_scalar_conversion_error(conv, data):
    same_error(lambda L: conv(L.tensor(data)))


def test_item_error_still_runtime():
    same_error(lambda L: L.tensor([1., 2.]).item())


def test_flip_int_dims_is_type_error():
    same_error(lambda L: L.flip(L.arange(4).reshape(2, 2), 1))
    for L in (torch, mt):
        with pytest.raises(TypeError): L.flip(L.arange(4).reshape(2, 2), dims=1)
        with pytest.raises(TypeError): L.arange(4).reshape(2, 2).flip()


@pytest.mark.parametrize("call", [
    lambda L, x: x.flip(1), lambda L, x: x.flip(0, 1), lambda L, x: x.flip((0, 1)), lambda L, x: x.flip([0]),
    lambda L, x: x.flip(dims=(1,)), lambda L, x: L.flip(x, (0,)), lambda L, x: L.fliplr(x), lambda L, x: L.flipud(x),
])
def test_flip_forms_match(call):
    assert call(mt, mt.arange(6).reshape(2, 3)).tolist() == call(torch, torch.arange(6).reshape(2, 3)).tolist()


@pytest.mark.parametrize("name", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("dtype,dim", [("float32", 0), ("float32", -1), ("int64", 1), ("float16", 0), ("float64", 1)])
def test_inplace_scans(name, dtype, dim):
    data = [[1., 2., -3.], [0.5, 4., 2.]]
    ts = torch.tensor(data).to(getattr(torch, dtype))
    ms = mt.tensor(data).to(getattr(mt, dtype))
    rt, rm = getattr(ts, name)(dim), getattr(ms, name)(dim)
    assert rt is ts and rm is ms
    torch.testing.assert_close(torch.tensor(ms.tolist(), dtype=ts.dtype), ts)


@pytest.mark.parametrize("name", ["cumsum_", "cumprod_"])
def test_inplace_scan_grad(name):
    grads = []
    for L in (torch, mt):
        x = L.tensor([1., 2., 3., -0.5], requires_grad=True)
        y = x * 1
        getattr(y, name)(0)
        (y * L.tensor([1., -2., 3., 4.])).sum().backward()
        grads.append(x.grad.tolist())
    torch.testing.assert_close(torch.tensor(grads[1]), torch.tensor(grads[0]))


@pytest.mark.parametrize("case", [
    lambda L: L.tensor([True, False]).cumsum_(0),
    lambda L: L.tensor([1., 2.]).cumsum_(0, dtype=L.float64),
    lambda L: L.tensor([1, 2]).cumprod_(0, dtype=L.float64),
])
def test_inplace_scan_errors(case):
    same_error(case)


@pytest.mark.parametrize("dtn", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("form", ["tt", "ts", "st"])
def test_xlogy_low_precision(dtn, form):
    import numpy as np
    g = np.random.default_rng(1)
    x = g.uniform(-5, 5, 1000).astype(np.float32); y = g.uniform(0.01, 50, 1000).astype(np.float32)
    x[:10] = 0; y[10:20] = np.nan
    res = []
    for L in (torch, mt):
        d = getattr(L, dtn)
        a, b = L.tensor(x.tolist()).to(d), L.tensor(y.tolist()).to(d)
        r = L.xlogy(a, b) if form == "tt" else L.xlogy(a, 2.5) if form == "ts" else L.xlogy(1.5, b)
        assert r.dtype == d
        res.append(torch.tensor(r.float().tolist()))
    tol = dict(rtol=0, atol=0) if dtn != "float32" else {}   # 16-bit: the same two roundings, so bit-exact
    torch.testing.assert_close(res[1], res[0], equal_nan=True, **tol)


@pytest.mark.parametrize("dtn", ["float16", "bfloat16"])
def test_xlogy_low_precision_grad(dtn):
    grads = []
    for L in (torch, mt):
        d = getattr(L, dtn)
        a = L.tensor([0.0, 1.5, -2.25, 3.0]).to(d).requires_grad_()
        b = L.tensor([2.0, 0.3, 7.5, 11.0]).to(d).requires_grad_()
        L.xlogy(a, b).sum().backward()
        grads.append([torch.tensor(a.grad.float().tolist()), torch.tensor(b.grad.float().tolist())])
    for m, t in zip(grads[1], grads[0]): torch.testing.assert_close(m, t, rtol=0, atol=0)


@pytest.mark.parametrize("dst,val", [("int64", 2.7), ("float32", True), ("float64", 0.1), ("float32", 1 + 2j),
                                     ("int32", 7)])
def test_copy_python_number(dst, val):
    import warnings
    res = []
    for L in (torch, mt):
        t = L.zeros(3, dtype=getattr(L, dst))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert t.copy_(val) is t
        res.append(t.tolist())
    assert res[1] == res[0]


@pytest.mark.parametrize("val", [[1.0, 2.0], None])
def test_copy_non_tensor_error(val):
    same_error(lambda L: L.zeros(2).copy_(val))
