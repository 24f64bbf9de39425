"""`minitorch.accelerator` and the `backends.cudnn` / `.mps` / `.cuda` switches (nbs/12h_api_compat), against torch on
this CPU-only machine (minitorch.cuda.is_available() is False here unless NUMBA_ENABLE_CUDASIM=1 is set)."""
import warnings

import pytest
import torch

import minitorch

NO_GPU = not minitorch.cuda.is_available()


def test_importable_at_torch_paths():
    import minitorch.accelerator as acc
    import minitorch.backends.cudnn as cudnn
    import minitorch.backends.mps
    import minitorch.backends.cuda
    assert acc is minitorch.accelerator and cudnn is minitorch.backends.cudnn
    assert minitorch.backends.NumpyBackend  # the kernel-backend module is still there


@pytest.mark.skipif(not NO_GPU or torch.accelerator.is_available(), reason="compares CPU-only answers")
def test_accelerator_questions_match_torch():
    for name in ("is_available", "current_accelerator", "device_count"):
        assert getattr(minitorch.accelerator, name)() == getattr(torch.accelerator, name)()
    assert minitorch.accelerator.current_accelerator(check_available=True) is None


@pytest.mark.skipif(not NO_GPU or torch.accelerator.is_available(), reason="compares CPU-only answers")
@pytest.mark.parametrize("call", ["current_device_index()", "set_device_index(0)", "synchronize()",
                                  "set_device_index('cuda:0')", "synchronize(0)",
                                  "synchronize('cuda')", "set_device_index('cpu')"])
def test_accelerator_without_device_raises_as_torch(call):
    with pytest.raises(RuntimeError) as theirs:
        eval("torch.accelerator." + call)
    with pytest.raises(RuntimeError) as ours:
        eval("minitorch.accelerator." + call)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.skipif(not NO_GPU, reason="CPU-only answers")
def test_accelerator_deprecated_names_and_device_index():
    for name, args in (("current_device_idx", ()), ("set_device_idx", (0,))):
        for lib in (torch, minitorch):
            with pytest.warns(FutureWarning), pytest.raises(RuntimeError):
                getattr(lib.accelerator, name)(*args)
    with minitorch.accelerator.device_index(None):
        pass
    with pytest.raises(RuntimeError), minitorch.accelerator.device_index(0):
        pass


def test_accelerator_idiom_picks_cpu_here():
    dev = minitorch.accelerator.current_accelerator() if minitorch.accelerator.is_available() else "cpu"
    assert str(minitorch.zeros(1, device=dev).device) == ("cuda:0" if minitorch.cuda.is_available() else "cpu")


def test_cudnn_defaults_match_torch():
    for name in ("enabled", "benchmark", "deterministic", "allow_tf32", "benchmark_limit"):
        assert getattr(minitorch.backends.cudnn, name) == getattr(torch.backends.cudnn, name), name
    assert minitorch.backends.cudnn.is_available() is torch.backends.cudnn.is_available() is False
    assert minitorch.backends.cudnn.version() is torch.backends.cudnn.version() is None
    assert minitorch.backends.cudnn.is_acceptable(minitorch.zeros(1)) is False


def test_cudnn_flags_settable_and_restored():
    c = minitorch.backends.cudnn
    c.benchmark = True
    try:
        assert c.benchmark is True
        with c.flags(enabled=False, benchmark=False, deterministic=True):
            assert (c.enabled, c.benchmark, c.deterministic) == (False, False, True)
        assert (c.enabled, c.benchmark, c.deterministic) == (True, True, False)
    finally:
        c.benchmark = False


def test_mps_and_cuda_builds_match_torch():
    assert minitorch.backends.mps.is_available() is torch.backends.mps.is_available() is False
    assert minitorch.backends.mps.is_built() is torch.backends.mps.is_built()
    assert minitorch.backends.cuda.is_built() is True


