"minitorch.special's Bessel and Airy functions against torch.special: values (float64 to ~1e-13, float32 within a few ulps), edges, errors."
import numpy as np
import pytest
import torch
import minitorch
import minitorch.special as ms

NAMES = ['bessel_j0', 'bessel_j1', 'bessel_y0', 'bessel_y1', 'modified_bessel_i0', 'modified_bessel_i1',
         'modified_bessel_k0', 'modified_bessel_k1', 'scaled_modified_bessel_k0', 'scaled_modified_bessel_k1',
         'spherical_bessel_j0', 'airy_ai']
EDGE = [0., -0., 1e-300, 1e-6, -1e-6, 0.4999, 0.5, -1.5, 2., 2.0001, 4.9999, 5., 5.0001, 7.9, 8., 8.1, 30., -30., 85.,
        700., 1e10, np.inf, -np.inf, np.nan]

def _x(seed=0):
    r = np.random.default_rng(seed)
    return np.concatenate([EDGE, r.uniform(-40, 40, 300), r.uniform(-3, 3, 100), np.linspace(0.01, 12, 60)])

@pytest.mark.parametrize('name', NAMES)
def test_float64_values(name):
    x = _x()
    m = getattr(ms, name)(minitorch.tensor(x))
    t = getattr(torch.special, name)(torch.tensor(x))
    assert m.dtype == minitorch.float64
    torch.testing.assert_close(torch.from_numpy(m.numpy()), t, rtol=1e-13, atol=1e-300, equal_nan=True)

@pytest.mark.parametrize('name', NAMES)
def test_float32_values(name):
    "PyTorch evaluates in float32; ours is float64 rounded: agree to a few float32 ulps away from the zeros."
    x = _x(1)
    x = x[~(np.abs(x) > 1e7) | np.isinf(x)].astype(np.float32)   # beyond, torch's float32 phase x - pi/4 is lost
    m = getattr(ms, name)(minitorch.tensor(x))
    t = getattr(torch.special, name)(torch.tensor(x))
    assert m.dtype == minitorch.float32
    torch.testing.assert_close(torch.from_numpy(m.numpy()), t, rtol=2e-5, atol=2e-6, equal_nan=True)

@pytest.mark.parametrize('name', NAMES)
def test_special_values_exact(name):
    "inf, nan, 0 and -0 (with their signs) as PyTorch gives them."
    x = [0., -0., np.inf, -np.inf, np.nan, -1.]
    m = getattr(ms, name)(minitorch.tensor(x, dtype=minitorch.float64)).numpy()
    t = getattr(torch.special, name)(torch.tensor(x, dtype=torch.float64)).numpy()
    assert np.array_equal(np.signbit(m), np.signbit(t)) or np.isnan(t).any()
    edge = np.isinf(t) | (t == 0)
    np.testing.assert_array_equal(m[edge], t[edge])
    np.testing.assert_allclose(m[~edge], t[~edge], rtol=1e-14)
    np.testing.assert_array_equal(np.isnan(m), np.isnan(t))

@pytest.mark.parametrize('name', NAMES)
def test_dtypes_and_errors(name):
    f, g = getattr(ms, name), getattr(torch.special, name)
    assert f(minitorch.tensor([1, 2])).dtype == minitorch.float32 == getattr(minitorch, str(g(torch.tensor([1, 2])).dtype)[6:])
    for md, td in ((minitorch.float16, torch.float16), (minitorch.bfloat16, torch.bfloat16), (minitorch.complex64, torch.complex64)):
        with pytest.raises(NotImplementedError) as em: f(minitorch.ones(2, dtype=md))
        with pytest.raises(NotImplementedError) as et: g(torch.ones(2, dtype=td))
        assert str(em.value) == str(et.value)
    with pytest.raises(TypeError) as em: f(2.0)
    with pytest.raises(TypeError) as et: g(2.0)
    assert str(em.value) == str(et.value)

def test_no_gradient_and_out_and_shape():
    x = minitorch.tensor([[0.5, 2.], [3., 9.]], dtype=minitorch.float64, requires_grad=True)
    y = ms.bessel_j0(x)
    assert not y.requires_grad and y.shape == (2, 2)
    assert not torch.special.bessel_j0(torch.ones(2, requires_grad=True)).requires_grad
    out = minitorch.empty(2, 2, dtype=minitorch.float64)
    r = ms.modified_bessel_k1(x.detach(), out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), torch.special.modified_bessel_k1(torch.tensor(x.detach().numpy())).numpy(), rtol=1e-13)
    assert ms.spherical_bessel_j0(minitorch.tensor(0.5)).shape == ()

def test_cuda_input_stays_on_cuda():
    y = ms.bessel_y1(minitorch.tensor([1., 2.], device='cuda'))
    assert y.device.type == 'cuda'
    torch.testing.assert_close(torch.tensor(y.cpu().numpy()), torch.special.bessel_y1(torch.tensor([1., 2.])))
