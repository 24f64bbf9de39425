"Freezing (chapters 26b, 26ba): export/freeze a model to one file; the numpy-only runtime runs it and refuses bad files."
import ast, json, pickle, shutil, struct, subprocess, sys
from pathlib import Path
import numpy as np
import pytest
import torch
import minitorch
import minitorch.nn as nn
from minitorch.compiler import frozen_runtime as rt
from minitorch.export import export, freeze, load, save, ExportedProgram


def _np(t): return t.detach().numpy()


def _mlp():
    minitorch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 4)).eval()


def _cnn():
    minitorch.manual_seed(1)
    m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(8, 8, 3, stride=1, groups=2), nn.AvgPool2d(2), nn.Flatten(), nn.Linear(8 * 3 * 3, 10),
                      nn.Softmax(-1))
    m[1].running_mean.copy_(minitorch.randn(8)); m[1].running_var.copy_(minitorch.rand(8) + 0.5)
    with minitorch.no_grad(): m[1].weight.copy_(minitorch.randn(8)); m[1].bias.copy_(minitorch.randn(8))
    return m.eval()


def _header(buf: bytes) -> dict:
    return json.loads(buf[16:16 + struct.unpack_from('<I', buf, 12)[0]])


def test_mlp_matches_eager_and_torch(tmp_path):
    m, x = _mlp(), minitorch.randn(5, 8)
    ep = freeze(m, (x,), tmp_path / 'm.mtf')
    assert isinstance(ep, ExportedProgram)
    torch.testing.assert_close(torch.tensor(_np(ep.module()(x))), torch.tensor(_np(m(x))))
    got = load(tmp_path / 'm.mtf')(x.numpy())
    torch.testing.assert_close(torch.tensor(got), torch.tensor(_np(m(x))))
    tm = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.LayerNorm(16), torch.nn.GELU(), torch.nn.Linear(16, 4))
    tm.load_state_dict({k: torch.tensor(_np(v)) for k, v in m.state_dict().items()})
    torch.testing.assert_close(torch.tensor(got), tm(torch.tensor(x.numpy())).detach())


def test_convnet_matches_eager(tmp_path):
    m, x = _cnn(), minitorch.randn(4, 3, 16, 16)
    freeze(m, (x,), tmp_path / 'c.mtf')
    torch.testing.assert_close(torch.tensor(load(tmp_path / 'c.mtf')(x.numpy())), torch.tensor(_np(m(x))))


def test_constants_are_folded(tmp_path):
    "Weight-only work happens at export: no permute of a Linear weight, no batch-norm rsqrt in the file."
    ep = export(_mlp(), (minitorch.randn(2, 8),))
    assert ep.folded == 2                                   # the two transposed Linear weights
    ops = [n['op'] for n in _header(ep.to_bytes())['nodes']]
    assert 'permute' not in ops and ops.count('mm') == 2 and ops.count('rsqrt') == 1   # LayerNorm's rsqrt needs x
    ops = [n['op'] for n in _header(export(_cnn(), (minitorch.randn(2, 3, 16, 16),)).to_bytes())['nodes']]
    assert 'rsqrt' not in ops and 'permute' not in ops and ops.count('convolution') == 2


def test_tuple_outputs_and_save(tmp_path):
    m = _mlp()
    f = lambda x: (m(x), minitorch.exp(x).sum(-1))
    x = minitorch.randn(3, 8)
    ep = export(f, (x,))
    save(ep, tmp_path / 't.mtf')
    a, b = load(tmp_path / 't.mtf')(x.numpy())
    torch.testing.assert_close(torch.tensor(a), torch.tensor(_np(m(x))))
    torch.testing.assert_close(torch.tensor(b), torch.tensor(_np(minitorch.exp(x).sum(-1))))


def test_runs_without_minitorch(tmp_path):
    "A fresh interpreter that cannot import minitorch runs the copied runtime on the file and gives eager's outputs."
    for name, m, x in [('mlp', _mlp(), minitorch.randn(5, 8)), ('cnn', _cnn(), minitorch.randn(2, 3, 16, 16))]:
        freeze(m, (x,), tmp_path / f'{name}.mtf'); np.save(tmp_path / f'{name}_x.npy', x.numpy())
    shutil.copy(rt.__file__, tmp_path / 'frozen_runtime.py')
    code = (f"import sys; sys.path[:0] = [{str(tmp_path)!r}, {str(Path(np.__file__).parents[1])!r}]\n"
            "try:\n    import minitorch\n    raise SystemExit('minitorch is importable')\nexcept ImportError: pass\n"
            "import numpy as np, frozen_runtime\n"
            "assert not any(m.startswith(('minitorch', 'torch')) for m in sys.modules)\n"
            "for n in ('mlp', 'cnn'):\n"
            f"    y = frozen_runtime.load({str(tmp_path)!r} + f'/{{n}}.mtf')(np.load({str(tmp_path)!r} + f'/{{n}}_x.npy'))\n"
            f"    np.save({str(tmp_path)!r} + f'/{{n}}_y.npy', y)\n")
    r = subprocess.run([sys.executable, '-I', '-S', '-c', code], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr + r.stdout
    for name, m in [('mlp', _mlp()), ('cnn', _cnn())]:
        x = minitorch.from_numpy(np.load(tmp_path / f'{name}_x.npy'))
        torch.testing.assert_close(torch.tensor(np.load(tmp_path / f'{name}_y.npy')), torch.tensor(_np(m(x))))


def test_runtime_imports_only_numpy_and_stdlib():
    src = Path(rt.__file__).read_text()
    imports = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Import): imports |= {a.name.split('.')[0] for a in node.names}
        if isinstance(node, ast.ImportFrom): imports.add((node.module or '.').split('.')[0])
    assert imports <= {'json', 'math', 'struct', 'numpy'}, imports
    assert 'pickle' not in src and 'eval(' not in src and 'exec(' not in src