def test_matmul_flags_match_torch():
    ours, theirs = minitorch.backends.cuda.matmul, torch.backends.cuda.matmul
    for name in ("allow_tf32", "allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
        assert getattr(ours, name) == getattr(theirs, name), name
    ours.allow_tf32 = True
    assert ours.allow_tf32 is True
    ours.allow_tf32 = False
    for lib in (ours, theirs):
        with pytest.raises(AttributeError, match="Unknown attribute allow_tf33"):
            lib.allow_tf33 = True
        with pytest.raises(AttributeError, match="Unknown attribute foo"):
            lib.foo


def test_set_device_index_none_is_a_value_error():
    for lib in (torch, minitorch):
        with pytest.raises(ValueError, match="Expected a torch.device with a specified index or an integer"):
            lib.accelerator.set_device_index(None)


# ---- nn.EmbeddingBag, nn.LocalResponseNorm -------------------------------------------------------------------

import numpy as np
import minitorch.nn.functional as mF
import torch.nn.functional as tF


def pair(t, grad=False):
    "A torch tensor and a minitorch copy of it."
    return minitorch.tensor(t.detach().numpy(), requires_grad=grad)


def check_bag(ids, offsets, **kw):
    torch.manual_seed(0)
    w = torch.randn(12, 4, requires_grad=True)
    mw = pair(w, True)
    psw = kw.pop("psw", None)
    ti = torch.tensor(ids)
    to = None if offsets is None else torch.tensor(offsets)
    tp = None if psw is None else torch.tensor(psw, requires_grad=True)
    mp = None if psw is None else pair(tp, True)
    theirs = tF.embedding_bag(ti, w, to, per_sample_weights=tp, **kw)
    ours = mF.embedding_bag(minitorch.tensor(ids), mw, None if offsets is None else minitorch.tensor(offsets),
                            per_sample_weights=mp, **kw)
    torch.testing.assert_close(torch.tensor(ours.detach().numpy()), theirs.detach())
    g = torch.randn(theirs.shape)
    theirs.backward(g)
    ours.backward(minitorch.tensor(g.numpy()))
    torch.testing.assert_close(torch.tensor(mw.grad.numpy()), w.grad)
    if psw is not None:
        torch.testing.assert_close(torch.tensor(mp.grad.numpy()), tp.grad)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4, -8])
def test_embedding_bag_offsets(mode, padding_idx):
    check_bag([1, 2, 4, 5, 4, 3, 2, 9, 4, 4, 7], [0, 4, 4, 8], mode=mode, padding_idx=padding_idx)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_and_last_offset(mode):
    check_bag([[1, 2, 3], [3, 3, 0]], None, mode=mode)
    check_bag([1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 8], mode=mode, include_last_offset=True)


def test_embedding_bag_per_sample_weights():
    check_bag([1, 2, 4, 5, 4, 3], [0, 2], mode="sum", psw=[0.5, 1.0, -2.0, 3.0, 0.25, 1.5])


def test_embedding_bag_module_matches_torch():
    torch.manual_seed(1)
    theirs = torch.nn.EmbeddingBag(10, 3, mode="max", padding_idx=0)
    ours = minitorch.nn.EmbeddingBag(10, 3, mode="max", padding_idx=0)
    assert repr(ours) == repr(theirs) and repr(minitorch.nn.EmbeddingBag(10, 3)) == repr(torch.nn.EmbeddingBag(10, 3))
    assert float(ours.weight[0].abs().sum()) == 0.0
    ours.load_state_dict({"weight": pair(theirs.weight)})
    x = torch.tensor([[0, 1, 2], [3, 0, 9]])
    torch.testing.assert_close(torch.tensor(ours(minitorch.tensor(x.tolist())).detach().numpy()), theirs(x).detach())
    frozen = minitorch.nn.EmbeddingBag.from_pretrained(minitorch.ones(4, 2), mode="sum")
    assert frozen.weight.requires_grad is False and frozen(minitorch.tensor([[1, 2]])).tolist() == [[2.0, 2.0]]


