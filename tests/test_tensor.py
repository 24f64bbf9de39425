"Tensor creation, dtype inference, conversions and printing against torch."
import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.backends import use_backend


@pytest.fixture(autouse=True)
def numpy_backend():
    "The engine is backend-independent: run it on the reference backend (fast to start)."
    with use_backend('numpy'):
        yield


def tname(d):
    return str(d).replace('torch.', '')


@pytest.mark.parametrize('data', [[1., 2.], [[1, 2.5], [True, 3]], [True, 2], [True, False], 2.5, 2, True, 1j,
                                  [1, 2j], [], [[]], [[1, 2], [3, 4]], np.array([1, 2], dtype=np.int32),
                                  np.float64(1.5), np.array([1.5], dtype=np.float16)])
def test_tensor_dtype_inference(data):
    t, m = torch.tensor(data), mt.tensor(data)
    assert m.dtype.name == tname(t.dtype)
    assert tuple(m.shape) == tuple(t.shape)
    assert m.tolist() == t.tolist()


def test_tensor_errors():
    with pytest.raises(ValueError, match=r'expected sequence of length 2 at dim 1 \(got 1\)'):
        mt.tensor([[1, 2], [3]])
    with pytest.raises(RuntimeError, match='floating point and complex'):
        mt.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match='cannot be converted to Scalar'):
        mt.tensor([1., 2.]).item()
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        mt.tensor([1.], requires_grad=True).numpy()


@pytest.mark.parametrize('name,args,kw', [
    ('zeros', (2, 3), {}), ('ones', ((2, 3),), {}), ('full', ((2,), 1.5), {}), ('full', ((2,), 7), {}),
    ('arange', (5,), {}), ('arange', (0, 1, 0.1), {}), ('arange', (1, 10, 3), {}), ('arange', (5.5,), {}),
    ('linspace', (-1, 1, 7), {}), ('linspace', (0, 10, 5), {'dtype': 'float64'}), ('eye', (2, 3), {}),
    ('zeros', (2,), {'dtype': 'int32'}), ('ones', (3,), {'dtype': 'bool'}), ('empty', (0, 3), {}),
])
def test_creation(name, args, kw):
    tk = {k: getattr(torch, v) for k, v in kw.items()}
    mk = {k: getattr(mt, v) for k, v in kw.items()}
    t, m = getattr(torch, name)(*args, **tk), getattr(mt, name)(*args, **mk)
    assert m.dtype.name == tname(t.dtype) and tuple(m.shape) == tuple(t.shape)
    np.testing.assert_array_equal(m.numpy(), t.numpy())


def test_like_and_random():
    x = mt.ones(2, 3, dtype=mt.float64)
    for f in (mt.zeros_like, mt.ones_like, mt.empty_like, mt.rand_like, mt.randn_like):
        y = f(x)
        assert y.shape == x.shape and y.dtype is mt.float64
    assert mt.full_like(x, 7).tolist() == [[7.] * 3] * 2
    mt.manual_seed(3); a = mt.rand(5); mt.manual_seed(3)
    assert mt.rand(5).tolist() == a.tolist()
    assert ((a >= 0) & (a < 1)).all()
    r = mt.randint(2, 5, (100,))
    assert r.dtype is mt.int64 and r.min().item() >= 2 and r.max().item() < 5
    assert mt.randn(3, 4, requires_grad=True).requires_grad


def test_properties_and_conversions():
    x = mt.arange(6.).reshape(2, 3)
    assert repr(x.shape) == 'minitorch.Size([2, 3])' and x.size(1) == 3 and x.size() == (2, 3)
    assert x.dim() == x.ndim == 2 and x.numel() == 6 and x.stride() == (3, 1)
    assert not x.T.is_contiguous() and x.T.contiguous().is_contiguous()
    assert x.sum().shape == () and x.sum().item() == 15.0
    assert x.long().dtype is mt.int64 and x.half().dtype is mt.float16 and x.double().dtype is mt.float64
    assert x.int().dtype is mt.int32 and x.bool().dtype is mt.bool and x.bfloat16().dtype is mt.bfloat16
    assert x.cfloat().dtype is mt.complex64 and x.type_as(mt.tensor([1])).dtype is mt.int64
    assert x.to(mt.float64).dtype is mt.float64 and x.to('cpu') is x
    n = x.numpy(); n[0, 0] = 42.
    assert x[0, 0].item() == 42.                     # numpy() shares memory
    assert mt.tensor([[1, 2]]).tolist() == [[1, 2]] and isinstance(mt.tensor(3).item(), int)
    d = x.detach(); assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    assert x.device == mt.device('cpu') and repr(x.device) == "device(type='cpu')"


PRINT_CASES = [
    lambda L: L.tensor([1., 2.]), lambda L: L.tensor([[1, 2]]), lambda L: L.tensor(1e-5),
    lambda L: L.tensor([1e-5, 1.]), lambda L: L.tensor([1e10, 1.]), lambda L: L.tensor([1.5, float('nan'), float('inf')]),
    lambda L: L.tensor([100., 1e5]), lambda L: L.tensor([[1 + 2j, 3 - 1j]]), lambda L: L.tensor([]),
    lambda L: L.tensor(True), lambda L: L.tensor([True, False]), lambda L: L.tensor(-0.),
    lambda L: L.arange(2000.), lambda L: L.arange(12.).reshape(3, 4) * 1.5, lambda L: L.arange(2000).reshape(40, 50),
    lambda L: L.arange(30.).reshape(2, 15) * 1000, lambda L: L.tensor([1., 2.], dtype=L.float64),
    lambda L: L.tensor([1, 2], dtype=L.int32), lambda L: L.tensor([1.5, 2.], dtype=L.float16),
    lambda L: L.zeros(2, 0), lambda L: L.zeros(0, 3, dtype=L.int32),
    lambda L: L.tensor([1., 2.], requires_grad=True), lambda L: L.tensor([1., 2.], requires_grad=True) * 2,
    lambda L: L.ones(2, 3, dtype=L.float64, requires_grad=True), lambda L: L.tensor([[0.1234567] * 30] * 3),
    lambda L: L.tensor(3.5, requires_grad=True).sum(),
]


@pytest.mark.parametrize('i', range(len(PRINT_CASES)))
def test_printing_matches_torch(i):
    want = repr(PRINT_CASES[i](torch)).replace('torch.', 'minitorch.')
    assert repr(PRINT_CASES[i](mt)) == want


def test_data_ptr_of_cuda_tensors():
    import minitorch as _mt
    if not _mt.cuda.is_available(): pytest.skip("no cuda device or simulator (NUMBA_ENABLE_CUDASIM=1)")
    x = _mt.arange(6.).cuda()
    assert isinstance(x.data_ptr(), int) and x.data_ptr() != 0
    assert x[2:].data_ptr() - x.data_ptr() == 2 * x.element_size()
    assert x.view(2, 3).data_ptr() == x.data_ptr() and x.clone().data_ptr() != x.data_ptr()


def test_default_device_routes_factories():
    import minitorch as _mt
    from minitorch import tensors as _t
    assert str(_t.get_default_device()) == 'cpu'
    if not _mt.cuda.is_available(): pytest.skip("no cuda device or simulator (NUMBA_ENABLE_CUDASIM=1)")
    try:
        _t.set_default_device('cuda')
        assert _mt.zeros(2).device.type == _mt.tensor([1.]).device.type == _mt.randn(2).device.type == 'cuda'
        assert _mt.zeros(2, device='cpu').device.type == 'cpu'
    finally:
        _t.set_default_device(None)
    assert _mt.zeros(2).device.type == 'cpu'
