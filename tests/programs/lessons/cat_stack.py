import torch
a = torch.tensor([[1, 2], [3, 4]])
b = torch.tensor([[5, 6]])
print(torch.cat([a, b]))
print(torch.cat([a, a], dim=1))
print(torch.stack([a, a]).shape, torch.stack([a, a], dim=2).shape)
print(torch.stack([torch.tensor(1.0), torch.tensor(2.0)]))
xs = [torch.tensor([float(i), float(i * i)]) for i in range(3)]
print(torch.stack(xs))
print(torch.cat(xs))
print(torch.vstack(xs), torch.hstack(xs))
print(torch.cat([a, b], dim=1))
