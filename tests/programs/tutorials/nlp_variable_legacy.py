# The NLP tutorial's 2017 edition: autograd.Variable wrapping torch.Tensor data, .data to
# reach the tensor, and the trick of re-wrapping .data to cut the graph.
import torch
import torch.autograd as autograd

torch.manual_seed(1)

x = autograd.Variable(torch.Tensor([1.0, 2.0, 3]), requires_grad=True)
print(x.data)
y = autograd.Variable(torch.Tensor([4.0, 5.0, 6]), requires_grad=True)
z = x + y
print(z.data)
print(z.grad_fn)

s = z.sum()
print(s)
print(s.grad_fn)
s.backward()
print(x.grad)

a = torch.randn((2, 2))
b = torch.randn((2, 2))
va = autograd.Variable(a, requires_grad=True)
vb = autograd.Variable(b, requires_grad=True)
vz = va + vb
print(vz.grad_fn)

vz_data = vz.data
cut = autograd.Variable(vz_data)
print(cut.grad_fn)
print(cut.requires_grad, type(cut).__name__)

plain = torch.FloatTensor([[1, 2], [3, 4]])
longs = torch.LongTensor([0, 2, 1])
print(plain.dtype, longs.dtype, plain[0, longs[2]])
