"""minitorch.amp.GradScaler against torch.amp.GradScaler("cpu"): replayed inf/NaN sequences, errors, state."""
import logging
import pickle
import warnings

import numpy as np
import pytest
import torch

import minitorch
import minitorch.amp as amp
from minitorch.amp import grad_scaler as gs

INF, NAN = float("inf"), float("nan")


def pair_models(seed=0, n_in=4, n_out=3):
    "The same Linear in both libraries."
    torch.manual_seed(seed)
    ref = torch.nn.Linear(n_in, n_out)
    mine = minitorch.nn.Linear(n_in, n_out)
    with minitorch.no_grad():
        mine.weight.copy_(minitorch.tensor(ref.weight.detach().numpy()))
        mine.bias.copy_(minitorch.tensor(ref.bias.detach().numpy()))
    return ref, mine


def replay(lib, model, opt_cls, factors, x, **scaler_kw):
    "Train with a GradScaler; step i multiplies the loss by factors[i] (1, inf, nan, or a huge value)."
    scaler = lib.amp.GradScaler("cpu", **scaler_kw)
    opt = opt_cls(model.parameters(), lr=0.1)
    X = lib.tensor(x)
    scales, skipped, trackers = [], [], []
    for f in factors:
        opt.zero_grad()
        loss = (model(X) * f).square().mean()
        scaler.scale(loss).backward()
        before = [p.detach().clone() for p in model.parameters()]
        scaler.step(opt)
        found = sum(v.item() for v in scaler._found_inf_per_device(opt).values())
        skipped.append(bool(found))
        if found:
            assert all(lib.equal(b, p.detach()) for b, p in zip(before, model.parameters()))
        scaler.update()
        scales.append(scaler.get_scale()); trackers.append(scaler.state_dict()["_growth_tracker"])
    return scaler, scales, skipped, trackers


@pytest.mark.task24_2
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("init_scale,interval", [(2.0**16, 2), (8.0, 3), (2.0**120, 1)])
def test_replay_matches_torch(opt_name, init_scale, interval):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    factors = [1.0, 1.0, INF, 1.0, NAN, 1.0, 1.0, 1.0, 1e30, 1.0, -INF, 1.0, 1.0, 1.0]
    ref, mine = pair_models()
    rs, rscales, rskip, rtr = replay(torch, ref, getattr(torch.optim, opt_name), factors, x,
                                     init_scale=init_scale, growth_interval=interval)
    ms, mscales, mskip, mtr = replay(minitorch, mine, getattr(minitorch.optim, opt_name), factors, x,
                                     init_scale=init_scale, growth_interval=interval)
    assert mscales == rscales and mskip == rskip and mtr == rtr
    assert ms.state_dict() == rs.state_dict()
    assert ms.skipped_steps == sum(rskip)
    for p, q in zip(mine.parameters(), ref.parameters()):
        torch.testing.assert_close(torch.tensor(p.detach().numpy()), q.detach())


@pytest.mark.task24_2
def test_scale_never_grows_to_inf():
    s = amp.GradScaler("cpu", init_scale=2.0**127, growth_interval=1)
    p = minitorch.nn.Parameter(minitorch.ones(2)); opt = minitorch.optim.SGD([p], lr=0.0)
    for _ in range(3):
        s.scale((p * 1e-40).sum()).backward(); s.step(opt); s.update()
    assert s.get_scale() == 2.0**127


def test_step_returns_optimizer_result_and_skip_is_visible(caplog):
    p = minitorch.nn.Parameter(minitorch.ones(2))

    class Opt(minitorch.optim.SGD):
        def step(self, *a, **k):
            super().step(); return "stepped"
    opt = Opt([p], lr=0.1)
    s = amp.GradScaler("cpu")
    assert s.last_step_skipped is None
    s.scale(p.sum()).backward(); assert s.step(opt) == "stepped"; assert s.last_step_skipped is False; s.update()
    opt.zero_grad()
    with caplog.at_level(logging.INFO, logger="minitorch.amp"):
        s.scale((p * INF).sum()).backward(); assert s.step(opt) is None
    assert s.last_step_skipped is True and s.skipped_steps == 1 and "skipped" in caplog.text
    with pytest.raises(AttributeError):
        s.last_step_skipped = False
    s.update(); assert s.get_scale() == 2.0**15


