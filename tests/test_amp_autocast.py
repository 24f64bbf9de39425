"""autocast("cpu") in minitorch against torch.autocast("cpu"): output dtypes op by op, nesting, cache, errors."""
import warnings

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as MF
from minitorch.amp import autocast, CPU_POLICY

warnings.filterwarnings("ignore")

def cases(L, F):
    def r(*s): return L.tensor(np.random.default_rng(len(s)).random(s).astype(np.float32) + 0.5)
    A=lambda: r(3,3)
    C = {
    'mm': lambda d: (L.mm, (r(3,3).to(d), r(3,3).to(d))),
    'matmul': lambda d: (L.matmul, (r(3,3).to(d), r(3,3).to(d))),
    'bmm': lambda d: (L.bmm, (r(2,3,3).to(d), r(2,3,3).to(d))),
    'addmm': lambda d: (L.addmm, (r(3,3).to(d), r(3,3).to(d), r(3,3).to(d))),
    'baddbmm': lambda d: (L.baddbmm, (r(2,3,3).to(d), r(2,3,3).to(d), r(2,3,3).to(d))),
    'addbmm': lambda d: (L.addbmm, (r(3,3).to(d), r(2,3,3).to(d), r(2,3,3).to(d))),
    'mv': lambda d: (L.mv, (r(3,3).to(d), r(3).to(d))),
    'addmv': lambda d: (L.addmv, (r(3).to(d), r(3,3).to(d), r(3).to(d))),
    'addr': lambda d: (L.addr, (r(3,3).to(d), r(3).to(d), r(3).to(d))),
    'dot': lambda d: (L.dot, (r(3).to(d), r(3).to(d))),
    'vdot': lambda d: (L.vdot, (r(3).to(d), r(3).to(d))),
    'einsum': lambda d: (lambda a,b: L.einsum('ij,jk->ik',a,b), (r(3,3).to(d), r(3,3).to(d))),
    'tensordot': lambda d: (lambda a,b: L.tensordot(a,b,1), (r(3,3).to(d), r(3,3).to(d))),
    'chain_matmul': lambda d: (lambda a,b: L.linalg.multi_dot([a,b]), (r(3,3).to(d), r(3,3).to(d))),
    'linear': lambda d: (F.linear, (r(2,3).to(d), r(4,3).to(d), r(4).to(d))),
    'bilinear': lambda d: (F.bilinear, (r(2,3).to(d), r(2,3).to(d), r(4,3,3).to(d))),
    'conv1d': lambda d: (F.conv1d, (r(1,2,5).to(d), r(3,2,2).to(d))),
    'conv2d': lambda d: (F.conv2d, (r(1,2,5,5).to(d), r(3,2,2,2).to(d))),
    'conv3d': lambda d: (F.conv3d, (r(1,2,4,4,4).to(d), r(3,2,2,2,2).to(d))),
    'conv_transpose1d': lambda d: (F.conv_transpose1d, (r(1,2,5).to(d), r(2,3,2).to(d))),
    'conv_transpose2d': lambda d: (F.conv_transpose2d, (r(1,2,5,5).to(d), r(2,3,2,2).to(d))),
    'conv_transpose3d': lambda d: (F.conv_transpose3d, (r(1,2,4,4,4).to(d), r(2,3,2,2,2).to(d))),
    'prelu': lambda d: (F.prelu, (r(2,3).to(d), r(1).to(d))),
    'scaled_dot_product_attention': lambda d: (F.scaled_dot_product_attention, (r(1,2,3,4).to(d), r(1,2,3,4).to(d), r(1,2,3,4).to(d))),
    'cdist': lambda d: (L.cdist, (r(3,2).to(d), r(4,2).to(d))),
    'pdist': lambda d: (F.pdist, (r(3,2).to(d),)),
    'dist': lambda d: (L.dist, (r(3).to(d), r(3).to(d))),
    'prod': lambda d: (L.prod, (r(3).to(d),)),
    'sum': lambda d: (L.sum, (r(3).to(d),)),
    'mean': lambda d: (L.mean, (r(3).to(d),)),
    'cumsum': lambda d: (lambda a: L.cumsum(a,0), (r(3).to(d),)),
    'cumprod': lambda d: (lambda a: L.cumprod(a,0), (r(3).to(d),)),
    'softmax': lambda d: (lambda a: F.softmax(a,-1), (r(3).to(d),)),
    'log_softmax': lambda d: (lambda a: F.log_softmax(a,-1), (r(3).to(d),)),
    'softmin': lambda d: (lambda a: F.softmin(a,-1), (r(3).to(d),)),
    'logsumexp': lambda d: (lambda a: L.logsumexp(a,0), (r(3).to(d),)),
    'layer_norm': lambda d: (lambda a: F.layer_norm(a,(3,)), (r(2,3).to(d),)),
    'group_norm': lambda d: (lambda a: F.group_norm(a,1), (r(2,2,3).to(d),)),
    'batch_norm': lambda d: (lambda a: F.batch_norm(a,None,None,training=True), (r(2,2,3).to(d),)),
    'norm': lambda d: (L.norm, (r(3).to(d),)),
    'normalize': lambda d: (F.normalize, (r(2,3).to(d),)),
    'renorm': lambda d: (lambda a: L.renorm(a,2,0,1.0), (r(2,3).to(d),)),
    'cosine_similarity': lambda d: (F.cosine_similarity, (r(2,3).to(d), r(2,3).to(d))),
    'exp': lambda d: (L.exp, (r(3).to(d),)),
    'expm1': lambda d: (L.expm1, (r(3).to(d),)),
    'log': lambda d: (L.log, (r(3).to(d),)),
    'log1p': lambda d: (L.log1p, (r(3).to(d),)),
    'log2': lambda d: (L.log2, (r(3).to(d),)),
    'log10': lambda d: (L.log10, (r(3).to(d),)),
    'pow': lambda d: (L.pow, (r(3).to(d), r(3).to(d))),
    'reciprocal': lambda d: (L.reciprocal, (r(3).to(d),)),
    'rsqrt': lambda d: (L.rsqrt, (r(3).to(d),)),
    'acos': lambda d: (L.acos, (r(3).to(d)*0.5,)),
    'asin': lambda d: (L.asin, (r(3).to(d)*0.5,)),
    'cosh': lambda d: (L.cosh, (r(3).to(d),)),
    'sinh': lambda d: (L.sinh, (r(3).to(d),)),
    'tan': lambda d: (L.tan, (r(3).to(d),)),
    'erfinv': lambda d: (L.erfinv, (r(3).to(d)*0.5,)),
    'softplus': lambda d: (F.softplus, (r(3).to(d),)),
    'relu': lambda d: (F.relu, (r(3).to(d),)),
    'gelu': lambda d: (F.gelu, (r(3).to(d),)),
    'tanh': lambda d: (L.tanh, (r(3).to(d),)),
    'sigmoid': lambda d: (L.sigmoid, (r(3).to(d),)),
    'add': lambda d: (L.add, (r(3).to(d), r(3).to(d))),
    'mul': lambda d: (L.mul, (r(3).to(d), r(3).to(d))),
    'atan2': lambda d: (L.atan2, (r(3).to(d), r(3).to(d))),
    'addcmul': lambda d: (L.addcmul, (r(3).to(d), r(3).to(d), r(3).to(d))),
    'addcdiv': lambda d: (L.addcdiv, (r(3).to(d), r(3).to(d), r(3).to(d))),
    'cross': lambda d: (lambda a,b: L.linalg.cross(a,b), (r(3).to(d), r(3).to(d))),
    'cat': lambda d: (lambda a,b: L.cat([a,b]), (r(3).to(d), r(3).to(d))),
    'stack': lambda d: (lambda a,b: L.stack([a,b]), (r(3).to(d), r(3).to(d))),
    'index_copy': lambda d: (lambda a,b: a.index_copy(0, L.tensor([0,1]), b), (r(3).to(d), r(2).to(d))),
    'scatter_add': lambda d: (lambda a,b: a.scatter_add(0, L.tensor([0,1]), b), (r(3).to(d), r(2).to(d))),
    'index_put': lambda d: (lambda a,b: a.index_put((L.tensor([0,1]),), b), (r(3).to(d), r(2).to(d))),
    'grid_sample': lambda d: (lambda a,g: F.grid_sample(a,g,align_corners=False), (r(1,1,3,3).to(d), (r(1,2,2,2)-1).to(d))),
    'mse_loss': lambda d: (F.mse_loss, (r(3).to(d), r(3).to(d))),
    'l1_loss': lambda d: (F.l1_loss, (r(3).to(d), r(3).to(d))),
    'smooth_l1_loss': lambda d: (F.smooth_l1_loss, (r(3).to(d), r(3).to(d))),
    'huber_loss': lambda d: (F.huber_loss, (r(3).to(d), r(3).to(d))),
    'soft_margin_loss': lambda d: (F.soft_margin_loss, (r(3).to(d), r(3).to(d))),
    'kl_div': lambda d: (lambda a,b: F.kl_div(a,b,reduction='batchmean'), (r(2,3).to(d), r(2,3).to(d))),
    'binary_cross_entropy': lambda d: (F.binary_cross_entropy, (r(3).to(d)*0.5, r(3).to(d)*0.5)),
    'binary_cross_entropy_with_logits': lambda d: (F.binary_cross_entropy_with_logits, (r(3).to(d), r(3).to(d)*0.5)),
    'poisson_nll_loss': lambda d: (F.poisson_nll_loss, (r(3).to(d), r(3).to(d))),
    'cross_entropy': lambda d: (lambda a: F.cross_entropy(a, L.tensor([0,1])), (r(2,3).to(d),)),
    'nll_loss': lambda d: (lambda a: F.nll_loss(a, L.tensor([0,1])), (r(2,3).to(d),)),
    'multi_margin_loss': lambda d: (lambda a: F.multi_margin_loss(a, L.tensor([0,1])), (r(2,3).to(d),)),
    'multilabel_margin_loss': lambda d: (lambda a: F.multilabel_margin_loss(a, L.tensor([[0,-1,0],[1,-1,0]])), (r(2,3).to(d),)),
    'hinge_embedding_loss': lambda d: (lambda a: F.hinge_embedding_loss(a, L.tensor([1.,-1.,1.])), (r(3).to(d),)),
    'margin_ranking_loss': lambda d: (lambda a,b: F.margin_ranking_loss(a,b, L.tensor([1.,-1.,1.])), (r(3).to(d), r(3).to(d))),
    'cosine_embedding_loss': lambda d: (lambda a,b: F.cosine_embedding_loss(a,b, L.tensor([1.,-1.])), (r(2,3).to(d), r(2,3).to(d))),
    'triplet_margin_loss': lambda d: (F.triplet_margin_loss, (r(2,3).to(d), r(2,3).to(d), r(2,3).to(d))),
    'avg_pool2d': lambda d: (lambda a: F.avg_pool2d(a,2), (r(1,1,4,4).to(d),)),
    'max_pool2d': lambda d: (lambda a: F.max_pool2d(a,2), (r(1,1,4,4).to(d),)),
    'avg_pool3d': lambda d: (lambda a: F.avg_pool3d(a,2), (r(1,1,4,4,4).to(d),)),
    'max_pool3d': lambda d: (lambda a: F.max_pool3d(a,2), (r(1,1,4,4,4).to(d),)),
    'adaptive_avg_pool3d': lambda d: (lambda a: F.adaptive_avg_pool3d(a,1), (r(1,1,4,4,4).to(d),)),
    'adaptive_max_pool3d': lambda d: (lambda a: F.adaptive_max_pool3d(a,1), (r(1,1,4,4,4).to(d),)),
    'topk': lambda d: (lambda a: L.topk(a,2)[0], (r(3).to(d),)),
    'sort': lambda d: (lambda a: L.sort(a)[0], (r(3).to(d),)),
    'trace': lambda d: (L.trace, (r(3,3).to(d),)),
    'quantile': lambda d: (lambda a: L.quantile(a, 0.5), (r(3).to(d),)),
    'polar': lambda d: (L.polar, (r(3).to(d), r(3).to(d))),
    'inverse': lambda d: (L.inverse, ((r(3,3)+3*L.eye(3)).to(d),)),
    'linalg.inv': lambda d: (L.linalg.inv, ((r(3,3)+3*L.eye(3)).to(d),)),
    'linalg.cholesky': lambda d: (L.linalg.cholesky, ((3*L.eye(3)).to(d),)),
    'linalg.det': lambda d: (L.linalg.det, ((r(3,3)+3*L.eye(3)).to(d),)),
    'linalg.qr': lambda d: (lambda a: L.linalg.qr(a)[0], ((r(3,3)).to(d),)),
    'linalg.svd': lambda d: (lambda a: L.linalg.svd(a)[1], ((r(3,3)).to(d),)),
    'linalg.eigh': lambda d: (lambda a: L.linalg.eigh(a)[0], ((3*L.eye(3)).to(d),)),
    'linalg.norm': lambda d: (L.linalg.norm, (r(3).to(d),)),
    'linalg.vector_norm': lambda d: (L.linalg.vector_norm, (r(3).to(d),)),
    'linalg.matrix_norm': lambda d: (L.linalg.matrix_norm, (r(3,3).to(d),)),
    'linalg.solve': lambda d: (L.linalg.solve, ((r(3,3)+3*L.eye(3)).to(d), r(3).to(d))),
    'linalg.pinv': lambda d: (L.linalg.pinv, (r(3,3).to(d),)),
    'linalg.slogdet': lambda d: (lambda a: L.linalg.slogdet(a)[1], ((r(3,3)+3*L.eye(3)).to(d),)),
    'linalg.matrix_exp': lambda d: (L.linalg.matrix_exp, (r(3,3).to(d),)),
    'linalg.lstsq': lambda d: (lambda a,b: L.linalg.lstsq(a,b)[0], ((r(3,3)+3*L.eye(3)).to(d), r(3,2).to(d))),
    'linalg.eig': lambda d: (lambda a: L.linalg.eigvals(a).real, ((3*L.eye(3)).to(d),)),
    'fft.fft': lambda d: (lambda a: L.fft.fft(a).real, (r(4).to(d),)),
    'pad_reflect': lambda d: (lambda a: F.pad(a,(1,1),mode='reflect'), (r(1,2,4).to(d),)),
    'pad_replicate': lambda d: (lambda a: F.pad(a,(1,1),mode='replicate'), (r(1,2,4).to(d),)),
    'view_as_complex': lambda d: (lambda a: L.view_as_complex(a).real, (r(3,2).to(d),)),
    }
    return C

