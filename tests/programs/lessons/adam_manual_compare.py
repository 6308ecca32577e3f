import torch
p = torch.tensor([0.5, -0.5], requires_grad=True)
opt = torch.optim.Adam([p], lr=0.1, betas=(0.9, 0.99))
for step in range(5):
    opt.zero_grad()
    loss = ((p - torch.tensor([1.0, 2.0])) ** 2).sum()
    loss.backward()
    opt.step()
    print(step, [round(v, 4) for v in p.tolist()], round(loss.item(), 4))
print(opt)
