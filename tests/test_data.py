"""minitorch.utils.data against torch.utils.data; the IDX reader and MNIST folder loader."""
import gzip

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import minitorch
from minitorch.utils.data import (BatchSampler, DataLoader, Dataset, RandomSampler, SequentialSampler, Subset,
                                  TensorDataset, default_collate, random_split)
from minitorch.vision import MNIST, load_digits, read_idx, read_idx_numpy, write_idx


def as_lists(batches):
    return [[b.tolist() for b in batch] if isinstance(batch, list) else batch.tolist() for batch in batches]


X, Y = minitorch.arange(26.0).reshape(13, 2), minitorch.arange(13)
TX, TY = torch.arange(26.0).reshape(13, 2), torch.arange(13)


@pytest.mark.task15_1
@pytest.mark.parametrize("kw", [dict(), dict(batch_size=4), dict(batch_size=4, drop_last=True), dict(batch_size=5),
                                dict(batch_size=13), dict(batch_size=13, drop_last=True), dict(batch_size=20),
                                dict(batch_size=20, drop_last=True)], ids=str)
def test_batches_equal_torch(kw):
    ours = DataLoader(TensorDataset(X, Y), **kw)
    ref = tud.DataLoader(tud.TensorDataset(TX, TY), **kw)
    assert len(ours) == len(ref)
    assert as_lists(ours) == as_lists(ref)


@pytest.mark.task15_1
def test_batch_sampler():
    assert list(BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(range(7), 3, drop_last=True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        BatchSampler(range(7), 0, False)


class Squares(Dataset):
    "A plain map-style dataset returning dict samples (goes through default_collate)."
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return {"x": minitorch.tensor([float(i), float(i * i)]), "y": i, "name": f"n{i}"}


@pytest.mark.task15_1
def test_generic_dataset_and_collate():
    batches = list(DataLoader(Squares(), batch_size=4))
    assert len(batches) == 3
    assert batches[0]["x"].tolist() == [[0, 0], [1, 1], [2, 4], [3, 9]]
    assert batches[0]["y"].tolist() == [0, 1, 2, 3] and str(batches[0]["y"].dtype) == "minitorch.int64"
    assert batches[2]["name"] == ["n8", "n9"]
    custom = list(DataLoader(Squares(), batch_size=5, collate_fn=lambda b: sum(s["y"] for s in b)))
    assert custom == [10, 35]
    assert [b[0].tolist() for b in DataLoader(TensorDataset(X, Y), batch_size=None)][:2] == [[0.0, 1.0], [2.0, 3.0]]


@pytest.mark.task15_1
def test_shuffle_determinism():
    def order(seed, epochs=3):
        dl = DataLoader(TensorDataset(X, Y), batch_size=4, shuffle=True,
                        generator=minitorch.Generator().manual_seed(seed))
        return [sum((yb.tolist() for _, yb in dl), []) for _ in range(epochs)]
    a, b = order(0), order(0)
    assert a == b                                    # same seed, same orders
    assert all(sorted(e) == list(range(13)) for e in a)  # each epoch a permutation
    assert a[0] != a[1] and a != order(1)            # new order each epoch; seed matters
    minitorch.manual_seed(5)
    g1 = [yb.tolist() for _, yb in DataLoader(TensorDataset(X, Y), batch_size=13, shuffle=True)]
    minitorch.manual_seed(5)
    g2 = [yb.tolist() for _, yb in DataLoader(TensorDataset(X, Y), batch_size=13, shuffle=True)]
    assert g1 == g2                                  # the global seed governs loaders without a generator


def test_samplers():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    s = RandomSampler(range(6), generator=minitorch.Generator().manual_seed(3))
    assert sorted(s) == list(range(6)) and len(s) == 6
    r = list(RandomSampler(range(6), replacement=True, num_samples=20, generator=minitorch.Generator()))
    assert len(r) == 20 and all(0 <= i < 6 for i in r)
    assert len(list(RandomSampler(range(6), num_samples=9))) == 9
    dl = DataLoader(TensorDataset(X, Y), batch_size=2, sampler=[3, 1, 2])
    assert as_lists(dl)[0][1] == [3, 1]
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(TensorDataset(X, Y), sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(TensorDataset(X, Y), batch_sampler=[[0]], batch_size=3)
    assert as_lists(DataLoader(TensorDataset(X, Y), batch_sampler=[[0, 5], [2]]))[0][1] == [0, 5]


def test_default_collate_like_torch():
    samples = [{"a": np.arange(3, dtype=np.float32) + i, "n": i, "f": i / 2, "b": i % 2 == 0, "t": (i, [i, 2 * i])}
               for i in range(4)]
    ours, ref = default_collate(samples), tud.default_collate(samples)

    def same(a, b):
        if isinstance(b, torch.Tensor):
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1] and a.tolist() == b.tolist()
        elif isinstance(b, dict):
            assert list(a) == list(b)
            for k in b:
                same(a[k], b[k])
        elif isinstance(b, (list, tuple)):
            assert type(a) is type(b) and len(a) == len(b)
            for x, y in zip(a, b):
                same(x, y)
        else:
            assert a == b
    same(ours, ref)
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([object(), object()])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])


