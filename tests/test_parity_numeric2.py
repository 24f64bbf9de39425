"Issue 12 parity leftovers (matmul, statistics, reductions, attention, conv, cuda): minitorch against torch."
import pytest
import torch
import minitorch as mt


def _err(f):
    try: f()
    except Exception as e: return type(e), str(e)
    return None


@pytest.mark.parametrize('d', ['complex64', 'complex128'])
def test_mode_complex_raises_as_torch(d):
    x = [[1 + 1j, 2j], [2j, 2j]]
    want = _err(lambda: torch.tensor(x, dtype=getattr(torch, d)).mode(1))
    got = _err(lambda: mt.tensor(x, dtype=getattr(mt, d)).mode(1))
    assert want is not None and got == want
    # an empty reduction dim is checked first, as PyTorch does
    assert _err(lambda: mt.zeros(0, dtype=getattr(mt, d)).mode(0))[0] is IndexError


@pytest.mark.parametrize('p,dim', [('fro', (0, 1, 2)), ('fro', [0, 1, 2]), (None, (0, 1, 2)), ('nuc', (0, 1, 2)),
                                   ('nuc', 0), ('fro', (-1, 0, 1))])
def test_norm_string_p_needs_two_dims(p, dim):
    x = torch.randn(2, 3, 4)
    kw = {} if p is None else {'p': p}
    want = _err(lambda: x.norm(dim=dim, **kw))
    got = _err(lambda: mt.tensor(x.numpy()).norm(dim=dim, **kw))
    assert want is not None and got == want


def test_norm_nuc_and_vector_paths_still_match():
    x = torch.randn(3, 4, dtype=torch.float64)
    m = mt.tensor(x.numpy())
    torch.testing.assert_close(torch.tensor(m.norm(p='nuc').numpy()), x.norm(p='nuc'))
    torch.testing.assert_close(torch.tensor(m.norm(p=2, dim=(0, 1)).numpy()), x.norm(p=2, dim=(0, 1)))
    torch.testing.assert_close(torch.tensor(m.norm(dim=1).numpy()), x.norm(dim=1))


@pytest.mark.parametrize('d', ['float32', 'float64', 'complex64', 'complex128'])
@pytest.mark.parametrize('shape,dim', [((5,), 0), ((1, 5), 1), ((5, 1), 0), ((5,), None), ((3, 5), 1)])
def test_std_of_a_constant_slice_follows_torchs_kernel(d, shape, dim):
    "A one-number result takes PyTorch's two-pass kernel (sum/n may be an ulp off: std not 0, gradient finite); "\
    "several rows take Welford's (exactly 0)."
    val = complex(-3.4747121911529897, 0.413259793472436) if d.startswith('complex') else -3.4747121911529897
    tx = torch.tensor([val], dtype=getattr(torch, d)).requires_grad_()
    mx = mt.tensor([val], dtype=getattr(mt, d)).requires_grad_()
    kw = {} if dim is None else {'dim': dim}
    rt = tx.expand(*shape).std(correction=0, **kw)
    rm = mx.expand(*shape).std(correction=0, **kw)
    torch.testing.assert_close(torch.from_numpy(rm.detach().numpy().copy()).reshape(rt.shape), rt.detach(),
                               rtol=0, atol=0)
    rt.sum().backward(); rm.sum().backward()
    torch.testing.assert_close(torch.from_numpy(mx.grad.numpy().copy()), tx.grad)


@pytest.mark.parametrize('d', ['float32', 'float64', 'complex64', 'bfloat16'])
@pytest.mark.parametrize('fn', ['std_mean', 'var_mean'])
@pytest.mark.parametrize('dim', [None, 0])
def test_std_mean_of_a_constant_is_welfords_zero(d, fn, dim):
    "var_mean/std_mean always take PyTorch's Welford kernel: a constant input has exactly 0 spread (var's two-pass "\
    "kernel may not); std_mean of a chain gets the gradient PyTorch gets."
    val = complex(-3.4747121911529897, 0.41) if d.startswith('complex') else -3.4747121911529897
    tx = torch.tensor([val], dtype=getattr(torch, d)).requires_grad_()
    mx = mt.tensor([val], dtype=getattr(mt, d)).requires_grad_()
    kw = {} if dim is None else {'dim': dim}
    vt, mt_ = getattr(torch, fn)(tx.expand(5), **kw)
    vm, mm_ = getattr(mt, fn)(mx.expand(5), **kw)
    assert float(vm.float().item()) == float(vt.float().item()) == 0.0
    torch.testing.assert_close(complex(mm_.to(mt.complex128).item()), complex(mt_.detach().to(torch.complex128).item()))


