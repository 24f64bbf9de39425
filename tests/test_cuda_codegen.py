"Chapter 26a: the inductor's numba.cuda code generation, checked under the simulator (tiny shapes) against eager on cuda."
import os
from pathlib import Path
os.environ.setdefault('MINITORCH_INDUCTOR_CACHE', str(Path(__file__).parents[1] / '.numba_cache' / 'inductor'))
import numpy as np
import pytest
import torch
import minitorch
from minitorch.compiler import inductor
from minitorch.compiler.inductor import compile_fn

F = minitorch.nn.functional
pytestmark = pytest.mark.skipif(not minitorch.cuda.is_available() and not minitorch.cuda.is_simulator(), reason='no numba.cuda')


def _dev(shape, seed=0, dtype=np.float32):
    return minitorch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(dtype)).to('cuda')


def _close(got, want):
    assert got.device.type == 'cuda'
    torch.testing.assert_close(torch.from_numpy(got.detach().cpu().numpy()), torch.from_numpy(want.detach().cpu().numpy()))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_pointwise_grid_stride_kernel(dtype):
    x, w, b = _dev((4, 8), 0, dtype), _dev((8,), 1, dtype), _dev((4, 1), 2, dtype)
    f = lambda x, w, b: F.gelu(x * w + b).exp()
    c = compile_fn(f, [x, w, b])
    assert c.device == 'cuda' and c.kernel_count == 1
    src = c.sources[0]
    assert '@cuda.jit' in src and 'cuda.gridsize(1)' in src and 'shared' not in src
    _close(c(x, w, b), f(x, w, b))


@pytest.mark.parametrize('name, f', [('softmax', lambda x: minitorch.softmax(x, -1)),
                                     ('layer_norm', lambda x: F.layer_norm(x, (8,))),
                                     ('sum', lambda x: (x * 2).sum(-1))])
def test_row_reduction_is_one_block_reduction(name, f):
    x = _dev((4, 8), 3) * 3
    c = compile_fn(f, [x])
    assert c.kernel_count == 1
    src = c.sources[0]
    assert 'cuda.shared.array' in src and 'cuda.syncthreads()' in src and 'cuda.blockIdx.x' in src
    _close(c(x), f(x))
    torch.testing.assert_close(torch.from_numpy(c(x).cpu().numpy()), torch.from_numpy(f(x.cpu()).numpy()))   # and the CPU


def test_matmul_is_extern_tiled_matmul_and_layernorm_gelu_fuses():
    x, w, b = _dev((4, 8), 4), _dev((8, 8), 5), _dev((8,), 6)
    f = lambda x, w, b: F.layer_norm(F.gelu(x @ w + b), (8,))
    c = compile_fn(f, [x, w, b])
    assert [s.kind for s in c.steps if not hasattr(s, 'space')] == ['extern'] and c.kernel_count == 1
    _close(c(x, w, b), f(x, w, b))


def test_cuda_sources_are_cached_on_disk():
    x = _dev((2, 4), 7)
    c = compile_fn(lambda x: minitorch.softmax(x, -1) * 2, [x])
    assert all(any(p.read_text() == s for p in inductor.cache_dir().glob('k_*.py')) for s in c.sources)


def test_training_step_grads_equal_eager_on_cuda():
    def make():
        minitorch.manual_seed(0)
        return minitorch.nn.Sequential(minitorch.nn.Linear(8, 8), minitorch.nn.GELU(), minitorch.nn.LayerNorm(8),
                                       minitorch.nn.Softmax(-1)).to('cuda')
    m, e = make(), make()
    x = _dev((4, 8), 8)
    before = dict(inductor.counters)
    out_c, out_e = minitorch.compile(m)(x), e(x)
    (out_c * out_c).sum().backward(); (out_e * out_e).sum().backward()
    assert inductor.counters['graphs'] - before['graphs'] == 2           # forward and backward compiled for cuda
    _close(out_c, out_e)
    for pc, pe in zip(m.parameters(), e.parameters()): _close(pc.grad, pe.grad)


