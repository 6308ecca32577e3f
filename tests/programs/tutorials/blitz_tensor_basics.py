# The 60-minute blitz's first page as it read for years: uninitialised-free construction,
# new_ones / randn_like with a dtype, size(), add with out=, in-place add_, views, and the
# NumPy bridge (tensor and array share memory).
import numpy as np
import torch

torch.manual_seed(20)

z = torch.zeros(5, 3, dtype=torch.long)
print(z)
grid = torch.tensor([5.5, 3])
print(grid)

ones = z.new_ones(5, 3, dtype=torch.double)
print(ones)
noisy = torch.randn_like(ones, dtype=torch.float)
print(noisy)
print(noisy.size(), noisy.size()[0], len(noisy.size()))

other = torch.rand(5, 3)
print(noisy + other)
print(torch.add(noisy, other))
result = torch.empty(5, 3)
torch.add(noisy, other, out=result)
print(result)
other.add_(noisy)
print(other)
print(noisy[:, 1])

square = torch.randn(4, 4)
flat = square.view(16)
pairs = square.view(-1, 8)
print(square.size(), flat.size(), pairs.size())
single = torch.randn(1)
print(single, single.item())

ones_t = torch.ones(5)
arr = ones_t.numpy()
print(arr)
ones_t.add_(1)
print(ones_t, arr)

arr2 = np.ones(5)
from_np = torch.from_numpy(arr2)
np.add(arr2, 1, out=arr2)
print(arr2, from_np)

if torch.cuda.is_available():
    device = torch.device("cuda")
    print(noisy.to(device))
else:
    print("no cuda:", noisy.to("cpu", torch.double).dtype)
