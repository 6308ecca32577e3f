# Fitting a line with L-BFGS: the optimizer re-evaluates the model several times per step, so
# step() takes a closure that clears the gradients, computes the loss, calls backward and
# returns the loss (the pattern of PyTorch's neural-style-transfer tutorial). The lesson counts
# how often the closure ran and prints the fit after each step.
import torch

torch.manual_seed(0)
x = torch.linspace(-1, 1, 50).unsqueeze(1)
y = 2.0 * x + 1.0 + 0.05 * torch.randn(50, 1)

model = torch.nn.Linear(1, 1)
optimizer = torch.optim.LBFGS(
    model.parameters(), lr=1.0, max_iter=10, history_size=5, tolerance_change=1e-6
)
loss_fn = torch.nn.MSELoss()
calls = 0


def closure():
    global calls
    calls += 1
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    return loss


for step in range(3):
    loss = optimizer.step(closure)
    print(f"step {step}: loss before {loss.item():.6f}, closure calls so far {calls}")

w, b = model.weight.item(), model.bias.item()
print(f"fitted y = {w:.4f} x + {b:.4f}")
print(optimizer.state_dict()["state"][0]["n_iter"], optimizer.state_dict()["state"][0]["func_evals"])
print(optimizer)