@pytest.mark.parametrize("call, exc", [
    ("embedding_bag(I, W, O, mode='mean', per_sample_weights=lib.ones(8))", NotImplementedError),
    ("embedding_bag(I.view(2, 4), W, O)", ValueError),
    ("embedding_bag(I, W)", ValueError),
    ("embedding_bag(I, W, O, mode='foo')", ValueError),
    ("embedding_bag(I.view(1, 1, 8), W)", ValueError),
    ("embedding_bag(I.float(), W, O)", RuntimeError),
    ("embedding_bag(I, W, lib.tensor([1, 4]))", RuntimeError),
    ("embedding_bag(I, W, lib.tensor([0, 9]))", RuntimeError),
    ("embedding_bag(lib.tensor([1, 11]), W, lib.tensor([0]))", RuntimeError),
])
def test_embedding_bag_errors_match_torch(call, exc):
    msgs = []
    for lib, F in ((torch, tF), (minitorch, mF)):
        env = {"lib": lib, "I": lib.tensor([1, 2, 4, 5, 4, 3, 2, 9]), "W": lib.ones(10, 3), "O": lib.tensor([0, 4])}
        with pytest.raises(exc) as e:
            eval("F." + call, {"F": F, **env})
        msgs.append(str(e.value).split("\n")[0].replace("<class 'minitorch.tensors.Tensor'>", "<class 'torch.Tensor'>"))
    if "FloatTensor" in msgs[0]:   # torch names the tensor type, minitorch its dtype
        assert msgs[1].startswith(msgs[0].split("but got")[0])
    else:
        assert msgs[1] == msgs[0]


@pytest.mark.parametrize("shape", [(2, 5, 7), (2, 6, 4, 5), (1, 4, 2, 3, 2)])
@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_local_response_norm_matches_torch(shape, size):
    torch.manual_seed(2)
    x = torch.randn(shape, requires_grad=True)
    mx = pair(x, True)
    theirs = torch.nn.LocalResponseNorm(size, alpha=0.1, beta=0.75, k=2.0)(x)
    ours = minitorch.nn.LocalResponseNorm(size, alpha=0.1, beta=0.75, k=2.0)(mx)
    torch.testing.assert_close(torch.tensor(ours.detach().numpy()), theirs.detach())
    theirs.sum().backward()
    ours.sum().backward()
    torch.testing.assert_close(torch.tensor(mx.grad.numpy()), x.grad)
    assert repr(minitorch.nn.LocalResponseNorm(size)) == repr(torch.nn.LocalResponseNorm(size))


def test_local_response_norm_rejects_2d():
    for lib, F in ((torch, tF), (minitorch, mF)):
        with pytest.raises(ValueError, match=r"Expected 3D or higher dimensionality\s+input \(got 2 dimensions\)"):
            F.local_response_norm(lib.ones(2, 3), 2)


# ---- 3-D and circular padding modules ----------------------------------------------------------------------------

PADS = [("ConstantPad3d", (1, 2.5), 5), ("ConstantPad3d", ((1, 0, 2, 1, 0, 2), -1.0), 4), ("ZeroPad3d", (2,), 5),
        ("ReflectionPad3d", ((1, 2, 0, 1, 2, 1),), 5), ("ReplicationPad3d", (2,), 4), ("CircularPad1d", (2,), 3),
        ("CircularPad1d", ((1, 3),), 2), ("CircularPad2d", ((2, 1, 0, 2),), 4), ("CircularPad3d", (1,), 5),
        ("CircularPad3d", ((1, 2, 0, 1, 2, 0),), 4)]


