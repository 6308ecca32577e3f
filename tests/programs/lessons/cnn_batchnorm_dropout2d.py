# A small convolutional classifier in the style of PyTorch's "Training a Classifier" tutorial,
# with the two layers image models add next: BatchNorm2d after each convolution and Dropout2d
# between the blocks. Random 8x8 "images" whose class is the brighter half; the model is
# printed, trained for a few epochs, then evaluated (eval mode: running statistics, no dropout).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
images = torch.randn(32, 1, 8, 8)
labels = (images[:, :, :, :4].mean(dim=(1, 2, 3)) > images[:, :, :, 4:].mean(dim=(1, 2, 3))).long()


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 8, kernel_size=3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)
        self.drop = nn.Dropout2d(p=0.25)
        self.fc = nn.Linear(8 * 2 * 2, 2)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = self.drop(x)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = torch.flatten(x, 1)
        return self.fc(x)


net = SmallCNN()
print(net)
print(list(net.state_dict().keys()))

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
for epoch in range(6):
    running_loss = 0.0
    for i in range(0, 32, 8):
        inputs, targets = images[i : i + 8], labels[i : i + 8]
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    print(f"[epoch {epoch + 1}] loss: {running_loss / 4:.3f}")

print("batches tracked:", net.bn1.num_batches_tracked.item())
print("bn1 running mean:", net.bn1.running_mean)
print("bn2 running var:", net.bn2.running_var)

net.eval()
with torch.no_grad():
    predicted = net(images).argmax(dim=1)
print("accuracy:", (predicted == labels).float().mean().item())
print(net.drop(torch.ones(1, 3, 2, 2)).sum().item())  # eval mode: dropout does nothing
