"""Training that checkpoints every step and may fail on purpose. Usage:
elastic.py CKPT_DIR OUT FAULT_STEP MODE, MODE one of: kill (rank 1 SIGKILLs itself mid-step on the first attempt),
hang (rank 1 sleeps mid-step on the first attempt; rank 0's collective times out), always (rank 1 is killed on every
attempt), none. Rank 0 saves the final parameters to OUT."""
import os
import signal
import sys
import time
from datetime import timedelta

import numpy as np

import minitorch as mt
import minitorch.distributed as dist
from minitorch import nn
from minitorch.distributed.elastic import load_checkpoint, restart_count, save_checkpoint
from minitorch.distributed.optim import ZeroRedundancyOptimizer
from minitorch.nn.parallel import DistributedDataParallel as DDP

ckpt, out, fault, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
dist.init_process_group("mpi", timeout=timedelta(seconds=120))
dist.barrier()                                    # ranks start seconds apart on a busy machine: wait for all here
# a hung rank is noticed within 15 s; otherwise a generous timeout, so that a slow step on a busy machine is no failure
group = dist.new_group(timeout=timedelta(seconds=15 if mode == "hang" else 120))
rank, world = dist.get_rank(), dist.get_world_size()
mt.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4)), process_group=group)
opt = ZeroRedundancyOptimizer(model.parameters(), mt.optim.Adam, process_group=group, lr=0.01)
step, state = load_checkpoint(ckpt, group)
if state is not None:
    model.module.load_state_dict(state["model"])
    opt.optim.load_state_dict(state["optim"])
    print(f"rank {rank}: attempt {restart_count() + 1} resumes after step {step}", flush=True)
for step in range((step or 0) + 1, 7):
    rng = np.random.default_rng(step)
    X = mt.tensor(rng.standard_normal((8, 8)).astype(np.float32))
    Y = mt.tensor(rng.integers(0, 4, 8))
    mine = slice(rank * 8 // world, (rank + 1) * 8 // world)
    opt.zero_grad()
    nn.functional.cross_entropy(model(X[mine]), Y[mine]).backward()
    if step == fault and rank == 1 and (restart_count() == 0 or mode == "always"):
        if mode in ("kill", "always"):
            os.kill(os.getpid(), signal.SIGKILL)
        elif mode == "hang":
            time.sleep(60)
    opt.step()
    save_checkpoint({"model": model.module.state_dict(), "optim": opt.optim.state_dict()}, ckpt, step, group)
if rank == 0:
    mt.save(model.module.state_dict(), out)
print(f"rank {rank} done at step {step}", flush=True)
