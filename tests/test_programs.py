"""Published PyTorch programs (tests/programs/) run with torch and with minitorch, changing only the import.

Each program is executed twice from its source: as written (`import torch`), and with its import lines
rewritten the way a reader would (`import torch` -> `import minitorch as torch`, `from torch.x import y`
-> `from minitorch.x import y`). Both runs start from the same weights (torch's, copied into minitorch's
model through `load_state_dict`) and the same data, and their losses and outputs are compared.
"""
import re
import types
from pathlib import Path

import numpy as np
import pytest
import torch

import minitorch

PROGRAMS = Path(__file__).parent / "programs"


def load(name, lib):
    "Execute tests/programs/<name>.py against `lib` ('torch' or 'minitorch') and return it as a module."
    src = (PROGRAMS / f"{name}.py").read_text()
    if lib == "minitorch":
        src = re.sub(r"^(\s*)import torch\s*$", r"\1import minitorch as torch", src, flags=re.M)
        src = re.sub(r"^(\s*)(import|from) torch\b", r"\1\2 minitorch", src, flags=re.M)
    mod = types.ModuleType(f"program_{name}_{lib}")
    mod.__file__ = str(PROGRAMS / f"{name}.py")
    exec(compile(src, mod.__file__, "exec"), mod.__dict__)
    return mod


def test_loader_rewrites_only_imports():
    mod = load("quickstart", "minitorch")
    assert mod.torch is minitorch and mod.nn is minitorch.nn and mod.DataLoader is minitorch.utils.data.DataLoader
    assert load("quickstart", "torch").torch is torch


def snapshot(model):
    "A torch model's initial state dict as numpy arrays (taken before it trains)."
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def copy_weights(ours, theirs):
    "Load torch module `theirs`'s weights (or a `snapshot` of them) into minitorch module `ours`."
    sd = theirs if isinstance(theirs, dict) else snapshot(theirs)
    ours.load_state_dict({k: minitorch.tensor(v) for k, v in sd.items()})
    return ours


def close(a, b, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=rtol, atol=atol)


NAMES = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper", "evelyn",
         "abigail", "emily", "elizabeth", "mila", "ella", "avery", "sofia", "camila", "aria", "scarlett"]


