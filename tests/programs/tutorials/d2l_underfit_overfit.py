# d2l 5.4 (model selection, underfitting, overfitting): polynomial features drawn with
# NumPy's global generator (np.random.normal, np.random.shuffle), scaled by math.gamma,
# converted with a list comprehension of torch.tensor(..., dtype=torch.float32); a
# bias-free Linear fitted with SGD on the first 4, the first 2 and all 20 features.
import math

import numpy as np
import torch
from torch import nn
from torch.utils import data

np.random.seed(42)
torch.manual_seed(42)

max_degree = 20
n_train, n_test = 100, 100
true_w = np.zeros(max_degree)
true_w[0:4] = np.array([5, 1.2, -3.4, 5.6])

features = np.random.normal(size=(n_train + n_test, 1))
np.random.shuffle(features)
poly_features = np.power(features, np.arange(max_degree).reshape(1, -1))
for i in range(max_degree):
    poly_features[:, i] /= math.gamma(i + 1)
labels = np.dot(poly_features, true_w)
labels += np.random.normal(scale=0.1, size=labels.shape)

true_w, features, poly_features, labels = [
    torch.tensor(x, dtype=torch.float32) for x in [true_w, features, poly_features, labels]
]
print(features[:2], poly_features[:2, :4], labels[:2])


def evaluate_loss(net, data_iter, loss):
    total, count = 0.0, 0
    for X, y in data_iter:
        out = net(X)
        y = y.reshape(out.shape)
        l = loss(out, y)
        total += l.sum().item()
        count += l.numel()
    return total / count


def load_array(arrays, batch_size, is_train=True):
    return data.DataLoader(data.TensorDataset(*arrays), batch_size, shuffle=is_train)


def train(train_features, test_features, train_labels, test_labels, num_epochs=60):
    loss = nn.MSELoss(reduction="none")
    input_shape = train_features.shape[-1]
    net = nn.Sequential(nn.Linear(input_shape, 1, bias=False))
    batch_size = min(10, train_labels.shape[0])
    train_iter = load_array((train_features, train_labels.reshape(-1, 1)), batch_size)
    test_iter = load_array((test_features, test_labels.reshape(-1, 1)), batch_size, is_train=False)
    trainer = torch.optim.SGD(net.parameters(), lr=0.01)
    for epoch in range(num_epochs):
        for X, y in train_iter:
            l = loss(net(X), y)
            trainer.zero_grad()
            l.mean().backward()
            trainer.step()
        if epoch == 0 or (epoch + 1) % 20 == 0:
            print(
                epoch + 1,
                f"{evaluate_loss(net, train_iter, loss):.3f}",
                f"{evaluate_loss(net, test_iter, loss):.3f}",
            )
    print("weight:", net[0].weight.data.numpy().round(2))


train(poly_features[:n_train, :4], poly_features[n_train:, :4], labels[:n_train], labels[n_train:])
train(poly_features[:n_train, :2], poly_features[n_train:, :2], labels[:n_train], labels[n_train:])
train(poly_features[:n_train, :], poly_features[n_train:, :], labels[:n_train], labels[n_train:], num_epochs=60)
