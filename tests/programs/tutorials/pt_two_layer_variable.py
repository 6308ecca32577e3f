# The 2017 version of the autograd two-layer net: tensors wrapped in Variable, a tensor type
# chosen with .type(dtype), updates through .data and grads zeroed through .grad.data.
import torch
from torch.autograd import Variable

torch.manual_seed(14)
dtype = torch.FloatTensor
batch, d_in, hidden, d_out = 64, 1000, 100, 10

x = Variable(torch.randn(batch, d_in).type(dtype), requires_grad=False)
y = Variable(torch.randn(batch, d_out).type(dtype), requires_grad=False)
w1 = Variable(torch.randn(d_in, hidden).type(dtype), requires_grad=True)
w2 = Variable(torch.randn(hidden, d_out).type(dtype), requires_grad=True)
print(type(x), x.requires_grad, w1.requires_grad, x.type())

learning_rate = 1e-6
for t in range(500):
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.data.item():.1e}")
    loss.backward()
    w1.data -= learning_rate * w1.grad.data
    w2.data -= learning_rate * w2.grad.data
    w1.grad.data.zero_()
    w2.grad.data.zero_()

print(isinstance(w1, torch.Tensor), w1.data.shape)
