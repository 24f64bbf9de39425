"Issue 12 parity fixes for reductions, matmul, statistics and the nn layers/losses/attention chapters (helper P3)."
import math
import warnings

import numpy as np
import pytest
import torch
import minitorch as mt

warnings.filterwarnings('ignore', message='Casting complex values to real')


def mtt(t, requires_grad=False):
    "A minitorch copy of a torch tensor (same dtype)."
    w = t.detach().to(torch.complex128 if t.dtype.is_complex else torch.float64) if t.dtype.is_floating_point or \
        t.dtype.is_complex else t.detach()
    return mt.tensor(w.numpy(), dtype=getattr(mt, str(t.dtype).split('.')[-1]), requires_grad=requires_grad)


def np_(t): return np.asarray(t.detach().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy())


def to_torch(m):
    w = m.detach().to(mt.complex128 if m.dtype.is_complex else mt.float64) if m.dtype.is_floating_point or \
        m.dtype.is_complex else m.detach()
    return torch.from_numpy(np.array(w.numpy())).to(getattr(torch, str(m.dtype).split('.')[-1]))


def close(m, t, **kw):
    torch.testing.assert_close(to_torch(m), t.detach(), equal_nan=True, check_dtype=True, **kw)


def grads(f, *ts, gseed=0, **tol):
    "Run f on torch leaves and on minitorch copies; backward a random cotangent; compare outputs and grads."
    tl = [t.detach().clone().requires_grad_(t.dtype.is_floating_point or t.dtype.is_complex) for t in ts]
    ml = [mtt(t, t.requires_grad) for t in tl]
    yt, ym = f(torch, *tl), f(mt, *ml)
    g = torch.randn(yt.shape, generator=torch.Generator().manual_seed(gseed), dtype=torch.float64).to(yt.dtype)
    yt.backward(g); ym.backward(mtt(g))
    close(ym, yt)
    for a, b in zip(ml, tl):
        if b.grad is not None: close(a.grad, b.grad, **tol)


def test_cumprod_dtype_grad_reads_uncast_input():
    "cumprod(complex, dtype=float64): PyTorch's backward uses the complex input, so the gradient has an imaginary part."
    x = torch.randn(4, 4, 2, dtype=torch.complex128, generator=torch.Generator().manual_seed(1))
    grads(lambda L, a: L.cumprod(a, -1, dtype=L.float64), x)
    x = torch.tensor([[1.5, 0.0, 2.0, 0.0], [3.0, 2.0, 0.0, 1.0]], dtype=torch.complex128) * (1 + 0.5j)
    grads(lambda L, a: L.cumprod(a, -1, dtype=L.float64), x)
    # computed in float32 (`dtype=`), the float64 gradient is compared within float32's tolerance (it is an ulp off
    # torch's for some inputs: the products' order)
    grads(lambda L, a: L.cumprod(a, 0, dtype=L.float32), torch.randn(5, 3, dtype=torch.float64),
          rtol=1.3e-6, atol=1e-5)


@pytest.mark.parametrize('op', ['hardshrink', 'softshrink', 'hardtanh', 'relu6'])
@pytest.mark.parametrize('dtype', [torch.float64, torch.float32, torch.bfloat16])
@pytest.mark.parametrize('shape,view', [((3,), None), ((8,), None), ((36,), None), ((65,), None), ((4, 9), 'cols'),
                                        ((9, 8), 't'), ((4, 3, 3), None), ((40,), 'step')])
