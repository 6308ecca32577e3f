import torch
x = torch.tensor([1.0, 2.0])
print(f"{x:.2f}")
