"""minitorch.distributed.rpc on three real processes under the launcher, each run with a timeout. torch's own rpc
is the oracle where it runs here; otherwise the numbers are computed locally with torch."""
import ast
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch

HERE = Path(__file__).parent / "dist"
pytestmark = pytest.mark.dist


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(script: str, *args: str, timeout: float = 90, env: dict | None = None) -> subprocess.CompletedProcess:
    "Three workers under the launcher, on a free rendezvous port, with a timeout (the launcher's and ours)."
    "`free_port` only finds a port that is free now: on a busy machine another process (another test's TCP"
    "connection) may take it before rank 0 binds it. That, and only that, is retried on a new port."
    for _ in range(3):
        cmd = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", "3", "--timeout", str(timeout),
               "--master-port", str(free_port()), str(HERE / script), *args]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 20,
                             env={**os.environ, **(env or {})})
        if res.returncode == 0 or "Address already in use" not in res.stderr: break
    return res


def launch_plain(script: str, timeout: float = 90, env: dict | None = None) -> subprocess.CompletedProcess:
    "Three plain processes with torchrun's variables, no MPI: how torch's own rpc (the oracle) is started."
    "It needs no MPI, and under mpiexec a finished TensorPipe job once ended with an MPI (PMIx) error, exit 213."
    port = str(free_port())
    procs = [subprocess.Popen([sys.executable, str(HERE / script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env={**os.environ, **(env or {}), "RANK": str(r), "WORLD_SIZE": "3",
                                              "LOCAL_RANK": str(r), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port})
             for r in range(3)]
    outs = []
    try:
        for p in procs: outs.append(p.communicate(timeout=timeout))
    finally:
        for p in procs:
            if p.poll() is None: p.kill(); p.communicate()
    code = next((p.returncode for p in procs if p.returncode), 0)
    return subprocess.CompletedProcess(procs[0].args, code, "".join(o for o, _ in outs), "".join(e for _, e in outs))


def checks(res) -> dict:
    out = {}
    for line in res.stdout.splitlines():
        if line.startswith("CHECK "):
            _, name, value = line.split(" ", 2)
            out[name] = ast.literal_eval(value)
    return out


@pytest.fixture(scope="module")
def basic(tmp_path_factory):
    mark = tmp_path_factory.mktemp("rpc") / "mark"
    res = launch("rpc_workers.py", "basic", env={"RPC_MARK_FILE": str(mark)})
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return checks(res), res, mark


def test_rpc_sync_async_against_torch(basic):
    c, _, _ = basic
    x, y = torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[.5, -1.], [2., 0.]])
    assert c["sync"] == torch.add(x, y).tolist()
    assert c["builtin"] == torch.mul(x, 3).tolist()
    assert c["async"] == [(x @ y).sum().item()] * 6
    assert c["then"] == 13 and c["async_execution"] == 14
    assert c["info"] == ("WorkerInfo(id=0, name=worker0)", "WorkerInfo(id=2, name=worker2)")
    assert c["big"] == 512 * 512
    assert c["dtypes"] == ["minitorch.float16", "minitorch.bfloat16", "minitorch.int32", "minitorch.bool",
                           "minitorch.float64"]


def test_async_execution_frees_the_serving_thread(basic):
    "24 calls whose Futures are pending on worker1 (16 threads) do not block the call that completes them."
    c, _, _ = basic
    assert c["gates_pending"] == 0 and c["gates_released"] == 24 and c["gates"] == [7] * 24
    assert c["async_fail"] == ("KeyError", True)       # set_exception on the callee's Future reaches the caller


def test_functions_is_a_submodule():
    import importlib
    import minitorch.distributed.rpc as rpc
    mod = importlib.import_module("minitorch.distributed.rpc.functions")
    assert mod is rpc.functions and mod.async_execution is rpc.functions.async_execution
    from minitorch.futures import Future
    from minitorch.distributed.rpc import Future as RpcFuture     # the one Future class
    assert RpcFuture is Future


def test_remote_rref_and_proxies(basic):
    c, _, _ = basic
    a = torch.arange(4.)
    assert c["to_here"] == a.tolist()
    assert c["rref"] == ("worker1", False, True)
    assert c["proxy_sync"] == a.sum().item()
    assert c["proxy_async"] == (a * 2).tolist() and c["proxy_remote"] == (a + 1).tolist()
    assert c["local_value_error"] == "Cannot call localValue() on a non-local reference. Call it on worker1"
    assert c["local"] == (True, [1.0, 1.0], "worker0")


def test_forks_and_reference_counting(basic):
    c, _, _ = basic
    assert c["to_owner"] == ("worker1", True, [0.0, 1.0, 2.0, 3.0])     # sent to its owner: the OwnerRRef
    assert c["to_third"] == ("worker1", False, [0.0, 1.0, 2.0, 3.0])    # to a third worker: a new UserRRef
    assert c["alive_while_forked"] is True     # the creator's RRef is gone, worker2's fork still holds the value
    assert c["released"] is False              # ... and once that one goes too, the owner lets it go


