"minitorch.ops keeps every name it had before chapter 08 was split into pointwise / arithmetic / comparisons / ops (issue 22)."
import minitorch
from minitorch import ops, pointwise, arithmetic, comparisons

_SKIP = {'__name__', '__doc__', '__file__', '__spec__', '__loader__', '__package__', '__builtins__', '__all__', '__cached__'}

def test_ops_reexports_every_name_of_the_first_parts():
    for m in (pointwise, arithmetic, comparisons):
        missing = [k for k in vars(m) if k not in _SKIP and not hasattr(ops, k)]
        assert missing == [], (m.__name__, missing)
        # the same objects, not copies: a change of state (e.g. _REFUSE, _BCAST) is seen from every module
        assert [k for k in vars(m) if k not in _SKIP and getattr(ops, k) is not getattr(m, k)
                and not k.startswith('_o')] == []

def test_ops_all_covers_the_parts_and_star_import():
    for m in (pointwise, arithmetic, comparisons): assert set(m.__all__) <= set(ops.__all__), m.__name__
    g = {}; exec('from minitorch.ops import *', g)
    for n in ('binary_forward', 'sum_to_shape', 'add', 'mul', 'sigmoid', 'where', 'clamp', 'clone', 'eq', 'memory_format'):
        assert n in g, n

def test_private_names_other_modules_import_from_ops():
    for n in ('binary_forward', '_direct_operator', '_result_type', '_write_out', '_scalar_arg', '_data_as',
              '_expand_data', '_device_of', '_NoGrad', 'Mul', 'Add', '_Number', '_DIRECT', '_PLAIN_OPERAND', '_OPERATORS',
              '_clamp_plan', '_Atan2', 'Clamp', '_cmp', '_shift', 'ToCopy', '_Real', '_Imag', '_clone_data'):
        assert hasattr(ops, n), n

def test_operators_and_functions_still_agree():
    x = minitorch.tensor([1., 2.], requires_grad=True)
    (x * 3 + 2 / x).sum().backward()
    assert x.grad.tolist() == [3 - 2 / 1, 3 - 2 / 4]
    assert type((x * 3).grad_fn).__name__ == 'MulBackward0'

def test_comparisons_does_not_import_ops():
    "The first part of the split must not need the last (no circular import)."
    import ast, inspect
    tree = ast.parse(inspect.getsource(comparisons))
    mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(m and m.endswith('ops') for m in mods), mods

def test_operators_reach_the_comparisons_functions():
    x = minitorch.tensor([1., float('nan')])
    assert (x < 2).tolist() == [True, False] and (x != x).tolist() == [False, True]
    assert minitorch.tensor([1, 2]).clamp(min=2).tolist() == [2, 2]
    assert ops.clamp is comparisons.clamp and ops.eq is comparisons.eq and ops._Atan2 is comparisons._Atan2