def test_attention_contraction_on_cuda():
    "q @ k^T arrives as sum(mul(...)): on cuda it becomes one batched tiled matmul, not a kernel over the 4-d product."
    q, k, v = _dev((2, 3, 4), 9), _dev((2, 5, 4), 10), _dev((2, 5, 4), 11)
    f = lambda q, k, v: minitorch.softmax(q @ k.transpose(-2, -1), -1) @ v
    c = compile_fn(f, [q, k, v])
    assert all(len(s.space) <= 3 for s in c.steps if hasattr(s, 'space')) and c.kernel_count == 1
    assert sum(hasattr(s, 'contract') for s in c.steps) == 2
    _close(c(q, k, v), f(q, k, v))


def test_trace_shows_cuda_kernels(capsys):
    compile_fn(lambda x: minitorch.softmax(x, -1), [_dev((2, 4), 10)], trace=True)
    out = capsys.readouterr().out
    assert '=== inductor (cuda): graph' in out and '=== kernel 0' in out and '@cuda.jit(cache=True)' in out


from hypothesis import given, settings, strategies as st, HealthCheck


@settings(max_examples=5, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(rows=st.sampled_from([(1,), (3,), (2, 2)]), n=st.integers(1, 9), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 99))
def test_cuda_kernels_equal_eager_hypothesis(rows, n, dtype, seed):
    "Row lengths below, at and above the block's thread count; a broadcast weight; f32 and f64."
    x, w, b = _dev((*rows, n), seed, dtype), _dev((n,), seed + 1, dtype), _dev((*rows, 1), seed + 2, dtype)
    f = lambda x, w, b: minitorch.softmax(F.layer_norm(F.gelu(x * w + b), (n,)) * 3, -1) + (x * b).sum(-1, keepdim=True)
    c = compile_fn(f, [x, w, b])
    assert c.kernel_count >= 1
    _close(c(x, w, b), f(x, w, b))


def test_half_precision_on_cuda_runs_eagerly_on_the_device():
    "fp16 lives on the device as uint16 words: kernels read only the float32 the decomposition converts it to."
    x = _dev((2, 4), 12).half()
    f = lambda x: minitorch.softmax(x * 2, -1)
    c = compile_fn(f, [x])
    kernels = [s for s in c.plan if s[0] == 'kernel']
    assert all(i.meta['val'].dtype == minitorch.float32 for s in kernels for i in s[2])
    got = c(x)
    assert got.dtype == minitorch.float16
    _close(got.float(), f(x).float())


@pytest.mark.gpu
def test_real_gpu_sizes_and_cache(tmp_path, monkeypatch):
    "On a GPU (skipped under the simulator): rows longer than a block, many blocks, and numba's cache beside the source."
    monkeypatch.setenv('MINITORCH_INDUCTOR_CACHE', str(tmp_path))
    x, w, b = _dev((1000, 700), 13), _dev((700, 700), 14), _dev((700,), 15)
    f = lambda x, w, b: minitorch.softmax(F.layer_norm(F.gelu(x @ w + b), (700,)), -1)
    c = compile_fn(f, [x, w, b])
    assert c.kernel_count == 1
    _close(c(x, w, b), f(x, w, b))
    assert list(tmp_path.glob('k_*.py')) and list(tmp_path.glob('__pycache__/*.nbi'))


def test_conv2d_on_cuda_is_im2col_and_a_tiled_matmul():
    "conv2d decomposes to an index gather (im2col) and sum(mul): the contraction is an extern matmul, relu a kernel."
    x, w = _dev((1, 2, 5, 5), 16), _dev((3, 2, 3, 3), 17)
    f = lambda x, w: F.conv2d(x, w).relu()
    c = compile_fn(f, [x, w])
    assert sum(hasattr(s, 'contract') for s in c.steps) == 1 and c.kernel_count == 1
    _close(c(x, w), f(x, w))
