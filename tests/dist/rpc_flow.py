"""The chapter's message-flow figure: one rpc_sync, a remote + to_here, a fork, and a distributed backward on three
workers, every message logged by its sender (`rpc.LOG`); each worker prints `LOG t src dst kind what` lines."""
import os
import time

import minitorch as torch
import minitorch.distributed.autograd as dist_autograd
import minitorch.distributed.rpc as rpc

rank = int(os.environ["RANK"])


def show(r): return r.to_here().sum().item()
def step(x): time.sleep(0.01)   # a gap between the scenes of the figure


if __name__ == "__main__":
    rpc.init_rpc(f"worker{rank}")
    rpc.LOG = []
    if rank == 0:
        scenes = []
        scenes.append(("rpc_sync", time.time())); rpc.rpc_sync("worker1", torch.add, (torch.ones(2), 1)); step(0)
        scenes.append(("remote + to_here", time.time()))
        r = rpc.remote("worker1", torch.ones, (2,)); r.to_here(); step(0)
        scenes.append(("fork to worker2", time.time())); rpc.rpc_sync("worker2", show, (r,)); step(0)
        scenes.append(("distributed backward", time.time()))
        with dist_autograd.context() as cid:
            x = torch.ones(2, requires_grad=True)
            y = rpc.rpc_sync("worker1", torch.mul, (x, 3))
            dist_autograd.backward(cid, [y.sum()])
        step(0)
        for name, t in scenes: print("SCENE", t, name, flush=True)
    time.sleep(0.2)
    log = list(rpc.LOG)
    rpc.shutdown()
    for t, src, dst, kind, mid, what in log:
        print("LOG", t, src, dst, ["", "request", "response", "error"][kind], what, flush=True)