TORCH_CASES, MINI_CASES = cases(torch, torch.nn.functional), cases(minitorch, MF)


def name_of(d):
    return None if d is None else str(d).split(".")[-1]


def out_dtypes(L, mk, ac, mixed=False):
    "Output dtype names under L's autocast('cpu') for fp32 inputs, bf16 inputs (and bf16+fp32 when mixed)."
    res = []
    for d in ([L.float32, L.bfloat16] if not mixed else ["mix"]):
        try:
            if d == "mix":
                f, args = mk(L.float32)
                if len(args) < 2: return None
                args = (args[0].to(L.bfloat16),) + tuple(args[1:])
            else:
                f, args = mk(d)
            with ac("cpu"):
                out = f(*args)
            res.append(name_of(out.dtype))
        except (RuntimeError, TypeError, NotImplementedError, ValueError, AttributeError):
            res.append("error")
    return res


NAMES = list(TORCH_CASES)


@pytest.mark.parametrize("name", NAMES)
def test_autocast_dtypes_match_torch(name):
    if name == "linalg.pinv":   # minitorch.linalg.pinv and minitorch.pinverse share one door named 'pinverse'
        pytest.xfail("torch: pinverse is fp32 but linalg.pinv (a composite over mm) bf16; one door here")
    ref = out_dtypes(torch, TORCH_CASES[name], torch.autocast)
    got = out_dtypes(minitorch, MINI_CASES[name], autocast)
    if got == ["error", "error"]:
        pytest.skip(f"minitorch has no {name} (or not with these arguments)")
    for r, g, inp in zip(ref, got, ("fp32", "bf16")):
        if r == "error" or g == "error": continue       # one library refuses these inputs without autocast too
        assert g == r, (name, inp, got, ref)