def test_tensor_dataset_and_subset():
    ds = TensorDataset(X, Y)
    assert len(ds) == 13 and ds[3][0].tolist() == [6.0, 7.0] and ds[3][1].item() == 3
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        TensorDataset(X, minitorch.zeros(3))
    sub = Subset(ds, [5, 0, 7])
    assert len(sub) == 3 and sub[0][1].item() == 5
    assert len(ds + ds) == 26 and (ds + ds)[14][1].item() == 1


@pytest.mark.parametrize("lengths", [[3, 10], [0.5, 0.5], [0.3, 0.3, 0.4], [0.34, 0.33, 0.33], [1.0]])
def test_random_split(lengths):
    parts = random_split(range(13), lengths, generator=minitorch.Generator().manual_seed(7))
    ref = tud.random_split(range(13), lengths, generator=torch.Generator().manual_seed(7))
    assert [len(p) for p in parts] == [len(p) for p in ref]
    assert sorted(i for p in parts for i in p) == list(range(13))
    again = random_split(range(13), lengths, generator=minitorch.Generator().manual_seed(7))
    assert [list(p) for p in parts] == [list(p) for p in again]


def test_random_split_errors():
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(range(10), [1.5, -0.5])


def test_load_digits():
    x, y = load_digits()
    assert x.shape == (1797, 1, 8, 8) and str(x.dtype) == "minitorch.float32"
    assert y.shape == (1797,) and str(y.dtype) == "minitorch.int64" and sorted(set(y.tolist())) == list(range(10))
    xf, _ = load_digits(flatten=True)
    assert xf.shape == (1797, 64) and float(xf.numpy().max()) == 1.0 and float(xf.numpy().min()) == 0.0


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.float32, np.float64])
@pytest.mark.parametrize("gz", [False, True])
def test_idx_round_trip(tmp_path, dtype, gz):
    a = (np.arange(60).reshape(3, 4, 5) - 7).astype(dtype)
    path = tmp_path / ("x-idx3" + (".gz" if gz else ""))
    write_idx(path, a)
    r = read_idx_numpy(path)
    assert r.dtype == np.dtype(dtype) and r.shape == a.shape and (r == a).all()
    t = read_idx(path)
    assert t.shape == (3, 4, 5) and t.numpy().tolist() == a.tolist()


def test_idx_reads_mnist_layout_bytes(tmp_path):
    "A hand-written header exactly as in MNIST's label file: magic 0x00000801, count 3, three labels."
    (tmp_path / "labels").write_bytes(bytes([0, 0, 8, 1, 0, 0, 0, 3, 7, 2, 1]))
    assert read_idx(tmp_path / "labels").tolist() == [7, 2, 1]
    assert str(read_idx(tmp_path / "labels").dtype) == "minitorch.uint8"
    hdr = bytes([0, 0, 0x0B, 1, 0, 0, 0, 2]) + np.array([258, -2], ">i2").tobytes()   # big-endian int16
    (tmp_path / "short-ints").write_bytes(hdr)
    assert read_idx(tmp_path / "short-ints").tolist() == [258, -2]


