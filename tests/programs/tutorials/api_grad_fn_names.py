# The graph a lesson prints: type(t.grad_fn).__name__ after each kind of operation, the
# node classes reached through next_functions down to the leaves' AccumulateGrad, and
# grad_fn's repr.
import torch
import torch.nn.functional as F

torch.manual_seed(54)
a = torch.randn(3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
W = torch.randn(2, 3, requires_grad=True)

results = {
    "a + b": a + b,
    "a - b": a - b,
    "a * b": a * b,
    "a / b": a / b,
    "a ** 2": a ** 2,
    "2 ** a": 2 ** a,
    "-a": -a,
    "a.exp()": a.exp(),
    "a.log()": a.abs().log(),
    "a.tanh()": a.tanh(),
    "a.sigmoid()": a.sigmoid(),
    "a.relu()": a.relu(),
    "a.sum()": a.sum(),
    "a.mean()": a.mean(),
    "W @ a": W @ a,
    "W.t()": W.t(),
    "W.view(6)": W.view(6),
    "W.reshape(3, 2)": W.reshape(3, 2),
    "W[0]": W[0],
    "W[:, 1:]": W[:, 1:],
    "a.unsqueeze(0)": a.unsqueeze(0),
    "cat": torch.cat([a, b]),
    "stack": torch.stack([a, b]),
    "a.max()": a.max(),
    "a.clamp(min=0)": a.clamp(min=0),
    "a.abs()": a.abs(),
    "a.sqrt()": a.abs().sqrt(),
    "softmax": F.softmax(a, dim=0),
    "log_softmax": F.log_softmax(a, dim=0),
    "mse_loss": F.mse_loss(a, b),
    "cross_entropy": F.cross_entropy(W, torch.tensor([0, 2])),
    "a.pow(3).sum()": a.pow(3).sum(),
    "torch.where": torch.where(a > 0, a, b),
    "a.clone()": a.clone(),
}
for expr, t in results.items():
    print(f"{expr:16s} {type(t.grad_fn).__name__}")

loss = (W @ a + 1).tanh().sum()
node, depth = loss.grad_fn, 0
while node is not None:
    print("  " * depth + type(node).__name__)
    nxt = [fn for fn, _ in node.next_functions if fn is not None]
    for fn in nxt[1:]:
        print("  " * (depth + 1) + type(fn).__name__ + " (branch)")
    node = nxt[0] if nxt else None
    depth += 1

print(loss.grad_fn)
print(a.grad_fn, a.is_leaf, (a * 2).is_leaf)
leaf_node = (a * 2).grad_fn.next_functions[0][0]
print(type(leaf_node).__name__, leaf_node.variable is a)
