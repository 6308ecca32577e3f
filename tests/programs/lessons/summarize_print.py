import torch
torch.manual_seed(0)
print(torch.randn(100, 100))
print(torch.arange(2000).reshape(2, 1000))
print(torch.randn(3, 4, 5))
