# d2l 5.2 (MLP from scratch): parameters as nn.Parameter(torch.randn(...) * 0.01), ReLU
# written with torch.max against zeros_like, CrossEntropyLoss(reduction='none'), the
# framework's SGD over the hand-made parameter list.
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(40)
# prelude: _d2l_fake_fashion.py


train_iter = data.DataLoader(data.TensorDataset(*fake_fashion(1000)), 256, shuffle=True)
test_X, test_y = fake_fashion(300)

num_inputs, num_outputs, num_hiddens = 784, 10, 256
W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens, requires_grad=True) * 0.01)
b1 = nn.Parameter(torch.zeros(num_hiddens, requires_grad=True))
W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs, requires_grad=True) * 0.01)
b2 = nn.Parameter(torch.zeros(num_outputs, requires_grad=True))
params = [W1, b1, W2, b2]
print([tuple(p.shape) for p in params], type(W1).__name__, W1.is_leaf)


def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)


print(relu(torch.tensor([-1.0, 0.5, 2.0])))


def net(X):
    X = X.reshape((-1, num_inputs))
    H = relu(X @ W1 + b1)
    return H @ W2 + b2


loss = nn.CrossEntropyLoss(reduction="none")
updater = torch.optim.SGD(params, lr=0.1)
for epoch in range(10):
    for X, y in train_iter:
        l = loss(net(X), y)
        updater.zero_grad()
        l.mean().backward()
        updater.step()
    with torch.no_grad():
        test_loss = loss(net(test_X), test_y).mean().item()
        acc = (net(test_X).argmax(1) == test_y).float().mean().item()
    print(f"epoch {epoch + 1}: test loss {test_loss:.3f}, test acc {acc:.3f}")
