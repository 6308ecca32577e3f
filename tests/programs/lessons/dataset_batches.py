import torch
torch.manual_seed(0)
X = torch.randn(10, 2)
y = torch.randint(0, 2, (10,))
perm = torch.randperm(10)
for start in range(0, 10, 4):
    idx = perm[start:start + 4]
    xb, yb = X[idx], y[idx]
    print(idx.tolist(), xb.shape, yb)
print(X[perm][:2])
