"""Chapters 08d and 12h were split in two (issue 22). The fused multiply-adds moved to `minitorch.multiply_add`
(nbs/08d0_multiply_add); `minitorch.fused_pointwise` (nbs/08d_more_ops) keeps the elementwise functions and re-exports
all of it. The layers of 12h (EmbeddingBag, LocalResponseNorm, paddings, losses, lazy transposed convolutions) moved
to `minitorch.nn.more_layers` (nbs/12g_more_layers); `minitorch.api_compat` (nbs/12h_api_compat) keeps the accelerator
and backend switches, DataParallel, pdist and the shared ops, and re-exports all of it. Every name the old modules had must still import from them, and be the same object as in the new module."""
import importlib, inspect
import pytest
import torch
import minitorch

FUSED_POINTWISE_NAMES = [
    'Any', 'Function', 'Sequence', 'Tensor', '_Addbmm', '_Addr', '_Baddbmm', '_C10_NAMES', '_CFused', '_Pointwise',
    '_Value', '_Values', '_addcdiv', '_addcmul', '_axpby', '_blas_addmm', '_cfused', '_check_cast', '_check_overlap',
    '_cj', '_clamp_inplace', '_clamp_output', '_clamp_plan', '_copysign_bwd', '_copysign_s', '_copysign_t', '_f',
    '_float', '_half_opmath', '_hypot', '_kernel_add', '_lae_fwd', '_lerp_bwd', '_lerp_fwd', '_lerp_s', '_lerp_t',
    '_logaddexp', '_logaddexp2', '_logit', '_logit_bwd', '_logit_fwd', '_make_inplace', '_need_float',
    '_need_float2', '_parts', '_pointwise', '_result_type', '_rtype', '_same_dtype', '_shift_inplace', '_sinc',
    '_sinc_bwd', '_sinc_fwd', '_write_out', '_xlogy_fwd', '_xlogy_st', '_xlogy_ts', '_xlogy_tt', 'abs', 'addbmm',
    'addcdiv', 'addcmul', 'addmm', 'addmv', 'addr', 'annotations', 'baddbmm', 'binary_forward', 'bitwise_left_shift',
    'bitwise_right_shift', 'bmm', 'broadcast_shapes', 'builtins', 'cat', 'check_kernel', 'clamp', 'clamp_max',
    'clamp_min', 'clip', 'copysign', 'cos', 'deg2rad', 'dt', 'exp', 'flatten', 'float_power', 'fmax', 'fmin', 'frac',
    'gather', 'heaviside', 'hypot', 'isfinite', 'isinf', 'isnan', 'isneginf', 'isposinf', 'lerp', 'log', 'log1p',
    'logaddexp', 'logaddexp2', 'logit', 'math', 'matmul', 'maximum', 'minimum', 'mm', 'mv', 'narrow',
    'need_input_tensor', 'need_tensors', 'np', 'opmath', 'outer', 'patch', 'pow', 'rad2deg', 'reshape',
    'return_types', 'signbit', 'sin', 'sinc', 'sort', 'sqrt', 'stack', 'sum', 'tensor', 'torch_name', 'trunc',
    'where', 'xlogy', 'zeros', 'zeros_like',
]

API_COMPAT_NAMES = [
    'CircularPad1d', 'CircularPad2d', 'CircularPad3d', 'ConstantPad1d', 'ConstantPad3d', 'ConvTranspose1d',
    'ConvTranspose2d', 'DataParallel', 'EmbeddingBag', 'F', 'LazyConvTranspose1d', 'LazyConvTranspose2d',
    'LocalResponseNorm', 'Module', 'MultiMarginLoss', 'Parameter', 'ReflectionPad1d', 'ReflectionPad3d',
    'ReplicationPad1d', 'ReplicationPad3d', 'TripletMarginWithDistanceLoss', 'ZeroPad1d', 'ZeroPad3d',
    '_LastBagMean', '_LazyConvTransposeMixin', '_LazyConvXdMixin', '_Loss', '_MatmulFlags', '_NONE', '_PadNd',
    '_PdistInf', '_SHARED', '_WeightedLoss', '_bag_reduce', '_bags', '_check_bag_weight', '_cuda', '_cuda_is_built',
    '_cudnn_flags', '_cudnn_is_acceptable', '_cudnn_is_available', '_cudnn_version', '_device', '_dp', '_f',
    '_index_of', '_mod', '_mps_is_available', '_mps_is_built', '_name', '_need', '_parallel', '_publish', '_reduce',
    '_share', '_state', '_to_device', 'accelerator', 'contextlib', 'cuda', 'cudnn', 'current_accelerator',
    'current_device_idx', 'current_device_index', 'data_parallel', 'device_count', 'device_index', 'embedding_bag',
    'importlib', 'init', 'is_available', 'itertools', 'local_response_norm', 'minitorch', 'mps', 'multi_margin_loss',
    'np', 'pdist', 'set_device_idx', 'set_device_index', 'synchronize', 'sys', 'three_d',
    'triplet_margin_with_distance_loss', 'types', 'warnings',
]

