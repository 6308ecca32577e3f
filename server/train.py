"""The training service behind /api/v1/train: an MLP on a toy dataset, stateless and exact.

The client carries the run: ``state`` holds the parameters and the optimizer's buffers as
float32 bytes (base64, so nothing is lost to decimal text) and the step count, which also fixes
the minibatch order (epoch ``e`` uses permutation ``rng([seed, e])``). So two calls of 100 steps
passing ``state`` give bit-for-bit the parameters of one call of 200 steps.

Model: 2 inputs -> hidden layers (tanh | relu | sigmoid) -> one logit per class, trained with
cross-entropy on the logits (``F.cross_entropy``), also for 2 classes (2 logits, not 1 logit +
BCE): one loss, one boundary rule (softmax) and the 2-16-16-2 shape the lessons use.
"""

from __future__ import annotations

import base64
import binascii
import functools
import itertools
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import backend, data
from engine.autograd import record_passes
from engine.factories import tensor
from engine.functions import relu, sigmoid, tanh
from engine.nn import functional as F
from engine.optim import SGD, Adam
from engine.tensor import Tensor
from server.settings import Settings
from server.train_schemas import ArrayData, TrainRequest, TrainState

Array = np.ndarray


class SpecError(ValueError):
    """A training spec that cannot run as given (answered with a 422 naming the reason)."""


# ---- the model as arrays ---------------------------------------------------------------------

ENGINE_ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {
    "tanh": tanh,
    "relu": relu,
    "sigmoid": sigmoid,
}


def _np_sigmoid(z: Array) -> Array:
    return np.asarray(0.5 * (np.tanh(0.5 * z) + 1.0))  # stable for large |z|


NUMPY_ACTIVATIONS: dict[str, Callable[[Array], Array]] = {
    "tanh": np.tanh,
    "relu": lambda z: np.maximum(z, 0),
    "sigmoid": _np_sigmoid,
}


def layer_sizes(hidden: list[int], classes: int) -> list[int]:
    return [2, *hidden, classes]


def parameter_count(sizes: list[int]) -> int:
    return sum((a + 1) * b for a, b in itertools.pairwise(sizes))


def initial_parameters(sizes: list[int], seed: int) -> list[Array]:
    """PyTorch's nn.Linear init (uniform in ±1/sqrt(fan_in)) from a seeded NumPy generator.

    A private generator (not the engine's global one) keeps concurrent requests independent.
    """
    rng = np.random.default_rng([seed, 7])
    params: list[Array] = []
    for fan_in, fan_out in itertools.pairwise(sizes):
        bound = 1.0 / math.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, size=(fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, size=(fan_out,)).astype(np.float32))
    return params


def predict_proba(params: list[Array], activation: str, x: Array) -> Array:
    """Class probabilities (softmax of the logits) of one model, in NumPy: no graph needed."""
    return predict_proba_stacked([p[None] for p in params], activation, x)[0]


def predict_proba_stacked(stacked: list[Array], activation: str, x: Array) -> Array:
    """Class probabilities of B models at once: ``stacked[i]`` is parameter i of every model
    (weights (B, out, in), biases (B, out)); returns (B, len(x), classes).

    np.matmul runs one BLAS call per model of the stack, and the other operations are
    elementwise or per row, so a model's probabilities are the same bits however many models
    share the stack: evaluating the 10 steps of a call together equals evaluating each alone.
    """
    act = NUMPY_ACTIVATIONS[activation]
    h = x
    last = len(stacked) - 2
    for i in range(0, len(stacked), 2):
        h = np.matmul(h, stacked[i].transpose(0, 2, 1)) + stacked[i + 1][:, None, :]
        if i < last:
            h = act(h)
    return _softmax(h)


def _softmax(z: Array) -> Array:
    """Softmax over the last axis (the classes), a column at a time.

    NumPy reduces over a short last axis ~30x slower than it combines columns; the max and the
    sum below are the bits ``z.max(-1)`` and ``z.sum(-1)`` give (see _class_sum).
    """
    classes = z.shape[-1]
    top = functools.reduce(np.maximum, [z[..., j] for j in range(classes)])
    e = np.exp(z - top[..., None])
    return np.asarray(e / _class_sum(e)[..., None])


