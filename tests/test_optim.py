"""minitorch.optim against torch.optim: parameter trajectories, param groups, state dicts, schedulers."""
import numpy as np
import pytest
import torch

import minitorch
import minitorch.optim as optim
from minitorch.optim import lr_scheduler


def trajectory(lib, opt_cls, kwargs, steps=5, groups=False, dtype="float32"):
    "Parameter values after each of `steps` steps on a fixed loss, in minitorch or torch."
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)).astype(dtype)
    b = rng.standard_normal(5).astype(dtype)
    x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
    params = [{"params": [x]}, {"params": [y], "lr": 0.05}] if groups else [x, y]
    opt = opt_cls(params, **kwargs)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = (x * x).sum() * 0.5 + (y * y * y * y).sum() * 0.25 + (x * 3.0).sum()
        loss.backward()
        opt.step()
        out.append(np.concatenate([x.detach().numpy().ravel(), y.detach().numpy().ravel()]))
    return np.stack(out), opt


def check(name, kw, groups=False, steps=5, dtype="float32", rtol=1e-5):
    ours, _ = trajectory(minitorch, getattr(optim, name), kw, steps, groups, dtype)
    ref, _ = trajectory(torch, getattr(torch.optim, name), kw, steps, groups, dtype)
    np.testing.assert_allclose(ours, ref, rtol=rtol, atol=rtol)


SGD_CASES = [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, nesterov=True),
             dict(lr=0.1, momentum=0.8, dampening=0.3), dict(lr=0.1, weight_decay=0.05),
             dict(lr=0.05, momentum=0.5, weight_decay=0.01, maximize=True)]
ADAM_CASES = [dict(lr=0.1), dict(lr=0.1, betas=(0.5, 0.7), eps=1e-3), dict(lr=0.1, amsgrad=True),
              dict(lr=0.1, weight_decay=0.1), dict(lr=0.1, weight_decay=0.1, amsgrad=True, maximize=True),
              dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True)]


@pytest.mark.task14_1
@pytest.mark.parametrize("groups", [False, True])
@pytest.mark.parametrize("kw", SGD_CASES, ids=str)
def test_sgd_trajectory(kw, groups):
    check("SGD", kw, groups)


@pytest.mark.task14_1
def test_sgd_float64_exact():
    check("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01), dtype="float64", rtol=1e-12)


@pytest.mark.task14_1
def test_sgd_state_keys():
    _, ours = trajectory(minitorch, optim.SGD, dict(lr=0.1, momentum=0.9), steps=2)
    _, ref = trajectory(torch, torch.optim.SGD, dict(lr=0.1, momentum=0.9), steps=2)
    assert {k: sorted(v) for k, v in ours.state_dict()["state"].items()} == \
           {k: sorted(v) for k, v in ref.state_dict()["state"].items()}
    _, plain = trajectory(minitorch, optim.SGD, dict(lr=0.1), steps=2)
    assert plain.state_dict()["state"] == {}          # like torch: plain SGD keeps no state


@pytest.mark.task14_2
@pytest.mark.parametrize("groups", [False, True])
@pytest.mark.parametrize("kw", ADAM_CASES, ids=str)
def test_adam_trajectory(kw, groups):
    check("Adam", kw, groups)


@pytest.mark.task14_2
@pytest.mark.parametrize("kw", [dict(lr=0.1), dict(lr=0.1, weight_decay=0.3, amsgrad=True)], ids=str)
def test_adamw_trajectory(kw):
    check("AdamW", kw, groups=True)


@pytest.mark.task14_2
def test_adam_float64_exact():
    check("Adam", dict(lr=0.1, amsgrad=True, weight_decay=0.1), dtype="float64", rtol=1e-12)


@pytest.mark.task14_2
def test_adam_state_matches_torch():
    _, ours = trajectory(minitorch, optim.Adam, dict(lr=0.1, amsgrad=True), steps=3)
    _, ref = trajectory(torch, torch.optim.Adam, dict(lr=0.1, amsgrad=True), steps=3)
    for k, st in ref.state_dict()["state"].items():
        mine = ours.state_dict()["state"][k]
        assert sorted(mine) == sorted(st)
        for key, v in st.items():
            np.testing.assert_allclose(mine[key].numpy(), v.numpy(), rtol=1e-5, atol=1e-7)
        assert str(mine["step"].dtype) == "minitorch.float32" and mine["step"].item() == 3


@pytest.mark.parametrize("kw", [dict(lr=0.01), dict(lr=0.01, momentum=0.5), dict(lr=0.01, centered=True),
                                dict(lr=0.01, alpha=0.9, momentum=0.3, centered=True, weight_decay=0.1)],
                         ids=str)
def test_rmsprop_trajectory(kw):
    check("RMSprop", kw, groups=True)


def test_zero_grad():
    w = minitorch.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad is not None and w.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None
    opt.step()                                    # no grad: nothing moves
    assert w.tolist() == [1.0, 2.0]


def test_closure_and_no_grad_step():
    w = minitorch.tensor([3.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    loss = opt.step(closure)
    assert loss.item() == 9.0 and w.tolist() == [1.5] and w.grad_fn is None and w.is_leaf


def test_add_param_group_and_errors():
    a, b = minitorch.zeros(2, requires_grad=True), minitorch.zeros(3, requires_grad=True)
    opt = optim.Adam([a], lr=0.1)
    opt.add_param_group({"params": b, "lr": 0.01})
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01]
    assert opt.param_groups[1]["betas"] == (0.9, 0.999)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        optim.SGD(a, lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([a * 2], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -0.1"):
        optim.Adam([a], lr=-0.1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        optim.Adam([a], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD([a], lr=0.1, nesterov=True)


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.1, amsgrad=True)),
                                     ("AdamW", dict(lr=0.1)), ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True))])
