import torch
x = torch.tensor([1.0])
x.backward()
