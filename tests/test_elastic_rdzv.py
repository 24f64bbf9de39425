"""`--nnodes MIN:MAX` with a rendezvous, with real agents on one machine: the group forms with MAX agents at once,
with MIN agents after the last call, fails (with a clear error, within the join timeout) when fewer than MIN join,
and turns away an agent that comes after it formed."""
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "dist" / "rdzv.py"
pytestmark = pytest.mark.dist


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


def agent(port, nnodes, conf, *extra, env=None):
    return subprocess.Popen([sys.executable, "-m", "minitorch.distributed.elastic", "--nnodes", nnodes,
                             "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-conf", conf, *extra,
                             "--nproc-per-node", "1", "--timeout", "60", str(SCRIPT)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=None if env is None else {**os.environ, **env})


def finish(procs, timeout=120):
    out = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for q in procs: q.kill()
            raise
        out.append((p.returncode, o, e))
    return out


def test_group_forms_with_max_nodes():
    port = free_port()
    procs = [agent(port, "2:3", "join_timeout=60,last_call_timeout=30") for _ in range(3)]
    t0 = time.monotonic()
    res = finish(procs)
    assert all(code == 0 for code, _, _ in res), [(c, o[-1000:], e[-3000:]) for c, o, e in res]
    out = "".join(o for _, o, _ in res)
    assert sorted(line for line in out.splitlines() if "world" in line) == [f"rank {r} of world 3" for r in range(3)]
    assert sum("the group formed with 3 nodes" in e for _, _, e in res) == 1            # one host
    assert sum("joined as node" in e for _, _, e in res) == 2
    assert time.monotonic() - t0 < 30 + 20                  # MAX reached: no waiting for the last call


def test_group_forms_with_min_nodes_after_last_call():
    port = free_port()
    res = finish([agent(port, "2:3", "join_timeout=60,last_call_timeout=2") for _ in range(2)])
    assert all(code == 0 for code, _, _ in res), [(c, o[-1000:], e[-3000:]) for c, o, e in res]
    out = "".join(o for _, o, _ in res)
    assert sorted(line for line in out.splitlines() if "world" in line) == [f"rank {r} of world 2" for r in range(2)]


def test_too_few_nodes_time_out():
    port = free_port()
    t0 = time.monotonic()
    (code, out, err), = finish([agent(port, "2:3", "join_timeout=3,last_call_timeout=1")])
    assert code != 0 and "timed out after 3 s" in err and "1 of at least 2 nodes joined" in err, err
    assert "world" not in out and time.monotonic() - t0 < 30


def test_late_agent_is_turned_away(tmp_path):
    port, release = free_port(), tmp_path / "release"
    # the first group's job holds until the late agent is done: were it to end first, the host would close its
    # socket and the late agent would find no one to turn it away (it would host a group of its own)
    first = [agent(port, "1:2", "join_timeout=60,last_call_timeout=0", "--monitor-interval", "0",
                   env={"RDZV_HOLD_UNTIL": str(release)})]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:               # wait until the host formed the group (a 1-node group at once)
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0: break
        time.sleep(0.1)
    time.sleep(1.0)
    late = agent(port, "1:2", "join_timeout=10,last_call_timeout=0")
    (c2, o2, e2), = finish([late])
    release.touch()
    (c1, o1, e1), = finish(first)
    assert c1 == 0 and "rank 0 of world 1" in o1, e1
    assert c2 != 0 and "is closed: the group already formed with 1 nodes" in e2, e2


def test_rendezvous_group_restarts_after_a_kill(tmp_path):
    "Two agents form a 2-rank group; rank 1 is killed mid-training; the host restarts it and it resumes."
    port, script = free_port(), Path(__file__).parent / "dist" / "elastic.py"
    procs = [subprocess.Popen([sys.executable, "-m", "minitorch.distributed.elastic", "--nnodes", "1:2",
                               "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-conf",
                               "join_timeout=60,last_call_timeout=20", "--max-restarts", "1", "--nproc-per-node", "1",
                               "--timeout", "90", str(script), str(tmp_path / "ck"), str(tmp_path / "out.pt"), "4",
                               "kill"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    res = finish(procs, timeout=200)
    assert all(code == 0 for code, _, _ in res), [(c, o[-1000:], e[-3000:]) for c, o, e in res]
    err = "".join(e for _, _, e in res)
    assert "the group formed with 2 nodes" in err and "attempt 1 failed" in err and "attempt 2 succeeded" in err, err
    assert "".join(o for _, o, _ in res).count("attempt 2 resumes after step 3") == 2
    assert (tmp_path / "out.pt").exists()
