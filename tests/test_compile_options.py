"""`minitorch.compile(mode=, options=)` (nbs/25b): checked and passed to the backend as torch does: inductor reads them
when `compile` is called (unknown option, wrong type, unknown mode: torch's RuntimeError) and gets `config_patches`;
other backends get `mode=`/`options=` keywords only when given; `current_config()` during a backend's compile."""
import logging
import pytest
import torch
import minitorch as mt
from minitorch import nn
from minitorch import _dynamo as mdynamo
from minitorch._dynamo import compile as mcompile

def f(x): return x.sin() + 1

def _raises_like_torch(**kw):
    with pytest.raises(RuntimeError) as tm: torch.compile(f, **kw)
    with pytest.raises(RuntimeError) as mm: mcompile(f, **kw)
    assert type(mm.value) is type(tm.value) is RuntimeError
    return str(tm.value), str(mm.value)

def test_unknown_option_raises_like_torch():
    t, m = _raises_like_torch(options={'nonsense': 1})
    assert t.startswith('Unexpected optimization option nonsense, known options are [')
    assert m.startswith('Unexpected optimization option nonsense, known options are [')
    _raises_like_torch(options={'trace': {'enabled': True}})          # torch's keys are flat: 'trace.enabled'
    with pytest.raises(RuntimeError): mcompile(f, options={'nonsense': 1}, disable=True)   # checked before `disable`
    with pytest.raises(RuntimeError): torch.compile(f, options={'nonsense': 1}, disable=True)

def test_option_type_is_checked_like_torch():
    t, m = _raises_like_torch(options={'trace.enabled': 1})
    assert t == m == 'Unexpected type of attr trace.enabled, got int should be bool'

def test_modes_like_torch():
    t, m = _raises_like_torch(mode='fast')
    assert t == m, (t, m)
    for mode in ('default', 'lite', 'reduce-overhead', 'max-autotune', 'max-autotune-no-cudagraphs'):
        torch.compile(f, mode=mode); mcompile(f, mode=mode)
    for kw in (dict(options={'trace.enabled': True}), dict(options={'max-autotune': True}), dict(options={'trace.debug_dir': '/tmp/x'})):
        torch.compile(f, **kw); mcompile(f, **kw)
    # only inductor reads them: another backend gets whatever it is given
    torch.compile(f, backend='eager', mode='fast'); mcompile(f, backend='eager', mode='fast')

def test_inductor_config_patches():
    assert mdynamo.InductorWrapper('reduce-overhead').config == {'triton.cudagraphs': True}
    assert mdynamo.InductorWrapper(None, {'trace.enabled': True, 'max-autotune': True}).config == \
        {'trace.enabled': True, 'max_autotune': True}
    from torch._inductor import list_mode_options
    for mode in mdynamo.MODE_OPTIONS:
        if mode != 'lite': assert mdynamo.mode_options(mode) == list_mode_options(mode)
    cfg = mcompile(f, options={'trace.enabled': True})._compiler.config
    assert cfg['trace.enabled'] is True and cfg['trace.output_code'] is True and cfg.mode == 'default'

def test_backend_receives_mode_and_options_like_torch():
    def record(seen):
        def be(gm, inputs, **kw): seen.append(kw); return gm.forward
        return be
    for kw, want in [(dict(mode='reduce-overhead'), {'mode': 'reduce-overhead'}), (dict(options={'a': 1}), {'options': {'a': 1}}),
                     (dict(mode='default'), {}), ({}, {})]:
        ts, ms = [], []
        torch.compile(f, backend=record(ts), **kw)(torch.ones(3)); mcompile(f, backend=record(ms), **kw)(mt.ones(3))
        assert ts == ms == [want], (kw, ts, ms)

def test_backend_without_keywords_fails_like_torch():
    def be(gm, inputs): return gm.forward
    close = lambda a, b: torch.testing.assert_close(torch.tensor(a.tolist()), b)
    close(mcompile(f, backend=be)(mt.ones(2)), torch.compile(f, backend=be)(torch.ones(2)))
    with pytest.raises(torch._dynamo.exc.BackendCompilerFailed) as t: torch.compile(f, backend=be, options={'a': 1})(torch.ones(2))
    with pytest.raises(mdynamo.exc.BackendCompilerFailed) as m: mcompile(f, backend=be, options={'a': 1})(mt.ones(2))
    assert issubclass(mdynamo.exc.BackendCompilerFailed, RuntimeError)
    assert str(m.value).splitlines()[:2] == str(t.value).splitlines()[:2]

def test_builtin_backends_ignore_keywords_with_a_log(caplog):
    with caplog.at_level(logging.WARNING, logger='minitorch._dynamo'):
        out = mcompile(f, backend='eager', mode='reduce-overhead')(mt.ones(2))
        mcompile(f, backend='aot_eager', options={'x': 1})(mt.ones(2, requires_grad=True))
    assert out.tolist() == (mt.ones(2).sin() + 1).tolist()
    assert "eager backend ignoring extra kwargs {'mode': 'reduce-overhead'}" in caplog.text
    assert "aot_autograd-based backend ignoring extra kwargs {'options': {'x': 1}}" in caplog.text

def test_current_config_during_backend_compile():
    seen = []
    def be(gm, inputs): seen.append(mdynamo.current_config()); return gm.forward
    mcompile(f, backend=be)(mt.ones(2))
    assert mdynamo.current_config() is None and seen[0].mode == 'default' and seen[0].options == {}
    def be2(gm, inputs, **kw): seen.append(mdynamo.current_config()); return gm.forward
    mcompile(f, backend=be2, mode='max-autotune')(mt.ones(2))
    assert seen[-1].mode == 'max-autotune'

def test_module_compile_passes_arguments():
    m = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match='Unexpected optimization option'): m.compile(options={'nonsense': True})
    seen = []
    def be(gm, inputs, **kw): seen.append(kw); return gm.forward
    m.compile(backend=be, mode='reduce-overhead')
    x = mt.randn(4, 3)
    torch.testing.assert_close(torch.tensor(m(x).tolist()), torch.tensor(nn.Linear.forward(m, x).tolist()))
    assert seen == [{'mode': 'reduce-overhead'}]

@pytest.mark.parametrize('keyword', ['config_patches', 'options'])
def test_inductor_receives_the_patches(monkeypatch, keyword):
    "compile_fx gets the mode's options then the user's, flat torch names, under torch's keyword (or chapter 26's)."
    import minitorch.compiler.inductor as ind
    seen = []
    def fake(gm, example_inputs, **kw): seen.append(kw); return gm.forward
    fake.__signature__ = __import__('inspect').Signature([__import__('inspect').Parameter(n, __import__('inspect').Parameter.POSITIONAL_OR_KEYWORD)
                                                          for n in ('gm', 'example_inputs', keyword)])
    monkeypatch.setattr(ind, 'compile_fx', fake)
    mcompile(f, mode='reduce-overhead')(mt.ones(2))
    mcompile(f, options={'trace.enabled': True, 'max-autotune': True})(mt.ones(2))
    mcompile(f)(mt.ones(2))
    assert seen == [{keyword: {'triton.cudagraphs': True}}, {keyword: {'trace.enabled': True, 'max_autotune': True}}, {keyword: {}}]