@pytest.mark.parametrize("name", ["cat", "stack", "index_copy", "mm", "matmul", "linear", "mse_loss", "add",
                                  "addcmul", "atan2", "cosine_similarity", "dist", "margin_ranking_loss"])
def test_autocast_mixed_inputs_match_torch(name):
    ref = out_dtypes(torch, TORCH_CASES[name], torch.autocast, mixed=True)
    got = out_dtypes(minitorch, MINI_CASES[name], autocast, mixed=True)
    assert got == ref


def test_covered_ops():
    "Every op minitorch has among the probes was compared (not skipped), and that covers the CPU table's core."
    have = [n for n in NAMES if out_dtypes(minitorch, MINI_CASES[n], autocast) != ["error", "error"]]
    assert {"mm", "matmul", "bmm", "addmm", "baddbmm", "linear", "conv1d", "conv2d", "cat", "stack",
            "mse_loss", "cross_entropy", "nll_loss", "prod", "cdist"} <= set(have)
    assert len(have) >= 90


def test_inplace_out_dtype_f64_left_alone():
    for L, ac in ((torch, torch.autocast), (minitorch, autocast)):
        a, b = L.ones(2, 2), L.ones(2, 2)
        with ac("cpu"):
            out = L.empty(2, 2)
            assert L.mm(a, b, out=out).dtype == L.float32
            assert L.mm(a.double(), b.double()).dtype == L.float64
            assert L.sum(a.bfloat16(), dtype=L.float32).dtype == L.float32
            a.add_(b); assert a.dtype == L.float32
            assert L.mm(a.int(), b.int()).dtype == L.int32 if L is minitorch else True


