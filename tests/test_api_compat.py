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
