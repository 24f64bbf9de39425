"minitorch.use_deterministic_algorithms and friends against torch: the switch, its errors, the alarm and the fill."
import warnings
import pytest
import torch
import minitorch
from minitorch import determinism as D

@pytest.fixture(autouse=True)
def _off():
    "Every test starts and ends with both libraries' deterministic mode off and the fill flag on."
    yield
    minitorch.use_deterministic_algorithms(False); torch.use_deterministic_algorithms(False)
    minitorch.utils.deterministic.fill_uninitialized_memory = True
    torch.utils.deterministic.fill_uninitialized_memory = True

def _err(f):
    try: f()
    except Exception as e: return type(e), str(e)
    return None

@pytest.mark.parametrize('mode,warn_only', [(True, False), (True, True), (False, False), (False, True)])
def test_switch_state(mode, warn_only):
    minitorch.use_deterministic_algorithms(mode, warn_only=warn_only)
    torch.use_deterministic_algorithms(mode, warn_only=warn_only)
    for f in ('are_deterministic_algorithms_enabled', 'is_deterministic_algorithms_warn_only_enabled',
              'get_deterministic_debug_mode'):
        assert getattr(minitorch, f)() == getattr(torch, f)()

@pytest.mark.parametrize('args,kw', [((1,), {}), ((None,), {}), ((True,), {'warn_only': 1}), ((1.0,), {})])
def test_switch_type_errors(args, kw):
    e = _err(lambda: minitorch.use_deterministic_algorithms(*args, **kw))
    assert e is not None and e == _err(lambda: torch.use_deterministic_algorithms(*args, **kw))

def test_warn_only_is_keyword():
    assert _err(lambda: minitorch.use_deterministic_algorithms(True, True))[0] is TypeError

@pytest.mark.parametrize('v', [0, 1, 2, 'default', 'warn', 'error', 3, -1, 'x', 1.0, True])
def test_debug_mode(v):
    e = _err(lambda: minitorch.set_deterministic_debug_mode(v))
    assert e == _err(lambda: torch.set_deterministic_debug_mode(v))
    assert minitorch.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
    assert minitorch.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()

def test_alarm_messages_match_torch():
    "put_ without accumulate has no deterministic kernel on the CPU in torch: its message is the template."
    for warn_only in (False, True):
        torch.use_deterministic_algorithms(True, warn_only=warn_only)
        minitorch.use_deterministic_algorithms(True, warn_only=warn_only)
        with warnings.catch_warnings(record=True) as wt:
            warnings.simplefilter('always')
            et = _err(lambda: torch.zeros(3).put_(torch.tensor([0]), torch.tensor([1.])))
        with warnings.catch_warnings(record=True) as wm:
            warnings.simplefilter('always')
            em = _err(lambda: D.alert_not_deterministic('put_'))
        assert et == em
        if warn_only:
            assert wm[0].category is wt[0].category is UserWarning
            assert str(wt[0].message).startswith(str(wm[0].message))

def test_alarm_silent_when_off():
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        D.alert_not_deterministic('put_')
        D.alert_on_cuda('_histc_cuda', minitorch.ones(2, device='cuda'))

def test_alert_on_cuda_only_on_cuda():
    minitorch.use_deterministic_algorithms(True)
    D.alert_on_cuda('_histc_cuda', minitorch.ones(2))
    with pytest.raises(RuntimeError, match='_histc_cuda does not have a deterministic implementation'):
        D.alert_on_cuda('_histc_cuda', minitorch.ones(2, device='cuda'))

DTYPES = ['float32', 'float64', 'float16', 'bfloat16', 'complex64', 'complex128', 'int8', 'int16', 'int32',
          'int64', 'uint8', 'bool']

@pytest.mark.parametrize('name', DTYPES)
def test_fill_value_matches_torch(name):
    for mode in (False, True):
        torch.use_deterministic_algorithms(mode); minitorch.use_deterministic_algorithms(mode)
        v = D.uninitialized_fill(getattr(minitorch, name))
        t = torch.full((1,), v, dtype=getattr(torch, name))
        if mode:
            torch.testing.assert_close(t, torch.empty(1, dtype=getattr(torch, name)), equal_nan=True)
        else:
            assert v == 0

