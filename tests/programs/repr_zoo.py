import torch

print(torch.tensor([0, 1]), torch.tensor([0, 1]).dtype)
print(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]).dtype)
print(torch.tensor([True, False, True]), torch.tensor(True))
print(torch.tensor(3), torch.tensor(3.5), torch.tensor(-2.25, dtype=torch.float64))
print(torch.tensor([[1, 2, 3], [4, 5, 6]]))
print(torch.tensor([[1.5, -2.0], [3.25, 4.0]], dtype=torch.float64))
print(torch.arange(24).reshape(2, 3, 4))
print(torch.arange(24.0).reshape(2, 3, 4) / 7)
print(torch.tensor([1e-8, 1.0, 1e8]))
print(torch.tensor([1e-5, 2e-5]))
print(torch.tensor([1000000.0, 2.0]))
print(torch.tensor([0.1, 0.25, 0.333333]))
print(torch.tensor([float("nan"), float("inf")]))
print(torch.tensor([float("nan"), 1.5, -float("inf")], dtype=torch.float64))
print(torch.tensor([[float("nan")], [2.0]]))
print(torch.empty(0), torch.zeros(2, 0), torch.ones(0, dtype=torch.int64))
print(torch.zeros(3, dtype=torch.bool), torch.ones(2, 2, dtype=torch.bool))
print(torch.tensor([-1, 100, -1000]), torch.tensor([123456789]))
print(torch.tensor([1.0, 2.0], requires_grad=True))
print(torch.tensor(1.0, requires_grad=True) * 3)
print(torch.ones(2, 2, requires_grad=True).sum())
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(x * 2, x + 1, x - 1, x / 2, x**2, -x)
print(x.exp(), x.log(), x.sqrt(), x.abs(), x.sin(), x.cos(), x.tanh(), x.sigmoid(), x.relu())
print(x.sum(), x.mean(), x.max(), x.min(), x.amax())
print(x.reshape(3, 1), x.view(1, 3), x.unsqueeze(0), x[None].squeeze())
print(x[0], x[1:], x[[0, 2]], x[x > 1])
print(x.softmax(0), x.log_softmax(0), x.clamp(1.5, 2.5), x.pow(3))
print(torch.cat([x, x]), torch.stack([x, x]), torch.where(x > 2, x, x * 0))
print(torch.maximum(x, torch.ones(3)), torch.minimum(x, torch.ones(3)))
print(x.detach(), x.clone(), x.float(), x.double())
print(x.to(torch.float64), x.round(decimals=1))
print(torch.linspace(0, 1, 5), torch.linspace(-1, 1, 3, dtype=torch.float64))
print(torch.arange(0, 1, 0.25), torch.arange(5, dtype=torch.float32), torch.arange(1, 10, 3))
print(torch.full((2, 2), 7), torch.full((2,), 1.5), torch.full((1,), True))
print(torch.zeros_like(x), torch.ones_like(torch.tensor([1, 2])))
print(torch.Size([2, 3]), torch.Size([]), torch.Size([4]))
print(
    torch.zeros(2, 3).shape,
    torch.zeros(2, 3).size(),
    torch.zeros(2, 3).size(1),
    torch.zeros(2, 3).size(-1),
)
s = torch.zeros(2, 3, 4).shape
print(s[0], s[-1], len(s), list(s), tuple(s), s == (2, 3, 4), s == torch.Size([2, 3, 4]))
print(s.numel(), s.index(3), s.count(2))
print(repr(torch.tensor([1.0, 2.0])), str(torch.tensor([1, 2])))
print(f"{torch.tensor(3.14159)}", f"{torch.tensor(2.5).item():.3f}", f"{torch.tensor([1.0, 2.0])}")
print(
    torch.tensor([1.5, 2.5]).tolist(),
    torch.tensor([[1, 2], [3, 4]]).tolist(),
    torch.tensor(2.0).tolist(),
)
print(
    torch.tensor([1.5, 2.5]).numpy(), torch.tensor([[1, 2]]).numpy(), torch.tensor([True]).numpy()
)
print(type(torch.tensor(2).item()), type(torch.tensor(2.0).item()), type(torch.tensor(True).item()))
print(x.dtype, x.device, x.dim(), x.numel(), x.ndim, x.is_leaf, x.requires_grad)
print(torch.float32, torch.float64, torch.int64, torch.bool, torch.float, torch.double, torch.long)
print(
    torch.tensor([1, 2], dtype=torch.float32),
    torch.tensor([1.7, -1.7]).long(),
    torch.tensor([0.0, 2.0]).bool(),
)
print(torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) @ torch.ones(2, 2))
print(torch.tensor([0.5, 1.0]).int(), torch.tensor([1, 0]).float(), torch.tensor([3]).double())