@pytest.fixture
def good():
    m, x = _mlp(), minitorch.randn(2, 8)
    return export(m, (x,)).to_bytes()


def _repack(buf, edit):
    "The file with its header edited by `edit` (data section kept)."
    h = _header(buf)
    hlen = struct.unpack_from('<I', buf, 12)[0]
    data = buf[rt._align(16 + hlen):]
    edit(h)
    head = rt.MAGIC + struct.pack('<II', rt.VERSION, len(json.dumps(h).encode())) + json.dumps(h).encode()
    return head + b'\0' * (rt._align(len(head)) - len(head)) + data


def test_good_file_loads(good):
    assert rt.FrozenProgram(good)(np.zeros((2, 8), np.float32)).shape == (2, 4)


@pytest.mark.parametrize('name, spoil, msg', [
    ('bad magic', lambda b: b'PK\x03\x04' + b[4:], 'bad magic'),
    ('bad version', lambda b: b[:8] + struct.pack('<I', 7) + b[12:], 'unsupported version 7'),
    ('empty', lambda b: b'', 'bad magic'),
    ('truncated header', lambda b: b[:40], 'truncated header'),
    ('truncated array', lambda b: b[:-5], 'truncated data section'),
    ('pickle appended', lambda b: b + pickle.dumps({'evil': 1}), 'unexpected bytes after the data section'),
    ('header not json', lambda b: b[:16] + b'[' + b[17:], 'not valid JSON'),
    ('unknown op', lambda b: _repack(b, lambda h: h['nodes'][0].update(op='__import__')), "unknown op '__import__'"),
    ('object dtype', lambda b: _repack(b, lambda h: h['constants'][0].update(dtype='object')), "unknown dtype 'object'"),
    ('wrong shape', lambda b: _repack(b, lambda h: h['constants'][0].update(shape=[3, 3])), 'do not hold'),
    ('bytes outside data', lambda b: _repack(b, lambda h: h['constants'][0].update(offset=10 ** 9)), 'outside the data section'),
    ('missing value', lambda b: _repack(b, lambda h: h['nodes'][0].update(args=[{'ref': 'nowhere'}, [1, 0]])),
     "reads 'nowhere'"),
    ('missing output', lambda b: _repack(b, lambda h: h.update(outputs=['ghost'])), "reads 'ghost'"),
    ('forward reference', lambda b: _repack(b, lambda h: h['nodes'].reverse()), 'not defined before it'),
    ('repeated name', lambda b: _repack(b, lambda h: h['nodes'][1].update(name=h['nodes'][0]['name'])), 'repeated name'),
    ('code as argument', lambda b: _repack(b, lambda h: h['nodes'][0]['args'].append({'lambda': 'x'})), 'is not a literal'),
    ('extra key', lambda b: _repack(b, lambda h: h.update(pickle='gASV')), 'header must be an object'),
    ('NaN in header', lambda b: _repack(b, lambda h: h['nodes'][0]['args'].append(float('nan'))), 'not JSON'),
])
def test_malformed_file_is_refused(good, name, spoil, msg):
    with pytest.raises(ValueError, match=msg.replace('(', r'\(')):
        rt.FrozenProgram(spoil(good))


def test_wrong_node_shape_fails_at_run(good):
    bad = _repack(good, lambda h: h['nodes'][-1].update(shape=[9, 9]))
    with pytest.raises(RuntimeError, match='the file says'):
        rt.FrozenProgram(bad)(np.zeros((2, 8), np.float32))


def test_wrong_input_is_refused(good):
    prog = rt.FrozenProgram(good)
    with pytest.raises(ValueError, match=r"expected float32\[2, 8\], got float32\[3, 8\]"):
        prog(np.zeros((3, 8), np.float32))
    with pytest.raises(ValueError, match='expected float32'):
        prog(np.zeros((2, 8), np.float64))
    with pytest.raises(TypeError, match='takes 1 inputs'):
        prog()


def test_export_errors():
    m = _mlp()
    with pytest.raises(ValueError, match='Expecting `args` to be a tuple'):
        export(m, minitorch.randn(2, 8))
    with pytest.raises(RuntimeError, match='only implemented for modules in eval mode'):
        freeze(m.train(), (minitorch.randn(2, 8),))
    with pytest.raises(RuntimeError, match='no implementation in the frozen runtime'):
        export(lambda x: minitorch.lgamma(x), (minitorch.rand(3) + 1,)).to_bytes()


def test_convnet_matches_torch(tmp_path):
    "The frozen conv net (BN folded, im2col conv, pooling in numpy) against torch with the same weights, in eval mode."
    m, x = _cnn(), minitorch.randn(3, 3, 16, 16)
    freeze(m, (x,), tmp_path / 'c.mtf')
    tm = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                             torch.nn.Conv2d(8, 8, 3, groups=2), torch.nn.AvgPool2d(2), torch.nn.Flatten(),
                             torch.nn.Linear(72, 10), torch.nn.Softmax(-1))
    tm.load_state_dict({k: torch.tensor(_np(v)) for k, v in m.state_dict().items()})
    tm.eval()
    torch.testing.assert_close(torch.tensor(load(tmp_path / 'c.mtf')(x.numpy())), tm(torch.tensor(x.numpy())).detach())