def test_nesting_and_state():
    for L, ac, en, gd in ((torch, torch.autocast, torch.is_autocast_enabled, torch.get_autocast_dtype),
                          (minitorch, autocast, minitorch.is_autocast_enabled, minitorch.get_autocast_dtype)):
        a = L.ones(2, 2)
        assert not en("cpu") and gd("cpu") == L.bfloat16 and gd("cuda") == L.float16
        with ac("cpu"):
            assert en("cpu") and (a @ a).dtype == L.bfloat16
            with ac("cpu", enabled=False):
                assert not en("cpu") and (a @ a).dtype == L.float32
                with pytest.raises(RuntimeError):
                    L.mm(a.bfloat16(), a)               # mixed dtypes outside autocast
            with ac("cpu", dtype=L.float16):
                assert gd("cpu") == L.float16 and (a @ a).dtype == L.float16
            assert en("cpu") and gd("cpu") == L.bfloat16
        assert not en("cpu")
    assert minitorch.autocast is autocast and minitorch.amp.autocast is autocast


def test_warnings_and_errors_like_torch():
    for L, ac in ((torch, torch.autocast), (minitorch, autocast)):
        with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported"):
            c = ac("cpu", dtype=L.float64)
        a = L.ones(2, 2)
        with c:
            assert (a @ a).dtype == L.float32
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            ac(L.device("cpu"))


