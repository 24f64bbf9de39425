"""08c was split into 08c_views (minitorch.view_ops), 08ca_indexing, 08cab_scatter (together minitorch.indexing),
08cb_inplace (minitorch.inplace_graph) and 08cc_inplace_ops (minitorch.views): every function and class of the first
three stays importable from minitorch.views, as the same object. Later 08ca itself was split (issue 22): 08ca_indexing
now builds minitorch.join_index, and 08cab_scatter keeps minitorch.indexing, re-exporting every name of join_index."""
import inspect

import pytest

import minitorch
import minitorch.indexing
import minitorch.join_index
import minitorch.inplace_graph
import minitorch.view_ops
import minitorch.views


# private helpers cut out of scatter_reduce's backward when 08ca was split (issue 22): minitorch.views never had them
_NEW_IN_SPLIT_22 = {'_full_coords', '_sum_grads', '_mean_grads', '_minmax_grads', '_prod_grads', '_grad_to_src_shape'}


@pytest.mark.parametrize('mod', [minitorch.view_ops, minitorch.indexing, minitorch.inplace_graph], ids=lambda m: m.__name__)
def test_views_reexports_every_definition(mod):
    defined = [n for n, o in vars(mod).items()
               if (inspect.isfunction(o) or inspect.isclass(o)) and o.__module__ in (mod.__name__, 'minitorch.join_index')
               and n not in _NEW_IN_SPLIT_22]
    assert len(defined) > 20
    missing = [n for n in defined if getattr(minitorch.views, n, None) is not vars(mod)[n]]
    assert missing == []
    assert set(mod.__all__) <= set(dir(minitorch.views))


def test_split_modules_do_not_import_views():
    "The first parts never import the last (no import cycle): they load on their own."
    for mod in (minitorch.view_ops, minitorch.join_index, minitorch.indexing, minitorch.inplace_graph):
        src = inspect.getsource(mod)
        assert 'from .views import' not in src and 'minitorch.views' not in src


def test_views_keeps_its_names():
    "The split of 08cb kept every name of minitorch.views (its __all__ included) and the forward-AD hooks' targets."
    assert {'AsStrided', 'IndexPut', 'as_strided', 'index_put', 'inplace'} <= set(minitorch.views.__all__)
    for n in ('_commit', '_snapshot', '_rebase', '_regen_views', '_check_inplace', '_CopySlices', '_CopyFrom'):
        assert hasattr(minitorch.views, n), n
    assert minitorch.views._rebase is minitorch.inplace_graph._rebase


def test_indexing_reexports_join_index():
    "The first part of 08ca (minitorch.join_index) stays importable from minitorch.indexing: every name, same object."
    j, ix = minitorch.join_index, minitorch.indexing
    defined = [n for n, o in vars(j).items()
               if (inspect.isfunction(o) or inspect.isclass(o)) and o.__module__ == j.__name__]
    assert len(defined) > 20
    assert [n for n in defined if getattr(ix, n, None) is not vars(j)[n]] == []
    assert set(j.__all__) <= set(ix.__all__)
    assert 'from .indexing import' not in inspect.getsource(j)


def test_indexing_keeps_views_privates():
    "08cc_inplace_ops imports these private helpers from minitorch.indexing by name."
    for n in ('_deterministic_cuda', '_scatter_via_index_put', '_reduce_np', '_scatter_reduce_', '_ScatterAdd',
              '_check_index', '_CTYPE', '_F32_MAX', '__getitem__', '_basic_view', '_dims_used', '_is_bool_scalar',
              '_check_bounds', '_check_scalar', '_is_basic', '_np_key', '_split_key'):
        assert getattr(minitorch.indexing, n) is getattr(minitorch.views, n), n
