"""CPU kernel lab: minitorch's numba kernels against numpy and torch on the same machine, in the same run.

    python kernels/bench_cpu.py [--quick] [--repeat N]

Map (exp), zip (x*y+1 as two zips), reduce (sum over the last dim of (1000, 10000)), and batched matmul
(256/512/1024, float32/float64, contiguous and transposed B), and x*y+1 and matmul in float16 and bfloat16
relative to float32 (16-bit storage, float32 compute). Prints a table, writes kernels/results/cpu.json and
kernels/results/cpu.png. Times are the best of `repeat` runs after a warm-up call (compilation excluded).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

import minitorch.dtypes as mdt
from minitorch.numba_backend import NumbaBackend
from minitorch.tensor_data import TensorData

RESULTS = Path(__file__).resolve().parent / "results"


def best_time(fn, repeat: int) -> float:
    "Best wall time of `repeat` calls after one warm-up call."
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def cases(quick: bool) -> list[dict]:
    "The benchmark cases: name, flops (or bytes), and a callable per implementation."
    import torch
    nb = NumbaBackend(min_work={})  # time the kernels themselves
    rng = np.random.default_rng(0)
    out = []

    n = 10**6 if quick else 10**7
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    dx, dy = TensorData.from_numpy(x), TensorData.from_numpy(y)
    one = TensorData.from_numpy(np.ones(1, np.float32)).expand(n)
    out.append(dict(family="map", name=f"exp f32 n={n:.0e}", work=n, unit="Gelem/s",
                    minitorch=lambda: nb.map("exp", dx, mdt.float32), numpy=lambda: np.exp(x),
                    torch=lambda: torch.exp(tx)))
    out.append(dict(family="zip", name=f"x*y+1 f32 n={n:.0e}", work=n, unit="Gelem/s",
                    minitorch=lambda: nb.zip("add", nb.zip("mul", dx, dy, mdt.float32), one, mdt.float32),
                    numpy=lambda: x * y + 1, torch=lambda: tx * ty + 1))
    xt = TensorData.from_numpy(x.reshape(1000, -1)).transpose(0, 1)
    out.append(dict(family="map", name="exp f32 transposed view", work=n, unit="Gelem/s",
                    minitorch=lambda: nb.map("exp", xt, mdt.float32), numpy=lambda: np.exp(x.reshape(1000, -1).T),
                    torch=lambda: torch.exp(tx.reshape(1000, -1).T)))

    rows, cols = (100, 10000) if quick else (1000, 10000)
    r = rng.standard_normal((rows, cols)).astype(np.float32)
    tr, dr = torch.from_numpy(r), TensorData.from_numpy(r)
    out.append(dict(family="reduce", name=f"sum(-1) f32 ({rows}, {cols})", work=r.size, unit="Gelem/s",
                    minitorch=lambda: nb.reduce("sum", dr, 1, mdt.float32),
                    numpy=lambda: r.sum(axis=1, keepdims=True), torch=lambda: tr.sum(1, keepdim=True)))
    r16 = r.astype(np.float16)
    tr16, dr16 = torch.from_numpy(r16), TensorData.from_numpy(r16)
    out.append(dict(family="reduce", name=f"sum(-1) f16 ({rows}, {cols})", work=r.size, unit="Gelem/s",
                    minitorch=lambda: nb.reduce("sum", dr16, 1, mdt.float16),
                    numpy=lambda: r16.astype(np.float32).sum(axis=1, keepdims=True).astype(np.float16),
                    torch=lambda: tr16.sum(1, keepdim=True)))

    for size in ((256, 512) if quick else (256, 512, 1024)):
        for dt, name in ((np.float32, "f32"), (np.float64, "f64")):
            a = rng.standard_normal((1, size, size)).astype(dt)
            b = rng.standard_normal((1, size, size)).astype(dt)
            bt = np.ascontiguousarray(b.transpose(0, 2, 1))   # bt.T == b, a transposed layout
            ta, tb, tbt = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(bt)
            da, db = TensorData.from_numpy(a), TensorData.from_numpy(b)
            dbt = TensorData.from_numpy(bt).transpose(1, 2)
            mdtype = mdt.float32 if dt is np.float32 else mdt.float64
            flops = 2 * size ** 3
            out.append(dict(family="matmul", name=f"matmul {size} {name}", work=flops, unit="GFLOP/s",
                            minitorch=lambda da=da, db=db, m=mdtype: nb.matmul(da, db, m),
                            numpy=lambda a=a, b=b: a @ b, torch=lambda ta=ta, tb=tb: ta @ tb))
            out.append(dict(family="matmul", name=f"matmul {size} {name} B^T", work=flops, unit="GFLOP/s",
                            minitorch=lambda da=da, dbt=dbt, m=mdtype: nb.matmul(da, dbt, m),
                            numpy=lambda a=a, bt=bt: a @ bt.transpose(0, 2, 1),
                            torch=lambda ta=ta, tbt=tbt: ta @ tbt.transpose(1, 2)))
    out += low_precision_cases(quick, nb, rng)
    return out


def low_precision_cases(quick: bool, nb: NumbaBackend, rng) -> list[dict]:
    "x*y+1 and matmul in float32, float16 and bfloat16: throughput of the 16-bit formats relative to float32."
    import ml_dtypes
    import torch
    out = []
    n = 10**6 if quick else 10**7
    size = 256 if quick else 512
    for name, mt, np_dt, t_dt in (("f32", mdt.float32, np.float32, torch.float32),
                                  ("f16", mdt.float16, np.float16, torch.float16),
                                  ("bf16", mdt.bfloat16, ml_dtypes.bfloat16, torch.bfloat16)):
        x, y = (rng.standard_normal(n).astype(np_dt) for _ in range(2))
        tx, ty = (torch.from_numpy(v.astype(np.float32)).to(t_dt) for v in (x, y))
        dx, dy = TensorData.from_numpy(x), TensorData.from_numpy(y)
        one = TensorData.from_numpy(np.ones(1, np_dt)).expand(n)
        out.append(dict(family="dtype", name=f"x*y+1 {name} n={n:.0e}", work=n, unit="Gelem/s",
                        minitorch=lambda dx=dx, dy=dy, one=one, mt=mt: nb.zip("add", nb.zip("mul", dx, dy, mt), one, mt),
                        numpy=lambda x=x, y=y: x * y + np.ones(1, x.dtype), torch=lambda tx=tx, ty=ty: tx * ty + 1))
        a, b = (rng.standard_normal((1, size, size)).astype(np_dt) for _ in range(2))
        ta, tb = (torch.from_numpy(v.astype(np.float32)).to(t_dt) for v in (a, b))
        da, db = TensorData.from_numpy(a), TensorData.from_numpy(b)
        out.append(dict(family="dtype", name=f"matmul {size} {name}", work=2 * size**3, unit="GFLOP/s",
                        minitorch=lambda da=da, db=db, mt=mt: nb.matmul(da, db, mt),
                        numpy=lambda a=a, b=b: a @ b, torch=lambda ta=ta, tb=tb: ta @ tb))
    return out


def relative_to_fp32(rows: list[dict]) -> list[dict]:
    "For the 16-bit rows: each implementation's throughput divided by its own float32 throughput."
    base = {r["case"].replace(" f32", ""): r for r in rows if r["family"] == "dtype" and " f32" in r["case"]}
    rel = []
    for r in rows:
        if r["family"] != "dtype" or " f32" in r["case"]:
            continue
        fmt = "f16" if " f16" in r["case"] else "bf16"
        b = base[r["case"].replace(f" {fmt}", "")]
        rel.append(dict(case=r["case"], **{impl: r[impl] / b[impl] for impl in ("minitorch", "numpy", "torch")}))
    return rel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import numba
    import torch
    rows = []
    print(f"{'case':34s} {'minitorch':>10s} {'numpy':>10s} {'torch':>10s} {'unit':>8s} {'mt/np':>6s} {'mt/torch':>8s}")
    for case in cases(args.quick):
        rates = {}
        for impl in ("minitorch", "numpy", "torch"):
            t = best_time(case[impl], args.repeat)
            rates[impl] = case["work"] / t / 1e9
        row = dict(family=case["family"], case=case["name"], unit=case["unit"], **rates,
                   ratio_numpy=rates["minitorch"] / rates["numpy"], ratio_torch=rates["minitorch"] / rates["torch"])
        rows.append(row)
        print(f"{case['name']:34s} {rates['minitorch']:10.2f} {rates['numpy']:10.2f} {rates['torch']:10.2f} "
              f"{case['unit']:>8s} {row['ratio_numpy']:6.2f} {row['ratio_torch']:8.2f}")
    rel = relative_to_fp32(rows)
    print("\n16-bit throughput relative to the same implementation in float32:")
    print(f"{'case':34s} {'minitorch':>10s} {'numpy':>10s} {'torch':>10s}")
    for r in rel:
        print(f"{r['case']:34s} {r['minitorch']:10.2f} {r['numpy']:10.2f} {r['torch']:10.2f}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    meta = dict(machine=platform.processor() or platform.machine(), cpus=os.cpu_count(),
                numba_threads=numba.get_num_threads(), torch_threads=torch.get_num_threads(),
                numpy=np.__version__, numba=numba.__version__, torch=torch.__version__,
                quick=args.quick, repeat=args.repeat, when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    (RESULTS / "cpu.json").write_text(json.dumps(dict(meta=meta, rows=rows, relative_to_fp32=rel), indent=1))
    plot(rows, RESULTS / "cpu.png")
    print(f"wrote {RESULTS / 'cpu.json'} and {RESULTS / 'cpu.png'}")


def plot(rows: list[dict], path: Path) -> None:
    "Grouped bars: throughput of minitorch, numpy and torch per case (log scale)."
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(11, 4.5))
    x = np.arange(len(rows))
    for i, impl in enumerate(("minitorch", "numpy", "torch")):
        ax.bar(x + (i - 1) * 0.27, [r[impl] for r in rows], 0.27, label=impl)
    ax.set_xticks(x, [f"{r['case']}\n({r['unit']})" for r in rows], rotation=60, ha="right", fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("throughput (higher is better)")
    ax.set_title("minitorch numba CPU kernels vs numpy and torch")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
