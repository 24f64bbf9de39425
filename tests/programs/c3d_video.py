"""C3D, the 3-D convolutional network for action recognition in video clips, and its training loop.

Source: jfzhang95/pytorch-video-recognition, network/C3D_model.py and train.py
(https://github.com/jfzhang95/pytorch-video-recognition), after Tran et al., "Learning Spatiotemporal Features
with 3D Convolutional Networks" (2015).
Changed: the import; UCF101 clips (a download) replaced by synthetic clips passed in as a TensorDataset; the
channel widths are `width` times smaller (64 -> 64 // width, ...), the clips 16x32x32 instead of 16x112x112 and
fc6/fc7 narrower, so the flattened size is computed, not 8192; `pretrained` loading removed; the dropout
probability is an argument (the test passes 0: torch and minitorch draw different masks); the device is the
CPU; `train_model` keeps the loop's loss, softmax/argmax accuracy, SGD with momentum and weight decay and StepLR,
runs `epochs` epochs and returns the per-epoch loss and accuracy.
"""
import torch
import torch.nn as nn
import torch.optim as optim


class C3D(nn.Module):
    """
    The C3D network.
    """

    def __init__(self, num_classes, width=8, hidden=64, p=0.5):
        super(C3D, self).__init__()
        c = [64 // width, 128 // width, 256 // width, 512 // width]

        self.conv1 = nn.Conv3d(3, c[0], kernel_size=(3, 3, 3), padding=(1, 1, 1))
        self.pool1 = nn.MaxPool3d(kernel_size=(1, 2, 2), stride=(1, 2, 2))

        self.conv2 = nn.Conv3d(c[0], c[1], kernel_size=(3, 3, 3), padding=(1, 1, 1))
        self.pool2 = nn.MaxPool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2))

        self.conv3a = nn.Conv3d(c[1], c[2], kernel_size=(3, 3, 3), padding=(1, 1, 1))
        self.conv3b = nn.Conv3d(c[2], c[2], kernel_size=(3, 3, 3), padding=(1, 1, 1))
        self.pool3 = nn.MaxPool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2))

        self.conv4a = nn.Conv3d(c[2], c[3], kernel_size=(3, 3, 3), padding=(1, 1, 1))
        self.conv4b = nn.Conv3d(c[3], c[3], kernel_size=(3, 3, 3), padding=(1, 1, 1))
        self.pool4 = nn.MaxPool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2))

        self.conv5a = nn.Conv3d(c[3], c[3], kernel_size=(3, 3, 3), padding=(1, 1, 1))
        self.conv5b = nn.Conv3d(c[3], c[3], kernel_size=(3, 3, 3), padding=(1, 1, 1))
        self.pool5 = nn.MaxPool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 1, 1))

        self.flat = c[3] * 1 * 2 * 2          # 8192 = 512 x 1 x 4 x 4 for 16x112x112 clips
        self.fc6 = nn.Linear(self.flat, hidden)
        self.fc7 = nn.Linear(hidden, hidden)
        self.fc8 = nn.Linear(hidden, num_classes)

        self.dropout = nn.Dropout(p=p)

        self.relu = nn.ReLU()

        self.__init_weight()

    def forward(self, x):

        x = self.relu(self.conv1(x))
        x = self.pool1(x)

        x = self.relu(self.conv2(x))
        x = self.pool2(x)

        x = self.relu(self.conv3a(x))
        x = self.relu(self.conv3b(x))
        x = self.pool3(x)

        x = self.relu(self.conv4a(x))
        x = self.relu(self.conv4b(x))
        x = self.pool4(x)

        x = self.relu(self.conv5a(x))
        x = self.relu(self.conv5b(x))
        x = self.pool5(x)

        x = x.view(-1, self.flat)
        x = self.relu(self.fc6(x))
        x = self.dropout(x)
        x = self.relu(self.fc7(x))
        x = self.dropout(x)

        logits = self.fc8(x)

        return logits

    def __init_weight(self):
        for m in self.modules():
            if isinstance(m, nn.Conv3d):
                torch.nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm3d):
                m.weight.data.fill_(1)
                m.bias.data.zero_()


def train_model(model, train_data, lr=1e-3, batch_size=4, epochs=2):
    train_dataloader = torch.utils.data.DataLoader(train_data, batch_size=batch_size, shuffle=False)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.1)
    history = []
    for epoch in range(epochs):
        running_loss = 0.0
        running_corrects = 0.0
        model.train()
        for inputs, labels in train_dataloader:
            optimizer.zero_grad()
            outputs = model(inputs)
            probs = nn.Softmax(dim=1)(outputs)
            preds = torch.max(probs, 1)[1]
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item() * inputs.size(0)
            running_corrects += torch.sum(preds == labels.data)
        scheduler.step()
        epoch_loss = running_loss / len(train_data)
        epoch_acc = float(running_corrects) / len(train_data)
        history.append((epoch_loss, epoch_acc))
    return history
