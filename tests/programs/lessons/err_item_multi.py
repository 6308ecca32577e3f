import torch
logits = torch.tensor([[1.0, 2.0]])
loss = (logits ** 2)
print(loss)
print(f"{loss.item():.4f}")