def test_makemore_mlp():
    chars = sorted(set("".join(NAMES)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    rng = np.random.default_rng(0)
    runs = {}
    for lib in ("torch", "minitorch"):
        prog = load("makemore_mlp", lib)
        X, Y = prog.build_dataset(NAMES, stoi)
        params = prog.init_params(vocab_size=len(stoi))
        if lib == "minitorch":                       # start from torch's weights
            with minitorch.no_grad():
                for p, q in zip(params, runs["torch"]["init"]): p.copy_(minitorch.tensor(q))
        init = [p.detach().numpy().copy() for p in params]
        if lib == "torch":
            batches = [rng.integers(0, X.shape[0], 32).tolist() for _ in range(30)]
        losses = prog.train(params, X, Y, [prog.torch.tensor(ix) for ix in batches])
        runs[lib] = dict(init=init, losses=losses, full=prog.split_loss(params, X, Y),
                         samples=prog.sample(params, itos), params=[p.detach().numpy() for p in params])
    ours, ref = runs["minitorch"], runs["torch"]
    close(ours["losses"], ref["losses"])
    close(ours["full"], ref["full"])
    for a, b in zip(ours["params"], ref["params"]): close(a, b, rtol=1e-3, atol=1e-4)
    assert ours["samples"] == ref["samples"]
    assert ref["losses"][-1] < ref["losses"][0]


def test_quickstart_mlp_with_dataloader():
    rng = np.random.default_rng(1)
    Xtr, ytr = rng.random((192, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, 192)
    Xte, yte = rng.random((64, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, 64)
    runs = {}
    for lib in ("torch", "minitorch"):
        prog = load("quickstart", lib)
        T = prog.torch
        TD = T.utils.data.TensorDataset
        train_ds = TD(T.tensor(Xtr), T.tensor(ytr))
        test_ds = TD(T.tensor(Xte), T.tensor(yte))
        T.manual_seed(0)
        model = prog.NeuralNetwork()
        init = snapshot(model) if lib == "torch" else copy_weights(model, init)
        runs[lib] = (prog.main(train_ds, test_ds, model, epochs=2, batch_size=64), model)
    (ours, _), (ref, _) = runs["minitorch"], runs["torch"]
    for (l1, (tl1, acc1)), (l2, (tl2, acc2)) in zip(ours, ref):
        close(l1, l2)
        close(tl1, tl2)
        assert acc1 == acc2


def test_mnist_cnn_adadelta_steplr():
    rng = np.random.default_rng(2)
    Xtr, ytr = rng.standard_normal((16, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, 16)
    Xte, yte = rng.standard_normal((8, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, 8)
    runs = {}
    for lib in ("torch", "minitorch"):
        prog = load("mnist_cnn", lib)
        T = prog.torch
        T.manual_seed(1)
        model = prog.Net(0.0, 0.0)
        init = snapshot(model) if lib == "torch" else copy_weights(model, init)
        TD = T.utils.data.TensorDataset
        hist = prog.main(model, TD(T.tensor(Xtr), T.tensor(ytr)), TD(T.tensor(Xte), T.tensor(yte)),
                         batch_size=8, test_batch_size=8, epochs=2)
        runs[lib] = (hist, model)
    (ours, m), (ref, tm) = runs["minitorch"], runs["torch"]
    for (l1, (tl1, c1), lr1), (l2, (tl2, c2), lr2) in zip(ours, ref):
        close(l1, l2, rtol=1e-3, atol=1e-4)
        close(tl1, tl2, rtol=1e-3, atol=1e-4)
        assert lr1 == pytest.approx(lr2) and c1 == c2
    close(m.fc2.weight.detach().numpy(), tm.fc2.weight.detach().numpy(), rtol=1e-3, atol=1e-5)


@pytest.mark.xfail(not hasattr(minitorch, "long"), reason="needs the dtype alias minitorch.long (core dtypes)",
                   strict=True)
def test_lstm_tagger():
    runs = {}
    for lib in ("torch", "minitorch"):
        prog = load("lstm_tagger", lib)
        prog.torch.manual_seed(1)
        model = prog.make_model()
        init = snapshot(model) if lib == "torch" else copy_weights(model, init)
        runs[lib] = (prog.run(model, epochs=20), model)
    ((b1, a1, l1), _), ((b2, a2, l2), _) = runs["minitorch"], runs["torch"]
    close(b1.numpy(), b2.numpy())
    close(l1, l2)
    close(a1.numpy(), a2.numpy(), rtol=1e-3, atol=1e-4)
    assert (a1.numpy().argmax(1) == a2.numpy().argmax(1)).all()


TEXT = ("First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n\n"
        "First Citizen:\nYou are all resolved rather to die than to famish?\n\nAll:\nResolved. resolved.\n")


@pytest.mark.xfail(not hasattr(minitorch, "long"), reason="needs the dtype alias minitorch.long (core dtypes)",
                   strict=True)
def test_gpt():
    rng = np.random.default_rng(3)
    runs = {}
    for lib in ("torch", "minitorch"):
        prog = load("gpt", lib)
        prog.prepare(TEXT)
        if lib == "torch":
            n_train, n_val = len(prog.train_data), len(prog.val_data)
            draw = lambda n: rng.integers(0, n - prog.block_size, prog.batch_size).tolist()
            train_offsets = [draw(n_train) for _ in range(12)]
            eval_offsets = {"train": [draw(n_train) for _ in range(2)], "val": [draw(n_val) for _ in range(2)]}
        prog.torch.manual_seed(1337)
        model = prog.GPTLanguageModel()
        init = snapshot(model) if lib == "torch" else copy_weights(model, init)
        runs[lib] = (prog.train(model, train_offsets, eval_offsets), model)
    ((h1, e1), _), ((h2, e2), _) = runs["minitorch"], runs["torch"]
    close(h1, h2)
    close(e1, e2)


def sentiment_batches(lib, rng_seed, n_batches, batch_size=4, vocab=30, pad_idx=1):
    "Padded (sent len, batch) token batches sorted by decreasing length, lengths, and 0/1 labels."
    rng = np.random.default_rng(rng_seed)
    out = []
    for _ in range(n_batches):
        lengths = np.sort(rng.integers(2, 9, batch_size))[::-1]
        text = np.full((lengths[0], batch_size), pad_idx)
        for j, n in enumerate(lengths): text[:n, j] = rng.integers(2, vocab, n)
        label = (text[0] % 2).astype(np.float32)              # learnable: the parity of the first token
        out.append((lib.tensor(text), lib.tensor(lengths.copy()), lib.tensor(label)))
    return out


def test_sentiment_lstm_packed():
    runs = {}
    for lib in ("torch", "minitorch"):
        prog = load("sentiment_lstm", lib)
        T = prog.torch
        T.manual_seed(1234)
        model = prog.RNN(30, 8, 6, 1, 2, True, 0.0, 1)
        init = snapshot(model) if lib == "torch" else copy_weights(model, init)
        runs[lib] = prog.main(model, sentiment_batches(T, 0, 6), sentiment_batches(T, 1, 2), n_epochs=2)
    for (l1, v1, a1), (l2, v2, a2) in zip(runs["minitorch"], runs["torch"]):
        close(l1, l2)
        close(v1, v2)
        assert a1 == pytest.approx(a2)


@pytest.mark.parametrize("rnn_type,tied", [("LSTM", False), ("GRU", True), ("RNN_TANH", False)])
def test_word_language_model(rnn_type, tied):
    rng = np.random.default_rng(4)
    words = rng.integers(0, 12, 60).tolist()
    train_ids = [w if i % 3 else (words[i - 1] + 1) % 12 for i, w in enumerate(words)]   # some structure
    val_ids = rng.integers(0, 12, 21).tolist()
    runs = {}
    for lib in ("torch", "minitorch"):
        prog = load("word_language_model", lib)
        prog.torch.manual_seed(7)
        model = prog.RNNModel(rnn_type, 12, 8, 8, 2, dropout=0.0, tie_weights=tied)
        init = snapshot(model) if lib == "torch" else copy_weights(model, init)
        if tied: assert model.decoder.weight is model.encoder.weight
        runs[lib] = prog.main(model, train_ids, val_ids, 12, epochs=2)
    for (l1, v1), (l2, v2) in zip(runs["minitorch"], runs["torch"]):
        close(l1, l2, rtol=1e-3, atol=1e-4)
        close(v1, v2, rtol=1e-3, atol=1e-4)


# ---- programs that use EmbeddingBag and torch.accelerator (the API-compatibility chapter, 12h) ----------------

def test_text_classification_embedding_bag_program():
    rng = np.random.default_rng(3)
    def samples(n):   # (label in 1..4, a bag of 3..12 token ids whose label shows in the ids)
        out = []
        for _ in range(n):
            label = int(rng.integers(1, 5))
            ids = rng.integers(0, 60, int(rng.integers(3, 13))) // 4 * 4 + (label - 1)
            out.append((str(label), ids.tolist()))
        return out
    train_ds, valid_ds = samples(48), samples(16)
    runs = {}
    for lib in ("torch", "minitorch"):
        prog = load("text_classification", lib)
        prog.torch.manual_seed(0)
        model = prog.TextClassificationModel(64, 16, 4)
        if lib == "torch": init = snapshot(model)
        else: copy_weights(model, init)
        runs[lib] = prog.main(train_ds, valid_ds, model, EPOCHS=3, LR=5, BATCH_SIZE=8)
    for (l1, a1), (l2, a2) in zip(runs["minitorch"], runs["torch"]):
        np.testing.assert_allclose(l1, l2, rtol=1e-4, atol=1e-5)
        assert a1 == a2
    assert runs["torch"][-1][1] > 0.5   # it learns, so the comparison covers real updates


@pytest.mark.skipif(torch.accelerator.is_available() or minitorch.cuda.is_available(), reason="compares two CPU runs")
def test_cifar10_blitz_program_with_accelerator_device():
    rng = np.random.default_rng(4)
    Xtr, ytr = rng.standard_normal((32, 3, 32, 32)).astype(np.float32), rng.integers(0, 10, 32)
    Xte, yte = rng.standard_normal((8, 3, 32, 32)).astype(np.float32), rng.integers(0, 10, 8)
    runs = {}
    for lib in ("torch", "minitorch"):
        prog = load("cifar10_classifier", lib)
        T = prog.torch
        assert prog.device == "cpu" and T.backends.cudnn.benchmark is True
        T.backends.cudnn.benchmark = False
        T.manual_seed(0)
        net = prog.Net()
        if lib == "torch": init = snapshot(net)
        else: copy_weights(net, init)
        TD = T.utils.data.TensorDataset
        runs[lib] = prog.main(TD(T.tensor(Xtr), T.tensor(ytr)), TD(T.tensor(Xte), T.tensor(yte)), net, epochs=2)
    (l1, a1), (l2, a2) = runs["minitorch"], runs["torch"]
    assert len(l1) == len(l2) == 4
    np.testing.assert_allclose(l1, l2, rtol=1e-4, atol=1e-5)
    assert a1 == a2


def test_c3d_video():
    "C3D (Conv3d, MaxPool3d with depth-preserving and padded windows) trained with SGD + StepLR on synthetic clips."
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((8, 3, 16, 32, 32)).astype(np.float32), rng.integers(0, 5, 8)
    runs = {}
    for lib in ("torch", "minitorch"):
        prog = load("c3d_video", lib)
        T = prog.torch
        T.manual_seed(0)
        model = prog.C3D(5, p=0.0)
        init = snapshot(model) if lib == "torch" else copy_weights(model, init)
        hist = prog.train_model(model, T.utils.data.TensorDataset(T.tensor(X), T.tensor(y)), epochs=2)
        model.eval()
        runs[lib] = (hist, model(T.tensor(X[:2])).detach().numpy())
    (h1, o1), (h2, o2) = runs["minitorch"], runs["torch"]
    for (l1, a1), (l2, a2) in zip(h1, h2):
        close(l1, l2, rtol=1e-4, atol=1e-5)
        assert a1 == a2
    close(o1, o2, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("shape", [(8, 8, 8), (4, 12, 16)])
def test_unet3d(shape):
    "pytorch-3dunet's blocks (Conv3d + BatchNorm3d + ReLU, MaxPool3d, ConvTranspose3d to the encoder's size)."
    rng = np.random.default_rng(4)
    X = rng.standard_normal((2, 1, *shape)).astype(np.float32)
    Y = (rng.random((2, 2, *shape)) > 0.5).astype(np.float32)
    runs = {}
    for lib in ("torch", "minitorch"):
        prog = load("unet3d", lib)
        T = prog.torch
        T.manual_seed(0)
        model = prog.UNet3D(1, 2)
        init = snapshot(model) if lib == "torch" else copy_weights(model, init)
        losses, pred = prog.train(model, T.tensor(X), T.tensor(Y))
        runs[lib] = (losses, pred.numpy(), model.encoders[1].basic_module.SingleConv1.batchnorm.running_var.numpy())
    (l1, p1, v1), (l2, p2, v2) = runs["minitorch"], runs["torch"]
    close(l1, l2)
    close(p1, p2, rtol=1e-3, atol=1e-4)
    close(v1, v2)
