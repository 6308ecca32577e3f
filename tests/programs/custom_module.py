import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 8)
        self.fc2 = nn.Linear(8, 3)
        self.scale = 2.0

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x))) * self.scale

torch.manual_seed(1)
net = Net()
print(net)
print([n for n, _ in net.named_parameters()])
x = torch.randn(5, 2)
y = torch.tensor([0, 1, 2, 1, 0])
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
for i in range(20):
    opt.zero_grad()
    out = net(x)
    loss = F.cross_entropy(out, y)
    loss.backward()
    opt.step()
print(loss.item())
print(out.argmax(dim=1))
print(net.fc1.weight.grad.shape, net.fc2.bias)
print(sum(p.numel() for p in net.parameters()))
state = net.state_dict()
print(list(state.keys()))
with torch.no_grad():
    probs = torch.softmax(net(x), dim=1)
print(probs.sum(dim=1))
print(probs.max(dim=1))
p = nn.Parameter(torch.ones(2))
print(p)
print(isinstance(p, nn.Parameter), isinstance(p, torch.Tensor))
a = torch.zeros(3)
a[1] = 5.0
a[0] += 1
print(a)
b = torch.arange(6).float().view(2, 3)
print(b[b > 2], b[:, [0, 2]], b[..., -1])
print(b.mean(dim=0), b.std(dim=1), b.sum(dim=(0, 1)))
print(torch.randn(2, 2, dtype=torch.float64))
print(x.T @ x)
