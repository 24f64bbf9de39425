"""The autocast policy tables of minitorch.amp against torch.autocast("cpu") itself, op by op."""
import warnings

import pytest
import torch
import torch.nn.functional as F

import minitorch
from minitorch.amp import CPU_POLICY, CUDA_POLICY, autocast_policy, policy_dtype, LOWER_PRECISION, PROMOTE

warnings.filterwarnings("ignore")

def r(*s): return torch.rand(*s)+0.5
def cases():
    A=lambda: r(3,3)
    C = {
    'mm': lambda d: (torch.mm, (r(3,3).to(d), r(3,3).to(d))),
    'matmul': lambda d: (torch.matmul, (r(3,3).to(d), r(3,3).to(d))),
    'bmm': lambda d: (torch.bmm, (r(2,3,3).to(d), r(2,3,3).to(d))),
    'addmm': lambda d: (torch.addmm, (r(3,3).to(d), r(3,3).to(d), r(3,3).to(d))),
    'baddbmm': lambda d: (torch.baddbmm, (r(2,3,3).to(d), r(2,3,3).to(d), r(2,3,3).to(d))),
    'addbmm': lambda d: (torch.addbmm, (r(3,3).to(d), r(2,3,3).to(d), r(2,3,3).to(d))),
    'mv': lambda d: (torch.mv, (r(3,3).to(d), r(3).to(d))),
    'addmv': lambda d: (torch.addmv, (r(3).to(d), r(3,3).to(d), r(3).to(d))),
    'addr': lambda d: (torch.addr, (r(3,3).to(d), r(3).to(d), r(3).to(d))),
    'dot': lambda d: (torch.dot, (r(3).to(d), r(3).to(d))),
    'vdot': lambda d: (torch.vdot, (r(3).to(d), r(3).to(d))),
    'einsum': lambda d: (lambda a,b: torch.einsum('ij,jk->ik',a,b), (r(3,3).to(d), r(3,3).to(d))),
    'tensordot': lambda d: (lambda a,b: torch.tensordot(a,b,1), (r(3,3).to(d), r(3,3).to(d))),
    'chain_matmul': lambda d: (lambda a,b: torch.linalg.multi_dot([a,b]), (r(3,3).to(d), r(3,3).to(d))),
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
    'cdist': lambda d: (torch.cdist, (r(3,2).to(d), r(4,2).to(d))),
    'pdist': lambda d: (F.pdist, (r(3,2).to(d),)),
    'dist': lambda d: (torch.dist, (r(3).to(d), r(3).to(d))),
    'prod': lambda d: (torch.prod, (r(3).to(d),)),
    'sum': lambda d: (torch.sum, (r(3).to(d),)),
    'mean': lambda d: (torch.mean, (r(3).to(d),)),
    'cumsum': lambda d: (lambda a: torch.cumsum(a,0), (r(3).to(d),)),
    'cumprod': lambda d: (lambda a: torch.cumprod(a,0), (r(3).to(d),)),
    'softmax': lambda d: (lambda a: F.softmax(a,-1), (r(3).to(d),)),
    'log_softmax': lambda d: (lambda a: F.log_softmax(a,-1), (r(3).to(d),)),
    'softmin': lambda d: (lambda a: F.softmin(a,-1), (r(3).to(d),)),
    'logsumexp': lambda d: (lambda a: torch.logsumexp(a,0), (r(3).to(d),)),
    'layer_norm': lambda d: (lambda a: F.layer_norm(a,(3,)), (r(2,3).to(d),)),
    'group_norm': lambda d: (lambda a: F.group_norm(a,1), (r(2,2,3).to(d),)),
    'batch_norm': lambda d: (lambda a: F.batch_norm(a,None,None,training=True), (r(2,2,3).to(d),)),
    'norm': lambda d: (torch.norm, (r(3).to(d),)),
    'normalize': lambda d: (F.normalize, (r(2,3).to(d),)),
    'renorm': lambda d: (lambda a: torch.renorm(a,2,0,1.0), (r(2,3).to(d),)),
    'cosine_similarity': lambda d: (F.cosine_similarity, (r(2,3).to(d), r(2,3).to(d))),
    'exp': lambda d: (torch.exp, (r(3).to(d),)),
    'expm1': lambda d: (torch.expm1, (r(3).to(d),)),
    'log': lambda d: (torch.log, (r(3).to(d),)),
    'log1p': lambda d: (torch.log1p, (r(3).to(d),)),
    'log2': lambda d: (torch.log2, (r(3).to(d),)),
    'log10': lambda d: (torch.log10, (r(3).to(d),)),
    'pow': lambda d: (torch.pow, (r(3).to(d), r(3).to(d))),
    'reciprocal': lambda d: (torch.reciprocal, (r(3).to(d),)),
    'rsqrt': lambda d: (torch.rsqrt, (r(3).to(d),)),
    'acos': lambda d: (torch.acos, (r(3).to(d)*0.5,)),
    'asin': lambda d: (torch.asin, (r(3).to(d)*0.5,)),
    'cosh': lambda d: (torch.cosh, (r(3).to(d),)),
    'sinh': lambda d: (torch.sinh, (r(3).to(d),)),
    'tan': lambda d: (torch.tan, (r(3).to(d),)),
    'erfinv': lambda d: (torch.erfinv, (r(3).to(d)*0.5,)),
    'softplus': lambda d: (F.softplus, (r(3).to(d),)),
    'relu': lambda d: (F.relu, (r(3).to(d),)),
    'gelu': lambda d: (F.gelu, (r(3).to(d),)),
    'tanh': lambda d: (torch.tanh, (r(3).to(d),)),
    'sigmoid': lambda d: (torch.sigmoid, (r(3).to(d),)),
    'add': lambda d: (torch.add, (r(3).to(d), r(3).to(d))),
    'mul': lambda d: (torch.mul, (r(3).to(d), r(3).to(d))),
    'atan2': lambda d: (torch.atan2, (r(3).to(d), r(3).to(d))),
    'addcmul': lambda d: (torch.addcmul, (r(3).to(d), r(3).to(d), r(3).to(d))),
    'addcdiv': lambda d: (torch.addcdiv, (r(3).to(d), r(3).to(d), r(3).to(d))),
    'cross': lambda d: (lambda a,b: torch.linalg.cross(a,b), (r(3).to(d), r(3).to(d))),
    'cat': lambda d: (lambda a,b: torch.cat([a,b]), (r(3).to(d), r(3).to(d))),
    'stack': lambda d: (lambda a,b: torch.stack([a,b]), (r(3).to(d), r(3).to(d))),
    'index_copy': lambda d: (lambda a,b: a.index_copy(0, torch.tensor([0,1]), b), (r(3).to(d), r(2).to(d))),
    'scatter_add': lambda d: (lambda a,b: a.scatter_add(0, torch.tensor([0,1]), b), (r(3).to(d), r(2).to(d))),
    'index_put': lambda d: (lambda a,b: a.index_put((torch.tensor([0,1]),), b), (r(3).to(d), r(2).to(d))),
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
    'cross_entropy': lambda d: (lambda a: F.cross_entropy(a, torch.tensor([0,1])), (r(2,3).to(d),)),
    'nll_loss': lambda d: (lambda a: F.nll_loss(a, torch.tensor([0,1])), (r(2,3).to(d),)),
    'multi_margin_loss': lambda d: (lambda a: F.multi_margin_loss(a, torch.tensor([0,1])), (r(2,3).to(d),)),
    'multilabel_margin_loss': lambda d: (lambda a: F.multilabel_margin_loss(a, torch.tensor([[0,-1,0],[1,-1,0]])), (r(2,3).to(d),)),
    'hinge_embedding_loss': lambda d: (lambda a: F.hinge_embedding_loss(a, torch.tensor([1.,-1.,1.])), (r(3).to(d),)),
    'margin_ranking_loss': lambda d: (lambda a,b: F.margin_ranking_loss(a,b, torch.tensor([1.,-1.,1.])), (r(3).to(d), r(3).to(d))),
    'cosine_embedding_loss': lambda d: (lambda a,b: F.cosine_embedding_loss(a,b, torch.tensor([1.,-1.])), (r(2,3).to(d), r(2,3).to(d))),
    'triplet_margin_loss': lambda d: (F.triplet_margin_loss, (r(2,3).to(d), r(2,3).to(d), r(2,3).to(d))),
    'avg_pool2d': lambda d: (lambda a: F.avg_pool2d(a,2), (r(1,1,4,4).to(d),)),
    'max_pool2d': lambda d: (lambda a: F.max_pool2d(a,2), (r(1,1,4,4).to(d),)),
    'avg_pool3d': lambda d: (lambda a: F.avg_pool3d(a,2), (r(1,1,4,4,4).to(d),)),
    'max_pool3d': lambda d: (lambda a: F.max_pool3d(a,2), (r(1,1,4,4,4).to(d),)),
    'adaptive_avg_pool3d': lambda d: (lambda a: F.adaptive_avg_pool3d(a,1), (r(1,1,4,4,4).to(d),)),
    'adaptive_max_pool3d': lambda d: (lambda a: F.adaptive_max_pool3d(a,1), (r(1,1,4,4,4).to(d),)),
    'topk': lambda d: (lambda a: torch.topk(a,2)[0], (r(3).to(d),)),
    'sort': lambda d: (lambda a: torch.sort(a)[0], (r(3).to(d),)),
    'trace': lambda d: (torch.trace, (r(3,3).to(d),)),
    'quantile': lambda d: (lambda a: torch.quantile(a, 0.5), (r(3).to(d),)),
    'polar': lambda d: (torch.polar, (r(3).to(d), r(3).to(d))),
    'inverse': lambda d: (torch.inverse, ((r(3,3)+3*torch.eye(3)).to(d),)),
    'linalg.inv': lambda d: (torch.linalg.inv, ((r(3,3)+3*torch.eye(3)).to(d),)),
    'linalg.cholesky': lambda d: (torch.linalg.cholesky, ((3*torch.eye(3)).to(d),)),
    'linalg.det': lambda d: (torch.linalg.det, ((r(3,3)+3*torch.eye(3)).to(d),)),
    'linalg.qr': lambda d: (lambda a: torch.linalg.qr(a)[0], ((r(3,3)).to(d),)),
    'linalg.svd': lambda d: (lambda a: torch.linalg.svd(a)[1], ((r(3,3)).to(d),)),
    'linalg.eigh': lambda d: (lambda a: torch.linalg.eigh(a)[0], ((3*torch.eye(3)).to(d),)),
    'linalg.norm': lambda d: (torch.linalg.norm, (r(3).to(d),)),
    'linalg.vector_norm': lambda d: (torch.linalg.vector_norm, (r(3).to(d),)),
    'linalg.matrix_norm': lambda d: (torch.linalg.matrix_norm, (r(3,3).to(d),)),
    'linalg.solve': lambda d: (torch.linalg.solve, ((r(3,3)+3*torch.eye(3)).to(d), r(3).to(d))),
    'linalg.pinv': lambda d: (torch.linalg.pinv, (r(3,3).to(d),)),
    'linalg.slogdet': lambda d: (lambda a: torch.linalg.slogdet(a)[1], ((r(3,3)+3*torch.eye(3)).to(d),)),
    'linalg.matrix_exp': lambda d: (torch.linalg.matrix_exp, (r(3,3).to(d),)),
    'linalg.lstsq': lambda d: (lambda a,b: torch.linalg.lstsq(a,b)[0], ((r(3,3)+3*torch.eye(3)).to(d), r(3,2).to(d))),
    'linalg.eig': lambda d: (lambda a: torch.linalg.eigvals(a).real, ((3*torch.eye(3)).to(d),)),
    'fft.fft': lambda d: (lambda a: torch.fft.fft(a).real, (r(4).to(d),)),
    'pad_reflect': lambda d: (lambda a: F.pad(a,(1,1),mode='reflect'), (r(1,2,4).to(d),)),
    'pad_replicate': lambda d: (lambda a: F.pad(a,(1,1),mode='replicate'), (r(1,2,4).to(d),)),
    'view_as_complex': lambda d: (lambda a: torch.view_as_complex(a).real, (r(3,2).to(d),)),
    }
    return C

