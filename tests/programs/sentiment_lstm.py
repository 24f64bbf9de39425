"""A bidirectional two-layer LSTM sentiment classifier over packed padded sequences.

Source: Ben Trevett, pytorch-sentiment-analysis, "2 - Upgraded Sentiment Analysis.ipynb"
(github.com/bentrevett/pytorch-sentiment-analysis, legacy torchtext version).
Changed: the import; IMDb through torchtext's BucketIterator (a download) replaced by batches passed in as
(text, text_lengths, label) tuples, sorted by decreasing length within a batch as BucketIterator's
`sort_within_batch=True` makes them; the GloVe vectors are not loaded; the test runs with dropout 0 (torch
and minitorch draw different dropout masks); `train` and `evaluate` return their per-batch losses too.
"""
import torch
import torch.nn as nn
import torch.optim as optim


class RNN(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim, n_layers,
                 bidirectional, dropout, pad_idx):

        super().__init__()

        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx = pad_idx)

        self.rnn = nn.LSTM(embedding_dim,
                           hidden_dim,
                           num_layers=n_layers,
                           bidirectional=bidirectional,
                           dropout=dropout)

        self.fc = nn.Linear(hidden_dim * 2, output_dim)

        self.dropout = nn.Dropout(dropout)

    def forward(self, text, text_lengths):

        #text = [sent len, batch size]

        embedded = self.dropout(self.embedding(text))

        #embedded = [sent len, batch size, emb dim]

        #pack sequence
        # lengths need to be on CPU!
        packed_embedded = nn.utils.rnn.pack_padded_sequence(embedded, text_lengths.to('cpu'))

        packed_output, (hidden, cell) = self.rnn(packed_embedded)

        #unpack sequence
        output, output_lengths = nn.utils.rnn.pad_packed_sequence(packed_output)

        #output = [sent len, batch size, hid dim * num directions]
        #output over padding tokens are zero tensors

        #hidden = [num layers * num directions, batch size, hid dim]
        #cell = [num layers * num directions, batch size, hid dim]

        #concat the final forward (hidden[-2,:,:]) and backward (hidden[-1,:,:]) hidden layers
        #and apply dropout

        hidden = self.dropout(torch.cat((hidden[-2,:,:], hidden[-1,:,:]), dim = 1))

        #hidden = [batch size, hid dim * num directions]

        return self.fc(hidden)


def binary_accuracy(preds, y):
    """
    Returns accuracy per batch, i.e. if you get 8/10 right, this returns 0.8, NOT 8
    """

    #round predictions to the closest integer
    rounded_preds = torch.round(torch.sigmoid(preds))
    correct = (rounded_preds == y).float() #convert into float for division
    acc = correct.sum() / len(correct)
    return acc


def train(model, iterator, optimizer, criterion):

    epoch_loss = 0
    epoch_acc = 0
    losses = []

    model.train()

    for batch in iterator:

        optimizer.zero_grad()

        text, text_lengths, label = batch

        predictions = model(text, text_lengths).squeeze(1)

        loss = criterion(predictions, label)

        acc = binary_accuracy(predictions, label)

        loss.backward()

        optimizer.step()

        epoch_loss += loss.item()
        epoch_acc += acc.item()
        losses.append(loss.item())

    return epoch_loss / len(iterator), epoch_acc / len(iterator), losses


def evaluate(model, iterator, criterion):

    epoch_loss = 0
    epoch_acc = 0

    model.eval()

    with torch.no_grad():

        for batch in iterator:

            text, text_lengths, label = batch

            predictions = model(text, text_lengths).squeeze(1)

            loss = criterion(predictions, label)

            acc = binary_accuracy(predictions, label)

            epoch_loss += loss.item()
            epoch_acc += acc.item()

    return epoch_loss / len(iterator), epoch_acc / len(iterator)


def main(model, train_iterator, valid_iterator, n_epochs=2):
    optimizer = optim.Adam(model.parameters())
    criterion = nn.BCEWithLogitsLoss()
    history = []
    for epoch in range(n_epochs):
        train_loss, train_acc, losses = train(model, train_iterator, optimizer, criterion)
        valid_loss, valid_acc = evaluate(model, valid_iterator, criterion)
        print(f'Epoch: {epoch+1:02} | Train Loss: {train_loss:.3f} | Train Acc: {train_acc*100:.2f}% '
              f'| Val. Loss: {valid_loss:.3f} | Val. Acc: {valid_acc*100:.2f}%')
        history.append((losses, valid_loss, valid_acc))
    return history
