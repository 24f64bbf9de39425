"""Three RPC workers (under the launcher): worker0 drives, prints `CHECK name value` lines that tests/test_rpc.py
compares with torch computed locally. argv[1]: 'basic' or 'dead'."""
import os
import sys
import threading
import time

import zmq

import minitorch as torch
import minitorch.distributed.rpc as rpc
import minitorch.futures
from minitorch.distributed.rpc.functions import async_execution

rank = int(os.environ["RANK"])
MARK = os.environ.get("RPC_MARK_FILE", "/nonexistent")


def add(a, b): return a + b
def boom(msg): raise ValueError(msg)
def slow(s): time.sleep(s); return s
def matmul_sum(a, b): return (a @ b).sum()
def make(n): return torch.arange(float(n))
def owner_of(r): return (r.owner_name(), r.is_owner(), r.to_here().tolist())
def alive(rid): return rpc._owner_alive(rid)
def confirmed(r, within=5.0):
    "The owner's confirmation arrives as its own message, maybe after `to_here`'s answer: wait for it (bounded)."
    end = time.monotonic() + within
    while not r.confirmed_by_owner() and time.monotonic() < end: time.sleep(0.01)
    return r.confirmed_by_owner()
def hold(r):
    global HELD
    HELD = r
    return r.confirmed_by_owner()
def collect(): import gc; gc.collect()
def drop():
    global HELD
    HELD = None
def mark(): open(MARK, "w").write("ran")   # a function the evil messages below try to reach


@rpc.functions.async_execution
def async_add(to, a, b):
    return rpc.rpc_async(to, add, (a, b)).then(lambda f: f.wait() * 2)


_gates, _gates_lock = [], threading.Lock()


@async_execution                       # imported from the submodule, as `torch.distributed.rpc.functions`
def wait_gate():
    "Returns at once with a Future; the reply goes out when `release` completes it (no thread waits meanwhile)."
    f = torch.futures.Future()
    with _gates_lock: _gates.append(f)
    return f


def release(v):
    with _gates_lock: gates, _gates[:] = list(_gates), []
    for f in gates: f.set_result(v)
    return len(gates)


@async_execution
def async_fail():
    f = torch.futures.Future()
    threading.Timer(0.05, lambda: f.set_exception(KeyError("later"))).start()
    return f


def check(name, value): print("CHECK", name, repr(value), flush=True)


def raw_send(frames):
    "Send frames to worker1's socket directly, as an intruder or a broken peer would."
    a = rpc._the_agent()
    s = zmq.Context.instance().socket(zmq.DEALER)
    s.connect(a.addrs[1])
    s.send_multipart(frames)
    time.sleep(0.3)
    s.close(0)


