"""08c was split into 08c_views (minitorch.view_ops), 08ca_indexing (minitorch.indexing), 08cb_inplace
(minitorch.inplace_graph) and 08cc_inplace_ops (minitorch.views): every function and class of the first three stays
importable from minitorch.views, as the same object."""
import inspect

import pytest

import minitorch
import minitorch.indexing
import minitorch.inplace_graph
import minitorch.view_ops
import minitorch.views


@pytest.mark.parametrize('mod', [minitorch.view_ops, minitorch.indexing, minitorch.inplace_graph], ids=lambda m: m.__name__)
def test_views_reexports_every_definition(mod):
    defined = [n for n, o in vars(mod).items()
               if (inspect.isfunction(o) or inspect.isclass(o)) and o.__module__ == mod.__name__]
    assert len(defined) > 20
    missing = [n for n in defined if getattr(minitorch.views, n, None) is not vars(mod)[n]]
    assert missing == []
    assert set(mod.__all__) <= set(dir(minitorch.views))


def test_split_modules_do_not_import_views():
    "The first parts never import the last (no import cycle): they load on their own."
    for mod in (minitorch.view_ops, minitorch.indexing, minitorch.inplace_graph):
        src = inspect.getsource(mod)
        assert 'from .views import' not in src and 'minitorch.views' not in src


def test_views_keeps_its_names():
    "The split of 08cb kept every name of minitorch.views (its __all__ included) and the forward-AD hooks' targets."
    assert {'AsStrided', 'IndexPut', 'as_strided', 'index_put', 'inplace'} <= set(minitorch.views.__all__)
    for n in ('_commit', '_snapshot', '_rebase', '_regen_views', '_check_inplace', '_CopySlices', '_CopyFrom'):
        assert hasattr(minitorch.views, n), n
    assert minitorch.views._rebase is minitorch.inplace_graph._rebase
