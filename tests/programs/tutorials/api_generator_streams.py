# torch.Generator honoured by every random function: rand, randn, randint, randperm,
# normal, bernoulli, multinomial (with and without replacement) and a shuffling DataLoader
# draw PyTorch's numbers from a seeded generator, leave the global stream untouched, and
# repeat after manual_seed; get_state/set_state and initial_seed; nn.Dropout's masks from
# the global seed.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

g = torch.Generator().manual_seed(2147483647)
print(g.initial_seed())
print(torch.rand(4, generator=g))
print(torch.randn(2, 3, generator=g))
print(torch.randint(0, 10, (8,), generator=g))
print(torch.randperm(8, generator=g))
print(torch.normal(0.0, 2.0, size=(3,), generator=g))
print(torch.normal(torch.zeros(3), torch.ones(3), generator=g))
print(torch.bernoulli(torch.full((10,), 0.3), generator=g))
probs = torch.tensor([0.1, 0.2, 0.3, 0.4])
print(torch.multinomial(probs, 6, replacement=True, generator=g))
print(torch.multinomial(probs, 4, replacement=False, generator=g))
print(torch.multinomial(torch.tensor([[0.5, 0.5, 0.0], [0.0, 0.2, 0.8]]), 1, generator=g))

state = g.get_state()
first = torch.randn(3, generator=g)
g.set_state(state)
print(torch.equal(first, torch.randn(3, generator=g)))

torch.manual_seed(55)
before = torch.rand(2)
torch.manual_seed(55)
torch.rand(5, generator=torch.Generator().manual_seed(1))
print(torch.equal(before, torch.rand(2)))

loader = DataLoader(TensorDataset(torch.arange(10)), batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(7))
print([b[0].tolist() for b in loader])
print([b[0].tolist() for b in loader])

torch.manual_seed(56)
print(nn.Dropout(p=0.5)(torch.ones(2, 8)))
drop = nn.Dropout(p=0.25)
print(drop(torch.ones(16)))
drop.eval()
print(drop(torch.ones(4)))
print(torch.rand(2))
