"Parity with torch for matmul-like ops, linalg and complex arithmetic (issue 12)."
import zlib

import numpy as np
import pytest
import torch

import minitorch

_DT = {torch.float16: minitorch.float16, torch.bfloat16: minitorch.bfloat16}


def _mt(t: torch.Tensor) -> minitorch.Tensor:
    "A minitorch copy of torch tensor `t` (16-bit types through float32, exact)."
    if t.dtype in _DT: return minitorch.tensor(t.float().numpy()).to(_DT[t.dtype])
    return minitorch.tensor(t.detach().numpy())


def _np(x) -> np.ndarray:
    return (x.float() if x.dtype in (minitorch.float16, minitorch.bfloat16, torch.float16, torch.bfloat16) else x).detach().numpy()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("scale", [1e-9, 1e-5, 1e-3, 0.1, 0.4, 1.0, 5.0])
@pytest.mark.parametrize("shape", [(2, 2), (3, 3), (1, 4, 4), (3, 3, 3)])
def test_matrix_exp_16bit_follows_torch(dtype, scale, shape):
    "torch computes 16-bit matrix_exp in the 16-bit type (overflow, inf and NaN included): same values and NaNs."
    g = torch.Generator().manual_seed(zlib.crc32(repr((dtype, scale, shape)).encode()))
    a = (torch.randn(shape, generator=g) * scale).to(dtype)
    want = torch.linalg.matrix_exp(a)
    got = minitorch.linalg.matrix_exp(_mt(a))
    assert got.dtype == _DT[dtype]
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-2, atol=1e-3, equal_nan=True)


def test_matrix_exp_16bit_trivial_sizes():
    for n in (0, 1):
        a = torch.randn(2, n, n).half()
        np.testing.assert_allclose(_np(minitorch.linalg.matrix_exp(_mt(a))), _np(torch.linalg.matrix_exp(a)), rtol=1e-3)
