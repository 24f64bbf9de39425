"Issue 12 parity leftovers (matmul, statistics, reductions, attention, conv, cuda): minitorch against torch."
import pytest
import torch
import minitorch as mt


def _err(f):
    try: f()
    except Exception as e: return type(e), str(e)
    return None


@pytest.mark.parametrize('d', ['complex64', 'complex128'])
def test_mode_complex_raises_as_torch(d):
    x = [[1 + 1j, 2j], [2j, 2j]]
    want = _err(lambda: torch.tensor(x, dtype=getattr(torch, d)).mode(1))
    got = _err(lambda: mt.tensor(x, dtype=getattr(mt, d)).mode(1))
    assert want is not None and got == want
    # an empty reduction dim is checked first, as PyTorch does
    assert _err(lambda: mt.zeros(0, dtype=getattr(mt, d)).mode(0))[0] is IndexError


@pytest.mark.parametrize('p,dim', [('fro', (0, 1, 2)), ('fro', [0, 1, 2]), (None, (0, 1, 2)), ('nuc', (0, 1, 2)),
                                   ('nuc', 0), ('fro', (-1, 0, 1))])
def test_norm_string_p_needs_two_dims(p, dim):
    x = torch.randn(2, 3, 4)
    kw = {} if p is None else {'p': p}
    want = _err(lambda: x.norm(dim=dim, **kw))
    got = _err(lambda: mt.tensor(x.numpy()).norm(dim=dim, **kw))
    assert want is not None and got == want


def test_norm_nuc_and_vector_paths_still_match():
    x = torch.randn(3, 4, dtype=torch.float64)
    m = mt.tensor(x.numpy())
    torch.testing.assert_close(torch.tensor(m.norm(p='nuc').numpy()), x.norm(p='nuc'))
    torch.testing.assert_close(torch.tensor(m.norm(p=2, dim=(0, 1)).numpy()), x.norm(p=2, dim=(0, 1)))
    torch.testing.assert_close(torch.tensor(m.norm(dim=1).numpy()), x.norm(dim=1))