def basic():
    x, y = torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[.5, -1.], [2., 0.]])
    check("sync", rpc.rpc_sync("worker1", add, (x, y)).tolist())
    check("builtin", rpc.rpc_sync(2, torch.mul, (x, 3)).tolist())
    futs = [rpc.rpc_async(f"worker{i % 3}", matmul_sum, (x, y)) for i in range(6)]
    check("async", [f.wait().item() for f in futs])
    check("then", rpc.rpc_async("worker1", add, (1, 2)).then(lambda f: f.value() + 10).wait())
    check("async_execution", rpc.rpc_sync("worker1", async_add, ("worker2", 3, 4)))
    waiting = [rpc.rpc_async("worker1", wait_gate) for _ in range(24)]   # more than worker1's 16 threads
    time.sleep(0.3)
    check("gates_pending", [f.done() for f in waiting].count(True))
    check("gates_released", rpc.rpc_sync("worker1", release, (7,)))
    check("gates", torch.futures.wait_all(waiting))
    try: rpc.rpc_sync("worker1", async_fail); check("async_fail", None)
    except KeyError as e: check("async_fail", ("KeyError", "later" in str(e)))
    check("info", (repr(rpc.get_worker_info()), repr(rpc.get_worker_info("worker2"))))
    big = torch.randn(512, 512)
    check("big", rpc.rpc_sync("worker2", add, (big, 1.0)).sub(big).sum().item())
    check("dtypes", [str(rpc.rpc_sync("worker1", add, (torch.ones(3, dtype=d), torch.ones(3, dtype=d))).dtype)
                     for d in (torch.float16, torch.bfloat16, torch.int32, torch.bool, torch.float64)])
    # remote and RRefs
    r = rpc.remote("worker1", make, (4,))
    check("to_here", r.to_here().tolist())
    check("rref", (r.owner_name(), r.is_owner(), confirmed(r)))
    check("proxy_sync", r.rpc_sync().sum().item())
    check("proxy_async", r.rpc_async().mul(2).wait().tolist())
    check("proxy_remote", r.remote().add(1).to_here().tolist())
    try:
        r.local_value()
    except RuntimeError as e:
        check("local_value_error", str(e))
    local = rpc.RRef(torch.ones(2))
    check("local", (local.is_owner(), local.local_value().tolist(), local.owner_name()))
    # forks: to the owner (OwnerRRef), to a third worker (a new UserRRef), and the count on the owner
    check("to_owner", rpc.rpc_sync("worker1", owner_of, (r,)))
    check("to_third", rpc.rpc_sync("worker2", owner_of, (r,)))
    check("held_confirmed", rpc.rpc_sync("worker2", hold, (r,)))
    rid = r._rid
    del r
    import gc; gc.collect()
    time.sleep(0.3)
    check("alive_while_forked", rpc.rpc_sync("worker1", alive, (rid,)))
    rpc.rpc_sync("worker2", drop)
    rpc.rpc_sync("worker2", collect)
    deadline = time.time() + 5
    while rpc.rpc_sync("worker1", alive, (rid,)) and time.time() < deadline: time.sleep(0.05)
    check("released", rpc.rpc_sync("worker1", alive, (rid,)))
    # duplicated and out-of-order reference-counting messages, sent for real to the owner
    r2 = rpc.remote("worker1", make, (3,))
    r2.to_here()
    rid2, o = r2._rid, "worker1"
    for _ in range(2): rpc.rpc_sync(o, rpc._owner_add_fork, (rid2, (7, 1), -1))      # a notice, twice
    for _ in range(2): rpc.rpc_sync(o, rpc._owner_delete, (rid2, (7, 1)))            # its delete, twice
    rpc.rpc_sync(o, rpc._owner_delete, (rid2, (7, 2)))                               # a delete before ...
    rpc.rpc_sync(o, rpc._owner_add_fork, (rid2, (7, 2), -1))                          # ... its notice
    check("dup_out_of_order_alive", (rpc.rpc_sync(o, alive, (rid2,)), r2.to_here().tolist()))
    del r2
    gc.collect()
    deadline = time.time() + 5
    while rpc.rpc_sync(o, alive, (rid2,)) and time.time() < deadline: time.sleep(0.05)
    check("dup_out_of_order_released", rpc.rpc_sync(o, alive, (rid2,)))
    # errors
    for how in ("sync", "future"):
        try:
            rpc.rpc_sync("worker1", boom, ("bad value",)) if how == "sync" else \
                rpc.rpc_async("worker2", boom, ("bad value",)).wait()
        except ValueError as e:
            check(f"remote_error_{how}", (type(e).__name__, str(e).splitlines()[0], "in boom" in str(e),
                                          "bad value" in str(e)))
    try:
        rpc.rpc_sync("worker9", add, (1, 2))
    except RuntimeError as e:
        check("unknown", str(e))
    try:
        rpc.rpc_sync("worker1", slow, (2.0,), timeout=0.5)
    except RuntimeError as e:
        check("timeout", str(e))
    rpc._set_rpc_timeout(0.4)
    try:
        rpc.rpc_sync("worker2", slow, (2.0,))
    except RuntimeError as e:
        check("default_timeout", str(e))
    rpc._set_rpc_timeout(60.0)
    check("after_timeout", rpc.rpc_sync("worker1", add, (2, 2)))
    # safety: a crafted pickle that would run code, an intruder without the token, broken messages
    a = rpc._the_agent()
    evil = b"c__main__\nmark\n(tR."
    evil2 = b"cos\nsystem\n(S'touch " + MARK.encode() + b"'\ntR."
    for i, payload in enumerate((evil2,)):
        mid = 10_000 + i
        ev = __import__("threading").Event(); slot = [ev, None, None]
        a.pending[mid] = slot
        hdr = rpc._HEADER.pack(rpc._MAGIC, rpc.REQUEST, 0, mid, a.token, 0, len(payload), 0, -1, -1)
        a._push(1, [hdr, payload])
        ev.wait(5)
        kind, src, ctx, send, frames = slot[1]
        err = rpc._remote_error(a.workers[1], *a._decode(src, ctx, send, frames))
        check("evil_pickle", (type(err).__name__, "refuses to unpickle global 'os.system'" in str(err)))
    good = (mark, (), {})
    payload, bufs, _, _ = rpc._dumps(good, 1)
    raw_send([rpc._HEADER.pack(rpc._MAGIC, rpc.REQUEST, 0, 1, b"x" * 16, 0, len(payload), 0, -1, -1), payload])
    raw_send([rpc._HEADER.pack(rpc._MAGIC, rpc.REQUEST, 0, 2, a.token, 0, len(payload) + 5, 0, -1, -1), payload])
    raw_send([rpc._HEADER.pack(rpc._MAGIC, rpc.REQUEST, 0, 3, a.token, 2, len(payload), 0, -1, -1), payload])
    raw_send([b"garbage", payload])
    check("rejected", rpc.rpc_sync("worker1", rejected))
    check("never_ran", os.path.exists(MARK))


def rejected():
    return [m.split(":")[0] for m in rpc._the_agent().rejected]


def dead():
    if rank == 2:
        os._exit(0)
    if rank == 0:
        time.sleep(0.5)
        t0 = time.time()
        try:
            rpc.rpc_sync("worker2", add, (1, 1), timeout=1.0)
        except RuntimeError as e:
            check("dead_peer", (str(e), round(time.time() - t0)))
    rpc.shutdown(graceful=False)


if __name__ == "__main__":
    rpc.init_rpc(f"worker{rank}", rpc_backend_options=rpc.TensorPipeRpcBackendOptions(rpc_timeout=20))
    if sys.argv[1] == "dead":
        dead()
    else:
        if rank == 0: basic()
        rpc.shutdown()
        print("SHUTDOWN", rank, flush=True)
