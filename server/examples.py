"""The examples gallery: the lessons' worked examples (../shared/seeds), ready to run, and the
lessons themselves as notebooks (:mod:`server.lessons`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from server.lessons import lessons


@dataclass(frozen=True)
class Example:
    id: str
    title: str
    explanation: str
    source: str
    bindings: dict[str, Any] | None = None


EXAMPLES: tuple[Example, ...] = (
    Example(
        "tiny-engine",
        "The tiny engine's walk: L = (w·x + b − y)²",
        "Lesson 3.9's 40-line engine, rewritten with torch. Three gradient-descent steps on one "
        "example: the loss falls 36 → 9 → 2.25 while dL/dw goes −24 → −12 → −6. Step through the "
        "backward walk of the last pass: the multiply err·err sends −6 twice into err, and the "
        "two contributions are accumulated with +=, which is why err.grad is 2·err.",
        """import torch

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
""",
    ),
    Example(
        "seed-tiny-autograd",
        "Your own autograd: the lesson's Value engine, as it stands",
        "Lesson 3.9's tiny_autograd.py, pasted as is: a class Value whose results remember their "
        "parents and a backward function (a closure), and a backward() that sorts the graph and "
        "runs those functions in reverse. It prints what PyTorch prints for the same model: "
        "dL/dw = −24 and dL/db = −12 on the first step. Compare with the first example, the same "
        "model written with torch.",
        """# A tiny autograd engine: the core idea behind PyTorch's torch.Tensor + autograd
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
        def bw(): self.grad += other.data * out.grad; other.grad += self.data * out.grad
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
""",
    ),
    Example(
        "seed-train-loop",
        "The lesson's training loop, as it stands: price = 2·size + 3",
        "Lesson 3.9's train_pytorch.py, pasted as is: every PyTorch training script has this "
        "skeleton (forward, loss, zero_grad, backward, step). nn.Linear holds w and b; 100 "
        "epochs of mini-batches of 32 bring them close to 2 and 3. The graph shows the last "
        "mini-batch's backward pass; the pass picker walks the others.",
        """import torch
from torch import nn
torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
X = torch.rand(200, 1) * 5                       # 200 house sizes
y = 2 * X + 3 + 0.5 * torch.randn(200, 1)        # prices with noise
X, y = X.to(device), y.to(device)                # move data to the GPU if present
model = nn.Linear(1, 1).to(device)               # holds w and b, requires_grad=True
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
for epoch in range(100):
    for i in range(0, 200, 32):                  # mini-batches of 32
        xb, yb = X[i:i + 32], y[i:i + 32]
        pred = model(xb)                         # 1. forward pass (graph is recorded)
        loss = loss_fn(pred, yb)                 # 2. loss
        optimizer.zero_grad()                    # 3. clear old gradients
        loss.backward()                          # 4. autograd fills .grad
        optimizer.step()                         # 5. w -= lr * w.grad, b -= lr * b.grad
print(model.weight.item(), model.bias.item())    # should approach 2 and 3
""",
    ),
    Example(
        "seed-grad-accumulation-numpy",
        "Gradient accumulation by hand, in NumPy (the lesson's practice)",
        "Lesson 3.9's practice_grad_accumulation.py, pasted as is: a Param with a .grad field "
        "and an SGD with zero_grad() and step(), written in NumPy. Four backward passes over 16 "
        "examples, each loss scaled by 1/4, add up to exactly the gradient of one pass over 64: "
        "dL/dw = −39.5945, dL/db = −13.4047. No tensors are recorded, so there is no graph: the "
        "point is the += in forward_backward.",
        """import numpy as np
class Param:                               # like a leaf tensor that requires grad
    def __init__(self, value):
        self.data, self.grad = float(value), 0.0
class SGD:                                 # like torch.optim.SGD
    def __init__(self, params, lr):
        self.params, self.lr = params, lr
    def zero_grad(self):
        for p in self.params:
            p.grad = 0.0
    def step(self):
        for p in self.params:
            p.data -= self.lr * p.grad
def forward_backward(w, b, x, y, scale=1.0):   # loss = scale * MSE of w*x + b
    err = w.data * x + b.data - y
    w.grad += scale * 2 * np.mean(err * x)     # += : accumulate, never overwrite
    b.grad += scale * 2 * np.mean(err)
    return scale * np.mean(err ** 2)
rng = np.random.default_rng(0)
x = rng.uniform(0, 5, 64)
y = 2 * x + 3
w, b = Param(0.5), Param(0.0)
opt = SGD([w, b], lr=0.05)
# A) one backward pass on all 64 examples
opt.zero_grad()
forward_backward(w, b, x, y)
print(f"one batch of 64    : dL/dw={w.grad:.4f}  dL/db={b.grad:.4f}")
# B) four backward passes on 16 examples each, with no zero_grad in between
opt.zero_grad()
for i in range(0, 64, 16):
    forward_backward(w, b, x[i:i + 16], y[i:i + 16], scale=1 / 4)
