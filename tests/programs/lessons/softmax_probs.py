import torch
import torch.nn.functional as F
logits = torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
probs = F.softmax(logits, dim=1)
print(probs)
print(probs.sum(dim=1))
print(torch.softmax(logits, dim=-1))
print(logits.softmax(dim=1)[0])
for row in probs:
    print([round(p, 3) for p in row.tolist()])
print(probs.max(dim=1))
print(F.log_softmax(logits, dim=1))
print(torch.exp(F.log_softmax(logits, dim=1)))
