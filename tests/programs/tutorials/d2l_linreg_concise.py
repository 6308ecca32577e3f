# d2l 3.3 (concise linear regression): torch.utils.data's TensorDataset and a shuffling
# DataLoader, nn.Sequential(nn.Linear(2, 1)) initialised through .data.normal_ / fill_,
# MSELoss and optim.SGD.
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(37)


# prelude: _d2l_synthetic_data.py


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 1000)


def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


batch_size = 10
data_iter = load_array((features, labels), batch_size)
print(next(iter(data_iter)))

net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)

num_epochs = 3
for epoch in range(num_epochs):
    for X, y in data_iter:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f"epoch {epoch + 1}, loss {l:f}")

w = net[0].weight.data
b = net[0].bias.data
print("estimated w:", w, "estimated b:", b)
# the errors themselves are SGD's noise (1e-4), whose digits depend on rounding
print("error in estimating w below 1e-2:", bool((true_w - w.reshape(true_w.shape)).abs().max() < 1e-2))
print("error in estimating b below 1e-2:", bool((true_b - b).abs().max() < 1e-2))
