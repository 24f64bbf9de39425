"""One launcher for the tests that run a script of tests/dist/ on real ranks (DDP, ZeRO, FSDP)."""
import subprocess
import sys
from pathlib import Path

DIST = Path(__file__).parent / "dist"


def launch_cases(script: str, nproc: int, cases: list, timeout: float = 150) -> str:
    "Run tests/dist/<script> on `nproc` ranks with `cases`; every rank must print '<case> ok'. Returns stdout."
    cmd = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", str(nproc), "--timeout",
           str(timeout), str(DIST / script), *cases]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 30)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    for case in cases:
        assert res.stdout.count(f"{case} ok") == nproc, (case, res.stdout[-3000:] + res.stderr[-3000:])
    return res.stdout
