"Parity fixes made by the lead in the last sessions (each compared with torch 2.13)."
import numpy as np
import pytest
import torch

import minitorch as mt
import minitorch.cuda as mcuda


@pytest.mark.skipif(not (mcuda.is_available() or mcuda.is_simulator()), reason="no CUDA device and the simulator is off")
@pytest.mark.parametrize("order", ["cpu_first", "cuda_first"])
def test_zero_dim_cpu_leaf_gets_its_grad_on_cpu(order):
    "A 0-d CPU tensor may meet CUDA tensors in an op; its gradient lands on the CPU, as torch's engine moves it."
    x = mt.tensor(2., requires_grad=True)
    y = mt.tensor([1., 2., 3.], device='cuda', requires_grad=True)
    z = x * y if order == "cpu_first" else y * x
    z.sum().backward()
    assert x.grad.device.type == 'cpu' and y.grad.device.type == 'cuda'
    assert x.grad.shape == () and float(x.grad) == 6.0
    (x + y).sum().backward()                      # the second gradient adds into the CPU one
    assert x.grad.device.type == 'cpu' and float(x.grad) == 9.0
