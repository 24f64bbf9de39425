"""The API coverage appendix (nbs/98_api_coverage.ipynb): `coverage` splits torch's public names into has / refused /
missing exactly once each, and the declared refusals never hide a name published programs use."""
import pytest
import torch

import minitorch
from minitorch.api_coverage import REFUSED, coverage, public_names
from test_api_surface import FUNCTIONAL, NN, OPTIM, TENSOR

NS = {'torch': (torch, minitorch), 'Tensor': (torch.Tensor, minitorch.Tensor), 'nn': (torch.nn, minitorch.nn),
      'nn.functional': (torch.nn.functional, minitorch.nn.functional), 'optim': (torch.optim, minitorch.optim),
      'linalg': (torch.linalg, minitorch.linalg), 'autograd': (torch.autograd, minitorch.autograd)}


@pytest.mark.parametrize('ns', list(NS))
def test_every_public_name_is_counted_once(ns):
    t, m = NS[ns]
    c = coverage(t, m, REFUSED)
    names = c['has'] + list(c['refused']) + c['missing']
    assert sorted(names) == public_names(t) and len(set(names)) == len(names)
    assert all(hasattr(m, n) for n in c['has']) and not any(hasattr(m, n) for n in c['missing'])


@pytest.mark.parametrize('ns,curated', [('nn', NN), ('nn.functional', FUNCTIONAL), ('Tensor', TENSOR), ('optim', OPTIM)])
def test_curated_names_are_had_not_refused(ns, curated):
    c = coverage(*NS[ns], REFUSED)
    assert [n for n in curated if n in c['refused'] or n in c['missing']] == []


def test_refusals_do_not_hide_everyday_names():
    "Names programs call that minitorch lacks today must show as missing, not be swallowed by a refusal pattern."
    import re
    everyday = ['conv2d', 'max_pool2d', 'abs_', 'stft', 'svd', 'qr', 'cholesky', 'pin_memory', 'DeviceMesh',
                'detect_anomaly', 'grid_sample', 'CTCLoss', 'get_worker_info', 'relu_', 'layer_norm']
    for n in everyday:
        assert not any(re.search(p, n) for p in REFUSED.values()), n


def test_public_names_rules():
    names = public_names(torch.nn.functional)
    assert 'conv2d' in names and 'Callable' not in names and 'math' not in names and 'TYPE_CHECKING' not in names
    assert set(public_names(torch.optim)) == set(torch.optim.__all__)