def test_shrink_grad_nan_follows_vector_lanes(op, dtype, shape, view):
    "hard/softshrink and hardtanh CPU backward: NaN inputs get gradient 0 in the vectorized blocks, the gradient in the scalar tail."
    base = torch.randn(shape, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    base[base.abs() > 1.0] = float('nan')
    base = base.to(dtype)
    v = {None: lambda t: t, 'cols': lambda t: t[:, :5], 't': lambda t: t.t(), 'step': lambda t: t[::2]}[view]
    xt = base.clone().requires_grad_(); xm = mtt(base, True)
    yt, ym = getattr(torch.nn.functional, op)(v(xt)), getattr(mt.nn.functional, op)(v(xm))
    g = torch.randn(yt.shape, generator=torch.Generator().manual_seed(3), dtype=torch.float64).to(dtype)
    yt.backward(g); ym.backward(mtt(g))
    close(ym, yt); close(xm.grad, xt.grad, rtol=0, atol=0)


@pytest.mark.parametrize('dtype', [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize('op', ['cummin', 'cummax'])
def test_cumext_nan_16bit(op, dtype):
    "cummin/cummax: a NaN wins from where it appears on (bfloat16 too, whose numpy kind is not 'f')."
    x = torch.tensor([[1., float('nan'), -1., 0.5, float('nan'), -2.], [3., 2., 2., 5., -1., 7.]]).to(dtype)
    for d in (0, 1):
        t, m = getattr(torch, op)(x, d), getattr(mt, op)(mtt(x), d)
        close(m.values, t.values, rtol=0, atol=0); close(m.indices, t.indices)


@pytest.mark.parametrize('dtype', [torch.float32, torch.bfloat16, torch.float64])
def test_mode_rows_with_nan(dtype):
    "mode on rows holding NaN: PyTorch's std::sort (NaN compares false both ways) then the first longest run."
    rng = np.random.default_rng(5)
    for _ in range(300):
        r = torch.tensor(rng.choice([1., 2., 3., np.nan, -0.5], size=(3, int(rng.integers(1, 17))))).to(dtype)
        t, m = torch.mode(r, -1), mt.mode(mtt(r), -1)
        close(m.values, t.values, rtol=0, atol=0); close(m.indices, t.indices)


nan, inf = float('nan'), float('inf')


@pytest.mark.parametrize('case', [
    (lambda L, a: L.var(a, dim=-1), torch.tensor([-inf, -3.15, -1.82], dtype=torch.float64)),   # inf grads, not NaN
    (lambda L, a: L.var(a), torch.tensor([2.0, inf, 1.0], dtype=torch.float64)),
    (lambda L, a: L.std(a, correction=2, dim=0), torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex128)),  # dof 0, dim
    (lambda L, a: L.std(a, correction=1, dim=0), torch.tensor([[0.1 + 0.7j, 1.3 - 0.2j]]).expand(3, 2)),   # var 0
    (lambda L, a: L.std(a, dim=0), torch.tensor([[0.1, 1.3, 2.7]], dtype=torch.float64).expand(3, 3)),
    (lambda L, a: L.var_mean(a, correction=0)[1], torch.tensor([-2.06 - 2.47j, complex(nan, 0), 0.3 + 2j])),
    (lambda L, a: L.std_mean(a)[1], torch.tensor([[inf, 1.0], [2.0, 3.0]], dtype=torch.float64)),    # Welford mean
    (lambda L, a: L.std_mean(a)[1], torch.tensor([[inf, 1.0], [2.0, 3.0]], dtype=torch.float64).t()),
    (lambda L, a: L.var_mean(a, 0)[1], torch.tensor([[1.0, 1.0], [inf, 3.0]], dtype=torch.float64)),
    (lambda L, a: L.var_mean(a)[1], torch.tensor([[1.0 + 1j, complex(inf, 1)], [2.0, 3.0]])),
])
def test_var_family_special_values(case):
    "var/std's gradient is PyTorch's var_backward formula; var_mean/std_mean's mean is its Welford (and per-part) mean."
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        grads(*case)


@pytest.mark.parametrize('case', [
    (lambda L, a: L.prod(a, dim=-2), torch.tensor([[inf], [2.0], [nan]])),
    (lambda L, a: L.prod(a, dim=0), torch.tensor([[inf, 0.0, 2.0], [3.0, 4.0, 0.5]], dtype=torch.float64)),
    (lambda L, a: L.prod(a, 1, keepdim=True), torch.tensor([[inf, 1.0, 2.0], [0.0, 4.0, 0.0]], dtype=torch.float64)),
    (lambda L, a: L.prod(a), torch.tensor([[inf, 1.0], [2.0, 3.0]], dtype=torch.float64)),
    (lambda L, a: L.prod(a), torch.tensor([[nan, 0.0], [2.0, 0.0]], dtype=torch.float64)),   # two zeros: all 0
    (lambda L, a: L.prod(a), torch.tensor([[nan, 0.0], [2.0, 3.0]], dtype=torch.float64)),
    (lambda L, a: L.prod(a, 0), torch.tensor([[1 + 2j, complex(inf, 1)], [2.0, 3.0 - 1j]])),
    (lambda L, a: L.prod(a, 0, dtype=L.float64), torch.tensor([[1.5, 2.0], [0.25, 3.0]])),
])
def test_prod_grad_special_values(case):
    "prod's gradient is PyTorch's prod_backward: g * conj(result / x) unless a zero needs the exclusive products."
    grads(*case)


@pytest.mark.parametrize('op', ['smooth_l1_loss', 'huber_loss'])
@pytest.mark.parametrize('reduction', ['sum', 'none', 'mean'])
def test_smooth_l1_huber_grad_at_inf(op, reduction):
    "smooth_l1/huber: an infinite difference has gradient +-1 (times delta), as PyTorch's backward kernels."
    x = torch.tensor([0.78, inf, -2.3, 2.59, -inf, nan, 0.1], dtype=torch.float64)
    y = torch.tensor([2.2, 0.33, 5.97, 0.65, 3.5, 1.0, 0.2], dtype=torch.float64)
    grads(lambda L, a, b: getattr(L.nn.functional, op)(a, b, reduction=reduction), x, y)


@pytest.mark.parametrize('kind', ['causal3', 'causal4', 'bool3', 'bool4'])
def test_sdpa_masked_infinite_scores(kind):
    "SDPA: PyTorch's math path adds the 0/-inf mask (a +inf score under it is NaN); its fused 4-d causal kernel fills."
    q = torch.tensor([[[-2.19], [2.97], [4.07]], [[1.3], [-0.4], [0.2]]], dtype=torch.float64)
    k = torch.tensor([[[0.854], [-inf], [-inf]], [[0.5], [inf], [-1.0]]], dtype=torch.float64)
    v = torch.tensor([[[3.34], [-0.5], [1.0]], [[0.4], [1.9], [-3.9]]], dtype=torch.float64)
    if kind.endswith('4'): q, k, v = q[None], k[None], v[None]
    m = torch.tril(torch.ones(3, 3, dtype=torch.bool))
    kw = (lambda L: {'is_causal': True}) if kind.startswith('causal') else (lambda L: {'attn_mask': mtt(m) if L is mt else m})
    grads(lambda L, a, b, c: L.nn.functional.scaled_dot_product_attention(a, b, c, **kw(L)), q, k, v)


@pytest.mark.parametrize('dtype', [torch.float64, torch.float32, torch.bfloat16])
def test_logsigmoid_special_values(dtype):
    "logsigmoid uses PyTorch's formula and backward kernel: NaN in gives a NaN gradient, +inf gives +0."
    x = torch.tensor([nan, 1.0, -inf, inf, -3.0, 40.0, -40.0, 0.0, -0.7], dtype=torch.float64).to(dtype)
    grads(lambda L, a: L.nn.functional.logsigmoid(a), x)
    grads(lambda L, a, b: L.nn.functional.multilabel_soft_margin_loss(a, b),
          torch.tensor([[2.1, -1.2, -inf], [nan, -1.9, 1.2]], dtype=torch.float64), torch.rand(2, 3, dtype=torch.float64))


@pytest.mark.parametrize('dtype', [torch.float64, torch.float32, torch.bfloat16])
@pytest.mark.parametrize('beta,threshold', [(1.0, 20.0), (1.0, 1.0), (2.0, 5.0), (0.5, math.inf), (1.0, math.inf)])
def test_softplus_kernel_formula(dtype, beta, threshold):
    "softplus follows PyTorch's kernels: log1p(exp(bx))/beta (inf when exp overflows), backward g*z/(z+1)."
    x = torch.tensor([nan, 1.0, -inf, inf, -3.0, 40.0, -40.0, 0.0, -0.7, 800.0, 2.5], dtype=torch.float64).to(dtype)
    grads(lambda L, a: L.nn.functional.softplus(a, beta, threshold), x)


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64, torch.bfloat16, torch.float16])
@pytest.mark.parametrize('op', ['conv2d', 'conv1d'])
def test_conv_nonfinite_weight_skips_padding(op, dtype):
    "conv with an inf/NaN weight: PyTorch's oneDNN path never multiplies a weight by a padding zero; float64 does."
    g = torch.Generator().manual_seed(4)
    return _conv_case(op, dtype, g, groups=1, N=2, pad=1)


