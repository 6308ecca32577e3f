# d2l 5.6 (dropout): dropout_layer written with a torch.rand mask, applied at p = 0, 0.5
# and 1; a Net class that drops only in training mode; the concise nn.Dropout version;
# a few training steps of each on synthetic data.
import torch
from torch import nn

torch.manual_seed(44)


def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    if dropout == 0:
        return X
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print(X)
print(dropout_layer(X, 0.0))
print(dropout_layer(X, 0.5))
print(dropout_layer(X, 1.0))

num_inputs, num_outputs, num_hiddens1, num_hiddens2 = 784, 10, 256, 256
dropout1, dropout2 = 0.2, 0.5


class Net(nn.Module):
    def __init__(self, num_inputs, num_outputs, num_hiddens1, num_hiddens2, is_training=True):
        super(Net, self).__init__()
        self.num_inputs = num_inputs
        self.training = is_training
        self.lin1 = nn.Linear(num_inputs, num_hiddens1)
        self.lin2 = nn.Linear(num_hiddens1, num_hiddens2)
        self.lin3 = nn.Linear(num_hiddens2, num_outputs)
        self.relu = nn.ReLU()

    def forward(self, X):
        H1 = self.relu(self.lin1(X.reshape((-1, self.num_inputs))))
        if self.training:
            H1 = dropout_layer(H1, dropout1)
        H2 = self.relu(self.lin2(H1))
        if self.training:
            H2 = dropout_layer(H2, dropout2)
        return self.lin3(H2)


templates = torch.randn(10, 784)
labels = torch.randint(0, 10, (256,))
images = templates[labels] + torch.randn(256, 784)

net = Net(num_inputs, num_outputs, num_hiddens1, num_hiddens2)
loss = nn.CrossEntropyLoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
for step in range(20):
    l = loss(net(images), labels)
    trainer.zero_grad()
    l.backward()
    trainer.step()
    if step % 5 == 4:
        print("scratch", step, f"{l.item():.4f}")
net.eval()
print(net.training, (net(images).argmax(1) == labels).float().mean().item())

concise = nn.Sequential(
    nn.Flatten(),
    nn.Linear(784, 256), nn.ReLU(), nn.Dropout(dropout1),
    nn.Linear(256, 256), nn.ReLU(), nn.Dropout(dropout2),
    nn.Linear(256, 10),
)
print(concise)
trainer = torch.optim.SGD(concise.parameters(), lr=0.5)
for step in range(20):
    l = loss(concise(images), labels)
    trainer.zero_grad()
    l.backward()
    trainer.step()
    if step % 5 == 4:
        print("concise", step, f"{l.item():.4f}")
concise.eval()
with torch.no_grad():
    print(concise[3].training, (concise(images).argmax(1) == labels).float().mean().item())
