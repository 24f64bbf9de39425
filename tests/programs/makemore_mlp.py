"""A character-level MLP language model (Bengio et al. 2003), as built in "makemore, part 2".

Source: Andrej Karpathy, Neural Networks: Zero to Hero, lecture "Building makemore Part 2: MLP"
(github.com/karpathy/nn-zero-to-hero, lectures/makemore/makemore_part2_mlp.ipynb).
Changed: the import (the test runs this file with `import torch` and with `import minitorch as torch`);
names.txt replaced by the word list passed in; the notebook's cells wrapped in functions; the hidden
layer has 64 units instead of 200 and training runs for the given number of steps (the learning rate
drops 10x halfway, instead of at step 100000); the minibatch indices `ix` are passed in instead of drawn
with `torch.randint(0, Xtr.shape[0], (32,))`, since the two libraries' random streams differ; sampling
picks the most likely next character instead of `torch.multinomial`.
"""
import torch
import torch.nn.functional as F


def build_dataset(words, stoi, block_size=3):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + '.':
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]  # crop and append
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    return X, Y


def init_params(vocab_size=27, block_size=3, n_embd=10, n_hidden=64):
    g = torch.Generator().manual_seed(2147483647)  # for reproducibility
    C = torch.randn((vocab_size, n_embd), generator=g)
    W1 = torch.randn((block_size * n_embd, n_hidden), generator=g)
    b1 = torch.randn(n_hidden, generator=g)
    W2 = torch.randn((n_hidden, vocab_size), generator=g)
    b2 = torch.randn(vocab_size, generator=g)
    parameters = [C, W1, b1, W2, b2]
    for p in parameters:
        p.requires_grad = True
    return parameters


def train(parameters, Xtr, Ytr, batches):
    C, W1, b1, W2, b2 = parameters
    lossi = []
    for i, ix in enumerate(batches):
        # forward pass
        emb = C[Xtr[ix]]  # (32, 3, 10)
        h = torch.tanh(emb.view(-1, W1.shape[0]) @ W1 + b1)  # (32, 64)
        logits = h @ W2 + b2  # (32, 27)
        loss = F.cross_entropy(logits, Ytr[ix])
        # backward pass
        for p in parameters:
            p.grad = None
        loss.backward()
        # update
        lr = 0.1 if i < len(batches) // 2 else 0.01
        for p in parameters:
            p.data += -lr * p.grad
        lossi.append(loss.item())
    return lossi


@torch.no_grad()
def split_loss(parameters, X, Y):
    C, W1, b1, W2, b2 = parameters
    emb = C[X]
    h = torch.tanh(emb.view(-1, W1.shape[0]) @ W1 + b1)
    logits = h @ W2 + b2
    return F.cross_entropy(logits, Y).item()


def sample(parameters, itos, block_size=3, n=3):
    C, W1, b1, W2, b2 = parameters
    out = []
    for _ in range(n):
        word, context = [], [0] * block_size
        while len(word) < 12:
            emb = C[torch.tensor([context])]  # (1, block_size, d)
            h = torch.tanh(emb.view(1, -1) @ W1 + b1)
            logits = h @ W2 + b2
            probs = F.softmax(logits, dim=1)
            ix = torch.argmax(probs, dim=1).item()
            context = context[1:] + [ix]
            if ix == 0:
                break
            word.append(itos[ix])
        out.append(''.join(word))
    return out
