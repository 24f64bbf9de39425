"""Issue 12 parity (helper i): cuda float-to-integer stores, prod, and torch's complex multiply/divide formulas."""
import warnings

import numpy as np
import pytest
import torch

import minitorch as mt
import minitorch.cuda as mcuda

warnings.filterwarnings("ignore")
cuda_only = pytest.mark.skipif(not (mcuda.is_available() or mcuda.is_simulator()), reason="no cuda and no simulator")

_ODD = [float("nan"), float("inf"), -float("inf"), 3e10, -3e10, 2.0**31, -2.0**31 - 1, 2.0**31 - 1, 70000.5, -70000.5,
        300.7, -300.7, 1e19, -9.3e18, 9.2e18, 2.0**32 + 5, 2.0**63, -2.0**63, 0.0, -0.0]
_INTS = ["int64", "int32", "int16", "int8", "uint8", "bool"]


@cuda_only
@pytest.mark.parametrize("src", ["float64", "float32", "float16", "complex128", "complex64"])
@pytest.mark.parametrize("dst", _INTS)
def test_cuda_float_to_int_store_matches_cpu(src, dst):
    "NaN, inf and out-of-range floats cast on cuda as torch's CPU casts them (int64/uint8 via int64, others via int32)."
    vals = _ODD if not src.startswith("complex") else [complex(v, 1.0) for v in _ODD]
    want = torch.tensor(vals, dtype=getattr(torch, src)).to(getattr(torch, dst))
    x = mt.tensor(vals, dtype=getattr(mt, src)).to("cuda")
    got = x.to(getattr(mt, dst)).cpu()
    assert str(got.dtype) == str(want.dtype).replace("torch", "minitorch")
    assert got.tolist() == want.tolist()


@cuda_only
@pytest.mark.parametrize("meth", ["long", "int", "short", "char", "byte"])
def test_cuda_cast_methods_of_complex_inf(meth):
    "seed 512057: `int()` of a complex inf on cuda crashed with OverflowError."
    vals = [complex(float("inf"), 0), complex(float("nan"), 1), complex(-3e10, 2), complex(5.5, -1)]
    want = getattr(torch.tensor(vals, dtype=torch.complex128), meth)()
    got = getattr(mt.tensor(vals, dtype=mt.complex128).to("cuda"), meth)().cpu()
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 15, 31, 32, 33, 63, 64, 65, 130, 300])
def test_prod_all_in_torch_order(dtype, n, device):
    "A full prod multiplies in PyTorch's CPU order (4 vectors of 32 bytes, lanes, then the tail): bit-exact."
    if device == "cuda" and not (mcuda.is_available() or mcuda.is_simulator()): pytest.skip("no cuda")
    g = np.random.default_rng(n)
    t = torch.tensor(g.uniform(0.6, 1.5, n)).to(getattr(torch, dtype))
    got = mt.tensor(t.tolist(), dtype=getattr(mt, dtype)).to(device).prod().cpu()
    assert got.item() == t.prod().item()


@pytest.mark.parametrize("n", [3, 15])
def test_prod_all_complex64_in_torch_order(n):
    "Below one vector block a complex64 prod is the scalar fused product, bit-exact with PyTorch."
    g = np.random.default_rng(n)
    v = (g.uniform(0.5, 1.6, n) + 1j * g.uniform(-0.7, 0.7, n)).astype(np.complex64)
    assert mt.tensor(v.tolist(), dtype=mt.complex64).prod().item() == torch.from_numpy(v).prod().item()
