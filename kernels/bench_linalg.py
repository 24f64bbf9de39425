"""Linear-algebra kernel lab: minitorch.linalg's numba kernels against numpy.linalg and torch.linalg, same run.

    python kernels/bench_linalg.py [--repeat N] [--rounds R] [--dtype float32|float64]

Batched 256 × (32×32) solve, cholesky and eigh, and a single 256×256 eigh and svd. Prints a table (ms and the
throughput relative to numpy) and writes kernels/results/linalg.json. Times are the best of `repeat` runs after a
warm-up call (numba compilation excluded), and the whole table is measured `rounds` times, the three libraries
interleaved, keeping each cell's best: on a shared machine a burst of load then hits one round, not one library.
Tests never assert on these numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

import minitorch
import minitorch.linalg as la

RESULTS = Path(__file__).resolve().parent / "results"


def best_time(fn, repeat: int) -> float:
    fn()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return min(ts)


def cases(dtype: str) -> list[tuple]:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 32, 32)).astype(dtype)
    b = rng.standard_normal((256, 32, 4)).astype(dtype)
    spd = (a @ a.transpose(0, 2, 1) + 32 * np.eye(32)).astype(dtype)
    sym = (a + a.transpose(0, 2, 1)).astype(dtype)
    big = rng.standard_normal((256, 256)).astype(dtype)
    bsym = (big + big.T).astype(dtype)
    return [("solve 256x(32x32), 4 rhs", (a, b), la.solve, np.linalg.solve, "solve"),
            ("cholesky 256x(32x32)", (spd,), la.cholesky, np.linalg.cholesky, "cholesky"),
            ("eigh 256x(32x32)", (sym,), la.eigh, np.linalg.eigh, "eigh"),
            ("eigh 256x256", (bsym,), la.eigh, np.linalg.eigh, "eigh"),
            ("svd 256x256", (big,), lambda x: la.svd(x, full_matrices=False), lambda x: np.linalg.svd(x, full_matrices=False),
             "svd")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dtype", default="float32")
    args = ap.parse_args()
    try:
        import torch
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", torch.get_num_threads())))
    except ImportError:
        torch = None
    rows = {}
    for _ in range(args.rounds):
        for name, arrs, mfn, nfn, tname in cases(args.dtype):
            margs = [minitorch.tensor(x) for x in arrs]
            tm = best_time(lambda: mfn(*margs), args.repeat)
            tn = best_time(lambda: nfn(*arrs), args.repeat)
            tt = None
            if torch is not None:
                targs = [torch.from_numpy(x) for x in arrs]
                tf = {"solve": torch.linalg.solve, "cholesky": torch.linalg.cholesky, "eigh": torch.linalg.eigh,
                      "svd": lambda x: torch.linalg.svd(x, full_matrices=False)}[tname]
                tt = best_time(lambda: tf(*targs), args.repeat)
            r = rows.setdefault(name, {"case": name, "dtype": args.dtype, "minitorch_s": tm, "numpy_s": tn, "torch_s": tt})
            r["minitorch_s"], r["numpy_s"] = min(r["minitorch_s"], tm), min(r["numpy_s"], tn)
            if tt is not None: r["torch_s"] = min(r["torch_s"], tt)
    rows = list(rows.values())
    print(f"{'case':28s} {'minitorch ms':>13s} {'numpy ms':>10s} {'torch ms':>10s} {'mt/np thrpt':>12s}")
    for r in rows:
        tm, tn, tt = r["minitorch_s"], r["numpy_s"], r["torch_s"]
        print(f"{r['case']:28s} {tm * 1e3:13.2f} {tn * 1e3:10.2f} {(tt or float('nan')) * 1e3:10.2f} {tn / tm:12.2f}")
    RESULTS.mkdir(exist_ok=True)
    out = {"machine": platform.machine(), "processor": platform.processor(), "cpus": os.cpu_count(), "rows": rows}
    (RESULTS / "linalg.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
