"""The autocast policy tables of minitorch.amp against torch.autocast("cpu") itself, op by op."""
import os
import sys
import warnings

import pytest
import torch
import torch.nn.functional as F

import minitorch
from minitorch.amp import CPU_POLICY, CUDA_POLICY, autocast_policy, policy_dtype, LOWER_PRECISION, PROMOTE

warnings.filterwarnings("ignore")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from amp_cases import cases  # noqa: E402

CASES = cases(torch, F)


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
