"""The toy 2-D datasets of chapter 1: shapes, labels, ranges and determinism."""
import numpy as np
import pytest

from minitorch import datasets
from minitorch.datasets import DATASETS, Graph

NAMES = sorted(DATASETS)


def test_all_generators_are_listed():
    assert NAMES == sorted(["simple", "diag", "split", "xor", "circle", "spiral"])
    for name in NAMES:
        assert DATASETS[name] is getattr(datasets, name)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("N", [0, 1, 7, 100])
def test_shapes_and_dtypes(name, N):
    g = DATASETS[name](N, seed=0)
    assert isinstance(g, Graph) and g.N == N
    assert g.X.shape == (N, 2) and g.X.dtype == np.float64
    assert g.y.shape == (N,) and g.y.dtype == np.int64


@pytest.mark.parametrize("name", NAMES)
def test_labels_and_range(name):
    g = DATASETS[name](300, seed=1)
    assert set(np.unique(g.y).tolist()) == {0, 1}
    assert g.X.min() >= 0.0 and g.X.max() <= 1.0


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_with_seed(name):
    a, b = DATASETS[name](50, seed=3), DATASETS[name](50, seed=3)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    c = DATASETS[name](50, seed=4)
    assert not np.array_equal(a.X, c.X)


@pytest.mark.parametrize("name", ["simple", "diag", "split", "xor", "circle"])
def test_labels_follow_the_rule(name):
    g = DATASETS[name](200, seed=0)
    x1, x2 = g.X[:, 0], g.X[:, 1]
    rule = {
        "simple": x1 < 0.5,
        "diag": x1 + x2 < 0.5,
        "split": (x1 < 0.2) | (x1 > 0.8),
        "xor": (x1 < 0.5) != (x2 < 0.5),
        "circle": (x1 - 0.5) ** 2 + (x2 - 0.5) ** 2 > 0.1,
    }[name]
    assert np.array_equal(g.y, rule.astype(np.int64))


def test_spiral_is_balanced():
    g = datasets.spiral(101, seed=0)
    assert abs(int(g.y.sum()) - (101 - int(g.y.sum()))) <= 1


@pytest.mark.parametrize("name", NAMES)
def test_negative_size_raises(name):
    with pytest.raises(ValueError, match="N must be non-negative"):
        DATASETS[name](-1)
