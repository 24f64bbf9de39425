"""Kernel lab, CUDA: matmul GFLOP/s (fp32, fp16 storage) against torch.matmul on the same GPU, and the
bandwidth of map/reduce in GB/s against the device's peak. Needs a real GPU: under the simulator (or without
CUDA) it prints "no GPU: skipped". Writes kernels/results/bench_cuda.json (read by the CUDA chapter).

    python kernels/bench_cuda.py [--sizes 512 1024 2048] [--reps 10]
    NUMBA_ENABLE_CUDASIM=1 python kernels/bench_cuda.py --smoke     # check the script itself, no GPU
"""
import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "kernels" / "results" / "bench_cuda.json"

# Peak DRAM bandwidth (GB/s) by device name, used when the driver does not report the memory clock.
KNOWN_PEAK_GBS = {"H200": 4800.0, "H100 80GB HBM3": 3350.0, "H100 PCIe": 2000.0, "H100": 3350.0,
                  "A100-SXM4-80GB": 2039.0, "A100-SXM4-40GB": 1555.0, "A100-PCIE-40GB": 1555.0, "A100": 1555.0,
                  "L4": 300.0, "A10G": 600.0, "T4": 320.0, "V100": 900.0, "RTX 4090": 1008.0, "RTX 3090": 936.0}


def time_gpu(fn, reps: int) -> float:
    "Median seconds of `fn()` over `reps` runs, timed with CUDA events after one warm-up call."
    from numba import cuda
    fn()
    cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = cuda.event(), cuda.event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)      # milliseconds
    return float(np.median(times))


