import torch
import torch.nn as nn
logits = torch.tensor([[1.0, 2.0, 3.0], [0.5, 0.1, 0.2]])
target = torch.tensor([1.0, 0.0])
loss = nn.CrossEntropyLoss()(logits, target)
