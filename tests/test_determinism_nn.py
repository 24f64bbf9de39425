"""Backward kernels PyTorch alerts on under `use_deterministic_algorithms(True)` (cuda only), issue 15.

The names are those PyTorch's C++ passes to `alertNotDeterministic` in aten/src/ATen/native/cuda (the functional
backward where both an `_out` and a functional variant alert). torch has no cuda here, so the cuda cases check
minitorch's message against torch's template; the cpu cases check that neither library alerts."""
import warnings
import pytest
import torch
import minitorch
import minitorch.nn.functional as F
import torch.nn.functional as TF

MSG = ("{} does not have a deterministic implementation, but you set 'torch.use_deterministic_algorithms(True)'. "
       "You can turn off determinism just for this operation, or you can use the 'warn_only=True' option, if that's "
       "acceptable for your application. You can also file an issue at https://github.com/pytorch/pytorch/issues to "
       "help us prioritize adding deterministic support for this operation.")

CASES = [   # (caller, input shape, f(F, x))
    ('avg_pool3d_backward_cuda', (1, 2, 4, 4, 4), lambda F, x: F.avg_pool3d(x, 2)),
    ('adaptive_avg_pool2d_backward_cuda', (1, 2, 5, 5), lambda F, x: F.adaptive_avg_pool2d(x, 3)),
    ('adaptive_avg_pool2d_backward_cuda', (1, 2, 5), lambda F, x: F.adaptive_avg_pool1d(x, 3)),
    ('adaptive_avg_pool3d_backward_cuda', (1, 2, 5, 5, 5), lambda F, x: F.adaptive_avg_pool3d(x, 3)),
    ('adaptive_max_pool2d_backward_cuda', (1, 2, 5, 5), lambda F, x: F.adaptive_max_pool2d(x, 3)),
    ('adaptive_max_pool2d_backward_cuda', (1, 2, 5), lambda F, x: F.adaptive_max_pool1d(x, 3)),
    ('upsample_linear1d_backward_out_cuda', (1, 2, 4), lambda F, x: F.interpolate(x, scale_factor=2, mode='linear')),
    ('upsample_bilinear2d_backward_out_cuda', (1, 2, 3, 3),
     lambda F, x: F.interpolate(x, size=(5, 4), mode='bilinear', align_corners=True)),
    ('reflection_pad1d_backward_out_cuda', (1, 2, 4), lambda F, x: F.pad(x, (2, 1), mode='reflect')),
    ('reflection_pad2d_backward_cuda', (1, 2, 4, 4), lambda F, x: F.pad(x, (1, 1, 2, 0), mode='reflect')),
    ('reflection_pad3d_backward_out_cuda', (1, 2, 3, 3, 3), lambda F, x: F.pad(x, (1,) * 6, mode='reflect')),
    ('replication_pad1d_backward_cuda', (1, 2, 4), lambda F, x: F.pad(x, (2, 1), mode='replicate')),
    ('replication_pad2d_backward_cuda', (1, 2, 4, 4), lambda F, x: F.pad(x, (1, 1, 2, 0), mode='replicate')),
    ('replication_pad3d_backward_cuda', (1, 2, 3, 3, 3), lambda F, x: F.pad(x, (1,) * 6, mode='replicate')),
]
IDS = [f"{c}-{len(s)}d" for c, s, _ in CASES]

QUIET = [   # cuda backwards PyTorch does not alert on (a mean() shortcut, a 3-d kernel without the alarm, ...)
    ((1, 2, 5, 5), lambda F, x: F.adaptive_avg_pool2d(x, 1)),
    ((1, 2, 5, 5, 5), lambda F, x: F.adaptive_avg_pool3d(x, 1)),
    ((1, 2, 5, 5, 5), lambda F, x: F.adaptive_max_pool3d(x, 3)),
    ((1, 2, 4, 4), lambda F, x: F.interpolate(x, scale_factor=2, mode='nearest')),
    ((1, 2, 4, 4), lambda F, x: F.pad(x, (1, 1, 1, 1), mode='circular')),
    ((1, 2, 4, 4, 4), lambda F, x: F.avg_pool2d(x[0], 2)),
]


@pytest.fixture(autouse=True)
def _mode_off():
    yield
    minitorch.use_deterministic_algorithms(False)
    torch.use_deterministic_algorithms(False)