@pytest.mark.parametrize('dtype', [torch.float32, torch.bfloat16])
@pytest.mark.parametrize('op', ['conv2d', 'conv1d'])
@pytest.mark.parametrize('groups,N,pad', [(2, 2, 1), (1, 1, 1), (1, 2, 2), (1, 2, 3)])
def test_conv_nonfinite_weight_im2col_cases(op, dtype, groups, N, pad):
    "Where PyTorch runs im2col (grouped conv1d, a float32 batch of 1, padding-only windows) padding zeros multiply."
    return _conv_case(op, dtype, torch.Generator().manual_seed(6), groups=groups, N=N, pad=pad)


def _conv_case(op, dtype, g, groups, N, pad):
    if op == 'conv2d':
        x, w = torch.randn(N, 2, 4, 3, generator=g), torch.randn(2, 2 // groups, 2, 2, generator=g)
        w[0, 0, 0, 1], w[1, 0, 1, 0] = inf, nan
        kw = dict(stride=2, padding=pad, groups=groups)
    else:
        x, w = torch.randn(N, 4, 4, generator=g), torch.randn(2, 4 // groups, 2, generator=g)
        w[1, 1, 0] = -inf
        kw = dict(padding=pad, groups=groups)
    b = torch.randn(2, generator=g)
    f = lambda L, a, ww, bb: getattr(L.nn.functional, op)(a, ww, bb, **kw)
    x, w, b = x.to(dtype), w.to(dtype), b.to(dtype)
    yt, ym = f(torch, x, w, b), f(mt, mtt(x), mtt(w), mtt(b))
    close(ym, yt, **({'rtol': 2e-2, 'atol': 2e-2} if dtype.itemsize == 2 else {}))
    if dtype.itemsize > 2: grads(f, x, w, b)


def _outcome(f):
    try:
        r = f()
    except Exception as e:
        return type(e).__name__, str(e)
    return 'ok', tuple(r.shape), bool(getattr(r, 'requires_grad', False))


@pytest.mark.parametrize('case', [
    lambda L: L.median(L.zeros(0, dtype=L.bool), -1),
    lambda L: L.median(L.zeros(3, 0, dtype=L.bool), -1),
    lambda L: L.nanmedian(L.zeros(3, 0), 1),
    lambda L: L.median(L.zeros(3, 0), -1),
    lambda L: L.median(L.zeros(0, 2, requires_grad=True)),
    lambda L: L.nanmedian(L.zeros(0, 2, requires_grad=True)),
    lambda L: L.nn.functional.cosine_embedding_loss(L.ones(2, 3, 4), L.ones(2, 3, 4), L.ones(2)),
    lambda L: L.nn.functional.cosine_embedding_loss(L.ones(3), L.ones(3), L.ones(3)),
    lambda L: L.nn.functional.cosine_embedding_loss(L.ones(2, 3), L.ones(2, 3), L.ones(())),
    lambda L: L.nn.functional.cosine_embedding_loss(L.ones(2, 3), L.ones(2, 3), L.ones(2, 1)),
    lambda L: L.nn.functional.cosine_embedding_loss(L.ones(3), L.ones(3), L.ones(())),
    lambda L: L.nn.functional.embedding(L.tensor([0, 1]), L.zeros(0, 3)),
    lambda L: L.nn.functional.embedding(L.zeros(0, dtype=L.int64), L.zeros(0, 3)),
    lambda L: L.nn.functional.fold(L.ones(1, 4, 4, dtype=L.int8), (3, 3), 2),
    lambda L: L.nn.functional.fold(L.ones(1, 4, 4, dtype=L.int64), (3, 3), 2),
    lambda L: L.nn.functional.fold(L.ones(1, 4, 4, dtype=L.bool), (3, 3), 2),
    lambda L: L.nn.functional.fold(L.ones(1, 5, 4, dtype=L.int8), (3, 3), 2),
])
def test_error_and_graph_parity(case):
    "median's empty-dim IndexError comes first; cosine_embedding_loss's shape checks; embedding on an empty weight;"\
    " fold's integer dtypes; the median of nothing stays in the graph."
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert _outcome(lambda: case(mt)) == _outcome(lambda: case(torch))


@pytest.mark.parametrize('f', ['median', 'nanmedian'])
@pytest.mark.parametrize('dtype', ['int32', 'int64', 'int8', 'uint8', 'int16', 'bool', 'float32', 'complex64'])
@pytest.mark.parametrize('n,dim', [(0, None), (3, None), (3, 0)])
def test_median_dtypes(f, dtype, n, dim):
    "median/nanmedian: the value of an empty input (NaN cast as C++ does), the bool/complex kernel errors."
    def run(L):
        x = L.zeros(n, dtype=getattr(L, dtype))
        r = getattr(L, f)(x) if dim is None else getattr(L, f)(x, dim).values
        return 'ok', str(r.dtype).split('.')[-1], repr(r.tolist())
    def out(L):
        try: return run(L)
        except Exception as e: return type(e).__name__, str(e)
    assert out(mt) == out(torch)


@pytest.mark.parametrize('op', ['cummax', 'cummin'])
def test_cumext_complex_error(op):
    def out(L):
        try: return getattr(L, op)(L.zeros(3, dtype=L.complex64), 0)
        except Exception as e: return type(e).__name__, str(e)
    assert out(mt) == out(torch)


@pytest.mark.parametrize('case', [
    lambda L: L.nn.functional.fold(L.ones(1, 0, 4), (3, 3), 2),
    lambda L: L.nn.functional.fold(L.ones(4, 0), (3, 3), 2),
    lambda L: L.nn.functional.fold(L.ones(0, 4, 4), (3, 3), 2),
    lambda L: L.nn.functional.embedding(L.tensor([[0]]), L.ones(2, 3, dtype=L.complex64, requires_grad=True)),
    lambda L: L.nn.functional.embedding(L.tensor([[0]]), L.ones(2, 3, dtype=L.complex64)),
])
def test_fold_embedding_errors(case):
    "fold refuses zero-size non-batch dims; embedding refuses to record a complex weight's gradient."
    assert _outcome(lambda: case(mt)) == _outcome(lambda: case(torch))


@pytest.mark.parametrize('op', ['var_mean', 'std_mean'])
@pytest.mark.parametrize('x', [torch.tensor(-0.11 + 2.02j, dtype=torch.complex64),
                               torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex128)])
def test_var_mean_complex_one_node(op, x):
    "Complex var_mean/std_mean with dof <= 0: PyTorch adds the mean's gradient to var's NaN, so the imaginary part stays."
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        grads(lambda L, a: (lambda r: r[0] + r[1])(getattr(L, op)(a, correction=x.numel())), x)
