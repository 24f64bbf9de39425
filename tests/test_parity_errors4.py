"Parity fixes (issue 12): threshold_ on expanded inputs, multi_margin_loss, pdist, embedding_bag, addmm_, index_fill."
import pytest
import numpy as np
import torch
import minitorch as mt
import minitorch.nn.functional as F
import torch.nn.functional as TF


def _same(m, t):
    torch.testing.assert_close(torch.from_numpy(np.array(m.tolist(), dtype=np.float64)).reshape(t.shape),
                               t.detach().double(), equal_nan=True)


@pytest.mark.parametrize("which", ["F", "mt"])
def test_threshold_inplace_expanded(which):
    vals = [1., -2., 0.5]
    t = torch.tensor(vals).expand(2, 3)
    m = mt.tensor(vals).expand(2, 3)
    rt = torch.threshold_(t, 0.6, 9.0)
    rm = (F.threshold_ if which == "F" else mt.threshold_)(m, 0.6, 9.0)
    assert rm is m
    _same(m, t); _same(rm, rt)


@pytest.mark.parametrize("fn", ["relu_", "elu_", "leaky_relu_", "hardtanh_", "selu_", "celu_"])
def test_other_inplace_expanded_still_refused(fn):
    t = torch.tensor([1., -2.]).expand(2, 2)
    m = mt.tensor([1., -2.]).expand(2, 2)
    with pytest.raises(RuntimeError):
        getattr(TF, fn)(t)
    with pytest.raises(RuntimeError):
        getattr(F, fn)(m)
