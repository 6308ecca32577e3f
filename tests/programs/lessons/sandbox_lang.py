import torch
import math
def f(x, scale=2.0):
    return x * scale
results = []
i = 0
while i < 3:
    results.append(f(torch.tensor(float(i))).item())
    i += 1
print(results)
print(math.sqrt(torch.tensor(4.0)))
print(math.exp(1.0), math.pi)
nums = [3, 1, 2]
nums.sort()
print(nums, sorted(nums, reverse=True))
print(", ".join(str(n) for n in nums))
d = {}
for k in ["a", "b"]:
    d[k] = torch.zeros(1)
print(d)
print([str(n) for n in nums])
print(*nums)
print(min(nums), max(nums), abs(-3), pow(2, 10), divmod(7, 2))
print(isinstance(torch.ones(1), torch.Tensor))
