"""Per-rank memory of DDP, ZeRO-1 and FSDP FULL_SHARD, read from minitorch's allocator counters.

Run: python kernels/bench_fsdp.py [--ranks 4] [--layers 10 --width 1000] [--steps 2]
Where kernels/bench_sharding.py adds up the bytes of the tensors it knows about, this benchmark asks the allocator:
every CPU storage made inside `count_cpu_memory()` is booked by `record_alloc` until it is freed (chapter 24b's
profiler reads the same counters). Each rank builds the same MLP (10 x Linear(1000, 1000): 10.01 M float32
parameters) and trains it with Adam under each method for --steps steps; for the last step it reports the bytes
live after the step (parameters, gradients, optimizer state and whatever else the method keeps, e.g. DDP's
buckets) and the peak during the step (`reset_peak_memory_stats` before it, `max_memory_allocated` after), both
above what was live before the model was built. Results: kernels/results/fsdp_memory.json and a table.
"""
import argparse
import gc
import json
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "fsdp_memory.json"


def worker(args):
    import numpy as np

    import minitorch as mt
    import minitorch.distributed as dist
    from minitorch import nn
    from minitorch.distributed import fsdp as F
    from minitorch.distributed.optim import ZeroRedundancyOptimizer
    from minitorch.nn.parallel import DistributedDataParallel as DDP
    from minitorch.tensor_data import count_cpu_memory, max_memory_allocated, memory_allocated, reset_peak_memory_stats

    dist.init_process_group("mpi")
    R, W = dist.get_rank(), dist.get_world_size()
    X = mt.tensor(np.random.default_rng(R).standard_normal((args.batch, args.width)).astype(np.float32))
    rows = []
    for method in ("DDP", "ZeRO-1", "FSDP"):
        gc.collect(); dist.barrier()
        with count_cpu_memory():
            base = memory_allocated()
            mt.manual_seed(0)
            module = nn.Sequential(*[m for _ in range(args.layers) for m in (nn.Linear(args.width, args.width), nn.ReLU())])
            psi = sum(p.numel() for p in module.parameters())
            if method == "FSDP":
                net = F.FullyShardedDataParallel(module, auto_wrap_policy=F.ModuleWrapPolicy({nn.Linear}))
            else:
                net = DDP(module)
            del module
            opt = mt.optim.Adam(net.parameters(), lr=1e-3) if method != "ZeRO-1" else \
                ZeroRedundancyOptimizer(net.parameters(), mt.optim.Adam, lr=1e-3)
            for step in range(args.steps):
                gc.collect()
                if step == args.steps - 1: reset_peak_memory_stats()
                opt.zero_grad(set_to_none=False)
                net(X).pow(2).mean().backward()
                opt.step()
            gc.collect()
            local = opt.optim if method == "ZeRO-1" else opt
            state = sum(t.numel() * t.element_size() for s in local.state.values() for t in s.values()
                        if isinstance(t, mt.Tensor) and t.ndim)
            rows.append({"method": method, "world_size": W, "rank": R, "num_params": psi,
                         "live_bytes": memory_allocated() - base, "peak_bytes": max_memory_allocated() - base,
                         "optim_state_bytes": state})
            del net, opt, local
    every = [None] * W
    dist.all_gather_object(every, rows)
    if R == 0: Path(args.out).write_text(json.dumps([r for rs in every for r in rs]))
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ranks", type=int, nargs="+", default=[4])
    p.add_argument("--layers", type=int, default=10)
    p.add_argument("--width", type=int, default=1000)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--worker", action="store_true")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    if args.worker: return worker(args)
    rows = []
    for n in args.ranks:
        out = RESULTS.with_name(f"fsdp_memory-{n}.tmp.json")
        subprocess.run([sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", str(n), "--timeout",
                        "550", __file__, "--worker", "--out", str(out), "--layers", str(args.layers), "--width",
                        str(args.width), "--batch", str(args.batch), "--steps", str(args.steps)], check=True)
        rows += json.loads(out.read_text()); out.unlink()
    mib = 2 ** 20
    print(f"{'method':8} {'ranks':>5} {'live MiB (max over ranks)':>26} {'peak MiB':>9} {'peak/DDP':>9} "
          f"{'Adam state MiB':>15} {'state/DDP':>10}")
    summary = []
    for n in args.ranks:
        worst = {m: max((r for r in rows if r["method"] == m and r["world_size"] == n), key=lambda r: r["peak_bytes"])
                 for m in ("DDP", "ZeRO-1", "FSDP")}
        state = {m: max(r["optim_state_bytes"] for r in rows if r["method"] == m and r["world_size"] == n)
                 for m in worst}
        for m, r in worst.items():
            line = {"method": m, "world_size": n, "live_bytes": r["live_bytes"], "peak_bytes": r["peak_bytes"],
                    "peak_vs_ddp": r["peak_bytes"] / worst["DDP"]["peak_bytes"], "optim_state_bytes": state[m],
                    "state_vs_ddp": state[m] / state["DDP"]}
            summary.append(line)
            print(f"{m:8} {n:5d} {r['live_bytes'] / mib:26.1f} {r['peak_bytes'] / mib:9.1f} "
                  f"{line['peak_vs_ddp']:9.3f} {state[m] / mib:15.1f} {line['state_vs_ddp']:10.3f}")
    RESULTS.write_text(json.dumps({"num_params": rows[0]["num_params"], "rows": rows, "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