def test_idx_errors(tmp_path):
    good = tmp_path / "good"
    write_idx(good, np.zeros((2, 3), np.uint8))
    raw = good.read_bytes()
    cases = {"magic": (b"\x12\x34" + raw[2:], "bad magic number"),
             "type": (raw[:2] + b"\x07" + raw[3:], "unknown IDX type code 0x07"),
             "trunc": (raw[:-1], "truncated IDX file"),
             "hdr": (raw[:6], "truncated IDX file"),
             "extra": (raw + b"\x00", "trailing bytes"),
             "empty": (b"", "bad magic number")}
    for name, (data, msg) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError, match=msg):
            read_idx(tmp_path / name)
    (tmp_path / "trunc.gz").write_bytes(gzip.compress(raw[:-2]))
    with pytest.raises(ValueError, match="truncated IDX file"):
        read_idx(tmp_path / "trunc.gz")
    (tmp_path / "broken.gz").write_bytes(gzip.compress(raw)[:-6])
    with pytest.raises(ValueError, match="cannot read IDX file"):
        read_idx(tmp_path / "broken.gz")


def test_mnist_folder(tmp_path):
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    imgs = np.random.default_rng(0).integers(0, 256, (4, 28, 28), dtype=np.uint8)
    write_idx(raw / "t10k-images-idx3-ubyte.gz", imgs)
    write_idx(raw / "t10k-labels-idx1-ubyte", np.array([9, 8, 7, 6], np.uint8))
    ds = MNIST(tmp_path, train=False)
    assert len(ds) == 4 and ds.targets.tolist() == [9, 8, 7, 6]
    img, label = ds[1]
    assert img.shape == (1, 28, 28) and label == 8
    np.testing.assert_allclose(img.numpy()[0], imgs[1] / 255.0, rtol=1e-6)
    xb, yb = next(iter(DataLoader(ds, batch_size=3)))
    assert xb.shape == (3, 1, 28, 28) and yb.tolist() == [9, 8, 7]
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte"):
        MNIST(tmp_path, train=True)
    with pytest.raises(RuntimeError, match="does not download"):
        MNIST(tmp_path, download=True)


# ---- samplers: PyTorch's semantics, lazy draws, submodule paths ----
def test_random_sampler_with_replacement_is_lazy():
    import tracemalloc
    tracemalloc.start()
    s = RandomSampler(range(10), replacement=True, num_samples=10**10)
    it = iter(s)
    first = [next(it) for _ in range(100)]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(s) == 10**10 and all(0 <= i < 10 for i in first)
    assert peak < 10 * 2**20                              # PyTorch's loop of 32 draws, not 80 GB up front
    dl = DataLoader(TensorDataset(X, Y), batch_size=4, sampler=s)
    assert len(dl) == 10**10 // 4 and next(iter(dl))[0].shape == (4, 2)


def test_random_sampler_draws_like_torch_from_its_generator():
    "PyTorch draws randint(high=n, size=(32,)) chunks (then the remainder) and whole permutations per pass."
    g = lambda: minitorch.Generator().manual_seed(11)
    ref = minitorch.randint(0, 7, (32,), dtype=minitorch.int64, generator=g()).tolist()
    assert list(RandomSampler(range(7), replacement=True, num_samples=45, generator=g()))[:32] == ref
    gen = g()
    perms = [minitorch.randperm(4, generator=gen).tolist() for _ in range(3)]
    assert list(RandomSampler(range(4), num_samples=10, generator=g())) == perms[0] + perms[1] + perms[2][:2]
    a = RandomSampler(range(30), generator=minitorch.Generator().manual_seed(0))
    assert list(a) != list(a)                         # a generator shared across epochs advances
    minitorch.manual_seed(3); x = list(RandomSampler(range(50)))
    minitorch.manual_seed(3); y = list(RandomSampler(range(50)))
    assert x == y and sorted(x) == list(range(50))


