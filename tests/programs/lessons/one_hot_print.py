import torch
import torch.nn.functional as F
y = torch.tensor([0, 2, 1])
print(F.one_hot(y))
print(F.one_hot(y, num_classes=4))
print(F.one_hot(y).float())
print(F.one_hot(y).dtype, F.one_hot(y).shape)