CASES = cases()


def minitorch_has(name):
    "Whether minitorch has the op (at minitorch.*, Tensor.*, nn.functional.* or linalg.*)."
    name = {"pad_reflect": "pad", "pad_replicate": "pad"}.get(name, name)
    if name.startswith("linalg."): return hasattr(minitorch.linalg, name[7:])
    if name.startswith("fft."): return hasattr(minitorch, "fft")
    return any(hasattr(ns, name) for ns in (minitorch, minitorch.Tensor, minitorch.nn.functional))


def torch_dtypes(mk):
    "torch's output dtypes under autocast('cpu'): fp32 inputs, bf16 inputs."
    out = []
    for d in (torch.float32, torch.bfloat16):
        f, args = mk(d)
        with torch.autocast("cpu"):
            try: out.append(f(*args).dtype)
            except RuntimeError: out.append(None)
    return out


TABLE_NAMES = {"pad_reflect": "reflection_pad1d", "pad_replicate": "replication_pad1d"}
TO_TORCH = {minitorch.float32: torch.float32, minitorch.bfloat16: torch.bfloat16, None: None}


@pytest.mark.task24_3
@pytest.mark.parametrize("name", [n for n in CASES if minitorch_has(n)])
def test_cpu_policy_matches_torch(name):
    "The table's dtype for fp32 and for bf16 inputs is torch's (ops in no list keep their input dtype)."
    ref = torch_dtypes(CASES[name])
    policy = autocast_policy("cpu", TABLE_NAMES.get(name, name))
    for inp, got in zip((minitorch.float32, minitorch.bfloat16), ref):
        if got is None or got.is_complex: continue          # torch itself refuses bf16 here / complex output
        want = policy_dtype(policy, [inp], minitorch.bfloat16) or inp
        assert TO_TORCH[want] == got, (name, policy, inp, got)