print(f"4 batches of 16    : dL/dw={w.grad:.4f}  dL/db={b.grad:.4f}")
opt.step()
print(f"after one step     : w={w.data:.4f}  b={b.data:.4f}")
""",
    ),
    Example(
        "net-module",
        "class Net(nn.Module): your own model",
        "The most common PyTorch idiom: a class with its layers as attributes in __init__ and "
        "the computation in forward. The graph names the parameters after the attributes "
        "(fc1.weight, fc2.bias) and the hidden activation after the variable h. Adam fits XOR "
        "in 200 steps; the walk shows the last step's backward pass through both layers.",
        """import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        h = torch.tanh(self.fc1(x))
        return self.fc2(h)

torch.manual_seed(0)
X = torch.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
y = torch.tensor([[0.], [1.], [1.], [0.]])
model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
loss_fn = nn.MSELoss()
for step in range(200):
    loss = loss_fn(model(X), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")
print("predictions:", model(X).detach().squeeze().round(decimals=2))
""",
    ),
    Example(
        "x-squared-plus-3x",
        "A scalar graph: y = x·x + 3x",
        "One leaf, a few operations, one scalar output. dy/dx = 2x + 3, so at x = 2 the value is "
        "10 and the gradient 7. x feeds two branches (x·x and 3x); backward adds the gradients "
        "arriving from both before they reach x.",
        """import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * x + 3 * x

print(y.item())
y.backward()
print(x.grad.item())
""",
    ),
    Example(
        "linear-regression",
        "Linear regression by hand",
        "w and b are learnable leaves; prediction, error, squared error and the mean loss are "
        "intermediate nodes. After loss.backward() both gradients are negative (−18.6667 and −8): "
        "increasing w and b would reduce the loss on this batch.",
        """import torch

x = torch.tensor([1.0, 2.0, 3.0])
y_true = torch.tensor([2.0, 4.0, 6.0])
w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)

prediction = w * x + b
loss = ((prediction - y_true) ** 2).mean()
loss.backward()

print(round(loss.item(), 4))
print(round(w.grad.item(), 4), round(b.grad.item(), 4))
""",
    ),
    Example(
        "training-step",
        "A training loop with graph reset",
        "Forty steps of gradient descent on y = 3x + 1. Each step builds a fresh graph, calls "
        "backward, updates the parameters inside torch.no_grad() (so the update is not recorded) "
        "and zeroes the gradients. The passes view keeps the first and the last backward pass.",
        """import torch

