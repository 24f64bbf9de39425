"""Failure modes that must end in an error, never a hang. Usage: failures.py timeout|dead-peer|uncaught."""
import os
import sys
import time
from datetime import timedelta

import minitorch as mt
import minitorch.distributed as dist

case = sys.argv[1]
dist.init_process_group("mpi", timeout=timedelta(seconds=2))
R = dist.get_rank()
if case == "timeout":          # rank 1 never joins the all_reduce: rank 0 times out with a RuntimeError
    if R == 0:
        t0 = time.monotonic()
        try:
            dist.all_reduce(mt.ones(3))
        except RuntimeError as e:
            print(f"TIMEOUT-OK after {time.monotonic() - t0:.1f} s: {e}", flush=True)
    else:
        time.sleep(4)
    os._exit(0)
elif case == "dead-peer":      # rank 1 dies (uncaught exception) while rank 0 waits in a collective
    if R == 1:
        raise ValueError("rank 1 fails on purpose")
    dist.all_reduce(mt.ones(3), group=dist.new_group(timeout=timedelta(minutes=30)) if False else None)
    print("UNREACHABLE", flush=True)
