# d2l's convolution chapter: cross-correlation written by hand (corr2d) against F.conv2d,
# an edge detector, a 1x2 kernel learned with nn.Conv2d (bias=False) by updating
# weight.data, padding and stride shapes, multi-channel input and output, max and average
# pooling (functional and modules), nn.Flatten, and Conv1d over a sequence.
import torch
from torch import nn
from torch.nn import functional as F


def corr2d(X, K):
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y


X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
K = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print(corr2d(X, K))
print(F.conv2d(X.reshape(1, 1, 3, 3), K.reshape(1, 1, 2, 2)))

X = torch.ones((6, 8))
X[:, 2:6] = 0
print(X)
K = torch.tensor([[1.0, -1.0]])
Y = corr2d(X, K)
print(Y)
print(corr2d(X.t(), K))

torch.manual_seed(57)
conv2d = nn.Conv2d(1, 1, kernel_size=(1, 2), bias=False)
X = X.reshape((1, 1, 6, 8))
Y = Y.reshape((1, 1, 6, 7))
lr = 3e-2
for i in range(10):
    Y_hat = conv2d(X)
    l = (Y_hat - Y) ** 2
    conv2d.zero_grad()
    l.sum().backward()
    conv2d.weight.data[:] -= lr * conv2d.weight.grad
    if (i + 1) % 2 == 0:
        print(f"epoch {i + 1}, loss {l.sum():.3f}")
print(conv2d.weight.data.reshape((1, 2)))


def comp_conv2d(conv2d, X):
    X = X.reshape((1, 1) + X.shape)
    Y = conv2d(X)
    return Y.reshape(Y.shape[2:])


X = torch.rand(size=(8, 8))
print(comp_conv2d(nn.Conv2d(1, 1, kernel_size=3, padding=1), X).shape)
print(comp_conv2d(nn.Conv2d(1, 1, kernel_size=(5, 3), padding=(2, 1)), X).shape)
print(comp_conv2d(nn.Conv2d(1, 1, kernel_size=3, padding=1, stride=2), X).shape)
print(comp_conv2d(nn.Conv2d(1, 1, kernel_size=(3, 5), padding=(0, 1), stride=(3, 4)), X).shape)

X = torch.arange(18.0).reshape(1, 2, 3, 3)
K = torch.stack([torch.ones(2, 2, 2), torch.ones(2, 2, 2) * 0.5, -torch.ones(2, 2, 2)])
print(F.conv2d(X, K).shape, F.conv2d(X, K))
print(F.conv2d(X, K, bias=torch.tensor([1.0, 0.0, -1.0]), stride=1, padding=1).shape)

X = torch.arange(16, dtype=torch.float32).reshape((1, 1, 4, 4))
print(F.max_pool2d(X, 2), F.avg_pool2d(X, 2))
print(nn.MaxPool2d(3)(X), nn.MaxPool2d(3, padding=1, stride=2)(X))
print(nn.AvgPool2d((2, 3), padding=(0, 1), stride=(2, 3))(X))
X = torch.cat((X, X + 1), 1)
print(F.max_pool2d(X, 3, padding=1, stride=2))

net = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2), nn.Flatten(), nn.Linear(16, 3))
out = net(X)
print(out.shape, [tuple(p.shape) for p in net.parameters()])
out.sum().backward()
print(net[0].weight.grad.shape, net[0].bias.grad.abs().sum() > 0)

seq = torch.randn(2, 3, 10)
conv1d = nn.Conv1d(3, 5, kernel_size=3, padding=1)
print(conv1d, conv1d(seq).shape, F.conv1d(seq, conv1d.weight, conv1d.bias, padding=1).shape)