torch.manual_seed(0)
x = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
y = 3.0 * x + 1.0
w = torch.randn(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
learning_rate = 0.05

for step in range(40):
    prediction = x @ w + b
    loss = ((prediction - y) ** 2).mean()
    loss.backward()

    with torch.no_grad():
        w -= learning_rate * w.grad
        b -= learning_rate * b.grad
        w.grad.zero_()
        b.grad.zero_()

print(round(loss.item(), 4))
print(round(w.item(), 2), round(b.item(), 2))
""",
    ),
    Example(
        "gradient-accumulation",
        "Gradient accumulation over micro-batches",
        "Four backward passes on 16 examples each, with no zero_grad in between and each loss "
        "scaled by 1/4, give the same gradient as one pass on all 64: .grad adds up with +=. "
        "This is how a small GPU imitates a large batch.",
        """import torch

torch.manual_seed(0)
x = torch.rand(64) * 5
y = 2 * x + 3
w = torch.tensor(0.5, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.05)

def loss_on(xb, yb, scale=1.0):
    return scale * ((w * xb + b - yb) ** 2).mean()

# A) one backward pass on all 64 examples
opt.zero_grad()
loss_on(x, y).backward()
print(f"one batch of 64    : dL/dw={w.grad.item():.4f}  dL/db={b.grad.item():.4f}")
# B) four backward passes on 16 examples each, with no zero_grad in between
opt.zero_grad()
for i in range(0, 64, 16):
    loss_on(x[i:i + 16], y[i:i + 16], scale=1 / 4).backward()
print(f"4 batches of 16    : dL/dw={w.grad.item():.4f}  dL/db={b.grad.item():.4f}")
opt.step()
print(f"after one step     : w={w.item():.4f}  b={b.item():.4f}")
""",
    ),
    Example(
        "no-grad-detach",
        "no_grad() and detach(): what is not recorded",
        "Inside torch.no_grad() operations are not recorded, and detach() returns a tensor cut off "
        "from the graph. Neither result has a grad_fn, so gradients stop there.",
        """import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * x
with torch.no_grad():
    z = x * 2
d = y.detach()
print(y.requires_grad, y.grad_fn is not None)
print(z.requires_grad, z.grad_fn)
print(d.requires_grad, d.grad_fn)
out = y + d * x          # d is a constant here: d(out)/dx = 2x + d = 6 + 9
out.backward()
print(x.grad)
""",
    ),
    Example(
        "non-scalar-root",
        "A non-scalar root needs gradient=",
        "backward() on a vector is a vector-Jacobian product: say which vector with gradient=. "
        "With ones it equals y.sum().backward(); here the weights pick each element's share.",
        """import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
y.backward(gradient=torch.tensor([1.0, 0.1, 0.01]))
print(x.grad)
""",
    ),
    Example(
        "mlp-log-softmax",
        "An MLP with log_softmax and the negative log-likelihood",
        "A two-layer network on two points: Linear → sigmoid → Linear → log_softmax, and the loss "
        "is minus the log-probability of the right class. One backward pass fills every "
        "parameter's gradient.",
        """import torch
from torch import nn

torch.manual_seed(42)
model = nn.Sequential(nn.Linear(2, 4), nn.Sigmoid(), nn.Linear(4, 3))
x = torch.tensor([[0.5, -1.0], [1.5, 0.3]])
target = torch.tensor([2, 0])
log_probs = torch.log_softmax(model(x), dim=1)
loss = -log_probs[torch.arange(2), target].mean()
loss.backward()
print(f"loss = {loss.item():.4f}")
for name, p in model.named_parameters():
    print(name, tuple(p.grad.shape))
""",
    ),
    Example(
        "error-no-grad",
        "Classic error: element 0 of tensors does not require grad",
        "The loss was computed from tensors outside the graph (here through detach()), so there is "
        "nothing to differentiate. Keep the forward computation in tracked tensors until backward().",
        """import torch

w = torch.tensor(1.5, requires_grad=True)
pred = w.detach() * 2.0
loss = (pred - 4.0) ** 2
print(loss.requires_grad)
loss.backward()
""",
    ),
    Example(
        "error-backward-twice",
        "Classic error: backward through the graph a second time",
        "PyTorch frees the saved tensors after backward. Recompute the forward pass, or pass "
        "retain_graph=True to the first backward when you really need two.",
        """import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * x
y.backward()
print(x.grad)
y.backward()
""",
    ),
    Example(
        "error-inplace",
        "Classic error: a variable modified by an in-place operation",
        "sigmoid saves its output for backward; changing that output in place afterwards makes the "
        "saved value stale, and the version counter catches it.",
        """import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.sigmoid(x)
y.mul_(2)
y.sum().backward()
""",
    ),
    Example(
        "error-shape",
        "Classic error: shapes that do not match",
        "A (3, 2) matrix cannot multiply a (3, 2) matrix; the message names both shapes. "
        "Transpose one of them (w.T) to fix it.",
        """import torch

x = torch.ones(3, 2)
w = torch.ones(3, 2, requires_grad=True)
y = x @ w
""",
    ),
    Example(
        "error-forgot-zero-grad",
        "Classic bug: forgetting zero_grad()",
        "Without zeroing, each backward adds to the previous gradient: the printed dL/dw grows "
        "−24, −48, −72 although the loss is the same each time.",
        """import torch

w = torch.tensor(0.5, requires_grad=True)
x, y = torch.tensor(2.0), torch.tensor(7.0)
for step in range(3):
    loss = (w * x - y) ** 2
    loss.backward()
    print(f"step {step}: dL/dw = {w.grad.item():.1f}")
""",
    ),
    Example(
        "second-derivative",
        "A derivative of a derivative: create_graph=True",
        "With create_graph=True the backward pass is itself recorded, so the gradient has a "
        "grad_fn and can be differentiated again: y = x³ gives dy/dx = 3x² = 12 and "
        "d²y/dx² = 6x = 12 at x = 2. The graph shown is the second backward, through the "
        "operations that computed 3x² (the pow and the multiplies of the first backward).",
        """import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
print("dy/dx =", dy_dx)                 # 3x² = 12, with a grad_fn: it was recorded
dy_dx.backward()                        # differentiate the derivative
print("d2y/dx2 =", x.grad)              # 6x = 12
""",
    ),
    Example(
        "expression",
        "An expression with free variables",
        "A bare expression: its free variables become inputs you can edit. The playground calls "
        "backward() on the result for you, since the program does not.",
        "(w*x + b - y)**2",
        bindings={
            "w": 0.5,
            "b": 0.0,
            "x": {"value": 2.0, "requires_grad": False},
            "y": {"value": 7.0, "requires_grad": False},
        },
    ),
)


def gallery() -> list[dict[str, Any]]:
    """The examples as plain dicts (the API's response), then the lessons as notebooks."""
    return [asdict(e) for e in EXAMPLES] + [lesson.example() for lesson in lessons()]


# ---- your own autograd, drawn: micrograd's Value, and the lesson's "what if" ---------------------

MICROGRAD_MLP = """# micrograd's Value (github.com/karpathy/micrograd, MIT) with tanh, and a small MLP of Values
import math
import random

class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')
        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')
        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only int/float powers"
        out = Value(self.data ** other, (self,), f'**{other}')
        def _backward():
            self.grad += (other * self.data ** (other - 1)) * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        t = (math.exp(2 * self.data) - 1) / (math.exp(2 * self.data) + 1)
        out = Value(t, (self,), 'tanh')
        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()
        def build(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)
        build(self)
        self.grad = 1
        for v in reversed(topo):
            v._backward()

    def __neg__(self): return self * -1
    def __radd__(self, other): return self + other
    def __sub__(self, other): return self + (-other)
    def __rsub__(self, other): return other + (-self)
    def __rmul__(self, other): return self * other
    def __truediv__(self, other): return self * other ** -1
    def __repr__(self): return f"Value(data={self.data:.4f}, grad={self.grad:.4f})"

class Neuron:
    def __init__(self, nin):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
    def __call__(self, x):
        return sum((wi * xi for wi, xi in zip(self.w, x)), self.b).tanh()
    def parameters(self):
        return self.w + [self.b]

class Layer:
    def __init__(self, nin, nout):
        self.neurons = [Neuron(nin) for _ in range(nout)]
    def __call__(self, x):
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out
    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]

class MLP:
    def __init__(self, nin, nouts):
        sizes = [nin] + nouts
        self.layers = [Layer(sizes[i], sizes[i + 1]) for i in range(len(nouts))]
    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

random.seed(1)
xs = [[2.0, 3.0], [3.0, -1.0], [0.5, 1.0], [1.0, 1.0]]
ys = [1.0, -1.0, -1.0, 1.0]
model = MLP(2, [3, 1])
for step in range(10):
    ypred = [model(x) for x in xs]
    loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))
    for p in model.parameters():
        p.grad = 0
    loss.backward()
    for p in model.parameters():
        p.data -= 0.1 * p.grad
    print(f"step {step}: loss={loss.data:.4f}")
print([round(y.data, 3) for y in ypred])
"""


def _value_examples(seed: Example) -> tuple[Example, ...]:
    """micrograd's MLP of Values, and the seed with = instead of += in the multiply rule."""
    good = "def bw(): self.grad += other.data * out.grad; other.grad += self.data * out.grad"
    bad = "def bw(): self.grad = other.data * out.grad; other.grad = self.data * out.grad"
    broken = seed.source.replace(good, bad + "  # = instead of +=")
    if broken == seed.source:  # the seed changed: this example must follow it
        raise RuntimeError("seed-tiny-autograd no longer has the multiply rule to break")
    return (
        Example(
            "micrograd-mlp",
            "micrograd: a Value with tanh and a small MLP of Values",
            "Andrej Karpathy's micrograd, pasted as is: Value keeps its parents in _prev (a set), "
            "its op in _op and its backward closure in _backward; Neuron, Layer and MLP are "
            "plain classes of Values. Ten steps of gradient descent on four points. The graph "
            "is the last step's, drawn from the Values themselves and named by their place in "
            "the model (layers[0].neurons[1].w[0]); the walk is micrograd's own, call by call. "
            "Compare with PyTorch replays every operation with tensors: every node agrees.",
            MICROGRAD_MLP,
        ),
        Example(
            "value-broken-plus-equals",
            "Your own autograd, broken: = instead of += (the lesson's what-if)",
            "The lesson's tiny_autograd.py with one change: the multiply rule assigns the "
            "gradient (=) instead of adding to it (+=). In loss = err · err both inputs are err, "
            "so the second assignment overwrites the first and err gets −6, half its gradient: "
            "dL/dw prints −12 instead of −24. Step through the walk: the second contribution to "
            "err adds nothing. Compare with PyTorch marks err in red on the first pass; in the "
            "later passes x and y turn red too, because they are never zeroed and the = threw "
            "away the gradient PyTorch would have kept adding to.",
            broken,
        ),
    )


def _with_value_examples(examples: tuple[Example, ...]) -> tuple[Example, ...]:
    out: list[Example] = []
    for example in examples:
        out.append(example)
        if example.id == "seed-tiny-autograd":
            out.extend(_value_examples(example))
    return tuple(out)


EXAMPLES = _with_value_examples(EXAMPLES)
