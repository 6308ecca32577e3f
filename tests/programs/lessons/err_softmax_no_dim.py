import torch
x = torch.tensor([1.0, 2.0])
print(torch.softmax(x, 0))
print(torch.softmax(x))
