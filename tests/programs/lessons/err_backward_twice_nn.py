import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(2, 1)
loss = model(torch.ones(3, 2)).pow(2).mean()
loss.backward()
print(model.weight.grad)
loss.backward()