def test_duplicated_and_out_of_order_messages(basic):
    "A fork's notice and delete twice each, and a delete that overtakes its notice: the owner still counts right."
    c, _, _ = basic
    assert c["dup_out_of_order_alive"] == (True, [0.0, 1.0, 2.0])
    assert c["dup_out_of_order_released"] is False


def test_owner_table_every_order():
    "The owner's bookkeeping alone, every order of one fork's messages, each possibly duplicated."
    import itertools
    from minitorch.distributed.rpc import _OwnerTable
    for order in itertools.permutations(["addB", "delB", "delA"]):
        if order.index("addB") > order.index("delA"): continue      # the parent A lives until B is confirmed
        for dup in (1, 2):
            t, rid = _OwnerTable(), (0, 1)
            t.add_fork(rid, "A"); t.set_value(rid, "v")
            seq = [m for m in order for _ in range(dup)]
            for i, m in enumerate(seq):
                {"addB": lambda: t.add_fork(rid, "B"), "delB": lambda: t.delete(rid, "B"),
                 "delA": lambda: t.delete(rid, "A")}[m]()
                gone = {"delA", "delB"} <= set(seq[:i + 1])
                assert t.alive(rid) is not gone, (order, dup, i)


def test_remote_errors_unknown_names_and_timeouts(basic):
    c, _, _ = basic
    assert c["remote_error_sync"] == ("ValueError", "On WorkerInfo(id=1, name=worker1):", True, True)
    assert c["remote_error_future"] == ("ValueError", "On WorkerInfo(id=2, name=worker2):", True, True)
    assert c["unknown"] == "could not find destination name worker9"
    assert c["timeout"].startswith("RPC ran for more than set timeout (500 ms)")
    assert c["default_timeout"].startswith("RPC ran for more than set timeout (400 ms)")
    assert c["after_timeout"] == 4


def test_safety(basic):
    c, res, mark = basic
    assert c["evil_pickle"] == ("UnpicklingError", True)
    assert c["rejected"] == ["RPC message from outside the group", "truncated RPC message", "truncated RPC message",
                             "malformed RPC message"]
    assert c["never_ran"] is False and not mark.exists()


def test_graceful_shutdown(basic):
    _, res, _ = basic
    assert sorted(l for l in res.stdout.splitlines() if l.startswith("SHUTDOWN")) == [f"SHUTDOWN {r}" for r in range(3)]


def test_dead_peer_is_a_timeout_not_a_hang():
    res = launch("rpc_workers.py", "dead", timeout=30)
    c = checks(res)
    assert c["dead_peer"] == ("RPC ran for more than set timeout (1000 ms) and will now be marked with an error", 1), \
        res.stdout[-2000:] + res.stderr[-2000:]


@pytest.fixture(scope="module")
def autograd_run():
    res = launch("rpc_autograd.py")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return checks(res)


def test_distributed_autograd_and_optimizer_against_torch(autograd_run):
    "A parameter server (worker2), a middle stage (worker1), a driver (worker0): the same program in one torch process."
    c = autograd_run
    W = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [-0.5, 0.75]], requires_grad=True)
    w = torch.tensor([[0.3, -0.2, 1.1], [0.9, 0.4, -0.6]], requires_grad=True)
    v = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)
    loss = (((x @ W).tanh() * w).sigmoid() * 3 * v).sum()
    loss.backward()
    close = lambda a, b: torch.testing.assert_close(torch.tensor(a), b.detach())
    assert c["context_id"] == 0 and c["context_id2"] == 1
    assert c["nested"] == "Already have an autograd context id for this thread."
    close(c["loss"], loss)
    close(c["grad_x"], x.grad); close(c["grad_w"], w.grad); close(c["grad_v"], v.grad)
    close(c["grad_weight"], W.grad)
    assert c["dot_grad_untouched"] == (None, None)            # gradients live in the context, not in .grad
    assert c["second_backward"] == "Trying to backward through the graph a second time"
    opt = torch.optim.SGD([W, v], lr=0.1)
    opt.step()
    close(c["weight_after_step"], W); close(c["v_after_step"], v)


@pytest.mark.slow
def test_distributed_autograd_against_torch_rpc():
    "The same script on torch.distributed.rpc (TensorPipe, started as three plain processes: slow) gives the same numbers."
    ours, theirs = launch("rpc_autograd.py"), launch_plain("rpc_autograd.py", env={"RPC_ORACLE": "torch"})
    assert ours.returncode == 0 and theirs.returncode == 0, theirs.stdout[-3000:] + theirs.stderr[-3000:]
    a, b = checks(ours), checks(theirs)
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], str): assert a[k] in b[k], k       # torch prefixes "Error on Node 0: "
        elif isinstance(a[k], list): torch.testing.assert_close(torch.tensor(a[k]), torch.tensor(b[k]))
        else: assert a[k] == b[k], k


