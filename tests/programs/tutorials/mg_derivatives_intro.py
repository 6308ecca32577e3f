# micrograd lecture, first half: the derivative of a function of one variable, numerically;
# a small expression's slope with respect to one input; a Value class with +, * and tanh,
# backward by topological sort; the same neuron in PyTorch (float64) for comparison.
import math

import numpy as np


def f(x):
    return 3 * x ** 2 - 4 * x + 5


print(f(3.0))
xs = np.arange(-5, 5, 0.25)
ys = f(xs)
print(ys[:4], ys.shape)
h = 0.000001
x = 2 / 3
print(f"{(f(x + h) - f(x)) / h:.4f}")

h = 0.0001
a, b, c = 2.0, -3.0, 10.0
d1 = a * b + c
c += h
d2 = a * b + c
print("d1", d1)
print("d2", d2)
print("slope", round((d2 - d1) / h, 6))


class Value:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op
        self.label = label

    def __repr__(self):
        return f"Value(data={self.data})"

    def __add__(self, other):
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = (math.exp(2 * self.data) - 1) / (math.exp(2 * self.data) + 1)
        out = Value(t, (self,), "tanh")

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
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


a = Value(2.0, label="a")
b = Value(-3.0, label="b")
c = Value(10.0, label="c")
e = a * b; e.label = "e"
d = e + c; d.label = "d"
f_ = Value(-2.0, label="f")
L = d * f_; L.label = "L"
print(L)
L.backward()
print([(v.label, v.grad) for v in (a, b, c, e, d, f_, L)])

x1 = Value(2.0, label="x1")
x2 = Value(0.0, label="x2")
w1 = Value(-3.0, label="w1")
w2 = Value(1.0, label="w2")
bias = Value(6.8813735870195432, label="b")
n = x1 * w1 + x2 * w2 + bias
o = n.tanh()
o.backward()
print(f"o {o.data:.6f}", [(v.label, round(v.grad, 6)) for v in (x1, x2, w1, w2)])

import torch

tx1 = torch.Tensor([2.0]).double(); tx1.requires_grad = True
tx2 = torch.Tensor([0.0]).double(); tx2.requires_grad = True
tw1 = torch.Tensor([-3.0]).double(); tw1.requires_grad = True
tw2 = torch.Tensor([1.0]).double(); tw2.requires_grad = True
tb = torch.Tensor([6.8813735870195432]).double(); tb.requires_grad = True
tn = tx1 * tw1 + tx2 * tw2 + tb
to = torch.tanh(tn)
print(f"{to.data.item():.6f}")
to.backward()
print("---")
print("x2", round(tx2.grad.item(), 6))
print("w2", round(tw2.grad.item(), 6))
print("x1", round(tx1.grad.item(), 6))
print("w1", round(tw1.grad.item(), 6))
print(tx1.dtype, to.grad_fn)
