import torch
from torch import nn
logits = torch.tensor([[1.0, 2.0], [0.5, 0.1]])
target = torch.tensor([1.0, 0.0])
print(nn.CrossEntropyLoss()(logits, torch.tensor([1, 0])))
loss = nn.CrossEntropyLoss()(logits, target.long())
print(loss)
loss = nn.CrossEntropyLoss()(logits, torch.tensor([1, 0], dtype=torch.int32))
