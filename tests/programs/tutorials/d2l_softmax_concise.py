# d2l 3.7 (concise softmax regression): Flatten + Linear initialised by net.apply with
# nn.init.normal_, CrossEntropyLoss(reduction='none') averaged by hand, optim.SGD.
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(39)
# prelude: _d2l_fake_fashion.py


train_iter = data.DataLoader(data.TensorDataset(*fake_fashion(1000)), batch_size=256, shuffle=True)
test_X, test_y = fake_fashion(300)

net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
print(net)
loss = nn.CrossEntropyLoss(reduction="none")
trainer = torch.optim.SGD(net.parameters(), lr=0.1)

for epoch in range(10):
    total, count = 0.0, 0
    for X, y in train_iter:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.mean().backward()
        trainer.step()
        total += l.sum().item()
        count += y.numel()
    with torch.no_grad():
        acc = (net(test_X).argmax(dim=1) == test_y).float().mean().item()
    print(f"epoch {epoch + 1}: train loss {total / count:.3f}, test acc {acc:.3f}")
