import torch
import torch.nn.functional as F
pred = torch.tensor([0.5, 1.5, 2.0])
target = torch.tensor([1.0, 1.0, 3.0])
print(F.mse_loss(pred, target), F.l1_loss(pred, target))
print(F.mse_loss(pred, target, reduction="sum"), F.mse_loss(pred, target, reduction="none"))
logits = torch.tensor([[1.0, 2.0, 0.5]])
print(F.cross_entropy(logits, torch.tensor([1])))
print(F.binary_cross_entropy(torch.sigmoid(pred), torch.tensor([1.0, 0.0, 1.0])))
print(F.binary_cross_entropy_with_logits(pred, torch.tensor([1.0, 0.0, 1.0])))
print(F.nll_loss(F.log_softmax(logits, dim=1), torch.tensor([2])))
print(torch.nn.MSELoss(reduction="sum")(pred, target))
