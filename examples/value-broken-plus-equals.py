# A tiny autograd engine: the core idea behind PyTorch's torch.Tensor + autograd
class Value:
    def __init__(self, data, parents=(), op=""):
        self.data, self.grad = data, 0.0
        self.parents, self.op = parents, op
        self.backward_fn = lambda: None      # how to push my grad to my parents
    def __add__(self, other):
        out = Value(self.data + other.data, (self, other), "+")
        def bw(): self.grad += out.grad; other.grad += out.grad
        out.backward_fn = bw
        return out
    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other), "*")
        def bw(): self.grad = other.data * out.grad; other.grad = self.data * out.grad  # = instead of +=
        out.backward_fn = bw
        return out
    def backward(self):
        order, seen = [], set()
        def visit(v):                        # topological sort of the recorded graph
            if v not in seen:
                seen.add(v); [visit(p) for p in v.parents]; order.append(v)
        visit(self)
        self.grad = 1.0                      # dL/dL = 1
        for v in reversed(order):            # walk the graph backwards (chain rule)
            v.backward_fn()
# Forward pass builds the graph: L = (w*x + b - y)^2
w, b = Value(0.5), Value(0.0)
x, y = Value(2.0), Value(7.0)
for step in range(3):
    err = w * x + b + Value(-1.0) * y
    loss = err * err
    w.grad = b.grad = 0.0                    # like optimizer.zero_grad()
    loss.backward()                          # like loss.backward()
    print(f"step {step}: loss={loss.data:6.3f}  dL/dw={w.grad:+.2f}  dL/db={b.grad:+.2f}")
    w.data -= 0.05 * w.grad                  # like optimizer.step()
    b.data -= 0.05 * b.grad
print(f"graph ops recorded for the last loss: {loss.op}, {loss.parents[0].op}")
