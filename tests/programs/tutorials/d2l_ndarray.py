# d2l 2.1 (data manipulation): arange/reshape/numel, zeros/ones/randn, indexing and slice
# assignment, elementwise ops, cat on both axes, broadcasting, memory (id before/after,
# Z[:] = ..., +=), NumPy conversion and Python scalars.
import torch

torch.manual_seed(32)

x = torch.arange(12, dtype=torch.float32)
print(x, x.numel(), x.shape)
X = x.reshape(3, 4)
print(X)
print(torch.zeros((2, 3, 4)))
print(torch.ones((2, 3, 4)))
print(torch.randn(3, 4))
print(torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]]))

print(X[-1], X[1:3])
X[1, 2] = 17
print(X)
X[:2, :] = 12
print(X)
print(torch.exp(x))

u = torch.tensor([1.0, 2, 4, 8])
v = torch.tensor([2, 2, 2, 2])
print(u + v, u - v, u * v, u / v, u ** v)

X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
print(torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1))
print(X == Y)
print(X.sum())

a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
print(a, b)
print(a + b)

before = id(Y)
Y = Y + X
print(id(Y) == before)
Z = torch.zeros_like(Y)
z_id = id(Z)
Z[:] = X + Y
print(id(Z) == z_id)
before = id(X)
X += Y
print(id(X) == before)

A = X.numpy()
B = torch.from_numpy(A)
print(type(A), type(B))
s = torch.tensor([3.5])
print(s, s.item(), float(s), int(s))