def test_scale_nested_and_dtypes():
    ts = amp.GradScaler("cpu", init_scale=4.0)
    tt = torch.amp.GradScaler("cpu", init_scale=4.0)
    a, b = np.float32([1.0, 2.0]), np.float32([3.0])
    out = ts.scale([minitorch.tensor(a), (minitorch.tensor(b), [minitorch.tensor(a)])])
    ref = tt.scale([torch.tensor(a), (torch.tensor(b), [torch.tensor(a)])])
    assert type(out) is list and type(out[1]) is tuple and type(out[1][1]) is list
    assert out[0].tolist() == ref[0].tolist() and out[1][0].tolist() == ref[1][0].tolist()
    assert out[1][1][0].tolist() == ref[1][1][0].tolist()
    assert isinstance(ts.scale(iter([minitorch.tensor(a)])), map)
    # 0-d fp16 loss -> fp32; fp16 with dims stays fp16 (promotion)
    for shape in [(), (2,)]:
        m = ts.scale(minitorch.ones(shape, dtype=minitorch.float16))
        r = tt.scale(torch.ones(shape, dtype=torch.float16))
        assert str(m.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        ts.scale([3.0])


def _grads_opt(lib, dtype=None):
    p = lib.nn.Parameter(lib.ones(3, dtype=dtype or lib.float32))
    p.grad = lib.tensor([1.0, 2.0, 3.0], dtype=dtype or lib.float32)
    return p, lib.optim.SGD([p], lr=0.1)


@pytest.mark.parametrize("lib", [torch, minitorch])
def test_errors(lib):
    s = lib.amp.GradScaler("cpu")
    p, opt = _grads_opt(lib)
    with pytest.raises(AssertionError, match="Attempted unscale_ but _scale is None"):
        s.unscale_(opt)
    with pytest.raises(AssertionError, match="Attempted update but _scale is None"):
        s.update()
    s.scale(lib.ones(()))
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this optimizer since the last update\(\)\."):
        s.unscale_(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported if GradScaler is enabled."):
        s.step(opt, closure=lambda: 0.0)
    s.step(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)\."):
        s.step(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step\(\)\."):
        s.unscale_(opt)
    s.update()
    p16, opt16 = _grads_opt(lib, lib.float16)
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        s.unscale_(opt16)
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update."):
        s.update()
    with pytest.raises(AssertionError, match="The growth factor must be > 1.0."):
        lib.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="The backoff factor must be < 1.0."):
        lib.amp.GradScaler("cpu", backoff_factor=1.0)
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        s.load_state_dict({})


@pytest.mark.task24_1
@pytest.mark.parametrize("scale", [65536.0, 3.0, 1e-3, 7.0e20])
def test_unscale_values_match_torch(scale):
    "Reciprocal in fp64 rounded to fp32, product in fp32: bit-equal gradients."
    rng = np.random.default_rng(0)
    g = (rng.standard_normal(1000) * 10.0 ** rng.integers(-30, 30, 1000)).astype(np.float32)
    out = []
    for lib in (torch, minitorch):
        p = lib.nn.Parameter(lib.zeros(1000)); p.grad = lib.tensor(g.copy())
        opt = lib.optim.SGD([p], lr=0.1)
        s = lib.amp.GradScaler("cpu", init_scale=scale); s.scale(lib.ones(()))
        s.unscale_(opt); out.append(np.asarray(p.grad.detach().numpy()).copy())
    np.testing.assert_array_equal(out[0], out[1])


@pytest.mark.task24_1
def test_bf16_and_fp64_grads_unscale_like_torch():
    for dt in ("bfloat16", "float64"):
        out = []
        for lib in (torch, minitorch):
            p = lib.nn.Parameter(lib.zeros(4, dtype=getattr(lib, dt)))
            p.grad = lib.tensor([1.0, 3.0, 5.0, 1e-3], dtype=getattr(lib, dt))
            s = lib.amp.GradScaler("cpu", init_scale=3.0); s.scale(lib.ones(()))
            s.unscale_(lib.optim.SGD([p], lr=0.1)); out.append(p.grad.float().tolist())
        assert out[0] == out[1], dt


def test_state_dict_load_and_pickle_match_torch():
    sd = {"scale": 128.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 5, "_growth_tracker": 2}
    for lib in (torch, minitorch):
        s = lib.amp.GradScaler("cpu"); s.load_state_dict(sd)
        assert s.state_dict() == sd and s.get_scale() == 128.0
        assert s.get_growth_factor() == 3.0 and s.get_backoff_factor() == 0.25 and s.get_growth_interval() == 5
        s2 = pickle.loads(pickle.dumps(s)); assert s2.state_dict() == sd
    off = amp.GradScaler("cpu", enabled=False)
    x = minitorch.ones(2)
    assert off.scale(x) is x and off.get_scale() == 1.0 and off.state_dict() == {} and not off.is_enabled()


def test_update_new_scale():
    for lib in (torch, minitorch):
        s = lib.amp.GradScaler("cpu"); s.scale(lib.ones(()))
        s.update(new_scale=4.0); assert s.get_scale() == 4.0
        s.update(new_scale=lib.tensor(2.0)); assert s.get_scale() == 2.0
        with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
            s.update(new_scale=lib.tensor([2.0]))
        with pytest.raises(AssertionError, match="new_scale should be a float"):
            s.update(new_scale=lib.tensor([1.0, 2.0]))


def test_clipping_and_accumulation_recipes_match_torch():
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((4, 4)).astype(np.float32) for _ in range(4)]
    results = []
    for lib in (torch, minitorch):
        ref, mine = pair_models(seed=5)
        model = ref if lib is torch else mine
        opt = lib.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
        s = lib.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=1)
        for step in range(2):
            opt.zero_grad()
            for x in xs[2 * step:2 * step + 2]:                       # accumulate two micro-batches
                s.scale(model(lib.tensor(x)).square().mean() / 2).backward()
            s.unscale_(opt)
            lib.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            s.step(opt); s.update()
        results.append([p.detach().numpy().copy() for p in model.parameters()] + [s.get_scale()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_two_optimizers_inf_in_one():
    for lib in (torch, minitorch):
        p, q = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
        o1, o2 = lib.optim.SGD([p], lr=0.1), lib.optim.SGD([q], lr=0.1)
        s = lib.amp.GradScaler("cpu", init_scale=16.0)
        s.scale((p + q * INF).sum()).backward()
        s.step(o1); s.step(o2); s.update()
        assert s.get_scale() == 8.0
        # each optimizer checks its own gradients: o1 steps, o2 skips; update() backs off once
        assert np.allclose(p.tolist(), [0.9, 0.9]) and q.tolist() == [1.0, 1.0]


def test_cuda_alias_warns():
    import minitorch.cuda.amp as cuda_amp
    assert minitorch.cuda.amp is cuda_amp
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.GradScaler\(args...\)` is deprecated"):
        s = cuda_amp.GradScaler(init_scale=8.0, enabled=False)
    assert isinstance(s, amp.GradScaler) and s._device == "cuda"


def test_cuda_kernel_under_simulator(monkeypatch):
    "The numba.cuda kernel (the simulator without a GPU) gives the CPU kernel's bits and flags."
    import minitorch.cuda as mcuda
    if not mcuda._kernels_run():
        pytest.skip("no cuda kernels here")
    monkeypatch.setattr(gs, "_cuda_available", lambda: True)
    rng = np.random.default_rng(0)
    g = rng.standard_normal(70).astype(np.float32)
    for bad in (None, INF, NAN):
        h = g.copy()
        if bad is not None: h[50] = bad
        res = []
        for device in ("cpu", "cuda"):
            p = minitorch.nn.Parameter(minitorch.zeros(70, device=device))
            p.grad = minitorch.tensor(h, device=device)
            s = amp.GradScaler(device, init_scale=3.0); s.scale(minitorch.ones((), device=device))
            opt = minitorch.optim.SGD([p], lr=1.0)
            s.step(opt); s.update()
            res.append((p.detach().cpu().numpy().copy(), p.grad.cpu().numpy().copy(), s.get_scale(),
                        s.last_step_skipped))
        np.testing.assert_array_equal(res[0][0], res[1][0]); np.testing.assert_array_equal(res[0][1], res[1][1])
        assert res[0][2:] == res[1][2:] and res[0][3] == (bad is not None)


def test_fp16_autocast_with_scaler_reaches_fp32_where_plain_fp16_does_not():
    "A tanh MLP whose loss is a mean over 2^20 elements: fp16 gradients underflow unless the loss is scaled."
    from minitorch.amp import autocast
    F = minitorch.nn.functional
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, (128, 1)).astype(np.float32); Y = np.sin(2 * X).astype(np.float32)

    def run(dtype, scaler=None, steps=120):
        r = np.random.default_rng(0)
        params = [(minitorch.nn.Parameter(minitorch.tensor((r.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32))),
                   minitorch.nn.Parameter(minitorch.zeros(o))) for i, o in [(1, 16), (16, 16), (16, 1)]]
        opt = minitorch.optim.Adam([p for wb in params for p in wb], lr=1e-2)
        for _ in range(steps):
            opt.zero_grad()
            with autocast("cpu", dtype=dtype, enabled=dtype is not None):
                h = minitorch.tensor(X)
                for k, (W, b) in enumerate(params):
                    h = F.linear(h, W, b)
                    if k < 2: h = h.tanh()
                loss = F.mse_loss(h, minitorch.tensor(Y)) * 2.0**-20
            if scaler is None: loss.backward(); opt.step()
            else: scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
        return loss.item() * 2.0**20, params[0][0].grad
    fp32, _ = run(None)
    fp16, g16 = run(minitorch.float16)
    scaled, _ = run(minitorch.float16, amp.GradScaler("cpu", init_scale=2.0**30))
    assert bool((g16 == 0).all()) and fp16 > 10 * fp32
    assert scaled < 1.5 * fp32
