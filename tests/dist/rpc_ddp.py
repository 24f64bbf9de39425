"""PyTorch 1.6's DDP + RPC example on three workers: worker2 a parameter server holding an embedding table, workers
0 and 1 trainers whose dense layer is DDP on their own process group; one distributed backward per step runs DDP's
all-reduce too, and a DistributedOptimizer updates both. Prints `CHECK name value` lines for tests/test_rpc.py."""
import os

import minitorch as torch
import minitorch.distributed as dist
import minitorch.distributed.autograd as dist_autograd
import minitorch.distributed.rpc as rpc
from minitorch import nn
from minitorch.distributed.optim.distributed_optimizer import DistributedOptimizer
from minitorch.nn.parallel import DistributedDataParallel as DDP

rank = int(os.environ.get("RANK", -1))
EMB = [[0.1 * (i - j) + 0.05 * i * j for j in range(3)] for i in range(6)]
FC_W, FC_B = [[0.5, -0.25, 0.75], [-0.5, 1.0, 0.25]], [0.1, -0.2]
IDX = [[[0, 1, 2], [3, 4, 5]], [[1, 1, 4], [5, 0, 2]]]                 # per trainer: a batch of 2 bags of 3
TGT = [[[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5], [-1.0, 1.0]]]
TABLE = nn.Embedding(6, 3)                 # the parameter server's table (made on import: calls come in parallel)
with torch.no_grad(): TABLE.weight.copy_(torch.tensor(EMB))


def get_table(): return TABLE


def table_params(): return [rpc.RRef(get_table().weight)]
def table_weight(): return get_table().weight.tolist()
def check(name, value): print("CHECK", name, repr(value), flush=True)


if __name__ == "__main__":
    dist.init_process_group("mpi")
    trainers = dist.new_group([0, 1])
    rpc.init_rpc(f"worker{rank}")
    if rank < 2:
        emb = rpc.remote("worker2", get_table)
        fc = nn.Linear(3, 2)
        with torch.no_grad():
            fc.weight.copy_(torch.tensor(FC_W)); fc.bias.copy_(torch.tensor(FC_B))
        model = DDP(fc, process_group=trainers)
        opt = DistributedOptimizer(torch.optim.SGD, rpc.rpc_sync("worker2", table_params) +
                                   [rpc.RRef(p) for p in model.parameters()], lr=0.2)
        for it in range(3):
            with dist_autograd.context() as cid:
                out = model(emb.rpc_sync().forward(torch.tensor(IDX[rank])).mean(1))
                loss = ((out - torch.tensor(TGT[rank])) ** 2).mean()
                dist_autograd.backward(cid, [loss])     # the table's gradient goes to worker2; DDP all-reduces fc's
                opt.step(cid)
            dist.barrier(group=trainers)                # both trainers stepped before either reads the table again
            check(f"loss{it}_{rank}", loss.item())
        check(f"fc_weight_{rank}", fc.weight.tolist())
        check(f"fc_bias_{rank}", fc.bias.tolist())
        check(f"fc_grad_untouched_{rank}", fc.weight.grad is None)
        if rank == 0: check("table", rpc.rpc_sync("worker2", table_weight))
    rpc.shutdown()
    print("SHUTDOWN", rank, flush=True)
