"""minitorch.distributed on real processes (2 and 3 ranks, under the launcher and under plain mpiexec), and its
errors against torch.distributed (gloo, one process) as the oracle."""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import torch
import torch.distributed as tdist

import minitorch as mt
import minitorch.distributed as dist
from minitorch.distributed.run import find_mpiexec

HERE = Path(__file__).parent / "dist"
pytestmark = pytest.mark.dist


def launch(nproc: int, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    "Run the launcher (with its own --timeout, and ours around it: never a hang)."
    cmd = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", str(nproc), "--timeout",
           str(timeout), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 30)


@pytest.mark.parametrize("nproc", [2, 3])
def test_every_collective_matches_numpy(nproc):
    res = launch(nproc, str(HERE / "collectives.py"))
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    ranks = sorted(line.split()[1] for line in res.stdout.splitlines() if line.startswith("RANK "))
    assert ranks == [str(r) for r in range(nproc)], res.stdout


def test_under_plain_mpiexec():
    "A script started by MPI's own launcher works too (torchrun's variables are not needed)."
    cmd = [find_mpiexec(), "-n", "2", "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    res = subprocess.run(cmd + [sys.executable, str(HERE / "collectives.py")], capture_output=True, text=True,
                         timeout=150)
    assert res.returncode == 0 and res.stdout.count(" OK ") == 2, res.stdout[-2000:] + res.stderr[-2000:]


def test_launcher_sets_torchrun_variables(tmp_path):
    script = tmp_path / "env.py"
    script.write_text("import os, sys\nprint('ENV', os.environ['RANK'], os.environ['WORLD_SIZE'], "
                      "os.environ['LOCAL_RANK'], os.environ['MASTER_PORT'], sys.argv[1:])\n")
    res = launch(3, "--master-port", "29611", str(script), "--lr", "0.5")
    lines = sorted(l for l in res.stdout.splitlines() if l.startswith("ENV"))
    assert lines == [f"ENV {r} 3 {r} 29611 ['--lr', '0.5']" for r in range(3)], res.stdout + res.stderr


def test_collective_timeout_is_an_error():
    res = launch(2, str(HERE / "failures.py"), "timeout", timeout=60)
    assert "TIMEOUT-OK" in res.stdout and "timed out after 2 s" in res.stdout, res.stdout + res.stderr


def test_dead_peer_ends_the_job():
    "Rank 1 raises while rank 0 waits in all_reduce (timeout 30 min): the job must end at once, with an error."
    t0 = time.monotonic()
    res = launch(2, str(HERE / "failures.py"), "dead-peer", timeout=90)
    assert res.returncode != 0 and "rank 1 fails on purpose" in res.stderr, res.stderr[-2000:]
    assert "UNREACHABLE" not in res.stdout
    assert time.monotonic() - t0 < 60


def test_launcher_timeout_ends_a_stuck_job(tmp_path):
    script = tmp_path / "stuck.py"
    script.write_text("import time\ntime.sleep(600)\n")
    t0 = time.monotonic()
    res = launch(2, str(script), timeout=5)
    assert res.returncode == 124 and "--timeout" in res.stderr and time.monotonic() - t0 < 30


# ---------------------------------------------------------------- errors, against torch (gloo, one process)
def outcome(fn):
    try:
        fn()
        return "ok"
    except Exception as e:
        return type(e).__name__


@pytest.fixture()
def both_initialized():
    f = tempfile.mktemp()
    tdist.init_process_group("gloo", init_method=f"file://{f}", world_size=1, rank=0)
    dist.init_process_group("gloo")
    yield
    tdist.destroy_process_group()
    dist.destroy_process_group()


def test_errors_before_init_match_torch():
    for name in ("get_rank", "get_world_size"):
        assert outcome(getattr(dist, name)) == outcome(getattr(tdist, name)) == "ValueError"
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.all_reduce(mt.ones(2))


CASES = {
    "max on complex": lambda L, m: L.all_reduce(m.ones(2, dtype=m.complex64), op=L.ReduceOp.MAX),
    "product on complex": lambda L, m: L.all_reduce(m.ones(2, dtype=m.complex64), op=L.ReduceOp.PRODUCT),
    "band on float": lambda L, m: L.all_reduce(m.ones(2), op=L.ReduceOp.BAND),
    "band on half": lambda L, m: L.all_reduce(m.ones(2, dtype=m.float16), op=L.ReduceOp.BAND),
    "avg on int": lambda L, m: L.all_reduce(m.ones(2, dtype=m.int32), op=L.ReduceOp.AVG),
    "avg on bool": lambda L, m: L.all_reduce(m.ones(2, dtype=m.bool), op=L.ReduceOp.AVG),
    "avg on complex": lambda L, m: L.all_reduce(m.ones(2, dtype=m.complex64), op=L.ReduceOp.AVG),
    "bor on bool": lambda L, m: L.all_reduce(m.ones(2, dtype=m.bool), op=L.ReduceOp.BOR),
    "invalid root": lambda L, m: L.broadcast(m.ones(2), src=3),
    "send to self": lambda L, m: L.send(m.ones(2), dst=0),
    "all_gather list too long": lambda L, m: L.all_gather([m.ones(2), m.ones(2)], m.ones(2)),
    "double init": lambda L, m: L.init_process_group("gloo"),
    "transposed all_reduce": lambda L, m: L.all_reduce(m.ones(3, 2).t()),
    "0-d all_reduce": lambda L, m: L.all_reduce(m.tensor(2.0)),
}


@pytest.mark.parametrize("case", CASES)
def test_errors_match_torch(both_initialized, case):
    assert outcome(lambda: CASES[case](dist, mt)) == outcome(lambda: CASES[case](tdist, torch))


def test_reduce_op_names_match_torch():
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        assert repr(getattr(dist.ReduceOp, name)) == repr(getattr(tdist.ReduceOp, name))
