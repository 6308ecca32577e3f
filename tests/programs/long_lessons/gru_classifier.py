# A GRU sequence classifier: is the sum of a sequence of small numbers positive? Trained with
# Adam on sequences we make, the last hidden state read by a Linear layer.
import torch
from torch import nn

torch.manual_seed(0)
n, length = 512, 12
X = torch.randn(n, length, 1)
y = (X.sum(dim=(1, 2)) > 0).long()


class Classifier(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.gru = nn.GRU(input_size=1, hidden_size=hidden, batch_first=True)
        self.out = nn.Linear(hidden, 2)

    def forward(self, x):
        _, h = self.gru(x)
        return self.out(h[-1])


model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(30):
    perm = torch.randperm(384)
    for i in range(0, 384, 32):
        idx = perm[i : i + 32]
        loss = loss_fn(model(X[idx]), y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if epoch % 5 == 4:
        with torch.no_grad():
            acc = (model(X[384:]).argmax(1) == y[384:]).float().mean().item()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}, test acc {acc:.3f}")
