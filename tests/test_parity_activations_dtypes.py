"""Issue 12: the float-only activation kernels raise PyTorch's NotImplementedError for int/bool/complex inputs, and
gelu(+inf) matches PyTorch per dtype and layout (its vectorized float32 kernel gives NaN at +inf; one element, a
strided input and float16/64: inf)."""
import math
import pytest
import torch
import torch.nn.functional as TF
import minitorch
import minitorch.nn.functional as F

FS = {
    'softplus': lambda F, x: F.softplus(x), 'leaky_relu': lambda F, x: F.leaky_relu(x),
    'leaky_relu_': lambda F, x: F.leaky_relu_(x), 'rrelu': lambda F, x: F.rrelu(x),
    'rrelu_train': lambda F, x: F.rrelu(x, training=True), 'silu': lambda F, x: F.silu(x),
    'logsigmoid': lambda F, x: F.logsigmoid(x), 'gelu': lambda F, x: F.gelu(x),
    'gelu_tanh': lambda F, x: F.gelu(x, approximate='tanh'),
}
DTYPES = ['int64', 'int32', 'int16', 'int8', 'uint8', 'bool', 'complex64', 'complex128']


def _run(lib, FF, f, dt):
    x = lib.tensor([1, 0, 2]).to(getattr(lib, dt))
    try:
        return 'ok', str(f(FF, x).dtype).split('.')[-1]
    except Exception as e:   # noqa: BLE001 (the class and message are what is compared)
        return type(e).__name__, str(e)


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('name', list(FS))
def test_activation_dtype_errors_like_torch(name, dt):
    assert _run(minitorch, F, FS[name], dt) == _run(torch, TF, FS[name], dt)


@pytest.mark.parametrize('dt', ['float32', 'float64', 'float16', 'bfloat16'])
@pytest.mark.parametrize('approximate', ['none', 'tanh'])
@pytest.mark.parametrize('shape', [(), (1,), (5,), (2, 9)])
def test_gelu_inf_like_torch(dt, approximate, shape):
    n = int(torch.tensor(shape).prod())
    vals = [math.inf, -math.inf, math.nan, 3.0, -0.5, 0.0, 1e30, -1e30, 7.5][:max(n, 1)]
    vals = (vals * n)[:n] if n else vals
    xt = torch.tensor(vals, dtype=getattr(torch, dt)).reshape(shape)
    x = minitorch.tensor(xt.float().numpy()).to(getattr(minitorch, dt))
    m = F.gelu(x, approximate=approximate)
    assert m.dtype == getattr(minitorch, dt)
    torch.testing.assert_close(torch.tensor(m.float().numpy()), TF.gelu(xt, approximate=approximate).float(),
                               equal_nan=True)


@pytest.mark.parametrize('dt', ['float32', 'bfloat16', 'float64'])
def test_gelu_inf_strided_like_torch(dt):
    xt = torch.full((6, 4), math.inf, dtype=getattr(torch, dt))[:, ::2]
    x = minitorch.full((6, 4), math.inf, dtype=getattr(minitorch, dt))[:, ::2]
    torch.testing.assert_close(torch.tensor(F.gelu(x).float().numpy()), TF.gelu(xt).float(), equal_nan=True)
    torch.testing.assert_close(torch.tensor(F.gelu(x.contiguous()).float().numpy()), TF.gelu(xt.contiguous()).float(),
                               equal_nan=True)


INPLACE = {'leaky_relu_': lambda F, x: F.leaky_relu_(x), 'rrelu_': lambda F, x: F.rrelu_(x),
           'rrelu_inplace': lambda F, x: F.rrelu(x, inplace=True)}


@pytest.mark.parametrize('dt', ['int64', 'bool', 'complex64', 'float32'])
@pytest.mark.parametrize('name', list(INPLACE))
def test_inplace_activation_on_expanded_like_torch(name, dt):
    "The written-to tensor's overlap is checked before the kernel's dtype, as in PyTorch."
    res = []
    for lib, FF in ((torch, TF), (minitorch, F)):
        try:
            INPLACE[name](FF, lib.zeros(3, dtype=getattr(lib, dt)).expand(4, 3)); res.append('ok')
        except Exception as e:   # noqa: BLE001
            res.append((type(e).__name__, str(e)))
    assert res[1] == res[0]


def test_silu_complex_autograd_like_torch():
    res = []
    for lib, FF in ((torch, TF), (minitorch, F)):
        x = lib.ones(3, dtype=lib.complex64, requires_grad=True)
        with pytest.raises(RuntimeError) as e: FF.silu(x)
        res.append(str(e.value))
        with lib.no_grad(): FF.silu(x)                  # without a graph it computes
    assert res[1] == res[0]
