"""The PyTorch 60-minute blitz "Training a Classifier" (CIFAR-10): a LeNet-style CNN trained with SGD + momentum.

Source: pytorch/tutorials, beginner_source/blitz/cifar10_tutorial.py
(https://docs.pytorch.org/tutorials/beginner/blitz/cifar10_tutorial.html), with the device chosen as in its
"Training on GPU" section, in the `torch.accelerator` form of the current tutorials.
Changed: the import; torchvision's CIFAR10 download replaced by synthetic 3x32x32 images passed in as a
TensorDataset; the loaders do not shuffle; the loss is printed every 4 mini-batches instead of 2000; the global
net/loaders became arguments of `main`, which returns the running losses and the test accuracy.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
torch.backends.cudnn.benchmark = True


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1) # flatten all dimensions except batch
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def main(trainset, testset, net, epochs=2, batch_size=4):
    trainloader = torch.utils.data.DataLoader(trainset, batch_size=batch_size, shuffle=False, num_workers=0)
    testloader = torch.utils.data.DataLoader(testset, batch_size=batch_size, shuffle=False, num_workers=0)
    net.to(device)

    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

    printed = []
    for epoch in range(epochs):  # loop over the dataset multiple times

        running_loss = 0.0
        for i, data in enumerate(trainloader, 0):
            # get the inputs; data is a list of [inputs, labels]
            inputs, labels = data[0].to(device), data[1].to(device)

            # zero the parameter gradients
            optimizer.zero_grad()

            # forward + backward + optimize
            outputs = net(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()

            # print statistics
            running_loss += loss.item()
            if i % 4 == 3:    # print every 4 mini-batches
                print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 4:.3f}')
                printed.append(running_loss / 4)
                running_loss = 0.0

    print('Finished Training')

    correct = 0
    total = 0
    # since we're not training, we don't need to calculate the gradients for our outputs
    with torch.no_grad():
        for data in testloader:
            images, labels = data[0].to(device), data[1].to(device)
            # calculate outputs by running images through the network
            outputs = net(images)
            # the class with the highest energy is what we choose as prediction
            _, predicted = torch.max(outputs, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()

    print(f'Accuracy of the network on the {total} test images: {100 * correct // total} %')
    return printed, correct / total
