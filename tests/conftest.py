"""Shared pytest setup: task marks for grading, and the slow/gpu/dist flags."""
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def task_marks() -> set[str]:
    "Every `task<major>_<minor>` mark: the tasks of course.toml and the marks the tests use."
    marks = set()
    course = ROOT / "course.toml"
    if course.exists():
        for assignment in tomllib.loads(course.read_text()).get("assignment", []):
            marks |= {"task" + t["id"].replace(".", "_") for t in assignment.get("task", [])}
    for test in Path(__file__).parent.glob("test_*.py"):
        marks |= set(re.findall(r"mark\.(task\d+_\d+)", test.read_text()))
    return marks


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running test (run with --runslow; CI does)")
    config.addinivalue_line("markers", "gpu: needs a real CUDA GPU (skipped under the simulator)")
    config.addinivalue_line("markers", "dist: starts several processes")
    for mark in sorted(task_marks()):
        config.addinivalue_line("markers", f"{mark}: graded task {mark[4:].replace('_', '.')}")


def real_gpu() -> bool:
    "True only on a machine with a CUDA GPU (the simulator does not count)."
    import minitorch.cuda as mcuda
    return mcuda.is_available() and not mcuda.is_simulator()


def pytest_collection_modifyitems(config, items):
    skip_slow = pytest.mark.skip(reason="slow: run with --runslow")
    skip_gpu = pytest.mark.skip(reason="gpu: needs a real CUDA GPU")
    gpu = None
    for item in items:
        if "slow" in item.keywords and not config.getoption("--runslow"):
            item.add_marker(skip_slow)
        if "gpu" in item.keywords:
            gpu = real_gpu() if gpu is None else gpu
            if not gpu:
                item.add_marker(skip_gpu)
