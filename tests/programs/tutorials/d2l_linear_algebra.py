# d2l 2.3 (linear algebra): scalars, vectors, matrices and their transposes, symmetric
# check, reductions along axes with keepdims, cumsum, dot/mv/mm, and the L2, L1 and
# Frobenius norms.
import torch

x = torch.tensor(3.0)
y = torch.tensor(2.0)
print(x + y, x * y, x / y, x ** y)

v = torch.arange(3)
print(v, v[2], len(v), v.shape)

A = torch.arange(6).reshape(3, 2)
print(A, A.T)
S = torch.tensor([[1, 2, 3], [2, 0, 4], [3, 4, 5]])
print(S == S.T)

T = torch.arange(24).reshape(2, 3, 4)
print(T)

A = torch.arange(6, dtype=torch.float32).reshape(2, 3)
B = A.clone()
print(A, A + B, A * B)
a = 2
print(a + T, (a * T).shape)

print(v.sum(), A.shape, A.sum())
print(A.sum(axis=0), A.sum(axis=0).shape)
print(A.sum(axis=1), A.sum(axis=1).shape)
print(A.sum(axis=[0, 1]) == A.sum())
print(A.mean(), A.sum() / A.numel())
print(A.mean(axis=0), A.sum(axis=0) / A.shape[0])

sum_A = A.sum(axis=1, keepdims=True)
print(sum_A, sum_A.shape)
print(A / sum_A)
print(A.cumsum(axis=0))

w = torch.ones(3, dtype=torch.float32)
xv = torch.arange(3, dtype=torch.float32)
print(xv, w, torch.dot(xv, w))
print(torch.sum(xv * w))
print(A.shape, xv.shape, torch.mv(A, xv), A @ xv)
B = torch.ones(3, 4)
print(torch.mm(A, B), A @ B)

u = torch.tensor([3.0, -4.0])
print(torch.norm(u))
print(torch.abs(u).sum())
print(torch.norm(torch.ones((4, 9))))
