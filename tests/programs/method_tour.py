"""Tensor methods that mirror module functions (chunk, split, unbind, narrow, index_select, tril,
bmm, where, logical_*, remainder/fmod, logsumexp ...), NumPy keyword aliases (axis=, keepdims=)
and float()/int() of a multi-element tensor."""

import torch
x = torch.arange(12.0).reshape(3, 4)
print(x.chunk(2, dim=1))
print(x.split(2))
print(x.unbind(1))
print(x.narrow(1, 1, 2))
print(x.index_select(0, torch.tensor([2, 0])))
print(x.tril(), x.triu(1))
print(x.mv(torch.ones(4)))
print(torch.ones(2, 2, 3).bmm(torch.ones(2, 3, 1)).shape)
print(x.where(x > 5, torch.zeros(3, 4)))
print(torch.tensor([1.0, float("inf"), float("nan")]).isfinite(), torch.tensor([1.0, float("inf")]).isinf())
print(x.isclose(x + 1e-9))
b = x > 4
print(b.logical_and(x < 9), b.logical_or(x < 2), b.logical_xor(x < 9), b.logical_not())
print(torch.tensor([-7, 7]).remainder(3), torch.tensor([-7, 7]).fmod(3), torch.tensor([-7.5, 7.5]).fmod(2))
print(x.logsumexp(dim=1), x.logsumexp(0, keepdim=True), x.logsumexp((0, 1)))
print(x.type_as(torch.tensor([1])), x.element_size(), x.ndimension(), x.new_empty(2).shape)
y = x.clone()
y.masked_fill_(y > 8, -1.0)
y.clip_(0, 5)
print(y)
print(x.sum(axis=0), x.mean(axis=1, keepdims=True), torch.max(x, axis=1).indices, torch.cat([x, x], axis=1).shape)
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w.logsumexp(0).backward()
print(w.grad)
try:
    float(torch.tensor([1.0, 2.0]))
except ValueError as e:
    print("ValueError:", e)
try:
    int(torch.tensor([1, 2]))
except ValueError as e:
    print("ValueError:", e)
