import torch
from attempt import attempt

x = torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], requires_grad=True)
y = torch.tensor([[0.5, 0.5, 0.5], [2.0, 2.0, 2.0]])
print(torch.add(x, y), torch.add(x, 1, alpha=2), torch.sub(x, y), torch.mul(x, 2), torch.div(x, 4))
print(torch.sum(x), torch.sum(x, dim=0), torch.sum(x, 1, keepdim=True), torch.mean(x, dim=1))
print(torch.max(x), torch.max(x, dim=1), torch.max(x, 0, True))
print(torch.max(x, y), torch.min(x, y))
print(torch.min(x), torch.min(x, dim=0).values, torch.amax(x, dim=0), torch.amax(x, dim=(0, 1)))
print(
    torch.amin(x, 1),
    x.amin(),
    x.argmax(),
    x.argmax(dim=1),
    x.argmin(0),
    torch.argmax(x, dim=1, keepdim=True),
)
print(torch.clamp(x, min=0), torch.clamp(x, -1, 1), torch.clamp(x, max=2.5), x.clamp(min=-1))
print(torch.pow(x, 2), torch.pow(2, torch.tensor([1.0, 2.0])), torch.pow(x, y))
print(torch.abs(x), torch.exp(torch.tensor([0.0, 1.0])), torch.log(torch.tensor([1.0, 2.0])))
print(
    torch.sqrt(torch.tensor([4.0, 2.0])),
    torch.sin(torch.tensor([0.0])),
    torch.cos(torch.tensor([0.0])),
)
print(torch.tanh(x), torch.sigmoid(x), torch.relu(x))
print(torch.softmax(x, dim=1), torch.log_softmax(x, dim=0), torch.softmax(x, -1).sum(-1))
print(torch.matmul(x, y.T), torch.mm(x, y.t()), x @ y.T, x @ torch.ones(3))
print(
    torch.reshape(x, (3, 2)), torch.flatten(x), torch.transpose(x, 0, 1), torch.permute(x, (1, 0))
)
print(torch.unsqueeze(x, 0).shape, torch.squeeze(torch.ones(1, 2, 1)).shape, torch.t(x).shape)
print(torch.cat((x, y), 1).shape, torch.stack((x, y), 2).shape, torch.where(x > 0, x, y))
print(torch.where(x > 0), torch.maximum(x, y), torch.minimum(x, y))
print(
    torch.round(torch.tensor([1.234, 5.678]), decimals=1),
    torch.gather(x, 1, torch.tensor([[0], [2]])),
)
print(torch.zeros_like(x), torch.ones_like(x, dtype=torch.int64), torch.full_like(x, 3.0))
print(torch.neg(x), torch.square(torch.tensor([3.0])), torch.exp(x).log())
s = (torch.max(x, y) * torch.amax(x, dim=1, keepdim=True)).sum() + torch.min(x, dim=1).values.sum()
s.backward()
print(s, x.grad)
x.grad = None
(torch.where(x > 0, x * 2, x**2)).sum().backward()
print(x.grad)
x.grad = None
torch.clamp(x, -3, 3).sum().backward()
print(x.grad)
print(x.add(1).grad_fn, x.sub(y).grad_fn, x.mul(y).grad_fn, x.div(y).grad_fn, x.pow(2).grad_fn)
print(
    x.exp().grad_fn,
    x.log().grad_fn,
    x.sqrt().grad_fn,
    x.abs().grad_fn,
    x.sin().grad_fn,
    x.cos().grad_fn,
)
print(x.tanh().grad_fn, x.sigmoid().grad_fn, x.relu().grad_fn, x.clamp(0, 1).grad_fn, (-x).grad_fn)
print(x.sum().grad_fn, x.mean().grad_fn, x.max().grad_fn, x.max(1)[0].grad_fn, x.amax(1).grad_fn)
print(
    x.sum(0).grad_fn,
    x.mean(1).grad_fn,
    x.min().grad_fn,
    x.softmax(0).grad_fn,
    x.log_softmax(0).grad_fn,
)
print(
    x.reshape(6).grad_fn, x.view(6).grad_fn, x.T.grad_fn, x.t().grad_fn, x.transpose(0, 1).grad_fn
)
print(
    x.permute(1, 0).grad_fn,
    x.unsqueeze(0).grad_fn,
    x.unsqueeze(0).squeeze(0).grad_fn,
    x.flatten().grad_fn,
)
print((x @ y.T).grad_fn, (x @ torch.ones(3)).grad_fn, (x[0] @ torch.ones(3)).grad_fn)
print(torch.cat([x, y]).grad_fn, torch.stack([x, y]).grad_fn, torch.where(x > 0, x, y).grad_fn)
print(
    torch.maximum(x, y).grad_fn, torch.minimum(x, y).grad_fn, x.round().grad_fn, x.clone().grad_fn
)
print(x.float().grad_fn, x.double().grad_fn, x.to(torch.float64).grad_fn, x.detach().grad_fn)
print((x + 1).grad_fn.next_functions, (x * y).grad_fn.next_functions)
print(
    (2 * x).grad_fn,
    (2 - x).grad_fn,
    (2 / x).grad_fn,
    (2**x).grad_fn,
    (x / 2).grad_fn,
    (x - 2).grad_fn,
)
print(x.sum(dim=0, keepdim=True).grad_fn, x.gather(1, torch.tensor([[0], [1]])).grad_fn)
attempt("sum bad dim", lambda: torch.sum(x, dim=5))
attempt("softmax no dim", lambda: torch.softmax(x))
attempt("cat mismatch", lambda: torch.cat([x, torch.ones(2, 2, 2)]))
attempt("where bad", lambda: torch.where(x, x, y))
print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
print(torch.is_grad_enabled(), (x * 2).requires_grad)
torch.set_grad_enabled(True)
print(torch.is_grad_enabled(), (x * 2).requires_grad)


@torch.no_grad()
def evaluate(t):
    return t * 2


print(evaluate(x).requires_grad, (x * 2).requires_grad)
with torch.no_grad():
    z = x + 1
print(z.requires_grad, z.is_leaf, z.grad_fn)
