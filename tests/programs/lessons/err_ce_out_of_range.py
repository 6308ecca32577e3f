import torch
import torch.nn.functional as F
logits = torch.zeros(2, 3)
print(F.cross_entropy(logits, torch.tensor([0, 2])))
print(F.cross_entropy(logits, torch.tensor([0, 3])))