@pytest.mark.parametrize("name, args, ndim", PADS)
def test_padding_modules_match_torch(name, args, ndim):
    torch.manual_seed(5)
    x = torch.randn((2, 3, 4, 5, 4)[5 - ndim:], requires_grad=True)
    mx = pair(x, True)
    theirs, ours = getattr(torch.nn, name)(*args), getattr(minitorch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    t, o = theirs(x), ours(mx)
    torch.testing.assert_close(torch.tensor(o.detach().numpy()), t.detach(), rtol=0, atol=0)
    g = torch.randn(t.shape)
    t.backward(g)
    o.backward(minitorch.tensor(g.numpy()))
    torch.testing.assert_close(torch.tensor(mx.grad.numpy()), x.grad)


@pytest.mark.parametrize("name, shape", [("CircularPad1d", (3,)), ("CircularPad2d", (3, 3)), ("CircularPad3d", (3, 3, 3))])
def test_circular_pad_rank_errors_match_torch(name, shape):
    msgs = []
    for lib in (torch, minitorch):
        with pytest.raises(ValueError) as e:
            getattr(lib.nn, name)(1)(lib.ones(*shape))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# ---- MultiMarginLoss, TripletMarginWithDistanceLoss ---------------------------------------------------------------

@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("batched", [True, False])
def test_multi_margin_loss_matches_torch(p, reduction, weighted, batched):
    torch.manual_seed(6)
    x = torch.randn((5, 4) if batched else (4,), requires_grad=True)
    y = torch.tensor([0, 3, 1, 1, 2]) if batched else torch.tensor(2)
    w = torch.rand(4) if weighted else None
    mx = pair(x, True)
    mw = None if w is None else pair(w)
    theirs = torch.nn.MultiMarginLoss(p=p, margin=0.7, weight=w, reduction=reduction)(x, y)
    ours = minitorch.nn.MultiMarginLoss(p=p, margin=0.7, weight=mw, reduction=reduction)(mx, minitorch.tensor(y.tolist()))
    assert tuple(ours.shape) == tuple(theirs.shape)
    torch.testing.assert_close(torch.tensor(ours.detach().numpy()), theirs.detach())
    g = torch.randn(theirs.shape)
    theirs.backward(g)
    ours.backward(minitorch.tensor(g.numpy()))
    torch.testing.assert_close(torch.tensor(mx.grad.numpy()), x.grad)


@pytest.mark.parametrize("call, exc", [
    ("F.multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 5, 1]))", RuntimeError),
    ("F.multi_margin_loss(lib.ones(3, 4, 2), lib.tensor([0, 1, 1]))", RuntimeError),
    ("F.multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 1]))", RuntimeError),
    ("F.multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 1, 1]), weight=lib.ones(3))", RuntimeError),
    ("F.multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 1, 1]), p=3)", ValueError),
    ("F.multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 1, 1]), reduction='avg')", ValueError),
    ("lib.nn.MultiMarginLoss(weight=lib.ones(2, 2))", ValueError),
    ("F.triplet_margin_with_distance_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(3))", RuntimeError),
    ("F.triplet_margin_with_distance_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3), margin=0)", ValueError),
    ("F.triplet_margin_with_distance_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3), reduction='x')", ValueError),
    ("lib.nn.TripletMarginWithDistanceLoss(margin=-1)", ValueError),
])
def test_margin_loss_errors_match_torch(call, exc):
    msgs = []
    for lib, F in ((torch, tF), (minitorch, mF)):
        with pytest.raises(exc) as e:
            eval(call, {"lib": lib, "F": F})
        msgs.append(str(e.value))
    assert msgs[1] == msgs[0]


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("dist", [None, "cosine"])
def test_triplet_margin_with_distance_loss_matches_torch(swap, reduction, dist):
    torch.manual_seed(7)
    a, p, n = (torch.randn(6, 5, requires_grad=True) for _ in range(3))
    ma, mp, mn = (pair(t, True) for t in (a, p, n))
    tdist = None if dist is None else (lambda u, v: 1.0 - tF.cosine_similarity(u, v))
    mdist = None if dist is None else (lambda u, v: 1.0 - mF.cosine_similarity(u, v))
    theirs = torch.nn.TripletMarginWithDistanceLoss(distance_function=tdist, margin=1.5, swap=swap, reduction=reduction)
    ours = minitorch.nn.TripletMarginWithDistanceLoss(distance_function=mdist, margin=1.5, swap=swap, reduction=reduction)
    if dist is None:
        assert repr(ours) == repr(theirs)
    t, o = theirs(a, p, n), ours(ma, mp, mn)
    torch.testing.assert_close(torch.tensor(o.detach().numpy()), t.detach())
    g = torch.randn(t.shape)
    t.backward(g)
    o.backward(minitorch.tensor(g.numpy()))
    for mine, ref in ((ma, a), (mp, p), (mn, n)):
        torch.testing.assert_close(torch.tensor(mine.grad.numpy()), ref.grad)


# ---- LazyConvTranspose1d / 2d ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, shape, kw", [
    ("LazyConvTranspose2d", (2, 6, 5, 5), dict(stride=2, groups=2)),
    ("LazyConvTranspose2d", (6, 4, 3), dict(padding=1, output_padding=1, stride=2, bias=False)),
    ("LazyConvTranspose1d", (2, 3, 7), dict(dilation=2)),
])
def test_lazy_conv_transpose_matches_torch(name, shape, kw):
    torch.manual_seed(8)
    theirs, ours = getattr(torch.nn, name)(4, 3, **kw), getattr(minitorch.nn, name)(4, 3, **kw)
    assert repr(ours) == repr(theirs)
    x = torch.randn(shape, requires_grad=True)
    mx = pair(x, True)
    t, o = theirs(x), ours(mx)   # the first call materialises the weights
    assert type(ours).__name__ == type(theirs).__name__ and repr(ours) == repr(theirs)
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
    fan_in = ours.weight.shape[1] * int(np.prod(ours.weight.shape[2:]))
    assert float(ours.weight.abs().max()) <= 1 / fan_in ** 0.5 and float(ours.weight.abs().max()) > 0
    ours.load_state_dict({k: pair(v) for k, v in theirs.state_dict().items()})
    t, o = theirs(x), ours(mx)
    torch.testing.assert_close(torch.tensor(o.detach().numpy()), t.detach())
    t.sum().backward()
    o.sum().backward()
    torch.testing.assert_close(torch.tensor(mx.grad.numpy()), x.grad)


