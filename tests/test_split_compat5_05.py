"""Issue 22: 05_backends -> 05_backends (minitorch.backends) + 05a_cpu_bits (minitorch.cpu_bits).
The later, technical part (PyTorch's CPU arithmetic bit for bit: SIMD blocks, the complex product, quotient and
negation, the cascade sum) moved to minitorch.cpu_bits; minitorch.backends imports it back, so every name it had
is still there, as the same object, and cpu_bits never imports backends (no cycle)."""
import ast
import inspect
import subprocess
import sys

import numpy as np
import torch

import minitorch
import minitorch.backends as backends
import minitorch.cpu_bits as cpu_bits

# sorted(dir(minitorch.backends)) before the split, dunders left out
OLD_DIR = """
    Any Backend Callable ConjStorage Iterator MAP_OPS NumpyBackend REDUCE_OPS TensorData ZIP_OPS _C32_KERNELS
    _C32_MESSAGES _C32_OPS _CACHE _CASCADE _COUNT_CPU _CPU_VECTOR_BYTES _CURRENT _DEFAULTS _GRAIN_SIZE
    _HALF_NP _INSTANCES _LAZY _LOW _PLAIN_NP _REGISTRY _cdiv _check_gather_index _cmul _cmul_plain _cneg
    _contiguous_strides _erf _fma _inner_run _instance _int_safe _load _no_complex32 _np_erf _np_erf_half
    _np_floor_divide _np_floor_divide_half _np_fmod _np_pow _np_reciprocal _np_relu _np_remainder _np_round
    _np_rsqrt _np_sigmoid _np_sign _np_trunc_divide _row_sum _simd_block _smith _torch_index_errors _torch_sum
    _torch_threads _unfused _vec_lanes _vector_bytes _vector_read _via_float32 _views_epoch annotations assign
    available_backends cat contextlib contiguous_strides copy cuda cudnn cumulative dt dtype from_numpy
    functools gather get_backend index index_put intrinsic ir is_contiguous make_data math matmul mps njit np
    os patch re record_alloc register_backend scatter set_backend sort storage_resized to_numpy types
    use_backend warnings where
""".split()

MOVED = """_vector_bytes _CPU_VECTOR_BYTES _simd_block _vector_read _cmul_plain _cmul _vec_lanes _cneg _fma _smith
    _inner_run _GRAIN_SIZE _torch_threads _unfused _cdiv _row_sum _torch_sum _CASCADE""".split()


def test_backends_keeps_every_name():
    missing = sorted(set(OLD_DIR) - set(dir(backends)))
    assert not missing, missing


def test_moved_names_are_the_same_objects():
    for n in MOVED:
        assert n in vars(cpu_bits), n
        assert getattr(backends, n) is getattr(cpu_bits, n), n


def test_cpu_bits_does_not_import_backends():
    "`import minitorch.cpu_bits` runs the package's __init__ first (which imports backends), so read its imports."
    tree = ast.parse(inspect.getsource(cpu_bits))
    mods = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    mods += [n.module or '' for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert all(m == 'numpy' or not m.startswith(('minitorch', '.')) for m in mods), mods
    assert not any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(tree))
    subprocess.run([sys.executable, "-c", "import minitorch"], check=True)


def test_moved_code_still_matches_torch():
    g = np.random.default_rng(5)
    x = (g.standard_normal(37) + 1j * g.standard_normal(37)).astype(np.complex64)
    y = (g.standard_normal(37) + 1j * g.standard_normal(37)).astype(np.complex64)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    assert np.array_equal(backends._cdiv(x, y), (tx / ty).numpy())   # an odd run: its last element unfused
    # whole SIMD blocks only: the scalar tail of an odd-length product can still differ by an ulp (as before the split)
    assert np.array_equal(backends._cmul(x[:32], y[:32]), (tx[:32] * ty[:32]).numpy())
    v = g.standard_normal(1001).astype(np.float32)
    assert backends._torch_sum(v, 8) == torch.from_numpy(v).sum().item()
    a = minitorch.tensor(x) / minitorch.tensor(y)
    assert np.array_equal(a.numpy(), (tx / ty).numpy())
