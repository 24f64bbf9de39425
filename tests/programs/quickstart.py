"""The PyTorch "Learn the Basics" quickstart: an MLP classifier trained with a DataLoader.

Source: pytorch/tutorials, beginner_source/basics/quickstart_tutorial.py
(https://docs.pytorch.org/tutorials/beginner/basics/quickstart_tutorial.html).
Changed: the import; FashionMNIST (a download) replaced by synthetic 28x28 images passed in as a
TensorDataset; `device` fixed to "cpu" (the tutorial picks `torch.accelerator`); the loaders do not
shuffle (the test data loader does not in the tutorial either); `train` and `test` return the losses
and accuracy that the tutorial prints.
"""
import torch
from torch import nn
from torch.utils.data import DataLoader

device = "cpu"


# Define model
class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28*28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10)
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    losses = []
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)

        # Compute prediction error
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        losses.append(loss.item())
        if batch % 100 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")
    return losses


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    return test_loss, correct


def main(training_data, test_data, model, epochs=1, batch_size=64):
    train_dataloader = DataLoader(training_data, batch_size=batch_size)
    test_dataloader = DataLoader(test_data, batch_size=batch_size)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    history = []
    for t in range(epochs):
        print(f"Epoch {t+1}\n-------------------------------")
        history.append((train(train_dataloader, model, loss_fn, optimizer), test(test_dataloader, model, loss_fn)))
    print("Done!")
    return history
