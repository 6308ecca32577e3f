import torch
from torch import nn
torch.manual_seed(0)
m = nn.Linear(2, 2)
params = list(m.parameters())
print(params)
print(len(params))
print(m.weight)
print(m.bias.data)
print(m.state_dict().keys())
print(m.weight.grad_fn, m.weight.is_leaf, m.weight.requires_grad)
print(m.in_features, m.out_features)
print(m.weight.T)
print(m.weight @ torch.ones(2))
