"""Issue 22, second round of splits: 08a_arithmetic -> 08a_arithmetic (minitorch.unary_math) + 08a_binary_ops
(minitorch.arithmetic), 11a_pooling -> 11a_pooling (minitorch.nn.pool_ops) + 11a_unpool_fold (minitorch.nn.pooling),
11c_activations -> 11c_activations (minitorch.nn.more_activations) + 11c_resampling (minitorch.nn.activations).
The old modules keep every name they had (the same objects), and the first parts never import the last.
Also the two parity items fixed on the way (issue 12): max_unpool of integer images, hardtanh's truncated bounds."""
import inspect

import pytest
import torch

import minitorch
import minitorch.arithmetic
import minitorch.unary_math
import minitorch.nn.pooling
import minitorch.nn.pool_ops
import minitorch.nn.activations
import minitorch.nn.more_activations

PAIRS = [(minitorch.unary_math, minitorch.arithmetic), (minitorch.nn.pool_ops, minitorch.nn.pooling),
         (minitorch.nn.more_activations, minitorch.nn.activations)]

# the public names (`__all__`) of the old modules before the split
OLD_ALL = {
    'minitorch.arithmetic': '''multiply subtract divide neg abs exp exp2 log log2 log10 log1p expm1 sqrt rsqrt sin cos tan tanh sinh cosh
        asin acos atan asinh acosh atanh sigmoid relu reciprocal square erf sign floor ceil trunc negative absolute
        arcsin arccos arctan arcsinh arccosh arctanh fix Where where Add Sub Mul Div RoundedDiv FloorDivide Remainder
        Fmod Pow Maximum Minimum add sub rsub mul div floor_divide remainder fmod pow maximum minimum true_divide
        Unary round sgn positive'''.split(),
    'minitorch.nn.pooling': '''max_pool2d avg_pool2d max_pool1d avg_pool1d adaptive_avg_pool2d adaptive_avg_pool1d adaptive_max_pool2d
        max_unpool2d max_unpool1d fold adaptive_max_pool1d max_pool1d_with_indices max_pool2d_with_indices
        adaptive_max_pool1d_with_indices adaptive_max_pool2d_with_indices lp_pool1d lp_pool2d MaxPool1d AvgPool1d
        AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveMaxPool2d AdaptiveMaxPool1d LPPool1d LPPool2d MaxUnpool1d
        MaxUnpool2d Unfold Fold'''.split(),
    'minitorch.nn.activations': '''elu selu celu hardtanh relu6 hardsigmoid hardswish mish softsign softshrink hardshrink tanhshrink threshold
        glu prelu softmin one_hot cosine_similarity pairwise_distance pixel_shuffle pixel_unshuffle interpolate ELU
        CELU SELU Hardtanh ReLU6 Hardsigmoid Hardswish Mish Softsign Tanhshrink LogSigmoid Softshrink Hardshrink
        Threshold GLU Softmin LeakyReLU Softplus PReLU CosineSimilarity PairwiseDistance PixelShuffle PixelUnshuffle
        Upsample Unflatten ConstantPad1d ConstantPad2d ZeroPad1d ZeroPad2d ReflectionPad1d ReflectionPad2d
        ReplicationPad1d ReplicationPad2d'''.split(),
}


@pytest.mark.parametrize('new,old', PAIRS, ids=lambda m: m.__name__)
def test_old_module_reexports_every_definition(new, old):
    defined = [n for n, o in vars(new).items()
               if (inspect.isfunction(o) or inspect.isclass(o)) and o.__module__ == new.__name__]
    assert len(defined) > 10
    assert [n for n in defined if getattr(old, n, None) is not vars(new)[n]] == []
    assert set(new.__all__) <= set(old.__all__)
    assert set(vars(new)) - {'__builtins__'} <= set(dir(old)) | {'__all__', '__cached__', '__doc__', '__file__',
                                                                     '__loader__', '__name__', '__package__', '__spec__'}


@pytest.mark.parametrize('old', [m for _, m in PAIRS], ids=lambda m: m.__name__)
def test_old_all_did_not_shrink(old):
    assert [n for n in OLD_ALL[old.__name__] if n not in old.__all__ or not hasattr(old, n)] == []
    g = {}; exec(f'from {old.__name__} import *', g)
    assert set(OLD_ALL[old.__name__]) <= set(g)