@pytest.mark.parametrize("make", [
    lambda m: m.RandomSampler(range(3), replacement=1),
    lambda m: m.RandomSampler(range(3), num_samples=0),
    lambda m: m.RandomSampler(range(3), num_samples=2.5),
    lambda m: m.WeightedRandomSampler([1.0, 2.0], 0),
    lambda m: m.WeightedRandomSampler([1.0, 2.0], True),
    lambda m: m.WeightedRandomSampler([1.0, 2.0], 3, replacement=None),
    lambda m: m.WeightedRandomSampler([[1.0, 2.0]], 3),
    lambda m: list(m.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)),
])
def test_sampler_errors_match_torch(make):
    import minitorch.utils.data as mud
    try:
        make(tud)
    except Exception as e:  # noqa: BLE001
        cls, msg = type(e), str(e)
    with pytest.raises(cls) as info:
        make(mud)
    assert str(info.value) == msg


def test_weighted_and_subset_samplers():
    from minitorch.utils.data import SubsetRandomSampler, WeightedRandomSampler
    g = minitorch.Generator().manual_seed(0)
    draws = list(WeightedRandomSampler([0.1, 0.0, 0.9, 0.0], 5000, generator=g))
    freq = np.bincount(draws, minlength=4) / 5000
    assert freq[1] == freq[3] == 0 and abs(freq[2] - 0.9) < 0.02
    nr = list(WeightedRandomSampler([1, 1, 1e-9, 1], 3, replacement=False, generator=g))
    assert sorted(nr) == [0, 1, 3] and len(WeightedRandomSampler([1, 2], 7)) == 7
    s = SubsetRandomSampler([10, 20, 30, 40], generator=g)
    assert sorted(s) == [10, 20, 30, 40] and len(s) == 4
    got = sum((yb.tolist() for _, yb in DataLoader(TensorDataset(X, Y), batch_size=2,
                                                    sampler=SubsetRandomSampler([1, 5, 7]))), [])
    assert sorted(got) == [1, 5, 7]


def test_torch_submodule_paths():
    import importlib
    for mod, names in [("dataloader", ["DataLoader", "default_collate", "default_convert"]),
                       ("sampler", ["Sampler", "RandomSampler", "SequentialSampler", "BatchSampler",
                                    "SubsetRandomSampler", "WeightedRandomSampler"]),
                       ("dataset", ["Dataset", "TensorDataset", "Subset", "ConcatDataset", "IterableDataset",
                                    "random_split"])]:
        ours = importlib.import_module(f"minitorch.utils.data.{mod}")
        theirs = importlib.import_module(f"torch.utils.data.{mod}")
        for n in names:
            assert hasattr(theirs, n) and getattr(ours, n) is getattr(minitorch.utils.data, n), (mod, n)
    from minitorch.utils.data.dataloader import DataLoader as D  # noqa: F401
    import minitorch.utils.data.sampler as s
    assert s.RandomSampler is RandomSampler


def test_iterable_dataset_loader():
    from minitorch.utils.data import IterableDataset

    def make(base):
        class Stream(base):
            def __iter__(self): return iter([(float(i), i) for i in range(9)])
            def __len__(self): return 9
        return Stream()
    for kw in [dict(batch_size=4), dict(batch_size=4, drop_last=True), dict(batch_size=None)]:
        lists = lambda dl: [[t.tolist() if hasattr(t, "tolist") else t for t in b] for b in dl]
        ours = lists(DataLoader(make(IterableDataset), **kw))
        theirs = lists(tud.DataLoader(make(tud.IterableDataset), **kw))
        assert ours == theirs and len(DataLoader(make(IterableDataset), **kw)) == len(theirs)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        DataLoader(make(IterableDataset), sampler=[0])


@pytest.mark.parametrize("n,world,drop_last", [(10, 3, False), (10, 3, True), (7, 2, False), (2, 4, False), (8, 4, True)])
def test_distributed_sampler_matches_torch_without_shuffle(n, world, drop_last):
    import torch.utils.data as tud
    from minitorch.utils.data.distributed import DistributedSampler
    for r in range(world):
        mine = DistributedSampler(list(range(n)), num_replicas=world, rank=r, shuffle=False, drop_last=drop_last)
        theirs = tud.DistributedSampler(list(range(n)), num_replicas=world, rank=r, shuffle=False, drop_last=drop_last)
        assert list(mine) == list(theirs) and len(mine) == len(theirs)
