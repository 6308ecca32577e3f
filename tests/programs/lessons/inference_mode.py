import torch
x = torch.tensor(1.0, requires_grad=True)
with torch.inference_mode():
    y = x * 2
print(y.requires_grad)
