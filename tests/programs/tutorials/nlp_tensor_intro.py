# The NLP tutorial's introduction to PyTorch: tensors from lists (1-D, 2-D, 3-D),
# indexing, random tensors, cat along rows and columns, view with -1, and the computation
# graph: grad_fn of a sum, requires_grad_, detach and no_grad.
import torch

torch.manual_seed(1)

vec_data = [1.0, 2.0, 3.0]
vec = torch.tensor(vec_data)
print(vec)
mat_data = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
mat = torch.tensor(mat_data)
print(mat)
cube_data = [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]
cube = torch.tensor(cube_data)
print(cube)

print(vec[0])
print(vec[0].item())
print(mat[0])
print(cube[0])

x = torch.randn((3, 4, 5))
print(x)

a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([4.0, 5.0, 6.0])
print(a + b)

top = torch.randn(2, 5)
bottom = torch.randn(3, 5)
print(torch.cat([top, bottom]))
left = torch.randn(2, 3)
right = torch.randn(2, 5)
print(torch.cat([left, right], 1))

block = torch.randn(2, 3, 4)
print(block.view(2, 12))
print(block.view(2, -1))

p = torch.tensor([1.0, 2.0, 3], requires_grad=True)
q = torch.tensor([4.0, 5.0, 6], requires_grad=True)
r = p + q
print(r)
print(r.grad_fn)
s = r.sum()
print(s)
print(s.grad_fn)
s.backward()
print(p.grad)

m = torch.randn(2, 2)
n = torch.randn(2, 2)
print(m.requires_grad, n.requires_grad)
k = m + n
print(k.grad_fn)
m = m.requires_grad_()
n = n.requires_grad_()
k = m + n
print(k.grad_fn)
print(k.requires_grad)
new_k = k.detach()
print(new_k.grad_fn)

print(p.requires_grad)
print((p ** 2).requires_grad)
with torch.no_grad():
    print((p ** 2).requires_grad)
