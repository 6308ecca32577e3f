"""A training step written out as a PyTorch program: the playground runs it and shows the same
graph and backward walk as the step the trainer took."""

from __future__ import annotations

import numpy as np

Array = np.ndarray

TORCH_ACTIVATIONS = {"tanh": "torch.tanh", "relu": "torch.relu", "sigmoid": "torch.sigmoid"}


def step_program(
    step: int, sizes: list[int], activation: str, x: Array, y: Array, params: list[Array]
) -> str:
    """Step ``step`` (1-based) on the batch ``x``, ``y`` from ``params`` (before the update)."""
    act = TORCH_ACTIVATIONS[activation]
    shape = "-".join(str(s) for s in sizes)
    lines = [
        "import torch",
        "import torch.nn.functional as F",
        "",
        f"# Training step {step}: a {shape} {activation} MLP, a batch of "
        f"{x.shape[0]}, the weights before this step's update.",
        f"X = torch.tensor({floats(x)})",
        f"y = torch.tensor({y.tolist()})",
    ]
    n_layers = len(params) // 2
    for i in range(n_layers):
        lines.append(f"W{i + 1} = torch.tensor({floats(params[2 * i])}, requires_grad=True)")
        lines.append(f"b{i + 1} = torch.tensor({floats(params[2 * i + 1])}, requires_grad=True)")
    h = "X"
    for i in range(n_layers - 1):
        lines.append(f"h{i + 1} = {act}(F.linear({h}, W{i + 1}, b{i + 1}))")
        h = f"h{i + 1}"
    lines += [
        f"logits = F.linear({h}, W{n_layers}, b{n_layers})",
        "loss = F.cross_entropy(logits, y)",
        "loss.backward()",
        'print(f"loss = {loss.item():.4f}")',
    ]
    return "\n".join(lines) + "\n"


def floats(a: Array) -> str:
    """A nested list of float32 numbers, each in the shortest text that reads back exactly."""
    if a.ndim == 0:
        return np.format_float_positional(np.float32(a), unique=True, trim="0")
    return "[" + ", ".join(floats(x) for x in a) + "]"
