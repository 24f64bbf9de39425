"""A DDP training step with and without overlap of communication and backward, and the timeline of one step.

Run it under the launcher: python -m minitorch.distributed.run --nproc-per-node 2 kernels/bench_ddp.py
Versions (the chapter's): 1 = one all-reduce per parameter after backward; 2 = one all-reduce of all gradients
flattened, after backward; 4 = DistributedDataParallel (buckets all-reduced during backward). Rank 0 prints the
median step time of each and writes kernels/results/ddp.json with one DDP step's timeline (chapter 22c plots it).
Options: --layers 4 --width 512 --batch 64 --bucket-mb 1 --repeat 5
"""
import argparse
import json
import time
from pathlib import Path

import numpy as np

import minitorch as mt
import minitorch.distributed as dist
from minitorch import nn
from minitorch.nn.parallel import DistributedDataParallel as DDP, average_gradients


def model(layers, width):
    mt.manual_seed(0)
    mods = []
    for _ in range(layers): mods += [nn.Linear(width, width), nn.ReLU()]
    return nn.Sequential(*mods, nn.Linear(width, 10))


def flat_average(m):
    "Version 2: all gradients in one buffer, one all-reduce."
    grads = [p.grad for p in m.parameters()]
    flat = mt.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat)
    flat.div_(dist.get_world_size())
    at = 0
    for g in grads:
        g.copy_(flat[at: at + g.numel()].view(*g.shape)); at += g.numel()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--bucket-mb", type=float, default=1)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--json", default=str(Path(__file__).parent / "results" / "ddp.json"))
    a = p.parse_args()
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    x, y = mt.randn(a.batch, a.width), mt.randint(0, 10, (a.batch,))
    loss_fn = nn.functional.cross_entropy

    def timed(step):
        step()
        ts = []
        for _ in range(a.repeat):
            dist.barrier(); t0 = time.perf_counter(); step(); ts.append(time.perf_counter() - t0)
        t = mt.tensor([float(np.median(ts))], dtype=mt.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.item()

    plain = model(a.layers, a.width)
    def backward_only():
        plain.zero_grad(); loss_fn(plain(x), y).backward()
    def v1():
        backward_only(); average_gradients(plain)
    def v2():
        backward_only(); flat_average(plain)
    ddp = DDP(model(a.layers, a.width), bucket_cap_mb=a.bucket_mb)
    def v4():
        ddp.zero_grad(); loss_fn(ddp(x), y).backward()
    sweep = []
    for mb in (0.0625, 0.25, 1, 4, 25):                    # the bucket-size sweep (25 MiB: PyTorch's default cap)
        m = DDP(model(a.layers, a.width), bucket_cap_mb=mb)
        def step(m=m):
            m.zero_grad(); loss_fn(m(x), y).backward()
        sweep.append({"bucket_mb": mb, "seconds": timed(step), "buckets": len(m.bucket_sizes())})
    times = {"forward+backward, no communication": timed(backward_only), "1: per-parameter all-reduce after": timed(v1),
             "2: flat all-reduce after": timed(v2), "4: DDP buckets, overlapped": timed(v4)}
    # one more DDP step for the timeline
    ddp.zero_grad(); t0 = time.perf_counter(); out = ddp(x); t_fwd = time.perf_counter(); loss_fn(out, y).backward()
    t_end = time.perf_counter()
    events = [{"bucket": e["bucket"], "bytes": e["bytes"], "launch": e["launch"] - t0, "done": e["done"] - t0}
              for e in ddp.timeline if e["iteration"] == ddp._iteration - 1]
    if rank == 0:
        comm = times["2: flat all-reduce after"] - times["forward+backward, no communication"]
        hidden = (times["2: flat all-reduce after"] - times["4: DDP buckets, overlapped"]) / comm if comm > 0 else float("nan")
        for k, v in times.items(): print(f"{k:40} {v * 1e3:9.2f} ms")
        print(f"buckets: {ddp.bucket_sizes()} bytes; communication hidden behind backward: {hidden:.0%}")
        for r in sweep: print(f"bucket cap {r['bucket_mb']:>7} MiB: {r['buckets']:3} buckets, {r['seconds'] * 1e3:8.2f} ms")
        Path(a.json).parent.mkdir(exist_ok=True)
        Path(a.json).write_text(json.dumps({"world_size": world, "times_s": times, "hidden_fraction": hidden, "sweep": sweep,
                                            "timeline": {"forward_end": t_fwd - t0, "backward_end": t_end - t0,
                                                         "buckets": events}, "config": vars(a)}, indent=1))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
