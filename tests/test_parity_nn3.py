"nn leftovers (issue 12): empty-batch conv_transpose3d, pool int-argument TypeErrors, dtype errors."
import pytest, torch, torch.nn.functional as TF
import minitorch, minitorch.nn.functional as MF


def _err(f):
    try: f(); return None
    except Exception as e: return type(e), str(e)


def test_conv_transpose3d_empty_batch():
    x, w = torch.randn(0, 2, 3, 3, 3), torch.randn(2, 3, 2, 2, 2)
    r = MF.conv_transpose3d(minitorch.tensor(x.numpy()), minitorch.tensor(w.numpy()), stride=2)
    assert tuple(r.shape) == tuple(TF.conv_transpose3d(x, w, stride=2).shape)


@pytest.mark.parametrize('dt', ['int32', 'int16', 'uint8'])
def test_conv_transpose3d_int_error(dt):
    x, w = torch.ones(1, 2, 3, 3, 3, dtype=getattr(torch, dt)), torch.ones(2, 3, 2, 2, 2, dtype=getattr(torch, dt))
    mx, mw = (minitorch.tensor(t.numpy()) for t in (x, w))
    assert _err(lambda: MF.conv_transpose3d(mx, mw)) == _err(lambda: TF.conv_transpose3d(x, w))


CALLS = [
    ('max_pool3d', 5, (2.0,), {}), ('max_pool3d', 5, (2, 2.0), {}), ('max_pool3d', 5, ((2, 2.0, 2),), {}),
    ('max_pool3d', 5, (), {'kernel_size': 2.0}), ('avg_pool3d', 5, (2.0,), {}), ('avg_pool3d', 5, (), {'kernel_size': 2.0}),
    ('avg_pool3d', 5, (2,), {'stride': 2.0}), ('max_pool1d', 3, (2.0,), {}), ('max_pool1d', 3, (), {'kernel_size': 2.0}),
    ('avg_pool1d', 3, (2.0,), {}), ('avg_pool1d', 3, (), {'kernel_size': 2.0}), ('avg_pool1d', 3, (2, 1.5), {}),
    ('max_pool2d', 4, (2.0,), {}), ('avg_pool2d', 4, (2.0,), {}), ('avg_pool2d', 4, (), {'kernel_size': 2.0}),
    ('avg_pool2d', 4, (2,), {'stride': (1, 1.5)}), ('max_pool2d', 4, (2,), {'stride': 1.5}),
]


@pytest.mark.parametrize('name,nd,args,kw', CALLS)
def test_pool_int_arg_errors(name, nd, args, kw):
    x = torch.randn((1, 2, 4, 4, 4)[5 - nd:])
    got = _err(lambda: getattr(MF, name)(minitorch.tensor(x.numpy()), *args, **kw))
    assert got is not None and got == _err(lambda: getattr(TF, name)(x, *args, **kw))


@pytest.mark.parametrize('args', [(2.0,), ((2, 2.0, 2),), (2, 1.5)])
def test_lp_pool3d_int_arg_errors(args):
    x = torch.randn(1, 2, 4, 4, 4)
    got = _err(lambda: MF.lp_pool3d(minitorch.tensor(x.numpy()), 2, *args))
    assert got is not None and got == _err(lambda: TF.lp_pool3d(x, 2, *args))
