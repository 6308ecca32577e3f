# d2l's recurrent chapter in small: a character-level language model (nn.RNN over one-hot
# inputs from F.one_hot), gradient clipping written by hand as d2l does, then with
# nn.utils.clip_grad_norm_ (its returned total norm) and clip_grad_value_; perplexity via
# math.exp, and a greedy prediction after training.
import math

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(51)
text = "the time traveller for so it will be convenient to speak of him was expounding a recondite matter to us "
vocab = sorted(set(text))
stoi = {c: i for i, c in enumerate(vocab)}
corpus = torch.tensor([stoi[c] for c in text])
num_steps, batch_size, num_hiddens = 10, 4, 32
print(len(vocab), corpus.shape)


def batches():
    starts = list(range(0, len(corpus) - num_steps - 1, num_steps))
    for i in range(0, len(starts) - batch_size + 1, batch_size):
        idx = starts[i:i + batch_size]
        X = torch.stack([corpus[j:j + num_steps] for j in idx])
        Y = torch.stack([corpus[j + 1:j + num_steps + 1] for j in idx])
        yield X, Y


class RNNModel(nn.Module):
    def __init__(self, rnn_layer, vocab_size):
        super().__init__()
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.num_hiddens = self.rnn.hidden_size
        self.linear = nn.Linear(self.num_hiddens, self.vocab_size)

    def forward(self, inputs, state):
        X = F.one_hot(inputs.T.long(), self.vocab_size)
        X = X.to(torch.float32)
        Y, state = self.rnn(X, state)
        output = self.linear(Y.reshape((-1, Y.shape[-1])))
        return output, state

    def begin_state(self, batch_size=1):
        return torch.zeros((self.rnn.num_layers, batch_size, self.num_hiddens))


def grad_clipping(net, theta):
    params = [p for p in net.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm
    return norm


def predict(prefix, num_preds, net):
    state = net.begin_state(batch_size=1)
    outputs = [stoi[prefix[0]]]
    get_input = lambda: torch.tensor([outputs[-1]]).reshape((1, 1))
    for y in prefix[1:]:
        _, state = net(get_input(), state)
        outputs.append(stoi[y])
    for _ in range(num_preds):
        y, state = net(get_input(), state)
        outputs.append(int(y.argmax(dim=1).reshape(1)))
    return "".join(vocab[i] for i in outputs)


net = RNNModel(nn.RNN(len(vocab), num_hiddens), vocab_size=len(vocab))
loss = nn.CrossEntropyLoss()
updater = torch.optim.SGD(net.parameters(), lr=1.0)
for epoch in range(30):
    total, count = 0.0, 0
    norms = []
    for X, Y in batches():
        state = net.begin_state(batch_size=X.shape[0])
        y_hat, state = net(X, state)
        l = loss(y_hat, Y.T.reshape(-1).long())
        updater.zero_grad()
        l.backward()
        if epoch < 10:
            norms.append(float(grad_clipping(net, 1)))
        elif epoch < 20:
            norms.append(float(nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)))
        else:
            nn.utils.clip_grad_value_(net.parameters(), clip_value=0.1)
            norms.append(max(p.grad.abs().max().item() for p in net.parameters()))
        updater.step()
        total += l.item() * Y.numel()
        count += Y.numel()
    if epoch % 5 == 4:
        print(f"epoch {epoch + 1}: perplexity {math.exp(total / count):.1f}, grad measure {norms[-1]:.1f}")

# the greedy continuation of a model trained at lr=1 hangs on its logits' last roundings
# (PyTorch's own kernels disagree on it): the prefix and length are what is compared
guess = predict("time ", 10, net)
print(guess[:5], len(guess))
