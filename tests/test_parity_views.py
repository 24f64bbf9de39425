"Views-chapter ops against torch: fresh outputs where torch copies, shapes and errors on edge cases (issue 12)."
import numpy as np
import pytest
import torch

import minitorch as mt

LAYOUTS = ['contiguous', 'transposed', 'strided', 'expanded', 'scalar']


def make(layout, dtype='float32', seed=0):
    "The same data in minitorch and torch, in `layout`."
    a = np.random.default_rng(seed).standard_normal((3, 4)).astype(dtype)
    def lay(lib, t):
        if layout == 'transposed': return t.t()
        if layout == 'strided': return t[:, ::2]
        if layout == 'expanded': return t[:1].expand(3, 4)
        if layout == 'scalar': return t[0, 0]
        return t
    return lay(mt, mt.tensor(a)), lay(torch, torch.tensor(a))


def shares(m, x):
    return m.numel() > 0 and np.may_share_memory(m._data.storage, x._data.storage)


def tshares(t, x):
    return t.numel() > 0 and t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


FRESH = {
    'tile1': lambda lib, x: lib.tile(x, (1,) * max(x.ndim, 1)),
    'tile2': lambda lib, x: lib.tile(x, (2,)),
    'repeat1': lambda lib, x: x.repeat(*(1,) * max(x.ndim, 1)),
    'repeat_lead': lambda lib, x: x.repeat(2, *(1,) * x.ndim),
    'repeat_interleave1': lambda lib, x: lib.repeat_interleave(x, 1, 0) if x.ndim else lib.repeat_interleave(x, 1),
    'repeat_interleave2': lambda lib, x: lib.repeat_interleave(x, 2),
    'roll0': lambda lib, x: lib.roll(x, 0),
    'roll_n': lambda lib, x: lib.roll(x, x.numel()),
    'ravel': lambda lib, x: lib.ravel(x),
}


@pytest.mark.parametrize('layout', LAYOUTS)
@pytest.mark.parametrize('name', sorted(FRESH))
def test_new_tensor_where_torch_copies(name, layout):
    m, t = make(layout)
    rm, rt = FRESH[name](mt, m), FRESH[name](torch, t)
    np.testing.assert_array_equal(rm.numpy(), rt.numpy())
    assert shares(rm, m) == tshares(rt, t), name


def test_chunk_of_empty_gives_chunks_pieces():
    for n in (1, 2, 3):
        rm, rt = mt.chunk(mt.zeros(0), n), torch.chunk(torch.zeros(0), n)
        assert [tuple(p.shape) for p in rm] == [tuple(p.shape) for p in rt]


@pytest.mark.parametrize('idx_shape,dim', [((1, 3), 1), ((2, 1), 0), ((0, 3), 1), ((0, 7), 0), ((1, 1), -1)])
def test_gather_reads_index_extent(idx_shape, dim):
    a = np.arange(16.).reshape(4, 4)
    idx = np.random.default_rng(0).integers(0, 4, idx_shape)
    xm, xt = mt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    rm, rt = mt.gather(xm, dim, mt.tensor(idx)), torch.gather(xt, dim, torch.tensor(idx))
    assert tuple(rm.shape) == tuple(rt.shape)
    np.testing.assert_array_equal(rm.detach().numpy(), rt.detach().numpy())
    rm.sum().backward(); rt.sum().backward()
    np.testing.assert_array_equal(xm.grad.numpy(), xt.grad.numpy())


def test_gather_scatter_on_0d():
    for lib in (mt, torch):
        x = lib.tensor(2.5)
        assert lib.gather(x, 0, lib.zeros(2, dtype=lib.int64)).tolist() == [2.5, 2.5]
        assert lib.scatter(x, -1, lib.tensor(0), lib.tensor(7.0)).item() == 7.0
        assert lib.scatter_add(x, 0, lib.tensor(0), lib.tensor(1.0)).item() == 3.5


ERRS = [
    lambda lib: lib.gather(lib.ones(4, 2), 0, lib.zeros(1, 3, dtype=lib.int64)),
    lambda lib: lib.diag(lib.ones(2, 2, 2)), lambda lib: lib.diag(lib.tensor(1.)),
    lambda lib: lib.trace(lib.ones(3)), lambda lib: lib.trace(lib.tensor(1.)), lambda lib: lib.trace(lib.ones(2, 2, 2)),
    lambda lib: lib.trace(lib.ones(2, 2, dtype=lib.bool)),
    lambda lib: lib.fliplr(lib.ones(3)), lambda lib: lib.flipud(lib.tensor(1.)),
]


@pytest.mark.parametrize('k', range(len(ERRS)))
def test_errors_like_torch(k):
    with pytest.raises(Exception) as et: ERRS[k](torch)
    with pytest.raises(Exception) as em: ERRS[k](mt)
    assert type(em.value) is type(et.value)
    assert str(em.value).split('\n')[0] == str(et.value).split('\n')[0]


def test_0d_inputs_like_torch():
    for f in [lambda lib: lib.nonzero(lib.tensor(3.)), lambda lib: lib.nonzero(lib.tensor(0.)),
              lambda lib: lib.argwhere(lib.tensor(3.)), lambda lib: lib.nonzero(lib.tensor(3.), as_tuple=True)[0],
              lambda lib: lib.hstack([lib.tensor(1.), lib.tensor(2.)]), lambda lib: lib.vstack([lib.tensor(1.), lib.ones(1)]),
              lambda lib: lib.index_select(lib.tensor(1.5), 0, lib.tensor([0])), lambda lib: lib.bincount(lib.tensor([1, 3]))]:
        rm, rt = f(mt), f(torch)
        assert tuple(rm.shape) == tuple(rt.shape) and rm.tolist() == rt.tolist()


ERRS0 = [
    lambda lib: lib.tensor_split(lib.tensor(1.), 2), lambda lib: lib.index_select(lib.tensor(1.), 0, lib.tensor([0, 0])),
    lambda lib: lib.bincount(lib.tensor(1)), lambda lib: lib.bincount(lib.tensor([1.])), lambda lib: lib.bincount(lib.tensor([-1])),
]


@pytest.mark.parametrize('k', range(len(ERRS0)))
def test_0d_errors_like_torch(k):
    with pytest.raises(Exception) as et: ERRS0[k](torch)
    with pytest.raises(Exception) as em: ERRS0[k](mt)
    assert type(em.value) is type(et.value) and str(em.value) == str(et.value)


@pytest.mark.parametrize('start,length', [(5, 0), (-4, 1), (2, 3), (1, -1), (3, 0), (-1, 1), (-3, 3)])
def test_narrow_errors_and_values_like_torch(start, length):
    def run(lib):
        try: return lib.arange(3).narrow(0, start, length).tolist()
        except Exception as e: return type(e).__name__, str(e)
    assert run(mt) == run(torch)
