"""The engine vs PyTorch (CPU, eager) vs hand-written NumPy on the same workloads, one run.

Workloads (forward + backward + update where there is one):
- tiny:   the lessons' scalar step  L = (w·x + b − y)², SGD update under no_grad;
- chain:  20 small elementwise ops on a 16-element tensor, forward+backward, per op;
- mlp2d:  2-16-16-1 tanh MLP, MSE, 200 points, SGD step;
- mnist:  784-256-256-10 ReLU MLP, cross-entropy, batch 128, float32, SGD step.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import Any

import numpy as np

import engine
from bench.timing import interleaved_medians

try:
    import torch

    torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "1")))
except ImportError:  # the oracle is optional
    torch = None

CHAIN_OPS = 20


# --- tiny ---------------------------------------------------------------------------------------
def tiny_engine(lib: Any) -> Callable[[], None]:
    w = lib.tensor(0.5, requires_grad=True)
    b = lib.tensor(0.0, requires_grad=True)
    x, y = lib.tensor(2.0), lib.tensor(7.0)

    def step() -> None:
        err = w * x + b - y
        loss = err * err
        w.grad = None
        b.grad = None
        loss.backward()
        with lib.no_grad():
            w.sub_(0.01 * w.grad)  # the lesson writes w -= ...; same op
            b.sub_(0.01 * b.grad)

    return step


def tiny_numpy() -> Callable[[], None]:
    p = {"w": np.float32(0.5), "b": np.float32(0.0)}
    x, y = np.float32(2.0), np.float32(7.0)

    def step() -> None:
        err = p["w"] * x + p["b"] - y
        _ = err * err
        g = 2 * err
        p["w"] = p["w"] - np.float32(0.01) * (g * x)
        p["b"] = p["b"] - np.float32(0.01) * g

    return step


# --- chain --------------------------------------------------------------------------------------
def chain_lib(lib: Any) -> Callable[[], None]:
    x = lib.tensor(np.linspace(0.1, 1.0, 16, dtype=np.float32), requires_grad=True)

    def step() -> None:
        h = x
        for _ in range(CHAIN_OPS // 4):
            h = (h * 1.01).tanh() + 0.5
            h = h.sigmoid()
        x.grad = None
        h.sum().backward()

    return step


def chain_numpy() -> Callable[[], None]:
    x = np.linspace(0.1, 1.0, 16, dtype=np.float32)

    def step() -> None:
        saved = []
        h = x
        for _ in range(CHAIN_OPS // 4):
            t = np.tanh(h * np.float32(1.01))
            s = 1 / (1 + np.exp(-(t + np.float32(0.5))))
            saved.append((t, s))
            h = s
        g = np.ones_like(h)
        for t, s in reversed(saved):
            g = g * s * (1 - s)
            g = g * (1 - t * t) * np.float32(1.01)

    return step


# --- MLPs ---------------------------------------------------------------------------------------
def _init(sizes: list[int], seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [
        (
            (rng.uniform(-1, 1, (o, i)) / np.sqrt(i)).astype(np.float32),
            (rng.uniform(-1, 1, o) / np.sqrt(i)).astype(np.float32),
        )
        for i, o in itertools.pairwise(sizes)
    ]


def mlp_lib(lib: Any, sizes: list[int], batch: int, act: str, loss: str) -> Callable[[], None]:
    nn = lib.nn
    layers: list[Any] = []
    for w, b in _init(sizes, 0):
        lin = nn.Linear(w.shape[1], w.shape[0])
        with lib.no_grad():
            lin.weight.copy_(lib.tensor(w))
            lin.bias.copy_(lib.tensor(b))
        layers += [lin, nn.Tanh() if act == "tanh" else nn.ReLU()]
    model = nn.Sequential(*layers[:-1])
    rng = np.random.default_rng(1)
    X = lib.tensor(rng.normal(size=(batch, sizes[0])).astype(np.float32))
    if loss == "mse":
        Y = lib.tensor(rng.normal(size=(batch, sizes[-1])).astype(np.float32))
        loss_fn: Any = nn.MSELoss()
    else:
        Y = lib.tensor(rng.integers(0, sizes[-1], batch))
        loss_fn = nn.CrossEntropyLoss()
    opt = lib.optim.SGD(model.parameters(), lr=1e-3)

    def step() -> None:
        opt.zero_grad()
        out = loss_fn(model(X), Y)
        out.backward()
        opt.step()

    return step


def mlp_numpy(sizes: list[int], batch: int, act: str, loss: str) -> Callable[[], None]:
    params = _init(sizes, 0)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    if loss == "mse":
        Y = rng.normal(size=(batch, sizes[-1])).astype(np.float32)
    else:
        Y = rng.integers(0, sizes[-1], batch)
    lr = np.float32(1e-3)

    def step() -> None:
        hs = [X]
        h = X
        for k, (w, b) in enumerate(params):
            z = h @ w.T + b
            if k < len(params) - 1:
                h = np.tanh(z) if act == "tanh" else np.maximum(z, 0)
            else:
                h = z
            hs.append(h)
        if loss == "mse":
            g = 2 * (h - Y) / h.size
        else:
            m = h - h.max(axis=1, keepdims=True)
            logp = m - np.log(np.exp(m).sum(axis=1, keepdims=True))
            g = np.exp(logp)
            g[np.arange(batch), Y] -= 1
            g /= batch
        for k in range(len(params) - 1, -1, -1):
            w, b = params[k]
            a_in = hs[k]
            gw, gb = g.T @ a_in, g.sum(axis=0)
            if k > 0:
                g = g @ w
                g = g * (1 - a_in * a_in) if act == "tanh" else g * (a_in > 0)
            w -= lr * gw
            b -= lr * gb

    return step


WORKLOADS: list[
    tuple[str, str, Callable[[Any], Callable[[], None]], Callable[[], Callable[[], None]], int]
] = [
    ("tiny", "lessons' tiny step", tiny_engine, tiny_numpy, 1),
    (
        "chain",
        f"{CHAIN_OPS} small elementwise ops, fwd+bwd (per op)",
        chain_lib,
        chain_numpy,
        CHAIN_OPS,
    ),
    (
        "mlp2d",
        "2-16-16-1 tanh MLP step, 200 points",
        lambda lib: mlp_lib(lib, [2, 16, 16, 1], 200, "tanh", "mse"),
        lambda: mlp_numpy([2, 16, 16, 1], 200, "tanh", "mse"),
        1,
    ),
    (
        "mnist",
        "784-256-256-10 ReLU MLP step, CE, batch 128",
        lambda lib: mlp_lib(lib, [784, 256, 256, 10], 128, "relu", "ce"),
        lambda: mlp_numpy([784, 256, 256, 10], 128, "relu", "ce"),
        1,
    ),
]

TARGETS = {"tiny": (0.25, None), "chain": (0.5, None), "mlp2d": (0.35, 1.4), "mnist": (0.9, 1.15)}


def run(quick: bool = False) -> list[dict[str, Any]]:
    rows = []
    min_time = 0.15 if quick else 0.5
    for key, title, make_lib, make_np, per in WORKLOADS:
        fns = {"engine": make_lib(engine), "numpy": make_np()}
        if torch is not None:
            fns["torch"] = make_lib(torch)
        medians = interleaved_medians(fns, min_time)
        t_engine, t_numpy = medians["engine"] / per, medians["numpy"] / per
        t_torch = medians["torch"] / per if torch is not None else None
        target_t, target_np = TARGETS[key]
        rows.append(
            {
                "workload": key,
                "title": title,
                "engine_s": t_engine,
                "torch_s": t_torch,
                "numpy_s": t_numpy,
                "vs_torch": t_engine / t_torch if t_torch else None,
                "vs_numpy": t_engine / t_numpy,
                "target_vs_torch": target_t,
                "target_vs_numpy": target_np,
            }
        )
    return rows
