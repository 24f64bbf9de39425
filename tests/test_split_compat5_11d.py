"""Issue 22, split of 11d_normalization: the replays of PyTorch's CPU normalization kernels (layer norm's
`_LayerNorm` and its pieces, `_GroupNormGrad`, `_BatchNormGrad`, `_fma`, `_lanes_sum`, ...) moved to 11da_norm_kernels
(minitorch.nn.norm_kernels). minitorch.nn.normalization keeps every name it had (the moved ones are the same objects,
imported back), and the new module does not import the old one at import time."""
import subprocess
import sys

import numpy as np
import torch

import minitorch
import minitorch.nn.normalization as old
import minitorch.nn.norm_kernels as new

# sorted(dir(minitorch.nn.normalization)) before the split
OLD_DIR = """
    Any F Function Sequence Tensor _BatchNormGrad _GroupNormGrad _LayerNorm _ScaleGrad _Value __all__ __builtins__
    __cached__ __doc__ __file__ __loader__ __name__ __package__ __spec__ _add_moments _alpha_apply _batch_norm_ops
    _bn_backward _bn_parts _bn_planes _bn_stats _bn_threads _bn_values _check_normalized_shape _check_p
    _embedding_renorm_ _f _feature_mask _fma _gn_backward _gn_moments _group_norm_check _group_norm_ops
    _half_batch_norm _in_float _instance_norm_check _is_half _lanes_sum _layer_norm_composite _ln_backward
    _ln_forward _ln_half _ln_kernel _moments _norm_kernel_check _spatial_warn alpha_dropout annotations batch_norm
    dropout dropout1d dropout2d dropout3d embedding feature_alpha_dropout group_norm instance_norm layer_norm math
    minitorch normalize np os rms_norm warnings
""".split()

MOVED = """_fma _add_moments _moments _lanes_sum _ln_forward _ln_backward _LayerNorm _ln_kernel _ln_half _gn_backward
    _gn_moments _GroupNormGrad _bn_threads _bn_parts _bn_stats _bn_backward _bn_planes _bn_values _BatchNormGrad""".split()


def test_old_module_keeps_every_name():
    missing = sorted(set(OLD_DIR) - set(dir(old)))
    assert not missing, missing


def test_moved_names_are_the_same_objects():
    import minitorch.cpu_bits as cpu_bits
    for n in MOVED:
        assert getattr(old, n) is getattr(new, n), n
        if n == '_bn_threads': assert new._bn_threads is cpu_bits._torch_threads   # one thread-count model (5a)
        else: assert getattr(new, n).__module__ == 'minitorch.nn.norm_kernels', n


def test_wrappers_stay_and_functional_points_at_them():
    for n in ('layer_norm', 'group_norm', 'batch_norm', '_layer_norm_composite', '_group_norm_ops', '_batch_norm_ops'):
        assert getattr(old, n).__module__ == 'minitorch.nn.normalization', n
        assert not hasattr(new, n), n
    for n in ('layer_norm', 'group_norm', 'batch_norm'):
        f = getattr(minitorch.nn.functional, n)   # (later chapters may wrap it: still the one defined in 11d)
        assert f.__module__ == 'minitorch.nn.normalization' and f.__qualname__ == n


def test_new_module_imports_alone_without_the_old():
    code = ("import sys, minitorch.nn.norm_kernels; "
            "print('minitorch.nn.norm_kernels' in sys.modules)")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == 'True', r.stderr
    src = open(new.__file__).read()
    top = [l for l in src.splitlines() if l.startswith(('import ', 'from '))]
    assert not any('normalization' in l for l in top), top


def test_layer_norm_kernel_still_bit_exact():
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(3, 7, generator=g) * 3 + 1).requires_grad_()
    w, b = torch.randn(7, generator=g).requires_grad_(), torch.randn(7, generator=g).requires_grad_()
    dy = torch.randn(3, 7, generator=g)
    y = torch.nn.functional.layer_norm(x, (7,), w, b)
    mx = minitorch.tensor(x.detach().numpy(), requires_grad=True)
    my = old.layer_norm(mx, (7,), minitorch.tensor(w.detach().numpy()), minitorch.tensor(b.detach().numpy()))
    (y * dy).sum().backward(); (my * minitorch.tensor(dy.numpy())).sum().backward()
    assert my.grad_fn.name() == y.grad_fn.name() == 'NativeLayerNormBackward0'
    assert np.array_equal(my.detach().numpy(), y.detach().numpy())
    assert np.array_equal(mx.grad.numpy(), x.grad.numpy())


def test_group_and_batch_norm_go_through_the_kernels():
    x = torch.randn(4, 6, 3, dtype=torch.float64).requires_grad_()
    mx = minitorch.tensor(x.detach().numpy(), requires_grad=True)
    assert old.group_norm(mx, 2).grad_fn.name() == torch.nn.functional.group_norm(x, 2).grad_fn.name()
    yb = torch.nn.functional.batch_norm(x, None, None, training=True)
    mb = old.batch_norm(mx, None, None, training=True)
    assert mb.grad_fn.name() == yb.grad_fn.name() == 'NativeBatchNormBackward0'
    torch.testing.assert_close(torch.from_numpy(mb.detach().numpy()), yb.detach())
