"""Parity fixes made by the lead (issue 12), each against torch."""
import math

import numpy as np
import pytest
import torch

import minitorch as mt


def _outcome(f, lib):
    try:
        r = f(lib)
        return ('ok', r.tolist() if hasattr(r, 'tolist') else r)
    except Exception as e:   # noqa: BLE001
        return (type(e).__name__, str(e))


CASES = {
    'int8.xlogy_(complex)': lambda L: L.tensor([1, 2], dtype=L.int8).xlogy_(1.5 - 0.5j),
    'bool.hypot_(uint8)': lambda L: L.tensor([True, False]).hypot_(L.tensor([1, 2], dtype=L.uint8)),
    'int8.fmax_(float)': lambda L: L.tensor([1, 2], dtype=L.int8).fmax_(L.tensor([1.5, 1.0])),
    'int8.logaddexp_(float)': lambda L: L.tensor([1, 2], dtype=L.int8).logaddexp_(L.tensor([1.5, 1.0])),
    'complex.abs_()': lambda L: L.tensor([1 + 1j]).abs_(),
    'empty complex.absolute_()': lambda L: L.zeros(0, dtype=L.complex64).absolute_(),
    'int(complex with imag)': lambda L: int(L.tensor(1 + 2j)),
    'float(complex, real)': lambda L: float(L.tensor(1 + 0j)),
    'view.detach_()': lambda L: L.zeros(4, 4)[1:3].detach_(),
}


@pytest.mark.parametrize('name', list(CASES))
def test_error_class_and_message_as_torch(name):
    want, got = _outcome(CASES[name], torch), _outcome(CASES[name], mt)
    assert got[0] == want[0]
    if want[0] != 'ok': assert got[1].split('\n')[0][:60] == want[1].split('\n')[0][:60]
    else: assert got[1] == want[1]


@pytest.mark.parametrize('dtype', ['int8', 'int16', 'int32', 'int64', 'uint8', 'bool'])
def test_sort_descending_integers_at_the_minimum(dtype):
    rng = np.random.default_rng(0)
    for _ in range(50):
        if dtype == 'bool': x = rng.integers(0, 2, 9).astype(bool)
        else:
            info = np.iinfo(dtype)
            x = rng.integers(info.min, info.max, 9, endpoint=True).astype(dtype)
            x[rng.integers(0, 9, 3)] = info.min
        tv, ti = torch.sort(torch.from_numpy(x), descending=True, stable=True)
        mv, mi = mt.sort(mt.tensor(x), descending=True, stable=True)
        assert mv.tolist() == tv.tolist() and mi.tolist() == ti.tolist()


def _same_complex(a, b):
    a, b = np.asarray(a), np.asarray(b)
    for part in ('real', 'imag'):
        x, y = getattr(a, part), getattr(b, part)
        assert np.array_equal(x, y, equal_nan=True)
        assert np.array_equal(np.signbit(x[x == x]), np.signbit(y[y == y]))


@pytest.mark.parametrize('dtype', ['complex64', 'complex128'])
def test_complex_add_sub_with_inf_as_torch(dtype):
    v = [complex(math.inf, 1), complex(1, math.inf), complex(math.nan, 0), complex(-0.0, -1), 1 + 1j]
    a = np.array([p for p in v for _ in v], dtype); b = np.array([q for _ in v for q in v], dtype)
    ops = [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: y.add(x), lambda x, y: 2.5 + x, lambda x, y: x + math.inf,
           lambda x, y: True + x, lambda x, y: (1 + 1j) * x, lambda x, y: 2 - x]
    for f in ops:
        _same_complex(f(mt.tensor(a), mt.tensor(b)).numpy(), f(torch.from_numpy(a), torch.from_numpy(b)).numpy())


def test_stack_is_one_node_and_adds_its_gradients_in_input_order():
    b = np.array([[1.7e38 + 0j, 1 + 1j]], np.complex64)
    out = []
    for L in (mt, torch):
        base = L.tensor(b, requires_grad=True)
        s = L.stack([base, base], 2)
        s.reshape(1, 4)[:, ::2].exp().backward(L.tensor(np.array([[1 + 1j, 2 - 1j]], np.complex64)))
        out.append((s.grad_fn.name(), base.grad.numpy()))
    assert out[0][0] == out[1][0] == 'StackBackward0'
    _same_complex(out[0][1], out[1][1])


@pytest.mark.parametrize('alpha', [0.3, -0.05, 3, 1e-3])
def test_float32_add_alpha_is_one_fused_multiply_add(alpha):
    "torch's cpu kernel rounds a + alpha*b once (vectorized fmadd): two roundings differ in ~20% of elements."
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    for f in (lambda L, x, y: L.add(x, y, alpha=alpha), lambda L, x, y: L.sub(x, y, alpha=alpha),
              lambda L, x, y: x.clone().add_(y, alpha=alpha), lambda L, x, y: L.add(x.reshape(5, -1), y[:200], alpha=alpha)):
        np.testing.assert_array_equal(f(mt, mt.tensor(a), mt.tensor(b)).numpy(),
                                      f(torch, torch.from_numpy(a), torch.from_numpy(b)).numpy())


@pytest.mark.parametrize('kw', [dict(lr=0.05), dict(lr=0.05, momentum=0.9),
                                dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-2),
                                dict(lr=0.1, momentum=0.5, dampening=0.3, weight_decay=0.1)])
