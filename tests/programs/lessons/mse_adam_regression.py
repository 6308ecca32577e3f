import torch
import torch.nn as nn
torch.manual_seed(0)
x = torch.linspace(-1, 1, 20).unsqueeze(1)
y = x ** 2
net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=0.05)
criterion = nn.MSELoss()
for epoch in range(100):
    optimizer.zero_grad()
    loss = criterion(net(x), y)
    loss.backward()
    optimizer.step()
    if (epoch + 1) % 25 == 0:
        print(f"Epoch [{epoch + 1}/100], Loss: {loss.item():.4f}")
print(net(torch.tensor([[0.5]])))
print(optimizer)
