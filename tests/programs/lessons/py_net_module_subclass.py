import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.fc1 = nn.Linear(2, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(h)

torch.manual_seed(0)
model = Net()
print(model)
print([name for name, _ in model.named_parameters()])
X = torch.randn(16, 2)
y = (X[:, :1] * X[:, 1:] > 0).float()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(30):
    loss = nn.functional.binary_cross_entropy_with_logits(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 0:
        print(epoch, round(loss.item(), 4))
print(model.fc1.weight.grad.shape, model.fc2.bias.grad)
