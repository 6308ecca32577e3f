import torch
w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
for opt in (torch.optim.SGD([w], lr=0.1), torch.optim.SGD([w], lr=0.1, momentum=0.9), torch.optim.Adam([w], lr=0.1), torch.optim.SGD([{'params':[w], 'lr':0.5}], lr=0.1)):
    print(opt.state_dict())
    (w*w).sum().backward()
    opt.step()
    print(opt.state_dict())
    print(opt.param_groups)
    print(opt.param_groups[0].keys())
print(list(opt.state_dict().keys()))
