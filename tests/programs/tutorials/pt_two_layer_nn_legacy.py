# The nn-package two-layer net as first published: Sequential(Linear, ReLU, Linear), the
# loss built with the legacy size_average=False (a sum), updates through param.data.
import torch

torch.manual_seed(16)
# prelude: _pt_two_layer_sequential.py
loss_fn = torch.nn.MSELoss(size_average=False)
print(loss_fn.reduction)

learning_rate = 1e-4
for t in range(500):
    y_pred = model(x)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.1e}")
    model.zero_grad()
    loss.backward()
    for param in model.parameters():
        param.data -= learning_rate * param.grad.data

print(model)
