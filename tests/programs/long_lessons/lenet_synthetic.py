# LeNet on synthetic 28x28 images for a few epochs (the pattern of d2l.ai's LeNet chapter:
# sigmoid activations, average pooling, SGD), on data we make: two kinds of blob, by class.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
n = 512
labels = torch.randint(0, 4, (n,))
images = torch.randn(n, 1, 28, 28) * 0.3
for i in range(n):
    c = int(labels[i])
    r, q = 4 + 10 * (c // 2), 4 + 10 * (c % 2)
    images[i, 0, r : r + 10, q : q + 10] += 1.0
train = DataLoader(TensorDataset(images[:384], labels[:384]), batch_size=32, shuffle=True)
test = DataLoader(TensorDataset(images[384:], labels[384:]), batch_size=64)

net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(),
    nn.Linear(120, 84), nn.Sigmoid(),
    nn.Linear(84, 4),
)


def init_weights(m):
    if type(m) == nn.Linear or type(m) == nn.Conv2d:
        nn.init.xavier_uniform_(m.weight)


net.apply(init_weights)
optimizer = torch.optim.SGD(net.parameters(), lr=0.9)
loss_fn = nn.CrossEntropyLoss()


def accuracy(loader):
    net.eval()
    right = total = 0
    with torch.no_grad():
        for X, y in loader:
            right += (net(X).argmax(dim=1) == y).sum().item()
            total += y.numel()
    net.train()
    return right / total


for epoch in range(6):
    total_loss = 0.0
    for X, y in train:
        optimizer.zero_grad()
        loss = loss_fn(net(X), y)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * y.numel()
    print(f"epoch {epoch + 1}, loss {total_loss / 384:.4f}, "
          f"train acc {accuracy(train):.3f}, test acc {accuracy(test):.3f}")
