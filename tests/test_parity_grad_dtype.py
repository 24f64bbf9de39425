"Reductions asked for an integer dtype on a tensor that requires grad (issue 12): torch's autograd refuses them."
import pytest
import torch
import minitorch as mt


@pytest.mark.parametrize('dtype', ['int64', 'int32', 'bool', 'float64', 'complex128'])
@pytest.mark.parametrize('op', [lambda x, d: x.sum(dtype=d), lambda x, d: x.sum(0, dtype=d), lambda x, d: x.prod(dtype=d),
                                lambda x, d: x.prod(0, dtype=d), lambda x, d: x.cumsum(0, dtype=d),
                                lambda x, d: x.cumprod(0, dtype=d)])
@pytest.mark.parametrize('grad', [True, False])
def test_reduction_dtype_under_autograd(op, dtype, grad):
    def run(L):
        x = L.tensor([1.5, -2.0, 3.0], requires_grad=grad)
        try:
            r = op(x, getattr(L, dtype))
        except Exception as e:
            return type(e).__name__, str(e)
        return str(r.dtype).split('.')[-1], r.requires_grad
    assert run(mt) == run(torch)
