"""minitorch.futures against torch.futures: the same programs, the same values, errors and order of callbacks."""
import threading
import time

import pytest
import torch

import minitorch.futures as mf

LIBS = [pytest.param((mf.Future, mf.collect_all, mf.wait_all), id="minitorch"),
        pytest.param((torch.futures.Future, torch.futures.collect_all, torch.futures.wait_all), id="torch")]


def program(F, collect_all, wait_all):
    "One program that exercises the API; run on both libraries and compare."
    out = {}
    f = F()
    out["done0"] = f.done()
    order = []
    f.add_done_callback(lambda x: order.append(("cb1", x.value())))
    g = f.then(lambda x: x.wait() + 1)
    h = g.then(lambda x: x.wait() * 10)
    f.add_done_callback(lambda x: order.append(("cb2", x.value())))
    t = threading.Thread(target=lambda: (time.sleep(0.02), f.set_result(4)))
    t.start()
    out["h"] = h.wait()
    t.join()
    out["order"], out["done1"], out["g"] = order, f.done(), g.value()
    late = []
    f.add_done_callback(lambda x: late.append(x.wait()))       # already done: runs now
    out["late"] = late
    e = F()
    chained = e.then(lambda x: x.wait() + 1)                   # the error flows down the chain
    e.set_exception(ValueError("boom"))
    for name, fut in (("e", e), ("chained", chained)):
        try: fut.wait(); out[name] = None
        except Exception as err: out[name] = (type(err).__name__, str(err).splitlines()[0])
    z = F(); zc = z.then(lambda x: 1 / 0); z.set_result(1)
    try: zc.wait(); out["cb_error"] = None
    except Exception as err: out["cb_error"] = (type(err).__name__, str(err).splitlines()[0])
    try: F().set_result(1) or None; x = F(); x.set_result(1); x.set_result(2)
    except RuntimeError as err: out["twice"] = str(err)
    a, b = F(), F()
    both = collect_all([a, b])
    a.set_result("a")
    out["partial"] = both.done()
    b.set_result("b")
    out["collect"] = [x.value() for x in both.wait()]
    out["wait_all"] = wait_all([a, b])
    bad = F(); bad.set_exception(KeyError("k"))
    try: wait_all([a, bad]); out["wait_all_err"] = None
    except Exception as err: out["wait_all_err"] = type(err).__name__
    out["empty"] = collect_all([]).wait()
    return out


def test_same_program_same_results():
    mine, theirs = program(mf.Future, mf.collect_all, mf.wait_all), \
        program(torch.futures.Future, torch.futures.collect_all, torch.futures.wait_all)
    assert mine == theirs


def test_lazy_future_completes_on_wait_and_runs_callbacks():
    "The kind collectives and RPC build: a `get` that fetches the value (once), a `ready` that says it arrived."
    calls, arrived = [], threading.Event()
    def get():
        calls.append(1)
        arrived.wait(5)
        return 99
    f = mf.Future(get, arrived.is_set)
    seen = []
    f.add_done_callback(lambda x: seen.append(x.value()))        # a helper thread fetches it
    assert not f.done()
    arrived.set()
    child = f.then(lambda x: x.wait() - 9)
    assert child.wait() == 90 and f.wait() == 99 and f.done()
    for _ in range(100):
        if seen: break
        time.sleep(0.01)
    assert seen == [99] and calls == [1]


def test_lazy_future_error_is_its_exception():
    def get(): raise TimeoutError("rpc timed out")
    f = mf.Future(get)
    with pytest.raises(TimeoutError, match="rpc timed out"):
        f.wait()
    with pytest.raises(RuntimeError, match="TimeoutError: rpc timed out"):
        f.then(lambda x: x.wait()).wait()


def test_waiters_on_many_threads():
    f = mf.Future()
    got = []
    ts = [threading.Thread(target=lambda: got.append(f.wait())) for _ in range(4)]
    for t in ts: t.start()
    f.set_result(5)
    for t in ts: t.join(5)
    assert got == [5] * 4
