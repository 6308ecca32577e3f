import torch
x = torch.arange(6.0)
print(torch.chunk(x, 3), torch.split(x, 2), torch.split(x, [1, 5]))
print(torch.tril(torch.ones(3, 3)), torch.triu(torch.ones(3, 3), diagonal=1))
print(torch.vstack([x, x]).shape, torch.hstack([x, x]).shape)
print(torch.index_select(x, 0, torch.tensor([0, 2])))
