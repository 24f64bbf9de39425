"""ZeroRedundancyOptimizer: on 2 and 3 real ranks equal to single-process Adam/SGD after every step, state dicts
consolidated and reloaded; the greedy partition against torch's own `_partition_parameters`."""
import os
import sys

import pytest
import torch
from torch.distributed.optim import ZeroRedundancyOptimizer as TorchZero

import minitorch as mt
from minitorch.distributed.optim import partition_parameters, zero_memory_bytes

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dist_launch import launch_cases  # noqa: E402

pytestmark = pytest.mark.dist


def launch(nproc, cases, timeout=150):
    return launch_cases("zero.py", nproc, cases, timeout)


def test_zero_two_ranks():
    launch(2, ["adam", "sgd", "bucket_view", "scheduler", "state_dict", "add_group", "partition", "overlap"])


def test_zero_three_ranks():
    launch(3, ["adam", "sgd", "state_dict", "partition", "overlap"])


def torch_partition(shapes_per_group, world_size):
    "torch's greedy partition, called on a bare ZeroRedundancyOptimizer (no process group needed)."
    z = TorchZero.__new__(TorchZero)
    z.world_size, z._partition_parameters_cache = world_size, []
    z.param_groups = [{"params": [torch.empty(*s) for s in shapes]} for shapes in shapes_per_group]
    index = {id(p): (g, i) for g, grp in enumerate(z.param_groups) for i, p in enumerate(grp["params"])}
    return [[[index[id(p)] for p in grp["params"]] for grp in groups] for groups in z._partition_parameters()]


@pytest.mark.parametrize("shapes,world", [
    ([[(1000, 1000), (1000,), (300, 1000), (300,), (10, 300), (10,)]], 2),
    ([[(1000, 1000), (1000,), (300, 1000), (300,), (10, 300), (10,)]], 3),
    ([[(5,), (7,), (5,), (3, 3), (2,), (9,), (1,)]], 3),        # ties keep their order
    ([[(8, 8), (4,)], [(16,), (3, 3), (2, 2)]], 2),             # two groups share the running totals
    ([[(3,)]], 4),                                              # some ranks own nothing
])
def test_partition_matches_torch(shapes, world):
    groups = [{"params": [mt.empty(*s) for s in g]} for g in shapes]
    index = {id(p): (g, i) for g, grp in enumerate(groups) for i, p in enumerate(grp["params"])}
    mine = [[[index[id(p)] for p in grp["params"]] for grp in ranks] for ranks in partition_parameters(groups, world)]
    assert mine == torch_partition(shapes, world)


def test_memory_formula_paper_numbers():
    "The ZeRO paper's Figure 1: 7.5 B parameters, 64 ranks, mixed-precision Adam (K = 12)."
    assert [round(zero_memory_bytes(7.5e9, 64, s) / 1e9, 1) for s in range(4)] == [120.0, 31.4, 16.6, 1.9]


def test_errors_match_torch():
    with pytest.raises(ValueError, match="empty parameter list"):
        TorchZero([], torch.optim.SGD, lr=0.1)
    from minitorch.distributed.optim import ZeroRedundancyOptimizer
    with pytest.raises(ValueError, match="empty parameter list"):
        ZeroRedundancyOptimizer([], mt.optim.SGD, lr=0.1)
    with pytest.raises(TypeError, match="iterable of Tensors"):
        ZeroRedundancyOptimizer(mt.zeros(3), mt.optim.SGD, lr=0.1)


def test_overlap_errors_match_torch():
    "overlap_with_ddp=True: step() is a no-op, state methods wait for the hook's initialisation, as in torch."
    import minitorch.distributed as dist
    from minitorch.distributed.optim import ZeroRedundancyOptimizer, hook_with_zero_step
    if not dist.is_initialized(): dist.init_process_group("mpi")
    lin = mt.nn.Linear(4, 3)
    z = ZeroRedundancyOptimizer(lin.parameters(), mt.optim.Adam, overlap_with_ddp=True, lr=0.1)
    lin(mt.ones(2, 4)).sum().backward()
    before = lin.weight.detach().clone()
    assert z.step() is None and float((lin.weight - before).abs().max()) == 0.0
    for call in (z.consolidate_state_dict, z.state_dict, lambda: z.load_state_dict({})):
        with pytest.raises(RuntimeError, match="has been fully initialized"): call()
    plain = ZeroRedundancyOptimizer(lin.parameters(), mt.optim.Adam, lr=0.1)
    with pytest.raises(ValueError, match="constructed with `overlap_with_ddp=True`"):
        hook_with_zero_step(None, None, plain)
