"""DDP behaviours on real ranks, each compared with single-process training or with PyTorch's documented numbers.
Usage: ddp.py CASE; prints 'CASE ok' on every rank."""
import sys

import numpy as np

import minitorch as mt
import minitorch.distributed as dist
from minitorch import nn
from minitorch.nn.parallel import DistributedDataParallel as DDP, fp16_compress_hook

case = sys.argv[1]
dist.init_process_group("mpi")
R, W = dist.get_rank(), dist.get_world_size()
rng = np.random.default_rng(0)
X = mt.tensor(rng.standard_normal((12, 8)).astype(np.float32))
Y = mt.tensor(rng.integers(0, 4, 12))
part = slice(R * 12 // W, (R + 1) * 12 // W)


def mlp(seed=0):
    mt.manual_seed(seed + R)          # different on every rank: DDP must broadcast rank 0's weights
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))


def reference():
    mt.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))


def close(a, b, tol=1e-5):
    for p, q in zip(a.parameters(), b.parameters()):
        assert float((p - q).abs().max()) < tol, float((p - q).abs().max())


loss_fn = nn.functional.cross_entropy
if case in ("equal", "bucket_view", "tiny_buckets"):
    kw = {"equal": {}, "bucket_view": {"gradient_as_bucket_view": True}, "tiny_buckets": {"bucket_cap_mb": 0.0002}}[case]
    single, ddp = reference(), DDP(mlp(), **kw)
    o1, o2 = mt.optim.Adam(single.parameters(), lr=0.01), mt.optim.Adam(ddp.parameters(), lr=0.01)
    for step in range(4):
        o1.zero_grad(); loss_fn(single(X), Y).backward(); o1.step()
        o2.zero_grad(); loss_fn(ddp(X[part]), Y[part]).backward(); o2.step()
        close(single, ddp)
    if case == "tiny_buckets": assert len(ddp.bucket_sizes()) > 1, ddp.bucket_sizes()
elif case == "buckets":                # PyTorch's reference model and numbers (pytorch-semantics.md §6)
    m = nn.Sequential(nn.Linear(1000, 1000), nn.Linear(1000, 300), nn.Linear(300, 10))
    ddp = DDP(m)
    assert ddp.bucket_sizes() == [5217240], ddp.bucket_sizes()
    ddp(mt.randn(2, 1000)).sum().backward()
    assert ddp.bucket_sizes() == [1213240, 4004000], ddp.bucket_sizes()
    unused = DDP(nn.Sequential(nn.Linear(1000, 1000), nn.Linear(1000, 300), nn.Linear(300, 10)), find_unused_parameters=True)
    assert unused.bucket_sizes() == [1217240, 4000000], unused.bucket_sizes()
    half = DDP(nn.Sequential(nn.Linear(1000, 1000), nn.Linear(1000, 300), nn.Linear(300, 10)), bucket_cap_mb=0.5)
    half(mt.randn(2, 1000)).sum().backward()
    assert half.bucket_sizes() == [1213240, 4004000], half.bucket_sizes()
elif case == "no_sync":                # two micro-batches accumulated locally, averaged on the second backward
    single, ddp = reference(), DDP(mlp())
    half = (part.stop - part.start) // 2
    a, b = slice(part.start, part.start + half), slice(part.start + half, part.stop)
    loss_fn(single(X), Y, reduction="sum").backward()
    with ddp.no_sync():
        loss_fn(ddp(X[a]), Y[a], reduction="sum").backward()
    loss_fn(ddp(X[b]), Y[b], reduction="sum").backward()
    for p, q in zip(single.parameters(), ddp.parameters()):     # DDP averages: sum over ranks / W
        assert np.allclose(p.grad.numpy() / W, q.grad.numpy(), atol=1e-5)
elif case == "unused":
    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__(); self.a, self.b = nn.Linear(4, 2), nn.Linear(4, 2)
        def forward(self, x): return self.a(x)
    ddp = DDP(TwoHeads())
    ddp(mt.randn(3, 4)).sum().backward()
    try:
        ddp(mt.randn(3, 4))
        raise AssertionError("must raise")
    except RuntimeError as e:
        assert "find_unused_parameters=True" in str(e)
    ddp = DDP(TwoHeads(), find_unused_parameters=True)
    for _ in range(2):
        ddp(mt.randn(3, 4)).sum().backward()
    assert ddp.module.b.weight.grad is None and ddp.module.a.weight.grad is not None
elif case == "hooks":
    single = reference()
    loss_fn(single(X), Y).backward()
    ident = DDP(mlp())
    def identity(state, bucket):
        fut = dist.Future(); fut.set_result(bucket.buffer()); return fut
    ident.register_comm_hook(None, identity)
    loss_fn(ident(X[part]), Y[part]).backward()                  # local gradients, not averaged
    local = reference(); loss_fn(local(X[part]), Y[part]).backward()
    for p, q in zip(local.parameters(), ident.parameters()): assert np.allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-6)
    try:
        ident.register_comm_hook(None, identity); raise AssertionError("second hook must raise")
    except RuntimeError: pass
    summed = DDP(mlp())
    summed.register_comm_hook(None, lambda s, b: dist.all_reduce(b.buffer(), async_op=True).get_future().then(lambda f: f.value()[0]))
    loss_fn(summed(X[part]), Y[part]).backward()
    loss_fn(single(X[part]), Y[part])  # noqa
    ref = reference(); [loss_fn(ref(X[slice(r * 12 // W, (r + 1) * 12 // W)]), Y[slice(r * 12 // W, (r + 1) * 12 // W)]).backward() for r in range(W)]
    for p, q in zip(ref.parameters(), summed.parameters()): assert np.allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-5)
    fp16 = DDP(mlp()); fp16.register_comm_hook(None, fp16_compress_hook)
    loss_fn(fp16(X[part]), Y[part]).backward()
    for p, q in zip(single.parameters(), fp16.parameters()):
        err = np.abs(p.grad.numpy() - q.grad.numpy()).max() / (np.abs(p.grad.numpy()).max() + 1e-12)
        assert err < 3e-3, err
print(case, "ok", flush=True)
dist.destroy_process_group()
