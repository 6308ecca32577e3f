# d2l 3.2 (linear regression from scratch), the edition with free functions: synthetic data
# from torch.normal, a generator that yields shuffled minibatches, weights drawn with
# torch.normal(..., requires_grad=True), squared loss, minibatch SGD, three epochs.
import random

import torch

random.seed(36)
torch.manual_seed(36)


# prelude: _d2l_synthetic_data.py


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 1000)
print("features:", features[0], "\nlabel:", labels[0])


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


batch_size = 10
for X, y in data_iter(batch_size, features, labels):
    print(X.shape, y.shape)
    break

w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)


# prelude: _d2l_linreg_sgd.py


lr = 0.03
num_epochs = 3
net = linreg
loss = squared_loss
for epoch in range(num_epochs):
    for X, y in data_iter(batch_size, features, labels):
        l = loss(net(X, w, b), y)
        l.sum().backward()
        sgd([w, b], lr, batch_size)
    with torch.no_grad():
        train_l = loss(net(features, w, b), labels)
        print(f"epoch {epoch + 1}, loss {float(train_l.mean()):f}")

print(f"estimated w: {w.reshape(true_w.shape)}, b: {b}")
# the errors themselves are SGD's noise (1e-4), whose digits depend on rounding
print(f"error in estimating w: {(true_w - w.reshape(true_w.shape)).abs().max() < 1e-2}")
print(f"error in estimating b: {(true_b - b).abs().max() < 1e-2}")
