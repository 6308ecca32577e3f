import torch
from torch import nn

class Stack(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = torch.tanh(x)
        return x

torch.manual_seed(3)
net = Stack([3, 5, 4, 1])
print(net)
for name, p in net.named_parameters():
    print(name, tuple(p.shape))
out = net(torch.ones(2, 3)).sum()
out.backward()
print(round(out.item(), 5), [round(p.grad.abs().sum().item(), 4) for p in net.parameters()])
print(sum(p.numel() for p in net.parameters()))