def peak_bandwidth(name: str) -> tuple:
    "(GB/s, how it was obtained): from the memory clock and bus width, else from a table of known GPUs."
    from numba import cuda
    dev = cuda.get_current_device()
    try:
        clock_khz, bus_bits = dev.MEMORY_CLOCK_RATE, dev.GLOBAL_MEMORY_BUS_WIDTH
        if clock_khz and bus_bits:
            return 2 * clock_khz * 1e3 * bus_bits / 8 / 1e9, "memory clock x bus width"
    except Exception:
        pass
    for key, v in KNOWN_PEAK_GBS.items():
        if key in name:
            return v, f"datasheet ({key})"
    return None, "unknown"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[512, 1024, 2048])
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--elements", type=int, default=1 << 26, help="elements for the bandwidth tests")
    p.add_argument("--smoke", action="store_true",
                   help="under the simulator: run every code path at toy sizes (numbers meaningless, nothing saved)")
    args = p.parse_args()

    import minitorch.cuda as mcuda
    smoke = args.smoke and mcuda.is_simulator()
    if smoke:
        args.sizes, args.reps, args.elements = [8], 1, 4096 * 2
    if not mcuda.is_available() or (mcuda.is_simulator() and not smoke):
        print("no GPU: skipped (the CUDA simulator does not count; run with NUMBA_ENABLE_CUDASIM unset on a GPU)")
        return 0
    from numba import cuda
    from minitorch import cuda_backend as cb
    from minitorch import dtypes as dt
    from minitorch.tensor_data import TensorData

    try:
        import torch
        have_torch = torch.cuda.is_available()
    except ImportError:
        have_torch = False
    name = mcuda.get_device_name()
    peak, peak_src = peak_bandwidth(name)
    print(f"device: {name}; peak DRAM bandwidth: {peak and round(peak)} GB/s ({peak_src}); "
          f"torch.cuda: {'yes' if have_torch else 'no (torch baseline skipped)'}")
    out = {"device": name, "peak_gbs": peak, "peak_source": peak_src, "tile": cb.TILE,
           "host": platform.node(), "time": time.strftime("%Y-%m-%d %H:%M:%S"), "matmul": [], "bandwidth": []}
    rng = np.random.default_rng(0)

    # ---- matmul
    for n in args.sizes:
        for name_dt in ("float32", "float16"):
            d = getattr(dt, name_dt)
            a = rng.standard_normal((1, n, n)).astype(d.numpy_dtype)
            b = rng.standard_normal((1, n, n)).astype(d.numpy_dtype)
            da = cb.data_to_device(TensorData.from_numpy(a))
            db = cb.data_to_device(TensorData.from_numpy(b))
            t = time_gpu(lambda: cb.cuda_matmul(da, db, d), args.reps)
            tr = time_gpu(lambda: cb.cuda_matmul_register(da, db, d), args.reps)
            row = {"n": n, "dtype": name_dt, "minitorch_gflops": 2 * n ** 3 / t / 1e9,
                   "register_gflops": 2 * n ** 3 / tr / 1e9}
            if have_torch:
                torch.backends.cuda.matmul.allow_tf32 = False      # compare like with like: true fp32
                ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
                torch.matmul(ta, tb)
                torch.cuda.synchronize()
                times = []
                for _ in range(args.reps):
                    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    s.record(); torch.matmul(ta, tb); e.record(); e.synchronize()
                    times.append(s.elapsed_time(e) / 1e3)
                row["torch_gflops"] = 2 * n ** 3 / float(np.median(times)) / 1e9
                row["fraction_of_torch"] = row["minitorch_gflops"] / row["torch_gflops"]
                row["register_fraction_of_torch"] = row["register_gflops"] / row["torch_gflops"]
            out["matmul"].append(row)
            print(f"matmul {n:5d}^2 {name_dt:8s}: shared tile {row['minitorch_gflops']:9.1f} GFLOP/s"
                  f"   register tile {row['register_gflops']:9.1f} GFLOP/s"
                  + (f"   torch {row['torch_gflops']:9.1f} GFLOP/s   ({100 * row['fraction_of_torch']:.1f}% / "
                     f"{100 * row['register_fraction_of_torch']:.1f}%)" if have_torch else ""))

    # ---- bandwidth: map (read + write), reduce (read), device-to-device copy (the achievable ceiling)
    n = args.elements
    x = rng.standard_normal(n).astype(np.float32)
    dx = cb.data_to_device(TensorData.from_numpy(x))
    dy = cb.device_empty(n, np.float32)
    cases = [("copy (cudaMemcpy d2d)", lambda: dy.data.copy_to_device(dx.storage.data), 2 * 4 * n),
             ("map exp float32", lambda: cb.cuda_map("exp", dx, dt.float32), 2 * 4 * n),
             ("map exp float16 words", None, 2 * 2 * n),
             ("reduce sum float32", lambda: cb.cuda_reduce("sum", dx, 0, dt.float32), 4 * n),
             ("reduce sum rows 4096 x n/4096", lambda: cb.cuda_reduce("sum", dx.view(4096, n // 4096), 1, dt.float32),
              4 * n),
             ("reduce sum columns (dim 0) 4096 x n/4096",
              lambda: cb.cuda_reduce("sum", dx.view(4096, n // 4096), 0, dt.float32), 4 * n)]
    dh = cb.data_to_device(TensorData.from_numpy(x.astype(np.float16)))
    cases[2] = ("map exp float16 words", lambda: cb.cuda_map("exp", dh, dt.float16), 2 * 2 * n)
    for label, fn, nbytes in cases:
        t = time_gpu(fn, args.reps)
        gbs = nbytes / t / 1e9
        row = {"kernel": label, "elements": n, "gbs": gbs, "fraction_of_peak": gbs / peak if peak else None}
        out["bandwidth"].append(row)
        print(f"{label:42s}: {gbs:8.1f} GB/s" + (f"  ({100 * gbs / peak:.0f}% of peak)" if peak else ""))
    if have_torch:
        tx = torch.from_numpy(x).cuda()
        for label, fn, nbytes in [("torch exp float32", lambda: torch.exp(tx), 2 * 4 * n),
                                  ("torch sum float32", lambda: tx.sum(), 4 * n)]:
            fn(); torch.cuda.synchronize()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(args.reps): fn()
            e.record(); e.synchronize()
            gbs = nbytes / (s.elapsed_time(e) / 1e3 / args.reps) / 1e9
            out["bandwidth"].append({"kernel": label, "elements": n, "gbs": gbs,
                                     "fraction_of_peak": gbs / peak if peak else None})
            print(f"{label:42s}: {gbs:8.1f} GB/s" + (f"  ({100 * gbs / peak:.0f}% of peak)" if peak else ""))

    if smoke:
        print("smoke run under the simulator: nothing saved")
        return 0
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=1))
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
