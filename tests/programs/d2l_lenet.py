"""LeNet from Dive into Deep Learning: the lazy version (d2l 1.0, chapter 7.6 "Convolutional Neural Networks
(LeNet)"), its lazy batch-normalised version (d2l 1.0, chapter 8.5 "Batch Normalization", `BNLeNet`) and the
batch-normalised version with explicit sizes (d2l 0.17, chapter 7.5, concise implementation),
with the book's `layer_summary`, `init_cnn` and its `train_ch6` loop (SGD, cross-entropy, accuracy).

Source: https://github.com/d2l-ai/d2l-en (chapter_convolutional-neural-networks/lenet.md,
chapter_convolutional-modern/batch-norm.md; d2l/torch.py for `init_cnn`, `accuracy`, `train_ch6`).
Changed: the import; the `d2l.Classifier`/`d2l.Module` base classes replaced by plain `nn.Module`s; Fashion-MNIST
(a download) replaced by tensors passed in; `train_ch6`'s Animator, Timer and device selection removed (CPU); it
returns the per-epoch training loss, training accuracy and test accuracy instead of plotting them, and takes
`init=False` to keep weights the test copied from torch (the book always re-initialises with xavier_uniform_).
"""
import torch
from torch import nn


def init_cnn(module):  #@save
    """Initialize weights for CNNs."""
    if type(module) == nn.Linear or type(module) == nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


class LeNet(nn.Module):  #@save
    """The LeNet-5 model."""
    def __init__(self, lr=0.1, num_classes=10):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(
            nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(),
            nn.AvgPool2d(kernel_size=2, stride=2),
            nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(),
            nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Flatten(),
            nn.LazyLinear(120), nn.Sigmoid(),
            nn.LazyLinear(84), nn.Sigmoid(),
            nn.LazyLinear(num_classes))

    def forward(self, X):
        return self.net(X)

    def apply_init(self, inputs, init=None):
        self.forward(*inputs)
        if init is not None:
            self.net.apply(init)

    def layer_summary(self, X_shape):
        X = torch.randn(*X_shape)
        shapes = []
        for layer in self.net:
            X = layer(X)
            print(layer.__class__.__name__, 'output shape:\t', X.shape)
            shapes.append(tuple(X.shape))
        return shapes


class BNLeNet(LeNet):
    """LeNet with lazy batch normalization (d2l 1.0, chapter 8.5, concise implementation)."""
    def __init__(self, lr=0.1, num_classes=10):
        nn.Module.__init__(self)
        self.lr = lr
        self.net = nn.Sequential(
            nn.LazyConv2d(6, kernel_size=5), nn.LazyBatchNorm2d(),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.LazyConv2d(16, kernel_size=5), nn.LazyBatchNorm2d(),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Flatten(), nn.LazyLinear(120), nn.LazyBatchNorm1d(),
            nn.Sigmoid(), nn.LazyLinear(84), nn.LazyBatchNorm1d(),
            nn.Sigmoid(), nn.LazyLinear(num_classes))


def bn_lenet():
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5), nn.BatchNorm2d(6), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.BatchNorm2d(16), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
        nn.Linear(256, 120), nn.BatchNorm1d(120), nn.Sigmoid(),
        nn.Linear(120, 84), nn.BatchNorm1d(84), nn.Sigmoid(),
        nn.Linear(84, 10))


def accuracy(y_hat, y):  #@save
    """Compute the number of correct predictions."""
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


def evaluate_accuracy_gpu(net, data_iter):  #@save
    """Compute the accuracy for a model on a dataset."""
    if isinstance(net, nn.Module):
        net.eval()  # Set the model to evaluation mode
    correct, total = 0.0, 0
    with torch.no_grad():
        for X, y in data_iter:
            correct += accuracy(net(X), y)
            total += y.numel()
    return correct / total


def train_ch6(net, train_iter, test_iter, num_epochs, lr, init=True):
    """Train a model (the book's loop without the Animator and the device)."""
    def init_weights(m):
        if type(m) == nn.Linear or type(m) == nn.Conv2d:
            nn.init.xavier_uniform_(m.weight)
    if init:
        net.apply(init_weights)
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    loss = nn.CrossEntropyLoss()
    history = []
    for epoch in range(num_epochs):
        net.train()
        l_sum, correct, n = 0.0, 0.0, 0
        for i, (X, y) in enumerate(train_iter):
            optimizer.zero_grad()
            y_hat = net(X)
            l = loss(y_hat, y)
            l.backward()
            optimizer.step()
            with torch.no_grad():
                l_sum += l * X.shape[0]
                correct += accuracy(y_hat, y)
                n += X.shape[0]
        train_l, train_acc = float(l_sum / n), correct / n
        test_acc = evaluate_accuracy_gpu(net, test_iter)
        print(f'loss {train_l:.3f}, train acc {train_acc:.3f}, test acc {test_acc:.3f}')
        history.append((train_l, train_acc, test_acc))
    return history
