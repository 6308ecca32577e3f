import torch
print(torch.tensor([1.0]) / 0)
print(torch.tensor([1, 2]) / 0)
print(torch.tensor([1, 2]) // 0)
