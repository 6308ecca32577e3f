import torch
from torch import nn

torch.manual_seed(42)
model = nn.Sequential(nn.Linear(2, 4), nn.Sigmoid(), nn.Linear(4, 3))
x = torch.tensor([[0.5, -1.0], [1.5, 0.3]])
target = torch.tensor([2, 0])
log_probs = torch.log_softmax(model(x), dim=1)
loss = -log_probs[torch.arange(2), target].mean()
loss.backward()
print(f"loss = {loss.item():.4f}")
for name, p in model.named_parameters():
    print(name, tuple(p.grad.shape))
