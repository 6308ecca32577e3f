import torch
x = torch.ones(2)
assert x.shape == (2,), "bad shape"
assert x.sum() == 3, "sum should be 3"