def test_sgd_steps_are_bit_exact(kw):
    w0 = np.random.default_rng(0).standard_normal(50).astype(np.float32)
    out = []
    for L in (torch, mt):
        w = L.tensor(w0.copy(), requires_grad=True)
        opt = L.optim.SGD([w], **kw)
        for s in range(20):
            opt.zero_grad()
            (w * L.tensor(np.sin(np.arange(50) * (s + 1)).astype(np.float32))).sum().backward()
            opt.step()
        out.append(w.detach().numpy())
    np.testing.assert_array_equal(out[1], out[0])


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_16bit_sum_over_several_dims_rounds_once(dtype):
    "PyTorch reduces several dims in one float32 accumulation; rounding to 16 bits between dims drifts by ulps."
    rng = np.random.default_rng(0)
    for _ in range(100):
        x = rng.standard_normal((4, 5, 3)).astype(np.float32) * 3
        t, m = torch.tensor(x).to(getattr(torch, dtype)), mt.tensor(x).to(getattr(mt, dtype))
        for f in (lambda a: a.sum((0, 1)), lambda a: a.sum_to_size((1, 5, 1)), lambda a: a.mean((0, 2))):
            np.testing.assert_array_equal(f(m).float().numpy(), f(t).float().numpy())

import minitorch.cuda as mcuda  # noqa: E402

@pytest.mark.skipif(not (mcuda.is_available() or mcuda.is_simulator()), reason="no CUDA device and the simulator is off")
@pytest.mark.parametrize("order", ["cpu_first", "cuda_first"])
def test_zero_dim_cpu_leaf_gets_its_grad_on_cpu(order):
    "A 0-d CPU tensor may meet CUDA tensors in an op; its gradient lands on the CPU, as torch's engine moves it."
    x = mt.tensor(2., requires_grad=True)
    y = mt.tensor([1., 2., 3.], device='cuda', requires_grad=True)
    z = x * y if order == "cpu_first" else y * x
    z.sum().backward()
    assert x.grad.device.type == 'cpu' and y.grad.device.type == 'cuda'
    assert x.grad.shape == () and float(x.grad) == 6.0
    (x + y).sum().backward()                      # the second gradient adds into the CPU one
    assert x.grad.device.type == 'cpu' and float(x.grad) == 9.0


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("case", ["tensor", "real", "scalar", "transposed"])
def test_complex_product_is_torch_vector_formula(dtype, case):
    "A long complex product is torch's bit for bit: its vector loop rounds each step of (ac-bd) + (ad+bc)i."
    rng = np.random.default_rng(3)
    n = 4100                                        # (4096 in full vectors, a tail of 4: torch's scalar code, as numpy)
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    b = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    ta, ma = torch.tensor(a), mt.tensor(a)
    if case == "tensor": t, m = ta * torch.tensor(b), ma * mt.tensor(b)
    elif case == "real": t, m = ta * torch.tensor(b.real.copy()), ma * mt.tensor(b.real.copy())
    elif case == "scalar": t, m = ta * (1.5 - 2j), ma * (1.5 - 2j)
    else:
        t = ta.reshape(100, -1).t() * torch.tensor(b).reshape(100, -1).t()
        m = ma.reshape(100, -1).t() * mt.tensor(b).reshape(100, -1).t()
    t, m = t.numpy().reshape(-1), m.numpy().reshape(-1)
    # the full vectors bit for bit; the tail is scalar code whose fusing differs by operand kind: within an ulp
    assert np.array_equal(t[:4096], m[:4096])
    np.testing.assert_allclose(t[4096:], m[4096:], rtol=2e-7 if dtype == "complex64" else 4e-16)


def test_complex_product_special_values_as_torch():
    "inf and NaN parts land where torch's formula puts them (inf * 0 is NaN), in the vector blocks and the tail."
    sp = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0]
    z = np.array([complex(x, y) for x in sp for y in sp], dtype=np.complex128)
    a, b = (v.ravel() for v in np.meshgrid(z, z))
    t, m = (torch.tensor(a) * torch.tensor(b)).numpy(), (mt.tensor(a) * mt.tensor(b)).numpy()
    for p, q in ((t.real, m.real), (t.imag, m.imag)):
        assert np.array_equal(np.isnan(p), np.isnan(q))
        ok = ~np.isnan(p)
        assert np.array_equal(p[ok], q[ok]) and np.array_equal(np.signbit(p[ok]), np.signbit(q[ok]))


@pytest.mark.skipif(not (mcuda.is_available() or mcuda.is_simulator()), reason="no CUDA device and the simulator is off")
def test_cross_entropy_label_smoothing_on_cuda():
    "cross_entropy with label_smoothing on a cuda tensor read its valid-target mask through numpy() (TypeError)."
    x = np.array([0.3, -1.2, 2.0], dtype=np.float32)
    for target in (1, [2]):
        xi = x if isinstance(target, int) else x[None]
        want = torch.nn.functional.cross_entropy(torch.tensor(xi), torch.tensor(target), label_smoothing=0.1)
        got = mt.nn.functional.cross_entropy(mt.tensor(xi, device='cuda'), mt.tensor(target, device='cuda'),
                                             label_smoothing=0.1)
        assert got.device.type == 'cuda'
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-6)


def test_nansum_nanmean_refuse_complex_on_cpu():
    "torch's CPU nansum (and nanmean, which calls it) has no complex kernel."
    z = [1 + 2j, complex('nan')]
    cases = [lambda L: L.nansum(L.tensor(z)), lambda L: L.nansum(L.tensor(z), 0), lambda L: L.nanmean(L.tensor(z)),
             lambda L: L.nansum(L.ones(2), dtype=L.complex64)]
    for f in cases:
        assert _outcome(f, mt) == _outcome(f, torch)
