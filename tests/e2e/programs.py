"""Programs the browser tests and the screenshot script run."""

from __future__ import annotations

from urllib.parse import urlencode

#: The lessons' tiny example, PyTorch style: dL/dw = −24, dL/db = −12, err receives twice.
TINY = """\
import torch
w = torch.tensor(0.5, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
x = torch.tensor(2.0)
y = torch.tensor(7.0)
err = w * x + b - y
loss = err * err
loss.backward()
print(f"dL/dw={w.grad.item():+.2f}  dL/db={b.grad.item():+.2f}")
"""

#: The same model as an expression: w, x, b, y become the bindings panel's inputs.
EXPRESSION = "(w*x + b - y)**2\n"

#: A long chain: each iteration adds a multiply and an add (and their constants).
BIG_GRAPH = """\
import torch
x = torch.tensor(1.0, requires_grad=True)
h = x
for i in range(100):
    h = h * 1.001 + 0.001
h.backward()
"""

#: A program that prints HTML: the page must show it as text and run nothing.
PRINTS_HTML = """\
print('<img src=x onerror="window.__pwned = 1"><b id="injected">bold</b>')
"""

#: A runtime error on line 3.
NAME_ERROR = """\
import torch
a = torch.tensor(1.0, requires_grad=True)
b = a * undefined_name
"""


#: Two backward passes through one graph: the second fails (its saved tensors are freed).
BACKWARD_TWICE = """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
z = (x * x).sum()
z.backward()
z.backward()
"""


def accumulating_passes(count: int) -> str:
    """``count`` backward passes that accumulate into w.grad: 18 each (18, 36, 54, …)."""
    return f"""\
import torch
w = torch.tensor(1.0, requires_grad=True)
for i in range({count}):
    loss = (w * 3.0) ** 2
    loss.backward()
print(w.grad)
"""


def program_url(source: str, **extra: str) -> str:
    """The playground URL (hash state) that opens `source`."""
    return "/#" + urlencode({"src": source, **extra})
