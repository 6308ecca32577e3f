# makemore part 3's side notes: how the scale of a Linear layer's activations and gradients
# grows without normalisation (a 1000x1000 weight drawn from a seeded generator), and how a
# batchnorm-like standardisation fixes the forward statistics; intermediates kept with
# retain_grad and their standard deviations printed.
import torch

g = torch.Generator().manual_seed(2147483647)
a = torch.randn((1000, 1), requires_grad=True, generator=g)
b = torch.randn((1000, 1000), requires_grad=True, generator=g)
c = b @ a
loss = torch.randn(1000, generator=g) @ c
a.retain_grad()
b.retain_grad()
c.retain_grad()
loss.backward()
print("a std:", f"{a.std().item():.4f}")
print("b std:", f"{b.std().item():.4f}")
print("c std:", f"{c.std().item():.3f}")
print("-----")
print("c grad std:", f"{c.grad.std().item():.4f}")
print("a grad std:", f"{a.grad.std().item():.3f}")
print("b grad std:", f"{b.grad.std().item():.4f}")

g = torch.Generator().manual_seed(2147483647)
n = 1000
inp = torch.randn(n, requires_grad=True, generator=g)
w = torch.randn((n, n), requires_grad=True, generator=g)
x = w @ inp
xmean = x.mean()
xvar = x.var()
out = (x - xmean) / torch.sqrt(xvar + 1e-5)
loss = out @ torch.randn(n, generator=g)
inp.retain_grad()
x.retain_grad()
w.retain_grad()
out.retain_grad()
loss.backward()
print("inp std: ", f"{inp.std().item():.4f}")
print("w std: ", f"{w.std().item():.4f}")
print("x std: ", f"{x.std().item():.3f}")
print("out std: ", f"{out.std().item():.4f}")
print("------")
print("out grad std: ", f"{out.grad.std().item():.4f}")
print("x grad std: ", f"{x.grad.std().item():.5f}")
print("w grad std: ", f"{w.grad.std().item():.5f}")
print("inp grad std: ", f"{inp.grad.std().item():.4f}")
print(type(loss.grad_fn).__name__, type(x.grad_fn).__name__)
