"""FullyShardedDataParallel on real ranks, compared with single-process training on the whole batch.
Usage: fsdp.py CASE [CASE ...]; prints 'CASE ok' on every rank for each case."""
import os
import sys
from functools import partial

import numpy as np

import minitorch as mt
import minitorch.distributed as dist
from minitorch import nn
from minitorch.distributed.fsdp import (BackwardPrefetch, FullyShardedDataParallel as FSDP, MixedPrecision,
                                        ModuleWrapPolicy, ShardingStrategy, StateDictType, size_based_auto_wrap_policy)
from minitorch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi")
R, W = dist.get_rank(), dist.get_world_size()
rng = np.random.default_rng(0)
X = mt.tensor(rng.standard_normal((12, 8)).astype(np.float32))
Y = mt.tensor(rng.integers(0, 4, 12))
part = slice(R * 12 // W, (R + 1) * 12 // W)
loss_fn = nn.functional.cross_entropy
PER_LINEAR = ModuleWrapPolicy({nn.Linear})


def mlp(seed=0, hidden=32):
    mt.manual_seed(seed)
    return nn.Sequential(nn.Linear(8, hidden), nn.ReLU(), nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, hidden)), nn.ReLU(), nn.Linear(hidden, 4))


def close(single, fsdp, tol=1e-5):
    full = fsdp.state_dict()
    assert list(full) == list(single.state_dict()), (list(full), list(single.state_dict()))
    for n, p in single.named_parameters():
        err = float((p - full[n]).abs().max())
        assert err < tol, (n, err)


def train(opt_cls=mt.optim.Adam, steps=3, tol=1e-5, hyper=None, hidden=32, **kw):
    hyper = hyper or {"lr": 0.01}
    single, fsdp = mlp(hidden=hidden), FSDP(mlp(hidden=hidden), **kw)
    o1, o2 = opt_cls(single.parameters(), **hyper), opt_cls(fsdp.parameters(), **hyper)
    for _ in range(steps):
        o1.zero_grad(); loss_fn(single(X), Y).backward(); o1.step()
        o2.zero_grad(); loss_fn(fsdp(X[part]), Y[part]).backward(); o2.step()
        close(single, fsdp, tol)
    return single, fsdp, o1, o2


def held_bytes(params, opt):
    "Bytes of the tensors a rank keeps between steps: parameters, gradients, optimizer state."
    total = 0
    for p in params:
        total += p.numel() * p.element_size()
        if p.grad is not None: total += p.grad.numel() * p.grad.element_size()
    for s in opt.state.values():
        total += sum(t.numel() * t.element_size() for t in s.values() if isinstance(t, mt.Tensor) and t.ndim)
    return total


