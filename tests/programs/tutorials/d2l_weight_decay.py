# d2l 3.7 / 5.5 (weight decay): a 200-dimensional linear problem with 20 training examples,
# an L2 penalty added by hand (lambd = 0 overfits, lambd = 3 does not), then the concise
# version with weight_decay on the weight's parameter group only.
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(43)

n_train, n_test, num_inputs, batch_size = 20, 100, 200, 5
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05


# prelude: _d2l_synthetic_data.py


train_data = synthetic_data(true_w, true_b, n_train)
train_iter = data.DataLoader(data.TensorDataset(*train_data), batch_size, shuffle=True)
test_data = synthetic_data(true_w, true_b, n_test)


def init_params():
    w = torch.normal(0, 1, size=(num_inputs, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    return [w, b]


def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2


# prelude: _d2l_linreg_sgd.py


def train(lambd):
    w, b = init_params()
    num_epochs, lr = 100, 0.003
    for epoch in range(num_epochs):
        for X, y in train_iter:
            l = squared_loss(linreg(X, w, b), y) + lambd * l2_penalty(w)
            l.sum().backward()
            sgd([w, b], lr, batch_size)
        if (epoch + 1) % 25 == 0:
            with torch.no_grad():
                test_l = squared_loss(linreg(test_data[0], w, b), test_data[1]).mean()
            print(epoch + 1, f"{test_l.item():.4f}")
    print("L2 norm of w:", f"{torch.norm(w).item():.4f}")


train(lambd=0)
train(lambd=3)


def train_concise(wd):
    net = nn.Sequential(nn.Linear(num_inputs, 1))
    for param in net.parameters():
        param.data.normal_()
    loss = nn.MSELoss(reduction="none")
    num_epochs, lr = 100, 0.003
    trainer = torch.optim.SGD([{"params": net[0].weight, "weight_decay": wd}, {"params": net[0].bias}], lr=lr)
    for epoch in range(num_epochs):
        for X, y in train_iter:
            trainer.zero_grad()
            l = loss(net(X), y)
            l.mean().backward()
            trainer.step()
    print("w's L2 norm:", f"{net[0].weight.norm().item():.4f}", trainer.param_groups[1]["weight_decay"])


train_concise(0)
train_concise(3)