SPLITS = [('minitorch.multiply_add', 'minitorch.fused_pointwise', FUSED_POINTWISE_NAMES),
          ('minitorch.nn.more_layers', 'minitorch.api_compat', API_COMPAT_NAMES)]


@pytest.mark.parametrize('new,old,names', SPLITS, ids=lambda v: v if isinstance(v, str) else '')
def test_old_module_keeps_every_name(new, old, names):
    m = importlib.import_module(old)
    missing = [n for n in names if not hasattr(m, n)]
    assert not missing, missing


@pytest.mark.parametrize('new,old,names', SPLITS, ids=lambda v: v if isinstance(v, str) else '')
def test_reexports_are_the_same_objects(new, old, names):
    n_, o = importlib.import_module(new), importlib.import_module(old)
    for k in dir(n_):
        if k.startswith('__') or k == 'annotations' or not hasattr(o, k): continue
        assert getattr(o, k) is getattr(n_, k), k


@pytest.mark.parametrize('new,old,names', SPLITS, ids=lambda v: v if isinstance(v, str) else '')
def test_new_module_does_not_import_the_old(new, old, names):
    "No cycle: the first part of a chapter must not import the last (checked in the source: minitorch imports both)."
    src = inspect.getsource(importlib.import_module(new))
    assert old not in src and f"from .{old.rsplit('.', 1)[1]} import" not in src


@pytest.mark.parametrize('new,old,names', SPLITS, ids=lambda v: v if isinstance(v, str) else '')
def test_star_import_keeps_public_names(new, old, names):
    ns: dict = {}
    exec(f'from {old} import *', ns)
    public = [n for n in importlib.import_module(old).__all__]
    assert set(importlib.import_module(new).__all__) <= set(public)
    for n in public: assert n in ns, n


def test_fused_pointwise_names_other_modules_import():
    "more_ops, statistics and building import these by name from minitorch.fused_pointwise."
    from minitorch.fused_pointwise import (_Pointwise, _pointwise, _axpby, _half_opmath, addmm, addmv, addr, baddbmm,
                                           _need_float, _float, logaddexp, _same_dtype)
    from minitorch.multiply_add import addmm as a2
    assert addmm is a2


def test_addmm_family_still_matches_torch():
    g = torch.Generator().manual_seed(0)
    i, a, b = (torch.randn(s, generator=g, dtype=torch.float64) for s in ((2, 4), (2, 3), (3, 4)))
    M = lambda t: minitorch.tensor(t.numpy())
    fp = importlib.import_module('minitorch.fused_pointwise')
    r = fp.addmm(M(i), M(a), M(b), beta=0.5, alpha=2)
    torch.testing.assert_close(torch.from_numpy(r.numpy()), torch.addmm(i, a, b, beta=0.5, alpha=2))
    r = fp.addcmul(M(i), M(i), M(i).exp(), value=0.3)
    torch.testing.assert_close(torch.from_numpy(r.numpy()), torch.addcmul(i, i, i.exp(), value=0.3))


def test_api_compat_names_other_modules_import():
    "nn.three_d and minitorch/__init__ import these by name from minitorch.api_compat."
    from minitorch.api_compat import _publish, _LazyConvTransposeMixin, accelerator
    from minitorch.nn.more_layers import _publish as p2
    assert _publish is p2 and minitorch.accelerator is accelerator
    assert minitorch.nn.EmbeddingBag is minitorch.api_compat.EmbeddingBag
    assert minitorch.nn.modules.sparse.EmbeddingBag is minitorch.nn.EmbeddingBag
    assert minitorch.nn.functional.pdist.__name__ == minitorch.api_compat.pdist.__name__ == 'pdist'
    assert minitorch.nn.Conv3d is not None   # three_d still registers its layers through _publish


def test_more_layers_still_match_torch():
    x = torch.randn(2, 6, 4, 5, generator=torch.Generator().manual_seed(0))
    ours = minitorch.api_compat.LocalResponseNorm(3)(minitorch.tensor(x.numpy()))
    torch.testing.assert_close(torch.from_numpy(ours.numpy()), torch.nn.LocalResponseNorm(3)(x))
    img = torch.arange(9.).reshape(1, 1, 3, 3)
    ours = minitorch.api_compat.CircularPad2d(2)(minitorch.tensor(img.numpy()))
    torch.testing.assert_close(torch.from_numpy(ours.numpy()), torch.nn.CircularPad2d(2)(img))
