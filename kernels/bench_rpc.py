"""RPC round-trip latency and bandwidth against a raw pyzmq round trip on the same machine.

Run it under the launcher: python -m minitorch.distributed.run --nproc-per-node 2 kernels/bench_rpc.py
worker0 sends a float32 tensor of each size to worker1, which returns it (`rpc_sync(…, echo, (t,))`); the raw
baseline is a DEALER/ROUTER pair of plain pyzmq sockets that echo the same bytes (zero-copy both ways). The two are
timed in alternation, one round trip each, so that both see the same load on a shared machine; that is done
`--rounds` times and the lowest median of each is kept (best of several repeats). Prints
the median round-trip time of each, the RPC/raw ratio and the bandwidth (2 × bytes / time), and writes
kernels/results/rpc.json. Options: --repeat 30 --rounds 5 --max-mib 16 --copy --sequential
"""
import argparse
import json
import os
import threading
import time
from pathlib import Path

import numpy as np
import zmq

import minitorch as mt
import minitorch.distributed.rpc as rpc


def echo(x): return x


def raw_server(port, stop):
    s = zmq.Context.instance().socket(zmq.ROUTER)
    s.bind(f"tcp://127.0.0.1:{port}")
    while not stop.is_set():
        if s.poll(100): s.send_multipart(s.recv_multipart(copy=False), copy=False)
    s.close(0)


def timed(fn):
    t0 = time.perf_counter(); fn()
    return time.perf_counter() - t0


def paired_medians(raw, rpc_call, repeat, sequential=False):
    "Median round trip of each, timed in alternation (raw, rpc, raw, rpc, ...) after two warm-up calls each;"
    "`sequential`: all the raw round trips first, then all the RPC ones (each path runs hot, as alone)."
    for f in (raw, raw, rpc_call, rpc_call): f()
    if sequential:
        return (float(np.median([timed(raw) for _ in range(repeat)])),
                float(np.median([timed(rpc_call) for _ in range(repeat)])))
    ts = np.array([(timed(raw), timed(rpc_call)) for _ in range(repeat)])
    return float(np.median(ts[:, 0])), float(np.median(ts[:, 1]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=5, help="repeat the measurement; keep the best round")
    ap.add_argument("--max-mib", type=int, default=16)
    ap.add_argument("--copy", action="store_true", help="copy every received tensor (no zero-copy receive)")
    ap.add_argument("--sequential", action="store_true", help="time all raw round trips, then all RPC ones")
    args = ap.parse_args()
    if args.copy: rpc.wire.ZERO_COPY_BYTES = 1 << 62        # the receive path reads the wire module's setting
    rank = int(os.environ["RANK"])
    port = int(os.environ.get("MASTER_PORT", "29500")) + 1
    stop = threading.Event()
    if rank == 1: threading.Thread(target=raw_server, args=(port, stop), daemon=True).start()
    rpc.init_rpc(f"worker{rank}")
    if rank == 0:
        c = zmq.Context.instance().socket(zmq.DEALER)
        c.connect(f"tcp://127.0.0.1:{port}")
        rows = []
        sizes = [4] + [1 << k for k in range(10, 21 + int(np.log2(args.max_mib)), 2)]
        for nbytes in sizes:
            t = mt.randn(nbytes // 4)
            arr = t.numpy()
            def raw():
                c.send_multipart([b"h" * 64, arr], copy=False)
                c.recv_multipart(copy=False)
            rounds = [paired_medians(raw, lambda: rpc.rpc_sync("worker1", echo, (t,)), args.repeat, args.sequential)
                      for _ in range(args.rounds)]
            t_raw, t_rpc = min(r[0] for r in rounds), min(r[1] for r in rounds)     # the best round of each
            rows.append(dict(bytes=nbytes, raw_us=t_raw * 1e6, rpc_us=t_rpc * 1e6, ratio=t_rpc / t_raw,
                             rpc_gbps=2 * nbytes / t_rpc / 1e9, raw_gbps=2 * nbytes / t_raw / 1e9))
            r = rows[-1]
            print(f"{nbytes:>10} B  raw {r['raw_us']:9.1f} us  rpc {r['rpc_us']:9.1f} us  ratio {r['ratio']:5.2f}  "
                  f"rpc {r['rpc_gbps']:6.3f} GB/s  raw {r['raw_gbps']:6.3f} GB/s", flush=True)
        c.close(0)
        name = "rpc" + ("_copy" if args.copy else "") + ("_sequential" if args.sequential else "")
        out = Path(__file__).parent / "results" / f"{name}.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(rows, indent=1))
    rpc.shutdown()
    stop.set()


if __name__ == "__main__":
    main()
