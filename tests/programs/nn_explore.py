import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)
lin = nn.Linear(3, 2)
print(lin)
print(lin.weight, lin.bias)
print(lin.weight.shape, lin.bias.shape, lin.weight.requires_grad, lin.weight.is_leaf)
print(lin.in_features, lin.out_features)
for name, p in lin.named_parameters():
    print(name, p.shape, p.dtype)
print(len(list(lin.parameters())), sum(p.numel() for p in lin.parameters()))
x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
out = lin(x)
print(out, out.grad_fn, out.grad_fn.name())
print(lin(torch.ones(3)), lin(torch.ones(3)).grad_fn)
print(lin(torch.ones(2, 4, 3)).shape, lin(torch.ones(2, 4, 3)).grad_fn)
nb = nn.Linear(3, 2, bias=False)
print(nb, nb.bias, nb(x).grad_fn)
model = nn.Sequential(
    nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1), nn.Sigmoid()
)
print(model)
print(model[0], model[1], model[-1], len(model))
print(model[0].weight.shape, model[2].bias)
print([name for name, _ in model.named_parameters()])
print([tuple(p.shape) for p in model.parameters()])
print(model.training, model[0].training)
model.eval()
print(model.training, model[1].training)
model.train()
print(model.training)
y = model(x)
print(y, y.grad_fn)
loss = F.mse_loss(y, torch.tensor([[1.0], [0.0]]))
loss.backward()
print(loss)
print(model[0].weight.grad)
print(model[4].bias.grad)
model.zero_grad()
print(model[0].weight.grad, model[4].bias.grad)
print(
    nn.ReLU()(torch.tensor([-1.0, 0.0, 2.0])),
    nn.Tanh()(torch.tensor([0.5])),
    nn.Sigmoid()(torch.tensor([0.0])),
)
print(
    nn.ReLU(),
    nn.Tanh(),
    nn.Sigmoid(),
    nn.MSELoss(),
    nn.CrossEntropyLoss(),
    nn.BCELoss(),
    nn.BCEWithLogitsLoss(),
)
print(nn.MSELoss(reduction="sum"), nn.Softmax(dim=1), nn.LogSoftmax(dim=-1))
sd = lin.state_dict()
print(list(sd.keys()), sd["weight"].shape, sd["bias"])
print(nn.Sequential(nn.Linear(2, 2))[0].weight.dtype)
with torch.no_grad():
    lin.weight.fill_(0.5)
    lin.bias.zero_()
print(lin.weight, lin.bias, lin(x))
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]))
    lin.bias.add_(1)
print(lin(x))
print(
    isinstance(lin, nn.Module),
    isinstance(lin.weight, torch.Tensor),
    isinstance(lin.weight, nn.Parameter),
)
print(lin.weight.data, lin.weight.data.requires_grad)
lin2 = nn.Linear(2, 1)
lin2.weight.data = torch.tensor([[2.0, -1.0]])
lin2.bias.data.fill_(0.5)
print(lin2(torch.tensor([[1.0, 1.0]])), lin2.weight)
seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
print(seq[0:1], seq[:1][0] is seq[0])
for layer in seq:
    print(type(layer).__name__)
mlp = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 3))
logits = mlp(torch.tensor([[0.1, 0.2], [0.3, -0.4], [1.0, 1.0]]))
print(logits)
print(logits.softmax(dim=1))
print(logits.argmax(dim=1), logits.max(dim=1).indices)
ce = nn.CrossEntropyLoss()
l = ce(logits, torch.tensor([0, 2, 1]))
print(l, l.grad_fn)
l.backward()
print(mlp[2].bias.grad)
print(F.cross_entropy(logits, torch.tensor([0, 2, 1]), reduction="none"))
print(F.cross_entropy(logits, torch.tensor([0, 2, 1]), reduction="sum"))
print(
    F.log_softmax(logits, dim=1).grad_fn,
    F.softmax(logits, dim=1).grad_fn,
    logits.log_softmax(1).exp().sum(1),
)
print(F.nll_loss(F.log_softmax(logits, dim=1), torch.tensor([0, 2, 1])))
p = torch.tensor([0.9, 0.2, 0.6], requires_grad=True)
t = torch.tensor([1.0, 0.0, 1.0])
b = nn.BCELoss()(p, t)
b.backward()
print(b, b.grad_fn, p.grad)
z = torch.tensor([2.0, -1.0, 0.3], requires_grad=True)
bl = nn.BCEWithLogitsLoss()(z, t)
bl.backward()
print(bl, bl.grad_fn, z.grad)
m = nn.MSELoss()(torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([0.0, 4.0]))
print(m, m.grad_fn)
print(
    F.relu(torch.tensor([-2.0, 3.0])), F.sigmoid(torch.tensor([1.0])), F.tanh(torch.tensor([1.0]))
)
print(
    F.softmax(torch.tensor([[1.0, 2.0], [3.0, 5.0]]), dim=0),
    F.log_softmax(torch.tensor([1.0, 2.0, 3.0]), dim=0),
)
print(F.softmax(torch.tensor([1.0, 2.0, 3.0]), dim=-1, dtype=torch.float64))
