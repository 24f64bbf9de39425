"""The convolutional network of PyTorch's MNIST example, trained with Adadelta and a StepLR schedule.

Source: pytorch/examples, mnist/main.py (https://github.com/pytorch/examples/blob/main/mnist/main.py).
Changed: the import; MNIST (a download) replaced by synthetic 28x28 images in a TensorDataset passed in;
argparse replaced by keyword arguments; `Net` takes the two dropout probabilities (the example's 0.25 and
0.5 are the defaults; the test passes 0, since torch and minitorch draw different dropout masks); the
device is the CPU; `train` stops after `max_batches` batches and returns the losses; `test` returns the
loss and the accuracy it prints.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR


class Net(nn.Module):
    def __init__(self, p1=0.25, p2=0.5):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(p1)
        self.dropout2 = nn.Dropout(p2)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(model, device, train_loader, optimizer, epoch, log_interval=10, max_batches=None):
    model.train()
    losses = []
    for batch_idx, (data, target) in enumerate(train_loader):
        if max_batches is not None and batch_idx >= max_batches:
            break
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))
    return losses


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()

    test_loss /= len(test_loader.dataset)

    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        100. * correct / len(test_loader.dataset)))
    return test_loss, correct


def main(model, dataset1, dataset2, batch_size=64, test_batch_size=1000, epochs=2, lr=1.0, gamma=0.7,
         max_batches=None):
    device = torch.device("cpu")
    train_kwargs = {'batch_size': batch_size}
    test_kwargs = {'batch_size': test_batch_size}
    train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)
    test_loader = torch.utils.data.DataLoader(dataset2, **test_kwargs)

    model = model.to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=gamma)
    history = []
    for epoch in range(1, epochs + 1):
        losses = train(model, device, train_loader, optimizer, epoch, max_batches=max_batches)
        history.append((losses, test(model, device, test_loader), scheduler.get_last_lr()))
        scheduler.step()
    return history
