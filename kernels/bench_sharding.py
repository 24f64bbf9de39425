"""Per-rank memory of parameters, gradients and Adam state for DDP, ZeRO-1 and FSDP, against the ZeRO formulas.

Run: python kernels/bench_sharding.py [--ranks 2 4] [--layers 10 --width 1000]
It starts itself under the launcher for each world size (--worker mode). Each rank builds the same MLP
(10 x Linear(1000, 1000): 10.01 M float32 parameters), takes one Adam step with each method and counts the bytes
of the tensors it holds: parameters, gradients, optimizer state (after the step, what stays between steps), and
the peak during the step (for FSDP: plus the gathered units and the whole-unit gradients in flight; for DDP: the
gradient buckets too). It also counts the bytes each rank sends per step in the ring model: 2(N-1)/N n for an
all-reduce of n bytes and for a broadcast (scatter + all-gather), (N-1)/N n for an all-gather or reduce-scatter. Rank 0 of each run
writes its rows; the driver prints the table and writes kernels/results/sharding.json (chapters 22d/22e plot it),
with one FSDP FULL_SHARD step's timeline from the 2-rank run.
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "sharding.json"


def worker(args):
    import numpy as np

    import minitorch as mt
    import minitorch.distributed as dist
    from minitorch import nn
    from minitorch.distributed import fsdp as F
    from minitorch.distributed.optim import ZeroRedundancyOptimizer
    from minitorch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("mpi")
    R, W = dist.get_rank(), dist.get_world_size()

    def model():
        mt.manual_seed(0)
        return nn.Sequential(*[m for _ in range(args.layers) for m in (nn.Linear(args.width, args.width), nn.ReLU())])

    rng = np.random.default_rng(R)
    X = mt.tensor(rng.standard_normal((args.batch, args.width)).astype(np.float32))

    sent = {"bytes": 0}                       # bytes this rank hands to collectives
    for name in ("all_reduce", "broadcast", "all_gather_into_tensor", "reduce_scatter_tensor"):
        orig = getattr(dist, name)
        def counting(t, *a, _orig=orig, _name=name, **k):
            big = a[0] if _name == "reduce_scatter_tensor" else t      # the whole-size tensor of the collective
            share = 2 if _name in ("all_reduce", "broadcast") else 1   # ring model: bytes sent per rank
            sent["bytes"] += share * (W - 1) / W * big.numel() * big.element_size()
            return _orig(t, *a, **k)
        setattr(dist, name, counting)

    def nbytes(ts):
        return sum(t.numel() * t.element_size() for t in ts if t is not None)

    def state_bytes(opt):
        return nbytes(t for s in opt.state.values() for t in s.values() if isinstance(t, mt.Tensor) and t.ndim)

    # FSDP: follow the bytes of gathered units and of whole-unit gradients during the step
    live = {"now": 0, "peak": 0}
    def track(delta):
        live["now"] += delta; live["peak"] = max(live["peak"], live["now"])
    FS = F.FullyShardedDataParallel
    orig_start, orig_finish, orig_reduce, orig_free = FS._start_gather, FS._finish_gather, FS._reduce_grad, F._free
    counted = set()                           # storages of gathered units currently counted
    def start(self):
        pending = orig_start(self)
        track(pending[1].numel() * pending[1].element_size())      # the receive buffer, until finished
        return pending
    def finish(self, pending, kind):
        orig_finish(self, pending, kind)
        track(-pending[1].numel() * pending[1].element_size())
        storage = self._full._data.storage
        if id(storage) not in counted: counted.add(id(storage)); track(storage.size * storage.itemsize)
    def reduce(self, grad):
        track(grad.numel() * grad.element_size())
        out = orig_reduce(self, grad)
        track(-grad.numel() * grad.element_size())
        return out
    def free(t):
        storage = t._data.storage
        if id(storage) in counted: counted.discard(id(storage)); track(-storage.size * storage.itemsize)
        orig_free(t)
    FS._start_gather, FS._finish_gather, FS._reduce_grad, F._free = start, finish, reduce, free

    rows, timeline = [], None
    for method in ("DDP", "ZeRO-1", "FSDP"):
        dist.barrier()
        if method == "FSDP":
            net = F.FullyShardedDataParallel(model(), auto_wrap_policy=F.ModuleWrapPolicy({nn.Linear}))
            opt = mt.optim.Adam(net.parameters(), lr=1e-3)
        else:
            net = DDP(model())
            opt = mt.optim.Adam(net.parameters(), lr=1e-3) if method == "DDP" else \
                ZeroRedundancyOptimizer(net.parameters(), mt.optim.Adam, lr=1e-3)
        times = []
        for step in range(2):                 # the second step is measured (DDP rebuilds buckets after the first)
            live["now"] = live["peak"] = 0
            sent["bytes"] = 0
            if method == "FSDP": net.timeline.clear()
            t0 = time.perf_counter()
            opt.zero_grad()
            net(X).pow(2).mean().backward()
            opt.step()
            times.append(time.perf_counter() - t0)
        params = list(net.parameters())
        local_opt = opt.optim if method == "ZeRO-1" else opt
        row = {"method": method, "world_size": W, "param_bytes": nbytes(params),
               "grad_bytes": nbytes(p.grad for p in params), "optim_bytes": state_bytes(local_opt)}
        row["total_bytes"] = row["param_bytes"] + row["grad_bytes"] + row["optim_bytes"]
        extra = nbytes(b.buffer for b in net._buckets) if method != "FSDP" else live["peak"]
        row["peak_bytes"], row["comm_bytes"], row["step_s"] = row["total_bytes"] + extra, sent["bytes"], times[-1]
        rows.append(row)
        if method == "FSDP":
            timeline = [dict(e) for e in net.timeline]
        del net, opt
    if R == 0:
        Path(args.out).write_text(json.dumps({"rows": rows, "timeline": timeline,
                                              "num_params": sum(p.numel() for p in model().parameters())}))
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    p.add_argument("--layers", type=int, default=10)
    p.add_argument("--width", type=int, default=1000)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--worker", action="store_true")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    if args.worker: return worker(args)
    runs = {}
    for n in args.ranks:
        out = RESULTS.with_name(f"sharding-{n}.tmp.json")
        cmd = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", str(n), "--timeout", "500",
               __file__, "--worker", "--out", str(out), "--layers", str(args.layers), "--width", str(args.width),
               "--batch", str(args.batch)]
        subprocess.run(cmd, check=True)
        runs[n] = json.loads(out.read_text()); out.unlink()
    psi = runs[args.ranks[0]]["num_params"]
    rows = [r for n in args.ranks for r in runs[n]["rows"]]
    ddp = {r["world_size"]: r for r in rows if r["method"] == "DDP"}
    formula = {"DDP": lambda n: 16 * psi, "ZeRO-1": lambda n: 8 * psi + 8 * psi / n, "FSDP": lambda n: 16 * psi / n}
    print(f"{psi / 1e6:.2f} M float32 parameters, Adam; MiB per rank (formula: 4Ψ + 4Ψ + 8Ψ, sharded terms / N)")
    print(f"{'method':8} {'N':>2} {'params':>8} {'grads':>8} {'Adam':>8} {'total':>8} {'formula':>8} "
          f"{'peak':>8} {'vs DDP':>7} {'sent/step':>11} {'step':>7}")
    for r in rows:
        mib = lambda b: b / 2 ** 20
        print(f"{r['method']:8} {r['world_size']:>2} {mib(r['param_bytes']):8.1f} {mib(r['grad_bytes']):8.1f} "
              f"{mib(r['optim_bytes']):8.1f} {mib(r['total_bytes']):8.1f} {mib(formula[r['method']](r['world_size'])):8.1f} "
              f"{mib(r['peak_bytes']):8.1f} {r['peak_bytes'] / ddp[r['world_size']]['total_bytes']:7.3f} "
              f"{mib(r['comm_bytes']):8.1f} MiB {r['step_s'] * 1e3:5.0f}ms")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps({"num_params": psi, "rows": rows, "timeline": runs[args.ranks[0]]["timeline"]},
                                  indent=1))
    print("wrote", RESULTS)


if __name__ == "__main__":
    main()