def test_fill_flag():
    import minitorch.utils.deterministic as mud
    assert mud is minitorch.utils.deterministic and mud.fill_uninitialized_memory is True
    assert _err(lambda: setattr(mud, 'fill_uninitialized_memory', 1)) == \
        _err(lambda: setattr(torch.utils.deterministic, 'fill_uninitialized_memory', 1))
    minitorch.use_deterministic_algorithms(True)
    mud.fill_uninitialized_memory = False
    assert D.uninitialized_fill(minitorch.float32) == 0


@pytest.mark.parametrize('name', DTYPES)
def test_empty_filled_like_torch(name):
    torch.use_deterministic_algorithms(True); minitorch.use_deterministic_algorithms(True)
    for dev in ('cpu', 'cuda'):
        m = minitorch.empty(2, 3, dtype=getattr(minitorch, name), device=dev)
        t = torch.empty(2, 3, dtype=getattr(torch, name))
        torch.testing.assert_close(torch.from_numpy(m.cpu().numpy()) if name != 'bfloat16' else
                                   torch.tensor(m.float().tolist()).bfloat16(), t, equal_nan=True)
        ml = minitorch.empty_like(minitorch.ones(4, dtype=getattr(minitorch, name), device=dev))
        tl = torch.empty_like(torch.ones(4, dtype=getattr(torch, name)))
        assert str(ml.tolist()) == str(tl.tolist())

def test_max_unpool_raises_on_cpu():
    torch.use_deterministic_algorithms(True); minitorch.use_deterministic_algorithms(True)
    x, i = [[[[1., 2.], [3., 4.]]]], [[[[0, 3], [5, 6]]]]
    et = _err(lambda: torch.nn.functional.max_unpool2d(torch.tensor(x), torch.tensor(i), 2))
    em = _err(lambda: minitorch.nn.functional.max_unpool2d(minitorch.tensor(x), minitorch.tensor(i), 2))
    assert et == em

@pytest.mark.parametrize('op,caller', [
    (lambda x: minitorch.histc(x), '_histc_cuda with floating point input'),
    (lambda x: minitorch.bincount(minitorch.tensor([0, 1, 1], device=x.device), weights=x), '_bincount_cuda'),
    (lambda x: minitorch.cumsum(x, 0), 'cumsum_cuda_kernel'),
    (lambda x: minitorch.median(x, 0), 'median CUDA with indices output')])
def test_cuda_kernels_raise(op, caller):
    minitorch.use_deterministic_algorithms(True)
    op(minitorch.ones(3))   # cpu: deterministic, as in torch
    with pytest.raises(RuntimeError, match=caller + ' does not have a deterministic implementation'):
        op(minitorch.ones(3, device='cuda'))
    minitorch.use_deterministic_algorithms(True, warn_only=True)
    with pytest.warns(UserWarning, match=caller):
        op(minitorch.ones(3, device='cuda'))

def test_cpu_accumulating_ops_stay_allowed():
    "index_add_, scatter_add_, index_put_ with accumulate, histc and bincount with weights run on the CPU in both."
    torch.use_deterministic_algorithms(True); minitorch.use_deterministic_algorithms(True)
    m, t = minitorch.zeros(3), torch.zeros(3)
    m.index_add_(0, minitorch.tensor([0, 0]), minitorch.tensor([1., 2.]))
    t.index_add_(0, torch.tensor([0, 0]), torch.tensor([1., 2.]))
    assert m.tolist() == t.tolist()
    assert minitorch.bincount(minitorch.tensor([0, 1, 1]), weights=minitorch.tensor([1., 2., 3.])).tolist() == \
        torch.bincount(torch.tensor([0, 1, 1]), weights=torch.tensor([1., 2., 3.])).tolist()
