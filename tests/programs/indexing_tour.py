import torch
from attempt import attempt

x = torch.arange(12).reshape(3, 4)
print(x[0], x[-1], x[1, 2], x[-1, -1], x[1][2])
print(x[:, 0], x[:, -1], x[0:2], x[::2], x[:, ::2], x[1:, 1:3], x[:, 1::2])
print(x[None].shape, x[:, None].shape, x[..., 0], x[..., None].shape, x[None, ..., None].shape)
print(x[[0, 2]], x[[0, 2], [1, 3]], x[torch.tensor([2, 0])], x[:, [0, 3]])
print(
    x[torch.tensor([[0, 1], [2, 2]])].shape,
    x[torch.tensor(1)],
    x[torch.tensor([True, False, True])],
)
print(x[x > 5], x[x % 2 == 0], (x > 5).sum(), (x > 5).any(), (x > 5).all())
print(x[1:1], x[5:], x[:, 10:], x[-2:], x[-100:1])
y = torch.arange(24.0).reshape(2, 3, 4)
print(y[0, 1], y[:, 1, :], y[..., 1:3].shape, y[1, ..., 2], y[:, :, -1])
print(y[0][[0, 2]], y[[0, 1], [1, 2]], y[[1, 0], :, [0, 3]])
print(y[y > 20], y[0] > 5, y[0][y[0] > 5])
attempt("idx oob", lambda: x[3])
attempt("idx oob 2", lambda: x[0, 4])
attempt("too many", lambda: x[0, 0, 0])
attempt("list oob", lambda: x[[0, 5]])
attempt("mask shape", lambda: x[torch.tensor([True, False])])
z = torch.zeros(5)
z[0] = 1
z[-1] = 2
z[1:3] = 7
z[torch.tensor([3])] = 4
print(z)
m = torch.tensor([1.0, -2.0, 3.0, -4.0])
m[m < 0] = 0
print(m)
m[[0, 2]] = torch.tensor([9.0, 8.0])
print(m)
g = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
g[:, 0] = 0
g[1] = torch.tensor([5.0, 6.0])
g[g > 5] = -1.0
print(g)
h = torch.arange(10)
print(h[2:8:3], h[h > 100], h[torch.tensor([], dtype=torch.int64)])
w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
out = w[0, 1] * 2 + w[1, :].sum() + w[:, 2].mean() + w[[0, 0, 1], [0, 0, 2]].sum()
out.backward()
print(out, w.grad)
w.grad = None
w[w > 2].sum().backward()
print(w.grad)
print(w[0].grad_fn, w[[0, 1]].grad_fn, w[w > 2].grad_fn, w[:, 1].grad_fn)
src = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
gathered = src.gather(1, torch.tensor([[2, 0], [1, 1]]))
print(gathered)
gathered.sum().backward()
print(src.grad)
print(torch.gather(src, 0, torch.tensor([[1, 0, 1]])))
labels = torch.tensor([0, 2])
print(src[torch.arange(2), labels], src.gather(1, labels.unsqueeze(1)).squeeze(1))
print(src.T, src.t().shape, src.transpose(0, 1).shape, src.permute(1, 0).shape)
p = torch.arange(24).reshape(2, 3, 4)
print(
    p.permute(2, 0, 1).shape,
    p.transpose(0, 2).shape,
    p.flatten().shape,
    p.flatten(1).shape,
    p.flatten(0, 1).shape,
)
print(
    p.reshape(-1, 4).shape,
    p.view(6, -1).shape,
    p.reshape(4, 6)[1],
    p.unsqueeze(1).shape,
    p.unsqueeze(-1).shape,
)
print(
    torch.zeros(1, 3, 1).squeeze().shape,
    torch.zeros(1, 3, 1).squeeze(0).shape,
    torch.zeros(1, 3, 1).squeeze(-1).shape,
)
print(p.transpose(0, 1).reshape(-1)[:5], p.transpose(0, 1).contiguous().view(-1)[:5])
attempt("view bad", lambda: p.view(5, 5))
attempt("reshape bad", lambda: p.reshape(7, -1))
attempt("permute bad", lambda: p.permute(0, 1))
attempt("transpose bad", lambda: p.transpose(0, 3))
print(
    torch.cat([p, p], dim=0).shape,
    torch.cat([p, p], dim=-1).shape,
    torch.stack([p, p], dim=1).shape,
)
print(
    torch.cat((torch.ones(2), torch.zeros(3))), torch.stack((torch.ones(2), torch.zeros(2)), dim=1)
)
attempt("cat bad", lambda: torch.cat([torch.ones(2, 3), torch.ones(3, 2)]))
attempt("stack bad", lambda: torch.stack([torch.ones(2), torch.ones(3)]))
attempt("gather dims", lambda: src.gather(1, torch.tensor([0, 1])))
c = torch.tensor([1.0, 2.0], requires_grad=True)
d = torch.tensor([3.0], requires_grad=True)
e = torch.cat([c, d * 2])
e.sum().backward()
print(e, c.grad, d.grad)
k = torch.stack([c, c * 3], dim=0)
print(k, k.grad_fn)
print(torch.where(k > 2, k, torch.zeros_like(k)))
q = torch.tensor([[1, 2], [3, 4]])
print(q.T.tolist(), q.reshape(4).tolist(), q[0].tolist(), q[0, 0].tolist())