@pytest.mark.task24_3
@pytest.mark.parametrize("name", ["cat", "stack", "index_copy", "mm", "linear", "mse_loss"])
def test_cpu_mixed_inputs(name):
    "bf16 + fp32 inputs: promote ops give fp32, lowered ops bf16, fp32 ops fp32."
    f, args = CASES[name](torch.float32)
    args = (args[0].bfloat16(),) + args[1:]
    with torch.autocast("cpu"):
        got = f(*args).dtype
    want = policy_dtype(autocast_policy("cpu", name), [minitorch.bfloat16, minitorch.float32], minitorch.bfloat16)
    assert TO_TORCH[want] == got


def test_tables_cover_the_reference_lists():
    "The names pytorch-semantics.md section 4 lists, in the right table and policy."
    for n in "mm matmul linear addmm bmm baddbmm conv2d scaled_dot_product_attention".split():
        assert CPU_POLICY[n] == LOWER_PRECISION
    for n in "mse_loss cross_entropy nll_loss binary_cross_entropy_with_logits binary_cross_entropy prod cdist".split():
        assert CPU_POLICY[n] == "fp32"
    for n in "exp log sum mean softmax log_softmax layer_norm group_norm batch_norm cumsum norm pow relu gelu".split():
        assert n not in CPU_POLICY
    for n in "cat stack index_copy".split():
        assert CPU_POLICY[n] == PROMOTE
    for n in "matmul mm mv bmm addmm addmv addr addbmm baddbmm chain_matmul linalg_multi_dot conv1d conv3d linear prelu".split():
        assert CUDA_POLICY[n] == LOWER_PRECISION
    for n in "pow acos asin cosh sinh tan exp expm1 log log1p reciprocal rsqrt erfinv softplus layer_norm group_norm " \
             "renorm cdist pdist dist cosine_similarity cross_entropy nll_loss mse_loss l1_loss kl_div".split():
        assert CUDA_POLICY[n] == "fp32", n
    for n in "sum prod cumsum cumprod softmax log_softmax".split():
        assert CUDA_POLICY[n] == "fp32_set_opt_dtype"
    assert CUDA_POLICY["norm"] == "fp32_append_dtype" and CUDA_POLICY["binary_cross_entropy"] == "banned"
    for n in "addcdiv addcmul atan2 bilinear cross dot grid_sample index_put scatter_add tensordot".split():
        assert CUDA_POLICY[n] == PROMOTE
    with pytest.raises(RuntimeError, match="unsafe to autocast"):
        policy_dtype(CUDA_POLICY["binary_cross_entropy"], [minitorch.float32], minitorch.float16)