def test_accelerator_under_the_simulator_is_cuda():
    "With NUMBA_ENABLE_CUDASIM=1 (a fresh process), minitorch.cuda is available and the accelerator is cuda."
    import os
    import subprocess
    import sys
    code = ("import minitorch as m; a = m.accelerator\n"
            "assert a.is_available() and a.current_accelerator() == m.device('cuda') and a.device_count() == 1\n"
            "assert a.current_device_index() == 0; a.set_device_index('cuda:0'); a.synchronize()\n"
            "with a.device_index(0): pass\n"
            "try: a.set_device_index(1)\n"
            "except RuntimeError as e: assert 'invalid device ordinal' in str(e)\n"
            "else: raise AssertionError('index 1 accepted')\n"
            "assert m.ones(2, device=a.current_accelerator()).sum().item() == 2.0\n")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env.pop("MINITORCH_CUDASIM_AUTO", None)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


# ---- pdist -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0.5, 1, 2, 3, float("inf")])
@pytest.mark.parametrize("n", [1, 2, 5])
def test_pdist_matches_torch(p, n):
    torch.manual_seed(9)
    x = torch.randn(n, 4, dtype=torch.float64)
    if n == 5:
        x.data[3] = x.data[1]   # a coincident pair: the gradient there is 0 in both
    x.requires_grad_(True)
    mx = pair(x, True)
    t, o = torch.pdist(x, p), minitorch.pdist(mx, p)
    assert tuple(o.shape) == tuple(t.shape) and o.dtype == minitorch.float64
    torch.testing.assert_close(torch.tensor(o.detach().numpy()), t.detach())
    assert mF.pdist is minitorch.pdist
    if t.numel():
        g = torch.rand(t.shape, dtype=torch.float64)
        t.backward(g)
        o.backward(minitorch.tensor(g.numpy()))
        torch.testing.assert_close(torch.tensor(mx.grad.numpy()), x.grad)


@pytest.mark.parametrize("call", ["pdist(lib.ones(2, 3, 4))", "pdist(lib.ones(3, 4), p=-1)",
                                  "pdist(lib.ones(3, 4).long())"])
