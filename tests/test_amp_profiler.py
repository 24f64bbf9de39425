"""minitorch.profiler against torch.profiler: memory columns of a Linear, record_function frees, trace, overhead."""
import json
import time

import numpy as np
import pytest
import torch

import minitorch
from minitorch.profiler import ProfilerActivity, profile, record_function


def test_linear_memory_columns_match_torch():
    "Linear(512,512) on (128,512): the op allocates 262144 B; a region that drops the output shows -262144."
    res = []
    for L, prof_mod, op in ((torch, torch.profiler, "aten::addmm"), (minitorch, minitorch.profiler, "aten::linear")):
        lin, x = L.nn.Linear(512, 512), L.randn(128, 512)
        with prof_mod.profile(activities=[prof_mod.ProfilerActivity.CPU], profile_memory=True,
                              record_shapes=True) as p:
            with prof_mod.record_function("forward"):
                y = lin(x)
            with prof_mod.record_function("drop"):
                del y
        avg = {e.key: e for e in p.key_averages()}
        res.append((avg[op].self_cpu_memory_usage, avg["forward"].cpu_memory_usage,
                    avg["drop"].self_cpu_memory_usage, avg["forward"].count))
    assert res[0] == res[1] == (262144, 262144, -262144, 1)


def test_hand_count_of_a_step_and_peak():
    "Every allocation booked once: the sum of self memory is what is still alive (peak >= that)."
    lin, x = minitorch.nn.Linear(16, 8), minitorch.randn(4, 16)
    with profile(profile_memory=True) as p:
        y = lin(x)
        z = y.relu()
    avg = {e.key: e for e in p.key_averages()}
    assert avg["aten::linear"].self_cpu_memory_usage == 4 * 8 * 4
    assert avg["aten::relu"].self_cpu_memory_usage == 4 * 8 * 4
    assert p.peak_memory == 2 * 4 * 8 * 4


def test_table_and_chrome_trace(tmp_path):
    m = minitorch.nn.Sequential(minitorch.nn.Linear(8, 8), minitorch.nn.ReLU(), minitorch.nn.Linear(8, 2))
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True) as p:
        with record_function("step"):
            m(minitorch.randn(3, 8)).sum().backward()
    t = p.key_averages().table(sort_by="self_cpu_time_total", row_limit=5)
    for col in ("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "CPU Mem",
                "Self CPU Mem", "# of Calls", "Self CPU time total"):
        assert col in t
    path = tmp_path / "trace.json"
    p.export_chrome_trace(str(path))
    evs = json.loads(path.read_text())["traceEvents"]
    names = {e["name"] for e in evs}
    assert "step" in names and "aten::linear" in names and "accumulate_grad" in {n.split("::")[-1] for n in names}
    step = next(e for e in evs if e["name"] == "step")
    assert all(step["ts"] <= e["ts"] and e["ts"] + e["dur"] <= step["ts"] + step["dur"] + 1 for e in evs)


def test_profiling_overhead_under_1_5x():
    n = minitorch.nn
    m = n.Sequential(n.Conv2d(1, 16, 3, padding=1), n.ReLU(), n.MaxPool2d(2), n.Conv2d(16, 32, 3, padding=1),
                     n.ReLU(), n.MaxPool2d(2), n.Flatten(), n.Linear(128, 10))
    opt = minitorch.optim.Adam(m.parameters())
    xb, yb = minitorch.randn(64, 1, 8, 8), minitorch.randint(0, 10, (64,))

    def step():
        opt.zero_grad(); minitorch.nn.functional.cross_entropy(m(xb), yb).backward(); opt.step()

    def profiled():
        with profile(profile_memory=True, record_shapes=True):
            step()

    step(); profiled()
    plain, prof = [], []
    clock = time.process_time   # CPU time of this process: the machine is shared, wall time swings with its load
    for _ in range(25):         # interleaved, best of each
        t = clock(); step(); plain.append(clock() - t)
        t = clock(); profiled(); prof.append(clock() - t)
    assert min(prof) <= 1.5 * min(plain), (min(prof), min(plain))


def test_profile_peak_equals_the_allocator_peak():
    "minitorch owns every allocation: the profile's peak is the allocator's peak over the same region."
    import gc
    from minitorch.tensor_data import count_cpu_memory, memory_allocated, max_memory_allocated, reset_peak_memory_stats
    from minitorch.profiler import profile, ProfilerActivity
    lin, x = minitorch.nn.Linear(64, 64), minitorch.randn(32, 64)
    with count_cpu_memory():
        gc.collect(); reset_peak_memory_stats('cpu'); base = memory_allocated('cpu')
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            y = lin(x)
            y.sum().backward()
        assert prof.peak_memory == max_memory_allocated('cpu') - base
        assert prof.peak_memory >= 32 * 64 * 4 + 64 * 64 * 4 + 64 * 4   # output, weight.grad, bias.grad at least
