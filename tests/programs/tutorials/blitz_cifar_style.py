# The blitz's classifier page in miniature: a small conv net (Conv2d, MaxPool2d, Linear)
# trained with SGD + momentum on synthetic 3x32x32 "images" in mini-batches of 4, the
# running loss printed every 20 mini-batches, then accuracy with torch.max.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(24)
classes = ("plane", "car", "bird", "cat")

# 96 images: each class brightens a different quarter of the picture
images = torch.randn(96, 3, 32, 32) * 0.5
labels = torch.arange(96) % 4
for i in range(96):
    k = labels[i].item()
    r, c = divmod(k, 2)
    images[i, :, r * 16:(r + 1) * 16, c * 16:(c + 1) * 16] += 1.0


class SmallConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 4)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = SmallConvNet()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

for epoch in range(2):
    running_loss = 0.0
    order = torch.randperm(96)
    for i in range(24):
        idx = order[i * 4:(i + 1) * 4]
        inputs, targets = images[idx], labels[idx]
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 20 == 19:
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 20:.3f}")
            running_loss = 0.0
print("Finished Training")

correct = 0
total = 0
with torch.no_grad():
    outputs = net(images)
    _, predicted = torch.max(outputs, 1)
    total += labels.size(0)
    correct += (predicted == labels).sum().item()
print(f"Accuracy of the network on the {total} images: {100 * correct // total} %")
print(" ".join(f"{classes[predicted[j]]:5s}" for j in range(4)))
