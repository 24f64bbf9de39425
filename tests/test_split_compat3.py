"""Chapter 26 was split in two: the loop-level IR, scheduler and code generation moved to
`minitorch.compiler.loop_ir` (nbs/25e_loop_ir); `minitorch.compiler.inductor` (nbs/26_inductor) keeps the rest and
re-exports all of it. Every name the old module had must still import from it, and be the same object as in loop_ir."""
import importlib
import pytest

INDUCTOR_NAMES = [
    'Any', 'Callable', 'CompiledGraph', 'EXTERN', 'FusedGroup', 'Graph', 'IRNode', 'KernelSource',
    'Node', 'PARALLEL_MIN', 'POINTWISE', 'Path', 'REDUCTIONS', 'Tensor', '_Constant', '_NP_DTYPES',
    '_NP_XP', '_NUMPY', '_RESHAPES', '_VIEWS', '_compile_partition', '_contract', '_contract_np', '_contract_pattern',
    '_cuda_codegen', '_debug', '_device', '_extern_op', '_fallback_op', '_fast_fn', '_fits', '_float',
    '_index_step', '_is_view', '_kernel_op', '_loaded', '_name', '_np', '_npmath', '_numpy_step',
    '_out_tensor', '_prepare', '_red_dim_ok', '_resolve', '_row_offset', '_scalar_fn', '_space', '_strides_in',
    '_tensor', '_val', 'annotations', 'aot_inductor', 'bytes_moved', 'cache_dir', 'compile_fn', 'compile_fx',
    'config', 'counters', 'decompose', 'generate', 'hashlib', 'importlib', 'kernel_count', 'load_kernel',
    'log', 'logging', 'lower', 'map_arg', 'math', 'minitorch', 'np', 'operator',
    'os', 'patch', 'print_trace', 'schedule', 'sys',
]


def test_inductor_keeps_every_name():
    ind = importlib.import_module('minitorch.compiler.inductor')
    missing = [n for n in INDUCTOR_NAMES if not hasattr(ind, n)]
    assert not missing, missing


def test_inductor_star_import_keeps_public_names():
    ns: dict = {}
    exec('from minitorch.compiler.inductor import *', ns)
    for n in ['POINTWISE', 'REDUCTIONS', 'EXTERN', 'PARALLEL_MIN', 'IRNode', 'lower', 'FusedGroup', 'schedule',
              'kernel_count', 'KernelSource', 'generate', 'cache_dir', 'load_kernel', 'config', 'CompiledGraph',
              'compile_fn', 'aot_inductor', 'compile_fx', 'bytes_moved', 'counters']:
        assert n in ns, n


def test_reexports_are_the_same_objects():
    ind = importlib.import_module('minitorch.compiler.inductor')
    li = importlib.import_module('minitorch.compiler.loop_ir')
    for n in dir(li):
        if n.startswith('__') or not hasattr(ind, n) or n in ('annotations',): continue
        assert getattr(ind, n) is getattr(li, n), n
    assert ind._loaded is li._loaded          # one kernel cache per process


def test_loop_ir_does_not_import_inductor():
    "No cycle: the new module must load without the old one."
    import subprocess, sys
    code = ("import sys, minitorch.compiler.loop_ir as li; "
            "print('minitorch.compiler.inductor' in sys.modules)")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == 'False'


@pytest.mark.parametrize('mod,names', [
    ('minitorch.distributed.elastic', ['parse_args', 'main', 'rendezvous', '_host_rendezvous', '_join_rendezvous',
                                       '_rest_for_nodes', '_attempts', '_readline', '_log', '_LAUNCHER_VALUED']),
    ('minitorch.func', ['jacrev', 'jacfwd', 'hessian', 'functional_call', '_named_tensors', '_swap', '_basis']),
    ('minitorch.profiler', ['profile', 'EventList', 'FunctionEventAvg', '_fmt_time', '_fmt_mem', '_current', '_tid']),
    ('minitorch.compiler.aot', ['cse', '_build', 'aot_eager', 'explicit_op', '_decomposition', '_softmax',
                                '_cross_entropy', '_JOINT_RULES', '_KEEP_WHOLE', '_IN_FLOAT32', '_PURE', '_key'])])
def test_cells_split_keep_names(mod, names):
    m = importlib.import_module(mod)
    assert [n for n in names if not hasattr(m, n)] == []


def test_profile_methods_patched_onto_the_class():
    from minitorch.profiler import profile
    for n in ('_on_memory', '_free', 'export_chrome_trace', 'events', 'key_averages', 'peak_memory'):
        assert n in vars(profile), n
    assert isinstance(vars(profile)['peak_memory'], property)


def test_elastic_parse_args_nnodes():
    from minitorch.distributed.elastic import parse_args
    ns, rest = parse_args(['--max-restarts', '2', '--nnodes', '1:3', '--rdzv-endpoint', 'h:1', 'train.py', '--lr', '1'])
    assert (ns.max_restarts, ns.min_nodes, ns.max_nodes, rest) == (2, 1, 3, ['train.py', '--lr', '1'])
    ns, rest = parse_args(['--nnodes=2:2', '--nproc-per-node', '2', 'train.py'])
    assert ns.min_nodes is None and rest == ['--nnodes=2', '--nproc-per-node', '2', 'train.py']
    with pytest.raises(ValueError, match='needs a rendezvous'):
        parse_args(['--nnodes', '1:2', 'train.py'])
