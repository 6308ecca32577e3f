import torch
W = torch.ones(2, 3)
x = torch.ones(2)
print(W.shape, x.shape)
y = W @ x
