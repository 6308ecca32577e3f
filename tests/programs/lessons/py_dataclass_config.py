from collections import defaultdict, namedtuple
from dataclasses import dataclass, field
import torch

@dataclass
class Config:
    lr: float = 0.1
    epochs: int = 20
    hidden: int = 4
    seed: int = 0
    tags: list = field(default_factory=list)

Result = namedtuple("Result", "epoch loss")
cfg = Config(lr=0.05, tags=["demo"])
print(cfg)
torch.manual_seed(cfg.seed)
model = torch.nn.Sequential(torch.nn.Linear(1, cfg.hidden), torch.nn.Tanh(), torch.nn.Linear(cfg.hidden, 1))
X = torch.linspace(-1, 1, 20).unsqueeze(1)
y = X ** 2
opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
history = defaultdict(list)
for epoch in range(cfg.epochs):
    loss = torch.nn.functional.mse_loss(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    history["loss"].append(loss.item())
    if epoch % 5 == 4:
        history["results"].append(Result(epoch, round(loss.item(), 5)))
print(history["results"])
print(len(history["loss"]), history["loss"][0] > history["loss"][-1])
