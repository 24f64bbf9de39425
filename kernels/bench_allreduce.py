"""All-reduce bandwidth: minitorch's ring and naive all-reduce (built on send/recv) against MPI's Allreduce.

Run it under the launcher: python -m minitorch.distributed.run --nproc-per-node 2 kernels/bench_allreduce.py
Rank 0 prints, per float32 tensor size, the time and the bus bandwidth 2(W-1)/W * bytes / time of each algorithm,
and writes kernels/results/allreduce.json (the chapter 22b plots it). Tests never assert on time.
Options: --max-mib 64 --repeat 5 --json PATH
"""
import argparse
import json
import time
from pathlib import Path

import numpy as np

import minitorch as mt
import minitorch.distributed as dist
from minitorch.distributed.algorithms import naive_all_reduce, ring_all_reduce


def timed(fn, x, repeat):
    "Median seconds of fn(x) over `repeat` runs (after a warm-up), all ranks starting together."
    fn(x)
    ts = []
    for _ in range(repeat):
        dist.barrier()
        t0 = time.perf_counter()
        fn(x)
        ts.append(time.perf_counter() - t0)
    worst = mt.tensor([float(np.median(ts))], dtype=mt.float64)
    dist.all_reduce(worst, op=dist.ReduceOp.MAX)        # the collective is as slow as its slowest rank
    return worst.item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--max-mib", type=float, default=64)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--json", default=str(Path(__file__).parent / "results" / "allreduce.json"))
    a = p.parse_args()
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    algos = {"mpi": lambda x: dist.all_reduce(x), "ring": ring_all_reduce, "naive": naive_all_reduce}
    rows, nbytes = [], 4096
    if rank == 0: print(f"{'bytes':>10} " + " ".join(f"{n + ' ms':>10} {n + ' GB/s':>11}" for n in algos))
    while nbytes <= a.max_mib * 2 ** 20:
        x = mt.ones(nbytes // 4)
        line = f"{nbytes:>10} "
        for name, fn in algos.items():
            t = timed(fn, x, a.repeat if nbytes < 2 ** 24 else max(2, a.repeat // 2))
            bus = 2 * (world - 1) / world * nbytes / t / 1e9
            rows.append({"algorithm": name, "bytes": nbytes, "seconds": t, "busbw_GBps": bus})
            line += f"{t * 1e3:10.3f} {bus:11.2f} "
        if rank == 0: print(line, flush=True)
        nbytes *= 4
    if rank == 0:
        big = {r["algorithm"]: r["busbw_GBps"] for r in rows if r["bytes"] == max(q["bytes"] for q in rows)}
        print(f"largest size: ring / MPI bus bandwidth = {big['ring'] / big['mpi']:.2f}, naive / MPI = "
              f"{big['naive'] / big['mpi']:.2f}")
        Path(a.json).parent.mkdir(exist_ok=True)
        Path(a.json).write_text(json.dumps({"world_size": world, "rows": rows}, indent=1))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
