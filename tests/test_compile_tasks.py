"""Graded tasks of chapters 25b and 25c: the GLOBAL_STATE guard (25.1) and the min-cut partitioner's choice (25.3).
Torch 2.13 is the oracle for the recompile on a default-dtype change and for what each partitioner saves."""
import numpy as np
import pytest
import torch
import torch._dynamo as tdynamo
import minitorch as mt
from minitorch import _dynamo as mdynamo
from minitorch._dynamo import compile as mcompile
from minitorch.compiler import aot

def _count(backend_calls):
    def backend(gm, ex): backend_calls.append(1); return gm.forward
    return backend

@pytest.mark.task25_1
def test_default_dtype_change_recompiles_like_torch():
    f = lambda x: x + mt.ones(3) if isinstance(x, mt.Tensor) else None
    tf_ = lambda x: x + torch.ones(3)
    calls_m, calls_t = [], []
    mdynamo.reset(); tdynamo.reset()
    cf, ctf = mcompile(f, backend=_count(calls_m)), torch.compile(tf_, backend=_count(calls_t))
    x64 = np.ones(3)
    try:
        assert cf(mt.tensor(x64)).dtype == mt.float64
        mt.set_default_dtype(mt.float64); torch.set_default_dtype(torch.float64)
        got, want = cf(mt.tensor(x64)), ctf(torch.tensor(x64))
        assert got.dtype == mt.float64 and str(want.dtype) == 'torch.float64'
        ones = cf(mt.tensor(x64, dtype=mt.float32))        # ones(3) is float64 now: the sum is float64, no stale graph
        assert ones.dtype == mt.float64
    finally:
        mt.set_default_dtype(mt.float32); torch.set_default_dtype(torch.float32)
    assert len(calls_m) >= 2

@pytest.mark.task25_1
def test_global_state_guard_reasons():
    g = mdynamo.grad_mode_guard()
    assert g.check(None) is None and str(g) == 'GLOBAL_STATE: grad_mode=True'
    with mt.no_grad(): assert g.check(None) == 'GLOBAL_STATE changed: grad_mode '
    try:
        mt.set_default_dtype(mt.float64)
        assert g.check(None) == 'GLOBAL_STATE changed: default_dtype '
    finally: mt.set_default_dtype(mt.float32)
    assert g.check(None) is None

@pytest.mark.task25_1
def test_default_dtype_recompile_is_logged(caplog):
    mdynamo.reset()
    cf = mcompile(lambda x: x * mt.ones(2), backend='eager')
    cf(mt.ones(2, dtype=mt.float64))
    try:
        mt.set_default_dtype(mt.float64)
        with caplog.at_level('DEBUG', logger='minitorch._dynamo'):
            out = cf(mt.ones(2, dtype=mt.float64))
    finally: mt.set_default_dtype(mt.float32)
    assert out.dtype == mt.float64
    assert len(mdynamo.stats.recompiles) == 1 and 'default_dtype' in str(mdynamo.stats.recompiles[0])

def _saved(fn, x):
    joint, n, _ = aot.make_joint(fn, [x])
    return [s.name for s in aot.min_cut_rematerialization_partition(joint, n).saved], \
           [s.name for s in aot.default_partition(joint, n).saved]

@pytest.mark.task25_3
def test_recomputable_is_pointwise_or_view():
    joint, n, _ = aot.make_joint(lambda x: x.sin().t().mm(x).sum(), [mt.randn(3, 3, requires_grad=True)])
    kinds = {nd.name: aot._recomputable(nd) for nd in joint.nodes}
    assert kinds['sin'] and kinds['t'] and not kinds['mm'] and not kinds['primals_1'] and not kinds['sum_1']

@pytest.mark.task25_3
def test_min_cut_recomputes_cheap_chains_like_torch():
    """torch 2.13 on cos(sin x).sum(): default saves x and sin x, min-cut saves only x; a matmul is saved, never
    recomputed (`x.mm(x).sin()` saves the mm in both)."""
    m, d = _saved(lambda x: x.sin().cos().sum(), mt.randn(3, requires_grad=True))
    assert m == ['primals_1'] and sorted(d) == ['primals_1', 'sin']
    m, d = _saved(lambda x: x.mm(x).sin().sum(), mt.randn(3, 3, requires_grad=True))
    assert 'mm' in m and 'mm' in d
