"""ZeroRedundancyOptimizer on real ranks, compared with single-process training on the whole batch.
Usage: zero.py CASE [CASE ...]; prints 'CASE ok' on every rank for each case."""
import sys

import numpy as np

import minitorch as mt
import minitorch.distributed as dist
from minitorch import nn
from minitorch.distributed.optim import ZeroRedundancyOptimizer
from minitorch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi")
R, W = dist.get_rank(), dist.get_world_size()
rng = np.random.default_rng(0)
X = mt.tensor(rng.standard_normal((12, 8)).astype(np.float32))
Y = mt.tensor(rng.integers(0, 4, 12))
part = slice(R * 12 // W, (R + 1) * 12 // W)
loss_fn = nn.functional.cross_entropy


def mlp(seed=0):
    mt.manual_seed(seed)
    return nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 4))


def close(a, b, tol=1e-5):
    for p, q in zip(a.parameters(), b.parameters()):
        err = float((p - q).abs().max())
        assert err < tol, err


def train_pair(opt_cls, steps=4, zero_kw=None, **hyper):
    single, ddp = mlp(), DDP(mlp())
    o1 = opt_cls(single.parameters(), **hyper)
    o2 = ZeroRedundancyOptimizer(ddp.parameters(), opt_cls, **(zero_kw or {}), **hyper)
    for _ in range(steps):
        o1.zero_grad(); loss_fn(single(X), Y).backward(); o1.step()
        o2.zero_grad(); loss_fn(ddp(X[part]), Y[part]).backward(); o2.step()
        close(single, ddp)
    return single, ddp, o1, o2


