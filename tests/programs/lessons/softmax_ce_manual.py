import torch
import torch.nn.functional as F
logits = torch.tensor([[2.0, 1.0, 0.1]], requires_grad=True)
target = torch.tensor([0])
probs = torch.exp(logits) / torch.exp(logits).sum(dim=1, keepdim=True)
manual = -torch.log(probs[0, target[0]])
builtin = F.cross_entropy(logits, target)
print(manual, builtin)
print(f"{manual.item():.6f} {builtin.item():.6f}")
builtin.backward()
print(logits.grad)
print(probs.detach() - F.one_hot(target, 3))
