"""Parity with PyTorch for the arithmetic, comparison, logic/cast, more-ops and complex chapters (issue 12, helper P2)."""
import math

import numpy as np
import pytest
import torch

import minitorch as mt


def _both(fn):
    "fn(lib) for torch and minitorch; (result or exception) each."
    out = []
    for lib in (torch, mt):
        try: out.append(fn(lib))
        except Exception as e: out.append(e)   # noqa: BLE001
    return out


def _same(t, m, exact=False):
    assert not isinstance(t, Exception) and not isinstance(m, Exception), (t, m)
    assert str(t.dtype).replace('torch.', '') == m.dtype.name
    mn = torch.from_numpy(np.array(m.tolist(), dtype=str(t.dtype).replace('torch.', '').replace('bfloat16', 'float32')))
    mn = mn.to(t.dtype).reshape(t.shape)
    if exact: assert torch.equal(t, mn), (t, mn)
    else: torch.testing.assert_close(mn, t, equal_nan=True, rtol=1e-6, atol=0)


def _same_error(t, m):
    assert isinstance(t, Exception) and isinstance(m, Exception), (t, m)
    assert type(t) is type(m), (t, m)
    assert str(t).split('\n')[0] == str(m).split('\n')[0], (t, m)


@pytest.mark.parametrize('alpha', [0, 2, -1, True, False])
def test_add_bool_alpha_keeps_bool(alpha):
    t, m = _both(lambda L: L.add(L.tensor([False, True]), L.tensor(True), alpha=alpha))
    _same(t, m, exact=True)


@pytest.mark.parametrize('case', [
    lambda L: L.add(L.tensor([1., 2.]), 3, alpha=True),
    lambda L: L.sub(L.tensor([1, 2]), L.tensor(3), alpha=True),
    lambda L: L.add(L.tensor([1, 2], dtype=L.int8), L.tensor([3], dtype=L.int8), alpha=300),
    lambda L: L.add(L.tensor([1, 2], dtype=L.uint8), 3, alpha=-256),
])
def test_add_alpha_errors(case):
    _same_error(*_both(case))


@pytest.mark.parametrize('alpha', [-1, -255, 255])
def test_add_unsigned_alpha_wraps(alpha):
    t, m = _both(lambda L: L.add(L.tensor([1, 2], dtype=L.uint8), 3, alpha=alpha))
    _same(t, m, exact=True)
