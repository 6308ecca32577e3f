import torch
torch.manual_seed(0)
X = torch.randn(6, 3)
mu = X.mean(dim=0)
sigma = X.std(dim=0)
Z = (X - mu) / sigma
print(mu, sigma)
print(Z.mean(dim=0).abs().max() < 1e-6)
print(Z.std(dim=0))
print(X.var(dim=0, unbiased=False))
print(X.max(dim=0).values, X.min(dim=1)[0])
