"""A job started by the elastic agents' rendezvous: every rank prints the world it found."""
import os
import time

import minitorch.distributed as dist

dist.init_process_group("mpi")
dist.barrier()
print(f"rank {dist.get_rank()} of world {dist.get_world_size()}", flush=True)
hold, t0 = os.environ.get("RDZV_HOLD_UNTIL"), time.monotonic()
while hold and not os.path.exists(hold) and time.monotonic() - t0 < 60:   # a test keeps this group alive a while
    time.sleep(0.1)
dist.destroy_process_group()