def test_backward_in_forward_dtype_and_cache():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((5, 3)).astype(np.float32)
    grads = []
    for L, ac, F in ((torch, torch.autocast, torch.nn.functional), (minitorch, autocast, MF)):
        W = L.tensor(w, requires_grad=True)
        with ac("cpu"):
            y = F.linear(L.tensor(x), W); y2 = F.linear(L.tensor(x), W)
            loss = F.mse_loss(y + y2, L.zeros(4, 5))
        assert name_of(y.dtype) == "bfloat16" and name_of(loss.dtype) == "float32"
        loss.backward()
        assert name_of(W.grad.dtype) == "float32"
        grads.append(W.grad.detach().numpy().copy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=2e-2, atol=2e-2)   # both ran the products in bf16
    from minitorch.amp import _state
    assert len(_state.cache) == 0


def test_custom_fwd_bwd_like_torch():
    out_dtypes_ = []
    for L, amp_ in ((torch, torch.amp), (minitorch, minitorch.amp)):
        class MyMM(L.autograd.Function):
            @staticmethod
            @amp_.custom_fwd(device_type="cpu", cast_inputs=L.float32)
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b); return a.mm(b)

            @staticmethod
            @amp_.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                a, b = ctx.saved_tensors; return g.mm(b.t()), a.t().mm(g)
        a = L.ones(2, 2, dtype=L.bfloat16, requires_grad=True)
        with amp_.autocast("cpu"):
            o = MyMM.apply(a, L.ones(2, 2))
        o.sum().backward()
        out_dtypes_.append((name_of(o.dtype), name_of(a.grad.dtype)))
    assert out_dtypes_[0] == out_dtypes_[1]


CUDA_EXPECT = {   # op -> (callable, n inputs, dtype from fp32 inputs, dtype from fp16 inputs), PyTorch's CUDA lists
    "mm": (lambda L, a, b: L.mm(a, b), 2, "float16", "float16"),
    "linear": (lambda L, a, b: L.nn.functional.linear(a, b), 2, "float16", "float16"),
    "exp": (lambda L, a: L.exp(a), 1, "float32", "float32"),
    "sum": (lambda L, a: L.sum(a), 1, "float32", "float32"),
    "softmax": (lambda L, a: L.softmax(a, -1), 1, "float32", "float32"),
    "layer_norm": (lambda L, a: L.nn.functional.layer_norm(a, (3,)), 1, "float32", "float32"),
    "mse_loss": (lambda L, a, b: L.nn.functional.mse_loss(a, b), 2, "float32", "float32"),
    "relu": (lambda L, a: L.relu(a), 1, "float32", "float16"),
    "cat": (lambda L, a, b: L.cat([a, b]), 2, "float32", "float16"),
    "atan2": (lambda L, a, b: L.atan2(a, b), 2, "float32", "float16"),
}