@pytest.mark.parametrize('new,old', PAIRS, ids=lambda m: m.__name__)
def test_first_part_does_not_import_the_last(new, old):
    src = inspect.getsource(new)
    short = old.__name__.rsplit('.', 1)[1]
    assert f'from .{short} import' not in src and old.__name__ not in src


def test_private_names_other_modules_import():
    "three_d, nn.modules, api_compat, comparisons and ops import these by name from the old modules."
    for m, names in ((minitorch.nn.pooling, ('_AdaptivePool', '_MaxPoolNd', '_adaptive_bounds', '_lp_finish', '_LPPoolNd')),
                     (minitorch.nn.activations, ('_PadNd', '_Shrink', '_vec_lanes', '_int_bound')),
                     (minitorch.arithmetic, ('_scalar_arg', '_UNARY', '_make_unary', '_where_mixed'))):
        for n in names: assert hasattr(m, n), (m.__name__, n)


def test_hot_path_objects_unchanged():
    "The operators still reach the very same functions (no wrapper was added by the split)."
    import minitorch.ops as ops
    for n in ('add', 'mul', 'sub', 'div', 'where', 'exp', 'neg', 'Add', 'Mul', 'Unary'):
        assert getattr(ops, n) is getattr(minitorch.arithmetic, n), n
    x = minitorch.tensor([1., 2.], requires_grad=True)
    (x * 3 + x.exp()).sum().backward()
    torch.testing.assert_close(torch.from_numpy(x.grad.numpy()), 3 + torch.tensor([1., 2.]).exp())


@pytest.mark.parametrize('dtype', ['int32', 'int64', 'uint8', 'bool'])
@pytest.mark.parametrize('fn', ['max_unpool1d', 'max_unpool2d'])
def test_max_unpool_refuses_integer_images_like_torch(fn, dtype):
    shape = (1, 2, 3) if fn == 'max_unpool1d' else (1, 2, 3, 3)
    x, i = torch.ones(shape).to(getattr(torch, dtype)), torch.zeros(shape, dtype=torch.int64)
    with pytest.raises(NotImplementedError) as want:
        getattr(torch.nn.functional, fn)(x, i, 2)
    mx, mi = minitorch.tensor(x.numpy()), minitorch.tensor(i.numpy())
    with pytest.raises(NotImplementedError) as got:
        getattr(minitorch.nn.functional, fn)(mx, mi, 2)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize('dtype', ['float16', 'float32', 'float64'])
def test_max_unpool_floats_still_work(dtype):
    x = torch.randn(1, 2, 4, 4).to(getattr(torch, dtype))
    v, i = torch.nn.functional.max_pool2d(x, 2, return_indices=True)
    got = minitorch.nn.functional.max_unpool2d(minitorch.tensor(v.numpy()), minitorch.tensor(i.numpy()), 2)
    torch.testing.assert_close(torch.from_numpy(got.numpy()), torch.nn.functional.max_unpool2d(v, i, 2))


@pytest.mark.parametrize('dtype,lo,hi', [('uint8', -0.5, 2.0), ('uint8', -0.9, 300.0), ('int8', -1000.0, 2.0),
                                         ('int8', -1.7, 2.9), ('uint8', -1.5, 2.0), ('int32', -2.5, 7.5)])
def test_hardtanh_integer_bounds_truncate_first(dtype, lo, hi):
    "PyTorch converts an integer tensor's hardtanh bounds with toLong (truncation) before its checks."
    data = [0, 1, 5, 100]
    try:
        want = torch.nn.functional.hardtanh(torch.tensor(data, dtype=getattr(torch, dtype)), lo, hi)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e).split(' without')[0]):
            minitorch.nn.functional.hardtanh(minitorch.tensor(data, dtype=getattr(minitorch, dtype)), lo, hi)
        return
    got = minitorch.nn.functional.hardtanh(minitorch.tensor(data, dtype=getattr(minitorch, dtype)), lo, hi)
    assert got.tolist() == want.tolist() and got.dtype.name == dtype