def test_std_mean_after_std_grad():
    x = torch.tensor([[0.3 + 0.7j, -1.2 + 0.1j, 0.5 - 2j, 1.1 + 0.4j]], dtype=torch.complex64).requires_grad_()
    m = mt.tensor(x.detach().numpy()).requires_grad_()
    v, mu = torch.std_mean(x.expand(5, 4).std(dim=-1), unbiased=True, dim=0)
    (v + mu).backward()
    v2, mu2 = mt.std_mean(m.expand(5, 4).std(dim=-1), unbiased=True, dim=0)
    (v2 + mu2).backward()
    torch.testing.assert_close(torch.from_numpy(m.grad.numpy().copy()), x.grad)


@pytest.mark.parametrize('d', ['float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128'])
def test_logcumsumexp_follows_torchs_kernel(d):
    "A float32 running value for 16-bit inputs, the complex helper's NaN/inf rules, and torch's backward formula."
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 7, generator=g, dtype=torch.float64) * 3
    if d.startswith('complex'): x = torch.complex(x, torch.randn(4, 7, generator=g, dtype=torch.float64))
    x = x.to(getattr(torch, d))
    x[1, 2], x[2, 0], x[3, 3] = float('inf'), float('-inf'), float('nan')
    tx = x.clone().requires_grad_()
    mx = mt.tensor(x.to(torch.complex128 if d.startswith('complex') else torch.float64).numpy()).to(getattr(mt, d))
    mx.requires_grad_()
    rt, rm = tx.logcumsumexp(1), mx.logcumsumexp(1)
    as_t = lambda t: torch.from_numpy(t.detach().to(mt.complex128 if d.startswith('complex') else mt.float64).numpy().copy())
    torch.testing.assert_close(as_t(rm).to(rt.dtype), rt.detach(), equal_nan=True)
    if d in ('float16', 'bfloat16'): return
    gg = torch.randn(rt.shape, generator=g, dtype=torch.float64).to(rt.dtype)
    rt.backward(gg); rm.backward(mt.tensor(gg.numpy()))
    torch.testing.assert_close(as_t(mx.grad).to(tx.grad.dtype), tx.grad, equal_nan=True)


@pytest.mark.parametrize('rg', [False, True])
def test_mode_of_a_complex_scalar(rg):
    "A 0-d input never reaches the kernel: the value comes back, unless autograd must record a complex output."
    want = _err(lambda: torch.tensor(1 + 1j, requires_grad=rg).mode())
    got = _err(lambda: mt.tensor(1 + 1j, requires_grad=rg).mode())
    assert got == want
    if not rg:
        r = mt.tensor(1 + 1j).mode()
        assert complex(r.values.item()) == 1 + 1j and int(r.indices.item()) == 0


@pytest.mark.parametrize('p', [float('inf'), -float('inf')])
@pytest.mark.parametrize('kw', [{'dim': (2, -3, 1), 'keepdim': True}, {'dim': 1}, {}])
@pytest.mark.parametrize('bad', [float('nan'), float('inf')])
def test_norm_inf_grad_counts_nan_as_reaching_it(p, kw, bad):
    x = [[[1., bad], [2, -3], [0, 1]], [[5, 1], [2, -3], [-5, 1]]]
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    m = mt.tensor(x, dtype=mt.float64, requires_grad=True)
    t.norm(p=p, **kw).sum().backward(); m.norm(p=p, **kw).sum().backward()
    torch.testing.assert_close(torch.from_numpy(m.grad.numpy().copy()), t.grad, equal_nan=True)


@pytest.mark.parametrize('d', ['int8', 'bool', 'int64'])
@pytest.mark.parametrize('shapes', [((2, 3, 1), (2, 0, 1), (2, 0, 1)), ((2, 0, 3), (2, 2, 3), (2, 2, 3)),
                                    ((2, 2, 3), (2, 2, 3), (2, 2, 0)), ((2, 2, 0), (2, 2, 0), (2, 2, 3)),
                                    ((2, 2, 3),) * 3])
@pytest.mark.parametrize('causal', [False, True])
def test_sdpa_integer_inputs_with_nothing_to_compute(d, shapes, causal):
    "No keys or an empty output: zeros (bool's as int64) and no dtype error, as PyTorch; otherwise its error."
    def run(lib):
        q, k, v = (lib.zeros(s, dtype=getattr(lib, d)) for s in shapes)
        r = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return tuple(r.shape), str(r.dtype).split('.')[-1], r.flatten().tolist()
    want, got = _err(lambda: run(torch)), _err(lambda: run(mt))
    if want is None: assert run(mt) == run(torch)
    else: assert got == want