def run(case):
    if case == "full_shard":
        train(sharding_strategy=ShardingStrategy.FULL_SHARD, auto_wrap_policy=PER_LINEAR)
        train(mt.optim.SGD, hyper={"lr": 0.1, "momentum": 0.9}, auto_wrap_policy=PER_LINEAR)
    elif case == "one_unit":                       # no policy: the root is the only unit
        single, fsdp, *_ = train()
        assert [n for n, _ in fsdp.named_parameters()] == ["_fsdp_wrapped_module._flat_param"]
        n = sum(p.numel() for p in single.parameters())
        assert fsdp.module._flat_param.numel() == -(-n // W)
    elif case == "size_policy":                    # nested units and a root that keeps some parameters
        single, fsdp, *_ = train(auto_wrap_policy=partial(size_based_auto_wrap_policy, min_num_params=1000))
        units = [m for m in fsdp.modules() if isinstance(m, FSDP)]
        assert len(units) == 3 and fsdp._flat is not None, len(units)
    elif case == "shard_grad_op":
        train(sharding_strategy=ShardingStrategy.SHARD_GRAD_OP, auto_wrap_policy=PER_LINEAR)
    elif case == "no_shard":
        single, fsdp, *_ = train(sharding_strategy=ShardingStrategy.NO_SHARD, auto_wrap_policy=PER_LINEAR)
        assert fsdp.module[0].module._flat_param.numel() == 8 * 32 + 32
    elif case == "prefetch":                       # all three settings compute the same; PRE really prefetches
        for bp in (BackwardPrefetch.BACKWARD_PRE, BackwardPrefetch.BACKWARD_POST, None):
            single, fsdp, *_ = train(auto_wrap_policy=PER_LINEAR, backward_prefetch=bp, steps=2)
            kinds = [e["kind"] for e in fsdp.timeline]
            assert kinds.count("reduce-scatter") == 2 * 4, kinds
            assert ("all-gather (prefetched)" in kinds) == (bp is not None), (bp, kinds)
    elif case == "reshard":                        # FULL_SHARD frees gathered parameters after forward
        for strategy, freed_after_forward in ((ShardingStrategy.FULL_SHARD, True), (ShardingStrategy.SHARD_GRAD_OP, False)):
            fsdp = FSDP(mlp(), sharding_strategy=strategy, auto_wrap_policy=PER_LINEAR)
            units = [m for m in fsdp.modules() if isinstance(m, FSDP) and m._flat is not None]
            out = fsdp(X[part])
            assert all((u._full._data.storage.size == 0) == freed_after_forward for u in units), strategy
            loss_fn(out, Y[part]).backward()
            assert all(u._full._data.storage.size == 0 for u in units)      # after backward: always resharded
            assert all(u._flat.grad.numel() == u._flat.numel() for u in units)
    elif case == "memory":                         # per-rank bytes of params + grads + Adam state vs DDP's
        single, fsdp, o1, o2 = train(hidden=64, auto_wrap_policy=PER_LINEAR, steps=1)
        ddp = DDP(mlp(hidden=64)); o3 = mt.optim.Adam(ddp.parameters(), lr=0.01)
        loss_fn(ddp(X[part]), Y[part]).backward(); o3.step()
        mine, theirs = held_bytes(fsdp.parameters(), o2), held_bytes(ddp.parameters(), o3)
        n_units = len([m for m in fsdp.modules() if isinstance(m, FSDP) and m._flat is not None])
        assert mine <= theirs / W + 16 * n_units * W, (mine, theirs)    # 1/N, up to padding
        assert mine >= theirs / W, (mine, theirs)
        print(f"rank {R}: FSDP holds {mine} B, DDP {theirs} B, ratio {mine / theirs:.3f}", flush=True)
    elif case == "state_dict":
        single, fsdp, o1, o2 = train(auto_wrap_policy=PER_LINEAR, steps=1)
        other = mlp(seed=1)
        fsdp.load_state_dict(other.state_dict())   # whole tensors in, shards kept
        close(other, fsdp)
        with FSDP.state_dict_type(fsdp, StateDictType.LOCAL_STATE_DICT):
            local = fsdp.state_dict()
            assert all(k.endswith("_flat_param") for k in local) and len(local) == 4, list(local)
        try:
            fsdp.load_state_dict({"nope": mt.zeros(1)}); raise AssertionError("must raise")
        except RuntimeError as e:
            assert "Missing key(s)" in str(e) and "nope" in str(e)
        with FSDP.summon_full_params(fsdp):        # whole parameters under their names; writeback to the shards
            w = fsdp.module[0].module.weight
            assert tuple(w.shape) == (32, 8)
            w.fill_(0.5)
        assert float(fsdp.state_dict()["0.weight"].min()) == 0.5
    elif case == "allocator":                      # the allocator's own count: the shards are all a rank keeps
        import gc
        from minitorch.tensor_data import count_cpu_memory, memory_allocated
        with count_cpu_memory():
            base = memory_allocated()
            fsdp = FSDP(mlp(hidden=64), auto_wrap_policy=PER_LINEAR)   # the original parameters must be freed
            opt = mt.optim.Adam(fsdp.parameters(), lr=0.01)
            for _ in range(2):
                opt.zero_grad(set_to_none=False); loss_fn(fsdp(X[part]), Y[part]).backward(); opt.step()
            gc.collect()
            live, held = memory_allocated() - base, held_bytes(fsdp.parameters(), opt)
            assert held <= live <= held + 1024, (live, held)
            del fsdp, opt
    elif case == "sharded_dict":             # each rank saves and loads only its rows (torch.chunk on dim 0)
        import tempfile
        single, fsdp, o1, o2 = train(auto_wrap_policy=PER_LINEAR, steps=1)
        full = fsdp.state_dict()
        with FSDP.state_dict_type(fsdp, StateDictType.SHARDED_STATE_DICT):
            mine = fsdp.state_dict()
        assert list(mine) == list(full), (list(mine), list(full))
        for k, t in full.items():
            size = -(-t.shape[0] // W)                  # torch.chunk's sizes (tests/test_fsdp.py checks _my_rows)
            want = t.numpy()[R * size: (R + 1) * size]
            assert tuple(mine[k].shape) == want.shape and np.array_equal(mine[k].numpy(), want), k
        path = tempfile.gettempdir() + f"/fsdp_sharded_{os.getpid()}_{R}.pt"
        mt.save(mine, path)
        other = mlp(seed=1)
        fsdp.load_state_dict(other.state_dict())   # now different parameters
        close(other, fsdp)
        with FSDP.state_dict_type(fsdp, StateDictType.SHARDED_STATE_DICT):
            fsdp.load_state_dict(mt.load(path))    # each rank its own file: back to the trained model
        close(single, fsdp)
        os.remove(path)
    elif case == "mixed":                          # float16 compute and reduction, float32 shards
        mp = MixedPrecision(param_dtype=mt.float16, reduce_dtype=mt.float16)
        single, fsdp, *_ = train(auto_wrap_policy=PER_LINEAR, mixed_precision=mp, tol=5e-3, steps=2)
        assert fsdp.module[0].module._flat_param.dtype is mt.float32
        assert fsdp.module[0].module._flat_param.grad.dtype is mt.float32
    elif case == "clip":                           # the norm of the whole model, over the shards of all ranks
        for norm_type in (2.0, float("inf")):
            single, fsdp = mlp(), FSDP(mlp(), auto_wrap_policy=PER_LINEAR)
            o1, o2 = mt.optim.SGD(single.parameters(), lr=0.5), mt.optim.SGD(fsdp.parameters(), lr=0.5)
            for _ in range(2):
                o1.zero_grad(); loss_fn(single(X), Y).backward()
                n1 = nn.utils.clip_grad_norm_(single.parameters(), 0.05, norm_type)
                o2.zero_grad(); loss_fn(fsdp(X[part]), Y[part]).backward()
                n2 = fsdp.clip_grad_norm_(0.05, norm_type)
                assert abs(float(n1) - float(n2)) < 1e-5 and float(n1) > 0.05, (float(n1), float(n2))
                o1.step(); o2.step()
                close(single, fsdp)
    elif case == "sync":                           # different weights on every rank: rank 0's everywhere
        fsdp = FSDP(mlp(seed=R), auto_wrap_policy=PER_LINEAR, sync_module_states=True)
        close(mlp(seed=0), fsdp, tol=1e-12)           # bit-equal
    elif case == "padding":                        # 10*10 + 10 + 3*10 + 3 = 143 elements: padded to a multiple of W
        mt.manual_seed(0)
        f = FSDP(nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 3)))
        assert f.module._flat_param.numel() == {2: 72, 3: 48, 4: 36}[W]
    else:
        raise ValueError(case)
    print(case, "ok", flush=True)


for c in sys.argv[1:]:
    run(c)
dist.destroy_process_group()
