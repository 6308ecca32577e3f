import torch

w = torch.tensor(0.5, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
x, y = torch.tensor(2.0), torch.tensor(7.0)
for step in range(3):
    err = w * x + b + -1.0 * y
    loss = err * err
    w.grad = None                            # like optimizer.zero_grad()
    b.grad = None
    loss.backward()                          # like loss.backward()
    print(f"step {step}: loss={loss.item():6.3f}  dL/dw={w.grad.item():+.2f}  dL/db={b.grad.item():+.2f}")
    with torch.no_grad():                    # like optimizer.step()
        w -= 0.05 * w.grad
        b -= 0.05 * b.grad
print(f"graph ops recorded for the last loss: {loss.grad_fn.name()}, {loss.grad_fn.next_functions[0][0].name()}")