def _cuda_leaf(shape):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')   # the simulator's warnings
        return minitorch.arange(int(torch.tensor(shape).prod()), dtype=minitorch.float32, device='cuda') \
            .reshape(shape).detach().requires_grad_(True)


@pytest.mark.parametrize('caller,shape,f', CASES, ids=IDS)
def test_cuda_backward_raises(caller, shape, f):
    x = _cuda_leaf(shape)
    minitorch.use_deterministic_algorithms(True)
    y = f(F, x)                                          # the forward does not alert (as in PyTorch) ...
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()                               # ... the backward does
    assert str(e.value) == MSG.format(caller)


@pytest.mark.parametrize('caller,shape,f', CASES, ids=IDS)
def test_cuda_backward_warn_only(caller, shape, f):
    x = _cuda_leaf(shape)
    minitorch.use_deterministic_algorithms(True, warn_only=True)
    y = f(F, x)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        y.sum().backward()
    msgs = [str(m.message) for m in w if issubclass(m.category, UserWarning) and 'deterministic' in str(m.message)]
    assert len(msgs) == 1 and msgs[0].startswith(f"{caller} does not have a deterministic implementation, but you "
                                                 "set 'torch.use_deterministic_algorithms(True, warn_only=True)'")
    minitorch.use_deterministic_algorithms(False)
    x2 = _cuda_leaf(shape)
    f(F, x2).sum().backward()
    torch.testing.assert_close(torch.tensor(x.grad.cpu().numpy()), torch.tensor(x2.grad.cpu().numpy()))


@pytest.mark.parametrize('caller,shape,f', CASES, ids=IDS)
def test_cuda_mode_off_or_no_grad_is_quiet(caller, shape, f):
    x = _cuda_leaf(shape)
    f(F, x).sum().backward()                             # mode off: nothing
    minitorch.use_deterministic_algorithms(True)
    with minitorch.no_grad(): f(F, x)                    # no graph: nothing to alert
    f(F, x.detach()).sum()                               # no gradient wanted


@pytest.mark.parametrize('caller,shape,f', CASES, ids=IDS)
def test_cpu_no_alert_like_torch(caller, shape, f):
    minitorch.use_deterministic_algorithms(True); torch.use_deterministic_algorithms(True)
    xt = torch.arange(int(torch.tensor(shape).prod()), dtype=torch.float32).reshape(shape).requires_grad_(True)
    f(TF, xt).sum().backward()                           # torch: no alert on cpu
    x = minitorch.tensor(xt.detach().numpy(), requires_grad=True)
    f(F, x).sum().backward()
    torch.testing.assert_close(torch.tensor(x.grad.numpy()), xt.grad)


@pytest.mark.parametrize('shape,f', QUIET)
def test_cuda_quiet_backwards(shape, f):
    x = _cuda_leaf(shape)
    minitorch.use_deterministic_algorithms(True)
    f(F, x).sum().backward()


def test_mode_read_at_backward():
    "The mode is read when the backward runs, as in PyTorch: off in the forward, on in the backward alerts."
    x = _cuda_leaf((1, 2, 4, 4))
    y = F.adaptive_avg_pool2d(x, 3)
    minitorch.use_deterministic_algorithms(True)
    with pytest.raises(RuntimeError, match='adaptive_avg_pool2d_backward_cuda does not have'):
        y.sum().backward()


def test_embedding_bag_max_cuda_backward_alerts_as_torch():
    "torch's EmbeddingBag.cu alerts embedding_bag_backward_cuda_max in the max mode's backward; sum/mean and cpu do not."
    import minitorch.nn.functional as F
    w = minitorch.randn(6, 3, device="cuda", requires_grad=True)
    idx, off = minitorch.tensor([0, 2, 4, 5], device="cuda"), minitorch.tensor([0, 2], device="cuda")
    minitorch.use_deterministic_algorithms(True)
    try:
        F.embedding_bag(idx, w, off, mode="sum").sum().backward()   # no alert
        out = F.embedding_bag(idx, w, off, mode="max")              # the forward is quiet
        with pytest.raises(RuntimeError, match="embedding_bag_backward_cuda_max does not have a deterministic"):
            out.sum().backward()
        wc = minitorch.randn(6, 3, requires_grad=True)
        F.embedding_bag(idx.cpu(), wc, off.cpu(), mode="max").sum().backward()   # cpu: no alert
    finally:
        minitorch.use_deterministic_algorithms(False)
