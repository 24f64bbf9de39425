"""The convolutional network of PyTorch's MNIST example as it stood in 2018-2019 (channel dropout with
`nn.Dropout2d`, `F.dropout(training=self.training)`, SGD with momentum), with its `train`/`test` functions.

Source: pytorch/examples, mnist/main.py at v1.0 (https://github.com/pytorch/examples/blob/v1.0/mnist/main.py
, later rewritten into the version in mnist_cnn.py).
Changed: the import; MNIST (a download) replaced by tensors in a TensorDataset passed in; argparse replaced by
keyword arguments; `Net` takes the dropout probability of both dropouts (the example's default 0.5; the test
compares torch and minitorch with 0, since they draw different masks, and checks the channel masks separately);
`train` returns its losses and `test` returns what it prints.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self, p=0.5):
        super(Net, self).__init__()
        self.p = p
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d(p)
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, p=self.p, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    losses = []
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % args['log_interval'] == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))
    return losses


def test(args, model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.max(1, keepdim=True)[1]  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()

    test_loss /= len(test_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        100. * correct / len(test_loader.dataset)))
    return test_loss, correct


def main(model, train_set, test_set, batch_size=64, test_batch_size=1000, epochs=2, lr=0.01, momentum=0.5,
         log_interval=10):
    args = {'log_interval': log_interval}
    device = torch.device("cpu")
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=batch_size, shuffle=False)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=test_batch_size, shuffle=False)
    model = model.to(device)
    optimizer = optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    history = []
    for epoch in range(1, epochs + 1):
        history.append((train(args, model, device, train_loader, optimizer, epoch),
                        test(args, model, device, test_loader)))
    return history
