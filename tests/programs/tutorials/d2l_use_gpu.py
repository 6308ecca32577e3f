# d2l 6.7 (GPUs) on a machine without one: devices by name, device_count, try_gpu and
# try_all_gpus falling back to the CPU, where a tensor lives, .to / .cuda guarded, and
# the mps check from PyTorch's own tutorials.
import torch
from torch import nn


def cpu():
    return torch.device("cpu")


def gpu(i=0):
    return torch.device(f"cuda:{i}")


print(cpu(), gpu(), gpu(1))
print(torch.cuda.device_count())


def num_gpus():
    return torch.cuda.device_count()


def try_gpu(i=0):
    if num_gpus() >= i + 1:
        return gpu(i)
    return cpu()


def try_all_gpus():
    return [gpu(i) for i in range(num_gpus())]


print(try_gpu(), try_gpu(10), try_all_gpus())

x = torch.tensor([1, 2, 3])
print(x.device, x.device.type, x.is_cuda)
X = torch.ones(2, 3, device=try_gpu())
print(X)
Y = torch.rand(2, 3, device=try_gpu(1)) * 0
print(X + Y)
Z = X.to(try_gpu())
print(Z is X, Z.device == X.device)

net = nn.Sequential(nn.Linear(3, 1))
net = net.to(device=try_gpu())
print(net[0].weight.data.device)
print(torch.cuda.is_available(), torch.backends.mps.is_available())
device = "mps" if torch.backends.mps.is_available() else "cpu"
print(torch.zeros(1, device=device).device)
