"""Rank 1 SIGKILLs itself while rank 0 waits in an all_reduce with a 30-minute timeout; prints the kill's time.
The job must end (mpiexec notices the dead process) long before any timeout."""
import os
import signal
import time

import minitorch as mt
import minitorch.distributed as dist

dist.init_process_group("mpi")
dist.barrier()
if dist.get_rank() == 1:
    time.sleep(0.5)
    print("KILL", time.time(), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
dist.all_reduce(mt.ones(3))
print("UNREACHABLE", flush=True)