def test_pipeline_two_stages_against_torch(autograd_run):
    "Two stages on two workers, two micro-batches, two SGD steps by DistributedOptimizer (same launch as above)."
    c = autograd_run
    W1 = torch.tensor([[0.2, -0.5, 1.0], [0.7, 0.1, -0.3]], requires_grad=True)
    W2 = torch.tensor([[1.0, -1.0], [0.5, 0.25], [-0.75, 2.0]], requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3], [2.0, -1.0]])
    opt = torch.optim.SGD([W1, W2], lr=0.5)
    for it in range(2):
        opt.zero_grad()
        y = torch.cat([((xb @ W1).relu() @ W2).relu() for xb in (x[:2], x[2:])])
        loss = (y * y).mean()
        loss.backward()
        opt.step()
        torch.testing.assert_close(torch.tensor(c[f"pipeline_loss{it}"]), loss.detach())
    torch.testing.assert_close(torch.tensor(c["pipeline_W1"]), W1.detach())
    torch.testing.assert_close(torch.tensor(c["pipeline_W2"]), W2.detach())


def test_ddp_and_rpc_together_against_torch():
    "PyTorch 1.6's example: an embedding table on a parameter server (RPC), the dense layer in DDP on two trainers,"
    "one distributed backward (which runs DDP's all-reduce), a DistributedOptimizer for both; three steps."
    sys.path.insert(0, str(HERE))
    import rpc_ddp as spec                      # the script's constants (its main part runs only under the launcher)
    sys.path.pop(0)
    res = launch("rpc_ddp.py", timeout=120)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    c = checks(res)
    E = torch.tensor(spec.EMB, requires_grad=True)
    W, b = torch.tensor(spec.FC_W, requires_grad=True), torch.tensor(spec.FC_B, requires_grad=True)
    for it in range(3):
        losses = [(((E[torch.tensor(spec.IDX[r])].mean(1) @ W.T + b) - torch.tensor(spec.TGT[r])) ** 2).mean()
                  for r in range(2)]
        gE = sum(torch.autograd.grad(l, E, retain_graph=True)[0] for l in losses)   # each trainer steps it
        gW, gb = [sum(g) / 2 for g in zip(*(torch.autograd.grad(l, (W, b)) for l in losses))]  # DDP averages
        with torch.no_grad():
            E -= 0.2 * gE; W -= 0.2 * gW; b -= 0.2 * gb
        for r in range(2): torch.testing.assert_close(torch.tensor(c[f"loss{it}_{r}"]), losses[r].detach())
    for r in range(2):
        torch.testing.assert_close(torch.tensor(c[f"fc_weight_{r}"]), W.detach())
        torch.testing.assert_close(torch.tensor(c[f"fc_bias_{r}"]), b.detach())
        assert c[f"fc_grad_untouched_{r}"] is True
    torch.testing.assert_close(torch.tensor(c["table"]), E.detach())


def test_optimizer_step_waits_for_a_backward_pass_on_the_same_worker():
    "The DDP+RPC flake, made deterministic in one process: trainer A's distributed backward pass runs on the"
    "parameter server (it lends `.grad` to the engine, slowed by a hook), while trainer B's DistributedOptimizer"
    "step lends B's gradient to the same `.grad` (slowed in the optimizer). Both must get their own gradient."
    import threading
    import time
    import minitorch as mt
    import minitorch.distributed.autograd as dist_autograd
    from minitorch.distributed.optim.distributed_optimizer import _LocalOptimizer

    class SlowSGD(mt.optim.SGD):
        def step(self, closure=None):
            time.sleep(0.2)                                  # A's pass accumulates during this, if it may
            return super().step(closure)

    w = mt.tensor([1.0, 2.0], requires_grad=True)
    w.register_hook(lambda g: (time.sleep(0.1), g)[1])      # A's pass: `.grad` lent, accumulation 0.1 s later
    cA, cB = dist_autograd._get(1 << 40, create=True), dist_autograd._get((1 << 40) + 1, create=True)
    cB.grads[id(w)] = (w, mt.tensor([10.0, 10.0]))          # B's gradient, from its own backward
    opt = _LocalOptimizer.__new__(_LocalOptimizer)
    opt.params, opt.optim = [w], SlowSGD([w], lr=0.5)
    loss = (w * mt.tensor([3.0, 4.0])).sum()
    a = threading.Thread(target=dist_autograd._run, args=(cA, [loss], [mt.ones_like(loss)]))
    a.start(); time.sleep(0.03)
    opt.step(cB.id)                                          # B steps while A's pass is under way
    a.join(5)
    assert dist_autograd.get_gradients(cA.id)[w].tolist() == [3.0, 4.0]                # A's own gradient
    assert w.tolist() == [1.0 - 5.0, 2.0 - 5.0] and w.grad is None                     # B's step, B's gradient
    for c in (cA, cB): dist_autograd._contexts.pop(c.id, None)
