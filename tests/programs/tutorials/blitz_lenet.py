# The blitz's neural-network page: a LeNet with two Conv2d layers and max pooling, one
# forward pass on a 32x32 image, the graph behind an MSE loss, the conv bias's gradient
# before and after backward, a hand-written SGD step and then torch.optim.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        # 1 input channel, 6 output channels, 5x5 kernels
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, img):
        c1 = F.relu(self.conv1(img))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        return self.fc3(f6)


torch.manual_seed(23)
net = LeNet()
print(net)

params = list(net.parameters())
print(len(params))
print(params[0].size())
print([tuple(p.shape) for p in params])

image = torch.randn(1, 1, 32, 32)
out = net(image)
print(out)

net.zero_grad()
out.backward(torch.randn(1, 10))

output = net(image)
target = torch.randn(10).view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss)
print(loss.grad_fn)
print(type(loss.grad_fn.next_functions[0][0]).__name__)
print(type(loss.grad_fn.next_functions[0][0].next_functions[0][0]).__name__)

net.zero_grad()
print("conv1.bias.grad before backward")
print(net.conv1.bias.grad)
loss.backward()
print("conv1.bias.grad after backward")
print(net.conv1.bias.grad)

learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)

optimizer = optim.SGD(net.parameters(), lr=0.01)
for step in range(5):
    optimizer.zero_grad()
    loss = criterion(net(image), target)
    loss.backward()
    optimizer.step()
    print(step, f"{loss.item():.6f}")
