import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a * b
d = c + a
e = d.sum()
fn = e.grad_fn
depth = 0
while fn is not None:
    print("  " * depth + fn.name())
    nxt = [f for f, _ in fn.next_functions if f is not None]
    fn = nxt[0] if nxt else None
    depth += 1
print(e.grad_fn.next_functions)
print(d.grad_fn.next_functions)
print(c.grad_fn.next_functions[0][0].variable is a)
