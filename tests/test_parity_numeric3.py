"Parity leftovers (issue 12): complex inf/NaN placement in addmm/addbmm values and grads."
import numpy as np
import torch
import minitorch as mt


def _c(rng, shape, p=0.15):
    x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    x[rng.random(shape) < p] = np.inf
    return x


def _same_nan(a, b):
    a, b = np.asarray(a), np.asarray(b)
    np.testing.assert_array_equal(np.isnan(a.real), np.isnan(b.real))
    np.testing.assert_array_equal(np.isnan(a.imag), np.isnan(b.imag))
    for x, y in ((a.real, b.real), (a.imag, b.imag)):
        np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-4, equal_nan=True)


def test_addmm_complex_inf_input_adds_part_by_part():
    rng = np.random.default_rng(0)
    for _ in range(20):
        i, a, b = _c(rng, (4, 4), 0.3), _c(rng, (4, 3), 0.1), _c(rng, (3, 4), 0.0)
        want = torch.addmm(torch.tensor(i), torch.tensor(a), torch.tensor(b)).numpy()
        _same_nan(mt.addmm(mt.tensor(i), mt.tensor(a), mt.tensor(b)).numpy(), want)


def test_addbmm_complex_inf_values_and_grads():
    rng = np.random.default_rng(1)
    for _ in range(20):
        xs = [_c(rng, (4,)), _c(rng, (2, 4, 3)), _c(rng, (2, 3, 4))]
        ts = [torch.tensor(x, requires_grad=True) for x in xs]
        ms = [mt.tensor(x, requires_grad=True) for x in xs]
        rt, rm = torch.addbmm(*ts), mt.addbmm(*ms)
        _same_nan(rm.detach().numpy(), rt.detach().numpy())
        g = (rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))).astype(np.complex64)
        rt.backward(torch.tensor(g)); rm.backward(mt.tensor(g))
        for t, m in zip(ts, ms): _same_nan(m.grad.numpy(), t.grad.numpy())


def test_sdpa_empty_head_dim_scores_zero():
    import minitorch.nn.functional as F
    rng = np.random.default_rng(2)
    for lead in [(1, 2), (2,)]:
        for causal in (False, True):
            q, k = np.zeros(lead + (3, 0), np.float32), np.zeros(lead + (4, 0), np.float32)
            v = rng.standard_normal(lead + (4, 2)).astype(np.float32)
            tv = torch.tensor(v, requires_grad=True); mv = mt.tensor(v, requires_grad=True)
            rt = torch.nn.functional.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), tv, is_causal=causal)
            rm = F.scaled_dot_product_attention(mt.tensor(q), mt.tensor(k), mv, is_causal=causal)
            torch.testing.assert_close(torch.tensor(rm.detach().numpy()), rt.detach())
            rt.sum().backward(); rm.sum().backward()
            torch.testing.assert_close(torch.tensor(mv.grad.numpy()), tv.grad)


def test_lerp_complex_cuda_matches_torch_cpu():
    rng = np.random.default_rng(3)
    for w in (0.25, 0.75, 2.0):
        x, e = _c(rng, (6, 5), 0.2), _c(rng, (6, 5), 0.2)
        want = torch.lerp(torch.tensor(x), torch.tensor(e), w).numpy()
        got = mt.lerp(mt.tensor(x, device='cuda'), mt.tensor(e, device='cuda'), w)
        assert got.device.type == 'cuda'
        _same_nan(got.cpu().numpy(), want)
