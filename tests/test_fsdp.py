"""FullyShardedDataParallel: on 2 and 3 real ranks equal to single-process training after every step (three
strategies, nested units, prefetch, mixed precision, state dicts), memory per rank 1/N of DDP's; the auto-wrap
decisions against torch's own `_recursive_wrap`."""
import os
import sys
from functools import partial

import pytest
import torch
from torch.distributed.fsdp import wrap as twrap

import minitorch as mt
from minitorch import nn
from minitorch.distributed.fsdp import ModuleWrapPolicy, _recursive_wrap, size_based_auto_wrap_policy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dist_launch import launch_cases  # noqa: E402

pytestmark = pytest.mark.dist


def launch(nproc, cases, timeout=150):
    return launch_cases("fsdp.py", nproc, cases, timeout)


def test_fsdp_two_ranks():
    out = launch(2, ["full_shard", "one_unit", "size_policy", "shard_grad_op", "no_shard", "prefetch", "reshard",
                     "memory", "state_dict", "sharded_dict", "mixed", "clip", "sync", "padding",
                     "allocator"])
    assert "ratio 0.50" in out


def test_fsdp_three_ranks():
    launch(3, ["full_shard", "size_policy", "memory", "clip", "padding", "sharded_dict"])


def test_fsdp_four_ranks():
    out = launch(4, ["full_shard", "memory", "padding", "sharded_dict", "allocator"])
    assert "ratio 0.25" in out


def _tree(lib):
    "The same module tree in minitorch or torch."
    return lib.nn.Sequential(lib.nn.Linear(10, 10), lib.nn.Sequential(lib.nn.Linear(10, 20), lib.nn.ReLU(),
                             lib.nn.Linear(20, 20)), lib.nn.ModuleList([lib.nn.Linear(20, 30), lib.nn.Linear(30, 2)]),
                             lib.nn.Linear(20, 2))


def _wrapped_paths_torch(policy):
    m = _tree(torch)
    names = {id(mod): n for n, mod in m.named_modules()}
    seen = []

    class Marker(torch.nn.Module):
        def __init__(self, module, **kw):
            super().__init__(); seen.append(names[id(module)]); self.module = module
    twrap._recursive_wrap(m, policy, wrapper_cls=Marker, ignored_modules=set(), ignored_params=set(),
                          only_wrap_children=True)
    return seen


def _wrapped_paths_mine(policy):
    m = _tree(mt)
    names = {id(mod): n for n, mod in m.named_modules()}
    seen = []
    _recursive_wrap(m, policy, lambda mod: seen.append(names[id(mod)]) or mod, only_wrap_children=True)
    return seen


@pytest.mark.parametrize("min_params", [1, 100, 300, 500, 900, 2000])
def test_size_policy_matches_torch(min_params):
    assert _wrapped_paths_mine(partial(size_based_auto_wrap_policy, min_num_params=min_params)) == \
        _wrapped_paths_torch(partial(twrap.size_based_auto_wrap_policy, min_num_params=min_params))


def test_module_policy_matches_torch():
    assert _wrapped_paths_mine(ModuleWrapPolicy({nn.Linear})) == \
        _wrapped_paths_torch(twrap.ModuleWrapPolicy({torch.nn.Linear}))
    assert _wrapped_paths_mine(ModuleWrapPolicy({nn.Sequential})) == \
        _wrapped_paths_torch(twrap.ModuleWrapPolicy({torch.nn.Sequential}))


@pytest.mark.parametrize("rows,world", [(10, 3), (2, 4), (7, 2), (1, 3), (8, 4), (0, 2)])
def test_sharded_rows_are_torch_chunks(rows, world):
    "SHARDED_STATE_DICT gives rank r the r-th torch.chunk along dim 0 (an empty one past the last chunk)."
    from types import SimpleNamespace
    from minitorch.distributed.fsdp import FullyShardedDataParallel
    t = torch.arange(rows * 3, dtype=torch.float32).reshape(rows, 3)
    chunks = t.chunk(world) if rows else ()
    for r in range(world):
        mine = FullyShardedDataParallel._my_rows(SimpleNamespace(world_size=world, rank=r), mt.tensor(t.numpy()))
        want = chunks[r] if r < len(chunks) else t[:0]
        assert tuple(mine.shape) == tuple(want.shape) and (mine.numpy() == want.numpy()).all(), (r, mine, want)
