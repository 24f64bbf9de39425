"""Training-step benchmark: minitorch vs PyTorch (CPU), side by side in one run.

1. One step (forward, cross-entropy, backward, Adam) of the digits MLP 64-256-256-10, batch 256, float32
   (target: at most 3x PyTorch) and of the digits CNN (conv16-pool-conv32-pool-linear, batch 64;
   target: at most 5x PyTorch), plus one full CNN epoch over 1437 training digits (target: under 10 s).
2. The classic course MLP 2 -> 100 -> 100 -> 1 (ReLU, sigmoid output, BCE), 50 points, batch 10, SGD lr 0.05:
   time per epoch; and the scaled-up one (hidden 256, 5000 points, batch 256).

Usage: python kernels/bench_training.py [--repeat 5] [--threads 2] [--only mlp,cnn,epoch,course] [--json out.json]
"""
import argparse
import json
import time

import numpy as np
import torch

import minitorch
from minitorch import nn
from minitorch.optim import SGD, Adam
from minitorch.utils.data import DataLoader, TensorDataset


def timed(fn, repeat):
    "Median wall time of `fn()` over `repeat` runs after one warm-up run."
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def digits_mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(64, 256), lib.nn.ReLU(), lib.nn.Linear(256, 256), lib.nn.ReLU(),
                             lib.nn.Linear(256, 10))


def digits_cnn(lib):
    n = lib.nn
    return n.Sequential(n.Conv2d(1, 16, 3, padding=1), n.ReLU(), n.MaxPool2d(2), n.Conv2d(16, 32, 3, padding=1),
                        n.ReLU(), n.MaxPool2d(2), n.Flatten(), n.Linear(128, 10))


def course_mlp(lib, hidden):
    n = lib.nn
    return n.Sequential(n.Linear(2, hidden), n.ReLU(), n.Linear(hidden, hidden), n.ReLU(), n.Linear(hidden, 1),
                        n.Sigmoid())


def step_fn(lib, model, opt, x, y, loss_fn):
    def step():
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def one_step(lib, make, x_np, y_np, repeat):
    "Median time of one forward/backward/Adam step."
    lib.manual_seed(0)
    model = make(lib)
    opt = (Adam if lib is minitorch else torch.optim.Adam)(model.parameters(), lr=1e-3)
    x, y = lib.tensor(x_np), lib.tensor(y_np)
    return timed(step_fn(lib, model, opt, x, y, lib.nn.functional.cross_entropy), repeat)


def epoch_time(lib, make, x_np, y_np, batch, lr, opt_name, loss, repeat=1):
    "Wall time of one epoch over (x, y) in shuffled batches, including the data loader."
    lib.manual_seed(0)
    model = make(lib)
    optim = {"adam": (Adam if lib is minitorch else torch.optim.Adam),
             "sgd": (SGD if lib is minitorch else torch.optim.SGD)}[opt_name]
    opt = optim(model.parameters(), lr=lr)
    if lib is minitorch:
        dl = DataLoader(TensorDataset(lib.tensor(x_np), lib.tensor(y_np)), batch_size=batch, shuffle=True)
    else:
        dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.tensor(x_np), torch.tensor(y_np)),
                                         batch_size=batch, shuffle=True)
    loss_fn = getattr(lib.nn.functional, loss)

    def epoch():
        for xb, yb in dl:
            out = model(xb)
            l = loss_fn(out.reshape(yb.shape) if loss == "binary_cross_entropy" else out, yb)
            opt.zero_grad()
            l.backward()
            opt.step()
    return timed(epoch, repeat)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads (numba uses NUMBA_NUM_THREADS)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--only", default="mlp,cnn,epoch,course", help="comma-separated subset of the rows to run")
    args = ap.parse_args()
    only = set(args.only.split(","))
    torch.set_num_threads(args.threads)
    from sklearn.datasets import load_digits
    d = load_digits()
    x = ((d.images / 16.0 - 0.3) / 0.4).astype(np.float32)
    y = d.target.astype(np.int64)
    rng = np.random.default_rng(0)
    rows = []

    def row(name, mt, th, target=None):
        ratio = mt / th
        ok = "" if target is None else ("  ok" if ratio <= target else f"  (target <= {target}x)")
        print(f"{name:<44} {mt * 1e3:10.1f} ms {th * 1e3:10.1f} ms {ratio:8.1f}x{ok}", flush=True)
        rows.append({"name": name, "minitorch_s": mt, "torch_s": th, "ratio": ratio, "target": target})

    print(f"{'':<44} {'minitorch':>13} {'torch':>13} {'ratio':>9}")
    i = rng.choice(len(y), 256, replace=False)
    if "mlp" in only:
        row("digits MLP step (batch 256, Adam)",
            one_step(minitorch, digits_mlp, x.reshape(-1, 64)[i], y[i], args.repeat),
            one_step(torch, digits_mlp, x.reshape(-1, 64)[i], y[i], args.repeat), 3)
    i = rng.choice(len(y), 64, replace=False)
    if "cnn" in only:
        row("digits CNN step (batch 64, Adam)", one_step(minitorch, digits_cnn, x[i, None], y[i], args.repeat),
            one_step(torch, digits_cnn, x[i, None], y[i], args.repeat), 5)
    tr = rng.permutation(len(y))[:1437]
    if "epoch" in only:
        mt = epoch_time(minitorch, digits_cnn, x[tr, None], y[tr], 64, 1e-3, "adam", "cross_entropy")
        th = epoch_time(torch, digits_cnn, x[tr, None], y[tr], 64, 1e-3, "adam", "cross_entropy")
        row("digits CNN epoch (1437 images, batch 64)", mt, th)
        print(f"  -> CNN epoch {'under' if mt < 10 else 'OVER'} the 10 s target")
    for hidden, n, batch in ([(100, 50, 10), (256, 5000, 256)] if "course" in only else []):
        pts = rng.uniform(-1, 1, (n, 2)).astype(np.float32)
        lab = (pts[:, 0] * pts[:, 1] > 0).astype(np.float32)          # the "xor" dataset
        mt = epoch_time(minitorch, lambda lib: course_mlp(lib, hidden), pts, lab, batch, 0.05, "sgd",
                        "binary_cross_entropy", repeat=3)
        th = epoch_time(torch, lambda lib: course_mlp(lib, hidden), pts, lab, batch, 0.05, "sgd",
                        "binary_cross_entropy", repeat=3)
        row(f"course MLP epoch (h {hidden}, {n} pts, batch {batch}, SGD)", mt, th)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
