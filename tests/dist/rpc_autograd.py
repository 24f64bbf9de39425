"""Distributed autograd and DistributedOptimizer on three workers (under the launcher): worker2 is a parameter
server, worker1 runs a middle stage, worker0 drives. Prints `CHECK name value` lines for tests/test_rpc.py."""
import os

if os.environ.get("RPC_ORACLE") == "torch":      # the same program on torch.distributed.rpc: the oracle
    import torch
    import torch.distributed.autograd as dist_autograd
    import torch.distributed.rpc as rpc
    from torch.distributed.optim import DistributedOptimizer
else:
    import minitorch as torch
    import minitorch.distributed.autograd as dist_autograd
    import minitorch.distributed.rpc as rpc
    from minitorch.distributed.optim.distributed_optimizer import DistributedOptimizer

rank = int(os.environ["RANK"])


class ParameterServer:
    def __init__(self):
        self.weight = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)

    def forward(self, x): return (x @ self.weight).tanh()
    def param_rrefs(self): return [rpc.RRef(self.weight)]


class Stage:
    "One stage of a two-stage pipeline: relu(x @ w), its input either a tensor or an RRef to one."
    def __init__(self, w): self.w = w.requires_grad_()
    def forward(self, x): return ((x.to_here() if hasattr(x, "to_here") else x) @ self.w).relu()
    def params(self): return [rpc.RRef(self.w)]
    def weight(self): return self.w.tolist()


def pipeline():
    "Two stages on worker1 and worker2, two micro-batches: stage 2 pulls stage 1's output (an RRef) itself."
    W1 = torch.tensor([[0.2, -0.5, 1.0], [0.7, 0.1, -0.3]])
    W2 = torch.tensor([[1.0, -1.0], [0.5, 0.25], [-0.75, 2.0]])
    s1, s2 = rpc.remote("worker1", Stage, (W1,)), rpc.remote("worker2", Stage, (W2,))
    opt = DistributedOptimizer(torch.optim.SGD, s1.rpc_sync().params() + s2.rpc_sync().params(), lr=0.5)
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3], [2.0, -1.0]])
    for it in range(2):
        with dist_autograd.context() as cid:
            outs = [s2.rpc_async().forward(s1.remote().forward(xb)) for xb in (x[:2], x[2:])]
            y = torch.cat([f.wait() for f in outs])
            loss = (y * y).mean()
            dist_autograd.backward(cid, [loss])
            opt.step(cid)
            check(f"pipeline_loss{it}", loss.item())
    check("pipeline_W1", s1.rpc_sync().weight())
    check("pipeline_W2", s2.rpc_sync().weight())


def middle(h, w): return (h * w).sigmoid() * 3          # worker1: a stage with its own input w
def ps_grads(ps, cid): return dist_autograd.get_gradients(cid)[ps.local_value().weight].tolist()
def ps_weight(ps): return ps.local_value().weight.tolist()
def check(name, value): print("CHECK", name, repr(value), flush=True)


if __name__ == "__main__":
    rpc.init_rpc(f"worker{rank}", rank=rank, world_size=int(os.environ["WORLD_SIZE"]))
    if rank == 0:
        ps = rpc.remote("worker2", ParameterServer)
        x = torch.tensor([[1.0, 2.0], [-0.5, 0.75]], requires_grad=True)
        w = torch.tensor([[0.3, -0.2, 1.1], [0.9, 0.4, -0.6]], requires_grad=True)
        v = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)
        opt = DistributedOptimizer(torch.optim.SGD, ps.rpc_sync().param_rrefs() + [rpc.RRef(v)], lr=0.1)
        with dist_autograd.context() as cid:
            check("context_id", cid)
            try:
                with dist_autograd.context(): pass
            except RuntimeError as e:
                check("nested", str(e))
            h = ps.rpc_sync().forward(x)                      # worker0 -> worker2 -> worker0
            m = rpc.rpc_sync("worker1", middle, (h, w))      # worker0 -> worker1 -> worker0
            loss = (m * v).sum()
            dist_autograd.backward(cid, [loss])
            g = dist_autograd.get_gradients(cid)
            check("loss", loss.item())
            check("grad_x", g[x].tolist())
            check("grad_v", g[v].tolist())
            check("grad_w", g[w].tolist())   # w went to worker1; its gradient came back here
            check("dot_grad_untouched", (x.grad, v.grad))
            check("grad_weight", rpc.rpc_sync("worker2", ps_grads, (ps, cid)))
            try:
                dist_autograd.backward(cid, [loss])
            except RuntimeError as e:
                check("second_backward", str(e).split(" (")[0])
            opt.step(cid)
            check("weight_after_step", rpc.rpc_sync("worker2", ps_weight, (ps,)))
            check("v_after_step", v.tolist())
        with dist_autograd.context() as cid2:
            check("context_id2", cid2)
        pipeline()
    rpc.shutdown()
    print("SHUTDOWN", rank, flush=True)
