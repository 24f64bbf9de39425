"minitorch.ops keeps every name it had before chapter 08 was split into pointwise / arithmetic / ops (issue 22)."
import minitorch
from minitorch import ops, pointwise, arithmetic

_SKIP = {'__name__', '__doc__', '__file__', '__spec__', '__loader__', '__package__', '__builtins__', '__all__', '__cached__'}

def test_ops_reexports_every_name_of_the_first_parts():
    for m in (pointwise, arithmetic):
        missing = [k for k in vars(m) if k not in _SKIP and not hasattr(ops, k)]
        assert missing == [], (m.__name__, missing)
        # the same objects, not copies: a change of state (e.g. _REFUSE, _BCAST) is seen from every module
        assert [k for k in vars(m) if k not in _SKIP and getattr(ops, k) is not getattr(m, k)
                and not k.startswith('_o')] == []

def test_ops_all_covers_the_parts_and_star_import():
    assert set(pointwise.__all__) <= set(ops.__all__) and set(arithmetic.__all__) <= set(ops.__all__)
    g = {}; exec('from minitorch.ops import *', g)
    for n in ('binary_forward', 'sum_to_shape', 'add', 'mul', 'sigmoid', 'where', 'clamp', 'clone', 'eq', 'memory_format'):
        assert n in g, n

def test_private_names_other_modules_import_from_ops():
    for n in ('binary_forward', '_direct_operator', '_result_type', '_write_out', '_scalar_arg', '_data_as',
              '_expand_data', '_device_of', '_NoGrad', 'Mul', 'Add', '_Number'):
        assert hasattr(ops, n), n

def test_operators_and_functions_still_agree():
    x = minitorch.tensor([1., 2.], requires_grad=True)
    (x * 3 + 2 / x).sum().backward()
    assert x.grad.tolist() == [3 - 2 / 1, 3 - 2 / 4]
    assert type((x * 3).grad_fn).__name__ == 'MulBackward0'
