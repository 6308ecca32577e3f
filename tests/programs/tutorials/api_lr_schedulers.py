# Learning-rate schedules as lessons show them: StepLR, MultiStepLR, ExponentialLR,
# CosineAnnealingLR and LambdaLR stepped once per epoch (get_last_lr and the optimizer's
# param_groups), and ReduceLROnPlateau fed a validation loss that stops improving; a small
# regression trained under a StepLR schedule.
import torch
from torch import nn, optim
from torch.optim import lr_scheduler


def lrs_of(make, epochs=8, lr=0.1):
    param = nn.Parameter(torch.zeros(1))
    opt = optim.SGD([param], lr=lr, momentum=0.9)
    sched = make(opt)
    seen = []
    for _ in range(epochs):
        opt.step()
        sched.step()
        seen.append(round(sched.get_last_lr()[0], 6))
    return type(sched).__name__, seen, round(opt.param_groups[0]["lr"], 6)


print(lrs_of(lambda o: lr_scheduler.StepLR(o, step_size=3, gamma=0.5)))
print(lrs_of(lambda o: lr_scheduler.MultiStepLR(o, milestones=[2, 5], gamma=0.1)))
print(lrs_of(lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9)))
print(lrs_of(lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=8, eta_min=0.001)))
print(lrs_of(lambda o: lr_scheduler.LambdaLR(o, lr_lambda=lambda epoch: 1 / (epoch + 1))))

param = nn.Parameter(torch.zeros(1))
opt = optim.SGD([param], lr=1.0)
plateau = lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2)
for epoch, val_loss in enumerate([1.0, 0.8, 0.7, 0.7, 0.71, 0.72, 0.69, 0.7, 0.7, 0.7]):
    opt.step()
    plateau.step(val_loss)
    print(epoch, val_loss, opt.param_groups[0]["lr"])

torch.manual_seed(50)
X = torch.randn(64, 3)
y = X @ torch.tensor([[1.5], [-2.0], [0.5]]) + 0.3
model = nn.Linear(3, 1)
opt = optim.SGD(model.parameters(), lr=0.2)
sched = lr_scheduler.StepLR(opt, step_size=10, gamma=0.3)
for epoch in range(30):
    loss = nn.functional.mse_loss(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if epoch % 10 == 9:
        print(epoch, f"{loss.item():.6f}", sched.get_last_lr())
print(model.weight.data, model.bias.data)
print(sched.state_dict()["last_epoch"], sched.state_dict()["step_size"])
