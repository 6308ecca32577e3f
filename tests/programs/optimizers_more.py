import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)
X = torch.randn(24, 3)
y = (X @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3).detach()
configs = [
    ("adamw", lambda ps: torch.optim.AdamW(ps, lr=0.05)),
    ("adamw_wd", lambda ps: torch.optim.AdamW(ps, lr=0.02, betas=(0.8, 0.99), weight_decay=0.1)),
    ("adamw_ams", lambda ps: torch.optim.AdamW(ps, lr=0.05, amsgrad=True)),
    ("rmsprop", lambda ps: torch.optim.RMSprop(ps, lr=0.01)),
    ("rmsprop_mom", lambda ps: torch.optim.RMSprop(ps, lr=0.005, momentum=0.9)),
    (
        "rmsprop_centered",
        lambda ps: torch.optim.RMSprop(ps, lr=0.01, centered=True, weight_decay=0.01),
    ),
    ("adagrad", lambda ps: torch.optim.Adagrad(ps, lr=0.1)),
    (
        "adagrad_decay",
        lambda ps: torch.optim.Adagrad(ps, lr=0.2, lr_decay=0.05, initial_accumulator_value=0.1),
    ),
]
for name, make in configs:
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    opt = make(model.parameters())
    for step in range(20):
        opt.zero_grad()
        loss = F.mse_loss(model(X), y)
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"{name} step {step}: loss={loss.item():.5f}")
    print(name, model.weight.data, model.bias.data)
    print(name, [round(v, 4) for v in model.weight.view(-1).tolist()], round(model.bias.item(), 4))
    print(
        name,
        sorted(opt.state_dict()["state"][0].keys()),
        opt.state_dict()["param_groups"][0]["params"],
    )
    print(name, opt.state_dict()["state"][1]["step"])
lin = nn.Linear(2, 2)
print(torch.optim.AdamW(lin.parameters()))
print(torch.optim.RMSprop(lin.parameters(), momentum=0.9, centered=True))
print(torch.optim.Adagrad([{"params": [lin.weight], "lr": 0.5}, {"params": [lin.bias]}]))
opt = torch.optim.AdamW(lin.parameters(), lr=0.01)
print(opt.defaults)
print(opt.param_groups[0]["weight_decay"], opt.param_groups[0]["betas"])
print(torch.optim.Adagrad(lin.parameters()).state_dict()["state"])
for bad in [
    lambda: torch.optim.AdamW(lin.parameters(), lr=-0.1),
    lambda: torch.optim.AdamW(lin.parameters(), betas=(0.9, 1.5)),
    lambda: torch.optim.RMSprop(lin.parameters(), alpha=-1),
    lambda: torch.optim.RMSprop(lin.parameters(), momentum=-0.5),
    lambda: torch.optim.Adagrad(lin.parameters(), lr_decay=-0.1),
    lambda: torch.optim.Adagrad(lin.parameters(), initial_accumulator_value=-1),
]:
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)
w = torch.tensor([1.0, -1.0], requires_grad=True)
opt = torch.optim.RMSprop([w], lr=0.1, maximize=True)
(w * w).sum().backward()
opt.step()
print(w, w.grad)
opt.zero_grad()
print(w.grad)
