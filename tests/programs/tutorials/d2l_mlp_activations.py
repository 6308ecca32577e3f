# d2l 5.1 (multilayer perceptrons): ReLU, sigmoid and tanh over arange(-8, 8, 0.1) and
# their derivatives by backward with a ones_like gradient and retain_graph, the gradient
# cleared through x.grad.data.zero_(); then the concise MLP initialised with
# nn.init.normal_ via apply.
import torch
from torch import nn

x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
print(x.shape, x[:3], x[-1])
y = torch.relu(x)
y.backward(torch.ones_like(x), retain_graph=True)
print(x.grad[75:85])

y = torch.sigmoid(x)
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
print(x.grad[::20])
print(f"{x.grad.max().item():.6f}")

y = torch.tanh(x)
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
print(x.grad[::20])
print(y.grad_fn, x.grad.sum())

torch.manual_seed(41)
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
print(net)
print(net[1].weight.std().item() < 0.011, net[3].bias[:3])
out = net(torch.ones(2, 1, 28, 28))
print(out.shape, out.grad_fn)