def test_state_dict_round_trip(name, kw, tmp_path):
    "Continue from a state dict (also through minitorch.save/load): same trajectory as without a break."
    full, _ = trajectory(minitorch, getattr(optim, name), kw, steps=6, groups=True)
    rng = np.random.default_rng(0)
    x = minitorch.tensor(rng.standard_normal((3, 4)).astype("float32"), requires_grad=True)
    y = minitorch.tensor(rng.standard_normal(5).astype("float32"), requires_grad=True)

    def run(opt, n):
        for _ in range(n):
            opt.zero_grad()
            ((x * x).sum() * 0.5 + (y * y * y * y).sum() * 0.25 + (x * 3.0).sum()).backward()
            opt.step()
    opt = getattr(optim, name)([{"params": [x]}, {"params": [y], "lr": 0.05}], **kw)
    run(opt, 3)
    from minitorch.serialization import save, load
    save(opt.state_dict(), tmp_path / "opt.pt")
    opt2 = getattr(optim, name)([{"params": [x]}, {"params": [y]}], lr=123.0)
    opt2.load_state_dict(load(tmp_path / "opt.pt"))
    assert opt2.param_groups[1]["lr"] == 0.05 and opt2.param_groups[0]["params"][0] is x
    run(opt2, 3)
    np.testing.assert_allclose(np.concatenate([x.detach().numpy().ravel(), y.detach().numpy().ravel()]),
                               full[-1], rtol=1e-6, atol=1e-6)


def test_load_state_dict_mismatch_changes_nothing():
    a = minitorch.zeros(2, requires_grad=True)
    opt = optim.SGD([a], lr=0.1, momentum=0.9)
    before = opt.state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict({"state": {}, "param_groups": [{**before["param_groups"][0], "params": [0, 1]}]})
    assert opt.state_dict() == before


def lrs(lib, make, steps=30, opt="SGD"):
    "The sequence of get_last_lr() (and momentum/betas of group 0) of a scheduler."
    ps = [lib.tensor([1.0], requires_grad=True), lib.tensor([2.0], requires_grad=True)]
    o = getattr(lib.optim, opt)([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.5}], lr=0.1,
                                **({"momentum": 0.9} if opt == "SGD" else {}))
    s = make(lib.optim.lr_scheduler, o)
    out = []
    for _ in range(steps):
        g = o.param_groups[0]
        out.append(list(s.get_last_lr()) + [g.get("momentum", g.get("betas"))])
        o.step()
        s.step()
    return out


SCHEDULERS = {
    "StepLR": lambda m, o: m.StepLR(o, 3, gamma=0.5),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, [2, 5, 5, 9], 0.3),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, 0.9),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, 7, eta_min=0.01),
    "LambdaLR": lambda m, o: m.LambdaLR(o, lambda e: 1 / (e + 1)),
    "LambdaLR-per-group": lambda m, o: m.LambdaLR(o, [lambda e: 0.9 ** e, lambda e: e]),
    "OneCycleLR": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=30),
    "OneCycleLR-3phase-linear": lambda m, o: m.OneCycleLR(o, 1.0, epochs=3, steps_per_epoch=10, three_phase=True,
                                                          anneal_strategy="linear"),
}


@pytest.mark.parametrize("opt", ["SGD", "Adam"])
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_sequence_equals_torch(name, opt):
    assert lrs(minitorch, SCHEDULERS[name], opt=opt) == lrs(torch, SCHEDULERS[name], opt=opt)


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "CosineAnnealingLR", "OneCycleLR-3phase-linear"])
def test_scheduler_state_dict(name):
    o = optim.SGD([minitorch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    s = SCHEDULERS[name](lr_scheduler, o)
    for _ in range(4):
        o.step()
        s.step()
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 4
    tsd = SCHEDULERS[name](torch.optim.lr_scheduler,
                           torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)).state_dict()
    assert set(tsd) - {"_get_lr_called_within_step", "verbose", "_is_initial"} <= set(sd) | {"_get_lr_called_within_step"}
    o2 = optim.SGD([minitorch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    s2 = SCHEDULERS[name](lr_scheduler, o2)
    s2.load_state_dict(sd)
    o2.load_state_dict(o.state_dict())
    for _ in range(5):
        o.step(); s.step(); o2.step(); s2.step()
        assert s.get_last_lr() == s2.get_last_lr()


def test_scheduler_errors():
    with pytest.raises(TypeError, match="is not an Optimizer"):
        lr_scheduler.StepLR(object(), 3)
    o = optim.Adam([minitorch.zeros(1, requires_grad=True)])
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        lr_scheduler.OneCycleLR(o, 1.0)
    s = lr_scheduler.OneCycleLR(o, 1.0, total_steps=2)
    s.step()
    s.step()
    with pytest.raises(ValueError, match="Tried to step 3 times"):
        s.step()
