import torch
x = torch.zeros(2, 3, 4)
s = x.shape
print(s)
print(s[1:], s[-1], len(s), s.numel())
print(s == (2, 3, 4), s == torch.Size([2, 3, 4]))
print(torch.Size([2, 3]))
a, b, c = x.shape
print(a, b, c)
print(x.size(), x.size(-1), x.size()[0])
print(list(s), tuple(s))
print(x.reshape(s[0], -1).shape)
print(x.shape + (5,))