def run(case):
    if case == "adam":
        single, ddp, o1, o2 = train_pair(mt.optim.Adam, lr=0.01, weight_decay=0.01)
        owned = {id(p) for g in o2._partition[R] for p in g["params"]}
        assert {id(p) for p in o2.optim.state} == owned                 # state for this rank's parameters only
        mine = [id(p) for p in ddp.parameters() if id(p) in owned]
        assert 0 < len(mine) < len(list(ddp.parameters()))
    elif case == "sgd":
        train_pair(mt.optim.SGD, lr=0.1, momentum=0.9)
    elif case == "bucket_view":
        single, ddp, o1, o2 = train_pair(mt.optim.Adam, zero_kw={"parameters_as_bucket_view": True}, lr=0.01)
        assert len(o2._buckets) == W
    elif case == "scheduler":                 # an LR scheduler on the ZeRO optimizer reaches the local optimizer
        single, ddp = mlp(), DDP(mlp())
        o1 = mt.optim.SGD(single.parameters(), lr=0.1)
        o2 = ZeroRedundancyOptimizer(ddp.parameters(), mt.optim.SGD, lr=0.1)
        s1, s2 = mt.optim.lr_scheduler.StepLR(o1, 1, gamma=0.5), mt.optim.lr_scheduler.StepLR(o2, 1, gamma=0.5)
        for _ in range(3):
            o1.zero_grad(); loss_fn(single(X), Y).backward(); o1.step(); s1.step()
            o2.zero_grad(); loss_fn(ddp(X[part]), Y[part]).backward(); o2.step(); s2.step()
            close(single, ddp)
        assert o2.param_groups[0]["lr"] == o1.param_groups[0]["lr"] == 0.1 * 0.5 ** 3
    elif case == "state_dict":                # consolidate on rank 1, compare with plain Adam, reload and go on
        single, ddp, o1, o2 = train_pair(mt.optim.Adam, steps=2, lr=0.01)
        to = W - 1
        o2.consolidate_state_dict(to=to)
        if R == to:
            sd, ref = o2.state_dict(), o1.state_dict()
            assert sorted(sd["state"]) == sorted(ref["state"]) == list(range(6)), sorted(sd["state"])
            for i in ref["state"]:
                for k in ("exp_avg", "exp_avg_sq", "step"):
                    assert np.allclose(sd["state"][i][k].numpy(), ref["state"][i][k].numpy(), atol=1e-6), (i, k)
            assert sd["param_groups"][0]["lr"] == 0.01 and sd["param_groups"][0]["params"] == list(range(6))
        else:
            try:
                o2.state_dict(); raise AssertionError("must raise")
            except RuntimeError as e:
                assert "consolidate_state_dict" in str(e)
        box = [o2.state_dict() if R == to else None]
        dist.broadcast_object_list(box, src=to)
        fresh = ZeroRedundancyOptimizer(ddp.parameters(), mt.optim.Adam, lr=0.5)
        fresh.load_state_dict(box[0])
        assert fresh.optim.param_groups[0]["lr"] == 0.01
        owned = {id(p) for g in fresh._partition[R] for p in g["params"]}
        assert {id(p) for p in fresh.optim.state} == owned
        for _ in range(2):                    # resumed training equals uninterrupted single-process training
            o1.zero_grad(); loss_fn(single(X), Y).backward(); o1.step()
            fresh.zero_grad(); loss_fn(ddp(X[part]), Y[part]).backward(); fresh.step()
            close(single, ddp)
    elif case == "add_group":                 # a group added after some steps is partitioned and trained too
        single, ddp = mlp(), DDP(mlp())
        first = lambda m: [p for n, p in m.named_parameters() if not n.startswith("4.")]
        last = lambda m: [p for n, p in m.named_parameters() if n.startswith("4.")]
        o1 = mt.optim.Adam(first(single), lr=0.01)
        o2 = ZeroRedundancyOptimizer(first(ddp.module), mt.optim.Adam, lr=0.01)
        for step in range(4):
            if step == 2:
                o1.add_param_group({"params": last(single), "lr": 0.05})
                o2.add_param_group({"params": last(ddp.module), "lr": 0.05})
            o1.zero_grad(); loss_fn(single(X), Y).backward(); o1.step()
            o2.zero_grad(); loss_fn(ddp(X[part]), Y[part]).backward(); o2.step()
            close(single, ddp)
        assert len(o2.param_groups) == 2 and len(o2.optim.param_groups) == 2
    elif case == "overlap":                   # the step inside DDP's hook: iterations 0 and 1 do not update (torch)
        from minitorch.distributed.optim import hook_with_zero_step
        from minitorch.nn.parallel import allreduce_hook
        single, ddp = mlp(), DDP(mlp(), bucket_cap_mb=0.001)     # several buckets, so several owners
        o1 = mt.optim.Adam(single.parameters(), lr=0.01)
        o2 = ZeroRedundancyOptimizer(ddp.parameters(), mt.optim.Adam, overlap_with_ddp=True, lr=0.01)
        ddp.register_comm_hook(None, hook_with_zero_step(allreduce_hook, ddp, o2))
        for step in range(5):
            o1.zero_grad(); loss_fn(single(X), Y).backward()
            if step >= 2: o1.step()
            o2.zero_grad(); loss_fn(ddp(X[part]), Y[part]).backward()
            close(single, ddp)
        assert o2._overlap_info.status == "INITIALIZED" and len(o2._overlap_info.params_per_bucket) >= 2
        owned = {id(p) for g in o2._partition[R] for p in g["params"]}
        assert {id(p) for p in o2.optim.state} == owned and len(owned) < 6
        assert len(owned) > 0 or len(o2._overlap_info.params_per_bucket) <= R    # bucket i belongs to rank i % W
        o2.consolidate_state_dict(to=0)
        if R == 0:
            sd, ref = o2.state_dict(), o1.state_dict()
            assert sorted(sd["state"]) == sorted(ref["state"])
            for i in ref["state"]:
                assert np.allclose(sd["state"][i]["exp_avg"].numpy(), ref["state"][i]["exp_avg"].numpy(), atol=1e-6)
    elif case == "partition":                 # PyTorch's reference model and numbers (pytorch-semantics.md §6)
        m = nn.Sequential(nn.Linear(1000, 1000), nn.Linear(1000, 300), nn.Linear(300, 10))
        z = ZeroRedundancyOptimizer(m.parameters(), mt.optim.SGD, lr=0.1)
        sizes = [sum(p.numel() for g in groups for p in g["params"]) for groups in z._partition]
        expected = {2: [1000000, 304310], 3: [1000000, 300000, 4310]}[W]
        assert sizes == expected, sizes
        assert sum(p.numel() for g in z.optim.param_groups for p in g["params"]) == expected[R]
    else:
        raise ValueError(case)
    print(case, "ok", flush=True)


for c in sys.argv[1:]:
    run(c)
dist.destroy_process_group()
