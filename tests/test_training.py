"""The training loop on the digits: a short run learns; a checkpoint restores the exact model."""
import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.optim import SGD, Adam
from minitorch.serialization import load, save
from minitorch.training import confusion_matrix, evaluate, fit, train_epoch
from minitorch.utils.data import DataLoader, TensorDataset
from minitorch.vision import load_digits


@pytest.fixture(scope="module")
def digits():
    x, y = load_digits(flatten=True)
    x = (x - 0.3) / 0.4
    return TensorDataset(x[:600], y[:600]), TensorDataset(x[1500:], y[1500:])


def mlp():
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))


@pytest.mark.task17_1
def test_train_epoch_learns(digits):
    train, test = digits
    minitorch.manual_seed(0)
    model = mlp()
    opt = Adam(model.parameters(), lr=3e-3)
    dl = DataLoader(train, batch_size=100, shuffle=True, generator=minitorch.Generator().manual_seed(0))
    losses = [train_epoch(model, dl, nn.functional.cross_entropy, opt, progress=False) for _ in range(3)]
    assert losses[-1] < losses[0] < 2.5
    loss, acc, preds, targets = evaluate(model, DataLoader(test, batch_size=300), nn.functional.cross_entropy)
    assert acc > 0.75 and preds.shape == targets.shape == (297,)


@pytest.mark.task17_1
def test_train_epoch_returns_mean_loss_and_steps_once_per_batch(digits):
    train, _ = digits
    model = nn.Linear(64, 10)
    calls = []

    class Sched:
        def step(self):
            calls.append(1)
    opt = SGD(model.parameters(), lr=0.0)     # lr 0: the loss is the same for every batch order
    dl = DataLoader(train, batch_size=256)    # 600 = 256 + 256 + 88
    mean = train_epoch(model, dl, nn.functional.cross_entropy, opt, scheduler=Sched(), progress=False)
    with minitorch.no_grad():
        full = nn.functional.cross_entropy(model(train.tensors[0]), train.tensors[1]).item()
    assert len(calls) == 3 and abs(mean - full) < 1e-5
    assert all(p.grad is not None for p in model.parameters())


def test_confusion_matrix():
    m = confusion_matrix(np.array([0, 1, 1, 2]), np.array([0, 1, 2, 2]), 3)
    assert m.tolist() == [[1, 0, 0], [0, 1, 0], [0, 1, 1]]


def test_checkpoint_restores_predictions(digits, tmp_path):
    train, test = digits
    minitorch.manual_seed(1)
    model = mlp()
    opt = Adam(model.parameters(), lr=3e-3)
    train_epoch(model, DataLoader(train, batch_size=200), nn.functional.cross_entropy, opt, progress=False)
    save({"model": model.state_dict(), "optimizer": opt.state_dict()}, tmp_path / "ck.pt")
    ck = load(tmp_path / "ck.pt")
    model2 = mlp()
    model2.load_state_dict(ck["model"])
    opt2 = Adam(model2.parameters())
    opt2.load_state_dict(ck["optimizer"])
    with minitorch.no_grad():
        x = test.tensors[0]
        assert np.array_equal(model(x).numpy(), model2(x).numpy())


@pytest.mark.slow
def test_cnn_reaches_97_percent():
    images, labels = load_digits()
    g = minitorch.Generator().manual_seed(0)
    perm = minitorch.randperm(len(labels), generator=g)
    tr, te = perm[:1437], perm[1437:]
    x = (images - 0.3) / 0.4
    minitorch.manual_seed(0)
    cnn = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1),
                        nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(128, 10))
    train_dl = DataLoader(TensorDataset(x[tr], labels[tr]), batch_size=64, shuffle=True,
                          generator=minitorch.Generator().manual_seed(0))
    test_dl = DataLoader(TensorDataset(x[te], labels[te]), batch_size=360)
    from minitorch.optim.lr_scheduler import OneCycleLR
    opt = Adam(cnn.parameters(), lr=1e-2)
    sched = OneCycleLR(opt, max_lr=1e-2, total_steps=8 * len(train_dl))
    hist = fit(cnn, train_dl, test_dl, nn.functional.cross_entropy, opt, 8, scheduler=sched, progress=False)
    assert hist["test_acc"][-1] >= 0.97, hist
