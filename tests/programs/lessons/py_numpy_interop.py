import numpy as np
import torch

a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
t = torch.from_numpy(a)
print(t, t.dtype)
a[0, 0] = 10.0
print(t[0, 0])
u = torch.tensor(a)
a[0, 0] = 1.0
print(u[0, 0], t[0, 0])
w = torch.tensor(np.ones(2, dtype=np.float32), requires_grad=True)
loss = (t @ w).sum()
loss.backward()
print(w.grad.numpy(), type(w.grad.numpy()).__name__)
print(w.detach().numpy() * 2, np.asarray(t).sum())
d = torch.tensor(np.arange(3))
print(d, d.dtype)
print(torch.tensor(np.float32(2.5)) * 2, np.float64(1.5) * torch.ones(2))
print(torch.ones(2) * np.float64(1.5), torch.ones(2) + np.int64(2))
print(torch.zeros(2, 3).numpy().shape, t.numpy().mean())