def test_pdist_errors_match_torch(call):
    msgs = []
    for lib in (torch, minitorch):
        with pytest.raises(RuntimeError) as e:
            eval("lib." + call, {"lib": lib})
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# ---- nn.DataParallel ---------------------------------------------------------------------------------------------
@pytest.mark.skipif(not NO_GPU, reason="torch's CPU-only behaviour")
def test_data_parallel_without_gpu_is_the_module():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    mm = minitorch.nn.Sequential(minitorch.nn.Linear(3, 4), minitorch.nn.ReLU(), minitorch.nn.Linear(4, 2))
    mm.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    tw, mw = torch.nn.DataParallel(tm), minitorch.nn.DataParallel(mm)
    assert repr(mw) == repr(tw) and mw.device_ids == tw.device_ids == []
    assert list(mw.state_dict()) == list(tw.state_dict())
    x = torch.randn(5, 3)
    t, o = tw(x), mw(minitorch.tensor(x.numpy()))
    torch.testing.assert_close(torch.tensor(o.detach().numpy()), t.detach())
    t.sum().backward(); o.sum().backward()
    torch.testing.assert_close(torch.tensor(mm[0].weight.grad.numpy()), tm[0].weight.grad)
    with pytest.raises(RuntimeError, match="device type could not be determined"): torch.nn.parallel.data_parallel(tm, x)
    with pytest.raises(RuntimeError, match="device type could not be determined"):
        minitorch.nn.parallel.data_parallel(mm, minitorch.tensor(x.numpy()))
    from minitorch.nn.parallel.data_parallel import DataParallel
    assert DataParallel is minitorch.nn.DataParallel is minitorch.nn.parallel.DataParallel


def test_data_parallel_under_the_simulator_moves_to_device_0():
    "With a (simulated) GPU the module moves to cuda:0, inputs follow, and a module left on the CPU is refused."
    import os
    import subprocess
    import sys
    code = ("import minitorch as m\n"
            "w = m.nn.DataParallel(m.nn.Linear(3, 2))\n"
            "assert w.device_ids == [0] and w.module.weight.device == m.device('cuda', 0)\n"
            "y = w(m.ones(4, 3)); assert y.device == m.device('cuda', 0) and y.shape == (4, 2)\n"
            "assert m.nn.parallel.data_parallel(w.module, m.ones(4, 3)).device == m.device('cuda', 0)\n"
            "w.module.to('cpu')\n"
            "try: w(m.ones(4, 3))\n"
            "except RuntimeError as e: assert 'module must have its parameters and buffers on device cuda:0' in str(e)\n"
            "else: raise AssertionError('cpu module accepted')\n")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env.pop("MINITORCH_CUDASIM_AUTO", None)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


# ---- ops shared by torch and torch.nn.functional -----------------------------------------------------------------
SHARED = """adaptive_avg_pool1d avg_pool1d bilinear celu_ channel_shuffle conv1d conv2d conv3d conv_transpose1d conv_transpose2d
conv_transpose3d cosine_similarity hardshrink pairwise_distance pixel_shuffle pixel_unshuffle prelu relu_ rrelu_ selu_
threshold_""".split()


@pytest.mark.parametrize('name', SHARED)
def test_top_level_names_are_the_functional_ones(name):
    assert getattr(torch, name) is getattr(torch.nn.functional, name)
    assert getattr(minitorch, name) is getattr(minitorch.nn.functional, name)


def test_top_level_conv2d_runs_as_torch():
    torch.manual_seed(0)
    x, w = torch.randn(2, 4, 7, 6), torch.randn(6, 2, 3, 3)
    ours = minitorch.conv2d(minitorch.tensor(x.numpy()), minitorch.tensor(w.numpy()), None, 2, 1, 1, 2)
    torch.testing.assert_close(torch.tensor(ours.numpy()), torch.conv2d(x, w, None, 2, 1, 1, 2), rtol=1e-5, atol=1e-5)
    y = torch.randn(3, 5)
    ours = minitorch.relu_(minitorch.tensor(y.numpy()))
    torch.testing.assert_close(torch.tensor(ours.numpy()), torch.relu_(y.clone()))
