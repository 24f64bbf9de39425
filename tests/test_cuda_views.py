"""Views and reshapes of cuda tensors: a reshape that cannot be a view copies on the device (no host round trip)."""
import numpy as np
import pytest
import torch

import minitorch
import minitorch.cuda as mcuda

if not (mcuda.is_available() or mcuda.is_simulator()):
    pytest.skip("no GPU and no CUDA simulator", allow_module_level=True)


@pytest.mark.parametrize("perm,shape", [((0, 2, 1), (2, 12)), ((2, 1, 0), (-1,)), ((1, 0, 2), (3, 8))])
def test_reshape_of_a_non_contiguous_cuda_tensor(perm, shape):
    base = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = minitorch.tensor(base, device="cuda", requires_grad=True)
    t = torch.tensor(base, requires_grad=True)
    y, ty = x.permute(*perm).reshape(*shape), t.permute(*perm).reshape(*shape)
    assert y.device.type == "cuda" and tuple(y.shape) == tuple(ty.shape)
    np.testing.assert_array_equal(y.detach().cpu().numpy(), ty.detach().numpy())
    w = np.arange(ty.numel(), dtype=np.float32).reshape(tuple(ty.shape))
    (y * minitorch.tensor(w, device="cuda")).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    assert x.grad.device.type == "cuda"
    np.testing.assert_array_equal(x.grad.cpu().numpy(), t.grad.numpy())


def test_view_of_a_non_contiguous_cuda_tensor_is_refused_as_torch():
    x = minitorch.zeros(2, 3, device="cuda")
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.t().view(6)