def _class_sum(e: Array) -> Array:
    """``e.sum(-1)`` in NumPy's order: left to right under 8 terms, its pairwise tree at 8."""
    c = [e[..., j] for j in range(e.shape[-1])]
    if len(c) < 8:
        return functools.reduce(np.add, c)
    if len(c) == 8:
        return ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]))
    return np.asarray(e.sum(axis=-1))


def history_rows(probs: Array, y: Array, n_train: int, steps: list[int]) -> list[dict[str, Any]]:
    """History rows from the probabilities (B, n_train + n_test, classes) of B models."""
    picked = probs[:, np.arange(y.shape[0]), y].astype(np.float64)
    nll = -np.log(np.maximum(picked, 1e-30))
    correct = probs.argmax(axis=2) == y
    n_test = y.shape[0] - n_train
    train_loss, train_acc = _split_means(nll, correct, 0, n_train)
    test_loss, test_acc = _split_means(nll, correct, n_train, y.shape[0])
    return [
        {
            "step": step,
            "train_loss": _finite(train_loss[b]) if n_train else None,
            "test_loss": _finite(test_loss[b]) if n_test else None,
            "train_acc": train_acc[b] if n_train else None,
            "test_acc": test_acc[b] if n_test else None,
        }
        for b, step in enumerate(steps)
    ]


def _split_means(nll: Array, correct: Array, lo: int, hi: int) -> tuple[list[float], list[float]]:
    """Mean loss and accuracy of rows lo:hi for every model: each model's mean is NumPy's 1-D
    mean of its row (a contiguous copy reduces row by row, as a lone row would)."""
    if hi <= lo:
        return [], []
    n = hi - lo
    loss = np.ascontiguousarray(nll[:, lo:hi]).sum(axis=1) / n
    acc = np.count_nonzero(correct[:, lo:hi], axis=1) / n
    return loss.tolist(), acc.tolist()


# ---- state (de)serialisation -------------------------------------------------------------------


def encode_array(a: Any) -> dict[str, Any]:
    host = np.ascontiguousarray(backend.to_numpy(a), dtype="<f4")
    return {"shape": list(host.shape), "dtype": "float32",
            "data": base64.b64encode(host.tobytes()).decode("ascii")}  # fmt: skip


def decode_array(spec: ArrayData, shape: tuple[int, ...], what: str) -> Array:
    if tuple(spec.shape) != shape:
        raise SpecError(
            f"state does not match the model: {what} has shape {spec.shape}, "
            f"expected {list(shape)} (reset the run after changing the model)"
        )
    try:
        raw = binascii.a2b_base64(spec.data, strict_mode=True)  # b64decode's regex: 2x slower
    except ValueError as exc:
        raise SpecError(f"state: {what} is not valid base64") from exc
    if len(raw) != 4 * math.prod(shape):
        raise SpecError(f"state: {what} holds {len(raw)} bytes, expected {4 * math.prod(shape)}")
    arr = np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(shape)
    if not np.isfinite(arr).all():
        raise SpecError(f"state: {what} contains NaN or infinity")
    return arr


SLOT_KEYS = {"sgd": (), "momentum": ("momentum_buffer",), "adam": ("exp_avg", "exp_avg_sq")}


# ---- the trainer -------------------------------------------------------------------------------

#: Floats of activations (or of parameter snapshots) one evaluation pass may hold.
EVAL_ELEMENTS = 1 << 20
#: Trainer.estimated_ms: microseconds of a step's fixed (Python) cost, and parameters x
#: samples a microsecond of NumPy gets through (measured: 200 µs and 5,000-7,000).
STEP_US = 250
TOUCHED_PER_US = 4_000
#: Runs expected to take up to this long run on the event loop rather than in a thread.
INLINE_MS = 5.0


