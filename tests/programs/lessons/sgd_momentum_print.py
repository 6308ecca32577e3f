import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
print(opt)
for i in range(3):
    opt.zero_grad()
    loss = (w ** 2).sum()
    loss.backward()
    opt.step()
    print(i, w, loss.item())
print(opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"])
opt.param_groups[0]["lr"] = 0.01
print(opt.param_groups[0]["lr"])
print(len(opt.param_groups), len(opt.param_groups[0]["params"]))
