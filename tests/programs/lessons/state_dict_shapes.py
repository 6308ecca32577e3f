import torch
import torch.nn as nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))
for k, v in net.state_dict().items():
    print(f"{k:10s} {str(tuple(v.shape)):8s} {v.dtype}")
print(net.state_dict()["0.bias"])
sd = net.state_dict()
print(len(sd), "0.weight" in sd)
print(net[-1])
print(net[0:2])
print(net(torch.ones(2, 3)).shape)