def check_budgets(
    req: TrainRequest, settings: Settings, max_steps: int, n_samples: int, classes: int
) -> list[int]:
    """The layer sizes, after checking every budget; SpecError names the one exceeded."""
    sizes = layer_sizes(req.model.hidden, classes)
    n_params = parameter_count(sizes)
    if n_params > settings.max_train_parameters:
        raise SpecError(
            f"the model has {n_params} parameters; the limit is "
            f"max_train_parameters={settings.max_train_parameters}"
        )
    if req.steps > max_steps:
        limit = (
            "max_train_steps_per_call"
            if max_steps == settings.max_train_steps_per_call
            else "max_stream_steps"
        )
        raise SpecError(f"steps={req.steps} is over the limit {limit}={max_steps} (steps per call)")
    if req.grid > settings.max_boundary_grid:
        raise SpecError(
            f"grid={req.grid} is over the limit max_boundary_grid={settings.max_boundary_grid}"
        )
    cost = n_params * (min(req.batch_size, n_samples) + n_samples)
    if cost > settings.max_train_step_cost:
        raise SpecError(
            f"parameters x (batch + samples) = {cost} per step is over the limit "
            f"max_train_step_cost={settings.max_train_step_cost}"
        )
    return sizes


class Trainer:
    """One call's training session: builds tensors from the request, advances, reports."""

    def __init__(self, req: TrainRequest, settings: Settings, max_steps: int) -> None:
        t0 = time.perf_counter()
        self.req = req
        ds = req.dataset
        try:
            self.data = _dataset(
                ds.name,
                ds.n_samples,
                ds.noise,
                ds.test_fraction,
                ds.seed,
                ds.classes,
                [list(p) for p in ds.points],
            )
        except ValueError as exc:
            raise SpecError(str(exc)) from exc
        n_all = self.data.n_train + self.data.n_test
        self.sizes = check_budgets(req, settings, max_steps, n_all, self.data.classes)
        try:
            self.device = backend.parse_device(req.device)
        except (RuntimeError, TypeError) as exc:
            raise SpecError(f"device {req.device!r}: {exc}") from exc
        self.activation = req.model.activation
        state = req.state
        if state is not None and state.layers != self.sizes:
            raise SpecError(
                f"state does not match the model: its layers are {state.layers}, "
                f"the model's are {self.sizes} (reset the run after changing it)"
            )
        host = self._restore_params(state) if state else initial_parameters(self.sizes, req.seed)
        self.step = state.step if state else 0
        self.params = [tensor(p, device=self.device, requires_grad=True) for p in host]
        names = [f"{kind}{i // 2 + 1}" for i, kind in enumerate(["W", "b"] * (len(host) // 2))]
        for p, name in zip(self.params, names, strict=True):
            p._name = name
        self.optimizer = self._make_optimizer(state)
        self.batch = min(req.batch_size, self.data.n_train)
        self._perm_epoch = -1
        self._perm: Array = np.arange(0)
        self._full: tuple[Tensor, Tensor] | None = None
        self.graph: dict[str, Any] | None = None
        self.program: str | None = None
        self.setup_ms = round((time.perf_counter() - t0) * 1000, 3)

    def estimated_ms(self) -> float:
        """A rough (high) guess of the run's milliseconds on one core: a fixed cost per step,
        and parameters x samples touched by the steps (batch and evaluation) and the grid."""
        n_params = parameter_count(self.sizes)
        per_step = n_params * (self.batch + self.data.x_all.shape[0])
        touched = self.req.steps * per_step + n_params * self.req.grid**2
        return (self.req.steps * STEP_US + touched / TOUCHED_PER_US) / 1000

    # -- restore / make -------------------------------------------------------------------------

    def _shapes(self) -> list[tuple[int, ...]]:
        shapes: list[tuple[int, ...]] = []
        for a, b in itertools.pairwise(self.sizes):
            shapes += [(b, a), (b,)]
        return shapes

    def _restore_params(self, state: TrainState) -> list[Array]:
        shapes = self._shapes()
        if len(state.params) != len(shapes):
            raise SpecError(
                f"state holds {len(state.params)} parameter arrays, the model has {len(shapes)}"
            )
        return [
            decode_array(a, s, f"params[{i}]")
            for i, (a, s) in enumerate(zip(state.params, shapes, strict=True))
        ]

    def _make_optimizer(self, state: TrainState | None) -> SGD | Adam:
        spec = self.req.optimizer
        opt: SGD | Adam
        if spec.name == "adam":
            opt = Adam(self.params, lr=spec.lr, betas=spec.betas, weight_decay=spec.weight_decay)
        else:
            momentum = spec.momentum if spec.name == "momentum" else 0.0
            opt = SGD(self.params, lr=spec.lr, momentum=momentum, weight_decay=spec.weight_decay)
        # Buffers carry over only to the same optimizer: switching mid-run starts it fresh.
        if state is None or state.optimizer != spec.name or not state.slots:
            return opt
        if len(state.slots) != len(self.params):
            raise SpecError(
                f"state holds {len(state.slots)} optimizer slots, the model has "
                f"{len(self.params)} parameters"
            )
        for i, (p, slot) in enumerate(zip(self.params, state.slots, strict=True)):
            restored: dict[str, Any] = {}
            for key in SLOT_KEYS[spec.name]:
                value = slot.get(key)
                if not isinstance(value, ArrayData):
                    raise SpecError(f"state: optimizer slot {i} lacks {key!r}")
                arr = decode_array(value, tuple(p.shape), f"slots[{i}].{key}")
                restored[key] = backend.move(arr, self.device)
            if spec.name == "adam":
                step = slot.get("step")
                if not isinstance(step, int) or step < 1:
                    raise SpecError(f"state: optimizer slot {i} lacks a positive 'step'")
                restored["step"] = step
            opt.state[id(p)] = restored
        return opt

    # -- training -------------------------------------------------------------------------------

    def batch_indices(self, step: int) -> Array:
        """Rows of the training set used by step ``step`` (0-based): epochs of shuffled batches."""
        n, b = self.data.n_train, self.batch
        if b >= n:
            return np.arange(n)
        per_epoch = -(-n // b)
        epoch, k = divmod(step, per_epoch)
        if epoch != self._perm_epoch:
            self._perm = np.random.default_rng([self.req.seed, 11, epoch]).permutation(n)
            self._perm_epoch = epoch
        return self._perm[k * b : (k + 1) * b]

    def _forward(self, x: Tensor) -> Tensor:
        act = ENGINE_ACTIVATIONS[self.activation]
        h = x
        n_layers = len(self.params) // 2
        for i in range(n_layers):
            h = F.linear(h, self.params[2 * i], self.params[2 * i + 1])
            if i < n_layers - 1:
                h = act(h)
                h._name = f"h{i + 1}"
        h._name = "logits"
        return h

    def _train_step(self, record: bool) -> None:
        rows = self.batch_indices(self.step)
        if rows.shape[0] == self.data.n_train:
            if self._full is None:  # made on first use: most runs take minibatches
                self._full = (
                    tensor(self.data.x_train, device=self.device),
                    tensor(self.data.y_train, device=self.device),
                )
            xb, yb = self._full
        else:
            xb = tensor(self.data.x_train[rows], device=self.device)
            yb = tensor(self.data.y_train[rows], device=self.device)
        if record:
            self.program = self._program(rows)
            xb._name, yb._name = "X", "y"
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self._forward(xb), yb)
        loss._name = "loss"
        if record:
            with record_passes(max_passes=1) as log:
                loss.backward()
            self.graph = log.graphs[-1] if log.graphs else None
        else:
            loss.backward()
        self.optimizer.step()
        self.step += 1

    def host_params(self) -> list[Array]:
        return [backend.to_numpy(p._data) for p in self.params]

    def evaluate(self) -> dict[str, Any]:
        """The history row for the current parameters: full train and test sets."""
        return self.evaluate_stacked([p[None] for p in self.host_params()], [self.step])[0]

    def evaluate_stacked(self, stacked: list[Array], steps: list[int]) -> list[dict[str, Any]]:
        """History rows of several snapshots of the parameters (``stacked[i]``: parameter i of
        each), in one NumPy forward pass over train and test together."""
        d = self.data
        probs = predict_proba_stacked(stacked, self.activation, d.x_all)
        return history_rows(probs, d.y_all, d.n_train, steps)

    def snapshots_per_pass(self) -> int:
        """How many parameter snapshots one evaluation pass takes: a call's steps, within
        EVAL_ELEMENTS floats of activations and of snapshots."""
        widest = max(self.sizes)
        per_model = max(self.data.x_all.shape[0] * widest, parameter_count(self.sizes))
        return max(1, EVAL_ELEMENTS // per_model)

    def advance(self, steps: int, record_last: bool = False) -> list[dict[str, Any]]:
        """Take ``steps`` steps; one history row per step (the graph of the last if asked).

        Each row is the full train and test sets under the parameters after its step. The
        steps copy their parameters into a stack and the stack is evaluated in one pass
        (batched matmuls) instead of a forward pass per step: the same bits, far fewer NumPy
        calls (see predict_proba_stacked).
        """
        rows: list[dict[str, Any]] = []
        group = min(steps, self.snapshots_per_pass())
        stacked = [np.empty((group, *p.shape), np.float32) for p in self.params]
        taken: list[int] = []
        for i in range(steps):
            self._train_step(record=record_last and i == steps - 1)
            for buf, p in zip(stacked, self.params, strict=True):
                buf[len(taken)] = backend.to_numpy(p._data)
            taken.append(self.step)
            if len(taken) == group or i == steps - 1:
                rows += self.evaluate_stacked([b[: len(taken)] for b in stacked], taken)
                taken = []
        return rows

    # -- reporting ------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        slots: list[dict[str, Any]] = []
        name = self.req.optimizer.name
        for p in self.params:
            st = self.optimizer.state_of(p)
            slot: dict[str, Any] = {k: encode_array(st[k]) for k in SLOT_KEYS[name] if k in st}
            if name == "adam" and "step" in st:
                slot["step"] = int(st["step"])
            slots.append(slot)
        has_slots = any(slots)
        return {
            "version": 1,
            "step": self.step,
            "layers": self.sizes,
            "params": [encode_array(p._data) for p in self.params],
            "optimizer": name if has_slots else None,
            "slots": slots if has_slots else [],
        }

    def boundary(self) -> dict[str, Any]:
        n = self.req.grid
        probs = predict_proba(self.host_params(), self.activation, _grid(self.data.extent, n))
        if not np.isfinite(probs).all():
            probs = np.nan_to_num(probs, nan=1.0 / self.data.classes)
        return {
            "extent": list(self.data.extent),
            "size": n,
            "probs": np.round(probs.reshape(n, n, -1), 3),
        }

    def points(self) -> dict[str, Any]:
        d = self.data

        def rows(x: Array, y: Array) -> Array:
            return np.concatenate([np.round(x.astype(np.float64), 4), y[:, None]], axis=1)

        return {
            "classes": d.classes,
            "extent": list(d.extent),
            "train": rows(d.x_train, d.y_train).tolist(),
            "test": rows(d.x_test, d.y_test).tolist(),
        }

    def result(self, history: list[dict[str, Any]], timing: dict[str, float]) -> dict[str, Any]:
        if not history:
            history = [self.evaluate()]
        t0 = time.perf_counter()
        out = {
            "history": history,
            "state": self.state(),
            "boundary": self.boundary(),
            "classes": self.data.classes,
            "parameters": parameter_count(self.sizes),
            "device": str(self.device),
            "graph": self.graph,
            "program": self.program,
            "data": self.points() if self.req.include_data else None,
            "timing_ms": timing,
        }
        timing["report"] = round((time.perf_counter() - t0) * 1000, 3)
        return out

    def _program(self, rows: Array) -> str:
        """This step as a PyTorch program: the playground runs it and shows the same graph."""
        act = {"tanh": "torch.tanh", "relu": "torch.relu", "sigmoid": "torch.sigmoid"}[
            self.activation
        ]
        params = self.host_params()
        shape = "-".join(str(s) for s in self.sizes)
        lines = [
            "import torch",
            "import torch.nn.functional as F",
            "",
            f"# Training step {self.step + 1}: a {shape} {self.activation} MLP, a batch of "
            f"{rows.shape[0]}, the weights before this step's update.",
            f"X = torch.tensor({_floats(self.data.x_train[rows])})",
            f"y = torch.tensor({self.data.y_train[rows].tolist()})",
        ]
        n_layers = len(params) // 2
        for i in range(n_layers):
            lines.append(f"W{i + 1} = torch.tensor({_floats(params[2 * i])}, requires_grad=True)")
            lines.append(
                f"b{i + 1} = torch.tensor({_floats(params[2 * i + 1])}, requires_grad=True)"
            )
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


class TrainData:
    """A dataset as training and evaluation use it: the splits and both of them together."""

    def __init__(self, ds: data.Dataset) -> None:
        self.x_train, self.y_train, self.x_test, self.y_test = (
            ds.x_train, ds.y_train, ds.x_test, ds.y_test
        )  # fmt: skip
        self.classes, self.extent = ds.classes, ds.extent
        self.n_train, self.n_test = ds.n_train, ds.n_test
        self.x_all = np.concatenate([ds.x_train, ds.x_test])
        self.y_all = np.concatenate([ds.y_train, ds.y_test])
        for arr in (self.x_train, self.y_train, self.x_test, self.y_test, self.x_all, self.y_all):
            arr.flags.writeable = False  # shared between requests


@functools.lru_cache(maxsize=64)
def _cached_dataset(
    name: str | None, n: int, noise: float, split: float, seed: int, classes: int,
    points: tuple[tuple[float, float, int], ...],
) -> TrainData:  # fmt: skip
    return TrainData(data.make(name, n, noise, split, seed, classes, [list(p) for p in points]))


@functools.lru_cache(maxsize=64)
def _grid(extent: tuple[float, float, float, float], n: int) -> Array:
    """Centres of the n x n boundary cells as (x, y) rows, row 0 at the top (cached)."""
    x0, x1, y0, y1 = extent
    xs = x0 + (np.arange(n) + 0.5) * (x1 - x0) / n
    ys = y1 - (np.arange(n) + 0.5) * (y1 - y0) / n
    gx, gy = np.meshgrid(xs, ys)
    grid = np.stack([gx.ravel(), gy.ravel()], axis=1).astype(np.float32)
    grid.flags.writeable = False
    return grid


def _dataset(
    name: str | None, n: int, noise: float, split: float, seed: int, classes: int,
    points: list[list[float]],
) -> TrainData:  # fmt: skip
    """data.make, cached: a playing page asks for the same dataset every call."""
    key = tuple((float(x), float(y), int(label)) for x, y, label in points)
    return _cached_dataset(name, n, noise, split, seed, classes, key)


def _finite(v: float | None) -> float | None:
    return v if v is None or math.isfinite(v) else None


def _floats(a: Array) -> str:
    """A nested list of float32 numbers, each in the shortest text that reads back exactly."""
    if a.ndim == 0:
        return np.format_float_positional(np.float32(a), unique=True, trim="0")
    return "[" + ", ".join(_floats(x) for x in a) + "]"


def train(req: TrainRequest, settings: Settings) -> dict[str, Any]:
    """POST /api/v1/train: build, advance ``req.steps``, report."""
    return run(Trainer(req, settings, settings.max_train_steps_per_call))


def run(trainer: Trainer) -> dict[str, Any]:
    """Advance a new trainer by its request's ``steps`` and report."""
    t1 = time.perf_counter()
    history = trainer.advance(trainer.req.steps, record_last=trainer.req.include_graph)
    t2 = time.perf_counter()
    timing = {"setup": trainer.setup_ms, "train": round((t2 - t1) * 1000, 3)}
    return trainer.result(history, timing)