@pytest.fixture
def cuda_autocast(monkeypatch):
    import minitorch.cuda as mcuda
    if not mcuda._kernels_run():
        pytest.skip("no cuda kernels (GPU or simulator) here")
    monkeypatch.setattr(mcuda, "is_available", lambda: True)


@pytest.mark.parametrize("name", list(CUDA_EXPECT))
def test_cuda_autocast_dtypes(cuda_autocast, name):
    "On cuda (the simulator without a GPU): fp16 by default and PyTorch's CUDA policy per op."
    f, n, from32, from16 = CUDA_EXPECT[name]
    for d, want in ((minitorch.float32, from32), (minitorch.float16, from16)):
        args = [minitorch.rand(3, 3, device="cuda").to(d) + 0.5 for _ in range(n)]
        with autocast("cuda"):
            out = f(minitorch, *args)
        assert out.device.type == "cuda" and name_of(out.dtype) == want, (name, d, out.dtype)


def test_cuda_autocast_promote_banned_and_cpu_untouched(cuda_autocast):
    a = minitorch.rand(3, device="cuda")
    with autocast("cuda"):
        assert minitorch.get_autocast_dtype("cuda") is minitorch.float16
        assert minitorch.cat([a.half(), a]).dtype is minitorch.float32          # promote
        assert minitorch.cat([a.half(), a.half()]).dtype is minitorch.float16
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            minitorch.nn.functional.binary_cross_entropy(a.sigmoid(), a.sigmoid())
        c = minitorch.ones(2, 2)
        assert (c @ c).dtype is minitorch.float32                                # cpu tensors: cpu autocast is off


def _torch_saved_bytes(model, x, y, dtype):
    seen = {}
    def pack(t):
        if not t.is_leaf: seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.autocast("cpu", dtype=dtype or torch.bfloat16, enabled=dtype is not None):
            torch.nn.functional.cross_entropy(model(x), y)
    return sum(seen.values())


def test_activation_memory_under_autocast():
    "Saved activations of the digits CNN step: at most 0.55x fp32's under bf16/fp16 autocast (torch: ~0.67x)."
    def saved_bytes(loss):
        seen, total, todo, visited = set(), 0, [loss.grad_fn], set()
        while todo:
            n = todo.pop()
            if n is None or id(n) in visited: continue
            visited.add(id(n))
            for v in list(getattr(n, "_saved", None) or []) + list(vars(n).values()):
                if isinstance(v, minitorch.Tensor) and not v.is_leaf and id(v._data.storage) not in seen:
                    seen.add(id(v._data.storage)); total += v._data.storage.nbytes
            todo += [f for f, _ in n.next_functions]
        return total

    def cnn(L):
        n = L.nn
        return n.Sequential(n.Conv2d(1, 16, 3, padding=1), n.ReLU(), n.MaxPool2d(2), n.Conv2d(16, 32, 3, padding=1),
                            n.ReLU(), n.MaxPool2d(2), n.Flatten(), n.Linear(128, 10))
    x = np.random.default_rng(0).standard_normal((64, 1, 8, 8)).astype(np.float32)
    y = np.random.default_rng(1).integers(0, 10, 64)
    m = cnn(minitorch)
    mem = {}
    for dt in (None, minitorch.bfloat16, minitorch.float16):
        with autocast("cpu", dtype=dt, enabled=dt is not None):
            mem[dt] = saved_bytes(minitorch.nn.functional.cross_entropy(m(minitorch.tensor(x)), minitorch.tensor(y)))
    assert mem[minitorch.bfloat16] <= 0.55 * mem[None] and mem[minitorch.float16] <= 0.55 * mem[None]
    t = cnn(torch)
    ref = _torch_saved_bytes(t, torch.tensor(x), torch.tensor(y), torch.bfloat16) / _torch_saved_bytes(
        t, torch.tensor(x), torch.tensor(y), None)
    assert mem[minitorch.bfloat16] / mem[None] <= ref + 0.05
