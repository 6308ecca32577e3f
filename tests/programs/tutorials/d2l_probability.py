# d2l 2.6 (probability): coin tosses with Python's random, then die rolls drawn with
# torch.multinomial from a seeded torch.Generator, relative frequencies, and the running
# estimates converging to 1/6 (cumsum over one-hot draws).
import random

import torch
import torch.nn.functional as F

random.seed(34)
num_tosses = 100
heads = sum([random.random() > 0.5 for _ in range(num_tosses)])
tails = num_tosses - heads
print("heads, tails: ", [heads, tails])

g = torch.Generator().manual_seed(35)
fair_probs = torch.ones(6) / 6
rolls = torch.multinomial(fair_probs, 1000, replacement=True, generator=g)
counts = torch.bincount(rolls, minlength=6)
print(counts, counts / 1000)

draws = torch.multinomial(fair_probs, 500, replacement=True, generator=g)
onehot = F.one_hot(draws, num_classes=6).float()
cum_counts = onehot.cumsum(dim=0)
estimates = cum_counts / cum_counts.sum(dim=1, keepdims=True)
print(estimates[[9, 99, 499]])
print(torch.randperm(10, generator=g))
print(torch.rand(3, generator=g), torch.randint(0, 6, (8,), generator=g))
