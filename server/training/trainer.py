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

import itertools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import backend
from engine.factories import tensor
from engine.functions import relu, sigmoid, tanh
from engine.nn import functional as F
from engine.optim import SGD, Adam
from engine.tensor import Tensor
from recorder import record_passes
from server.settings import Settings
from server.training.codec import SLOT_KEYS, decode_array, encode_array
from server.training.datasets import dataset, grid
from server.training.errors import SpecError
from server.training.model import (
    history_rows,
    initial_parameters,
    layer_sizes,
    parameter_count,
    predict_proba,
    predict_proba_stacked,
)
from server.training.program import step_program
from server.training.schemas import ArrayData, TrainRequest, TrainState
from server.training.worker import StepClock, wall_clock_s

Array = np.ndarray

ENGINE_ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {
    "tanh": tanh,
    "relu": relu,
    "sigmoid": sigmoid,
}


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
            self.data = dataset(
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

    def estimated_ms(self, steps: int | None = None) -> float:
        """A rough (high) guess of the milliseconds on one core of ``steps`` steps (the
        request's by default) and a report: a fixed cost per step, and parameters x samples
        touched by the steps (batch and evaluation) and the grid."""
        steps = self.req.steps if steps is None else steps
        n_params = parameter_count(self.sizes)
        per_step = n_params * (self.batch + self.data.x_all.shape[0])
        touched = steps * per_step + n_params * self.req.grid**2
        return (steps * STEP_US + touched / TOUCHED_PER_US) / 1000

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

    def advance(
        self, steps: int, record_last: bool = False, clock: StepClock | None = None
    ) -> list[dict[str, Any]]:
        """Take ``steps`` steps; one history row per step (the graph of the last if asked).
        With a ``clock``, stop between steps once it says so (its wall clock ran out, or the
        client went away): fewer rows, and the state after the last step taken.

        Each row is the full train and test sets under the parameters after its step. The
        steps copy their parameters into a stack and the stack is evaluated in one pass
        (batched matmuls) instead of a forward pass per step: the same bits, far fewer NumPy
        calls (see predict_proba_stacked).
        """
        self.graph = self.program = None  # a report covers this call's steps only
        rows: list[dict[str, Any]] = []
        group = max(1, min(steps, self.snapshots_per_pass()))
        stacked = [np.empty((group, *p.shape), np.float32) for p in self.params]
        taken: list[int] = []
        for i in range(steps):
            if clock is not None and clock.should_stop(first=i == 0):
                break  # between two steps: what was taken is evaluated and reported
            self._train_step(record=record_last and i == steps - 1)
            for buf, p in zip(stacked, self.params, strict=True):
                buf[len(taken)] = backend.to_numpy(p._data)
            taken.append(self.step)
            if len(taken) == group:
                rows += self.evaluate_stacked([b[: len(taken)] for b in stacked], taken)
                taken = []
        if taken:
            rows += self.evaluate_stacked([b[: len(taken)] for b in stacked], taken)
        return rows

    # -- reporting ------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The TrainState to carry: parameters, this optimizer's buffers, the step count."""
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
        """Class probabilities on the grid's cell centres (a Boundary)."""
        n = self.req.grid
        probs = predict_proba(self.host_params(), self.activation, grid(self.data.extent, n))
        if not np.isfinite(probs).all():
            probs = np.nan_to_num(probs, nan=1.0 / self.data.classes)
        return {
            "extent": list(self.data.extent),
            "size": n,
            "probs": np.round(probs.reshape(n, n, -1), 3),
        }

    def points(self) -> dict[str, Any]:
        """The dataset's points (DatasetPoints), rounded for the wire."""
        d = self.data

        def rows(x: Array, y: Array) -> Array:
            return np.concatenate([np.round(x.astype(np.float64), 4), y[:, None]], axis=1)

        return {
            "classes": d.classes,
            "extent": list(d.extent),
            "train": rows(d.x_train, d.y_train).tolist(),
            "test": rows(d.x_test, d.y_test).tolist(),
        }

    def result(
        self,
        history: list[dict[str, Any]],
        timing: dict[str, float],
        include_data: bool | None = None,
        clock: StepClock | None = None,
        asked: int | None = None,
    ) -> dict[str, Any]:
        """The TrainResponse for ``history`` (the current model evaluated if it is empty);
        ``include_data`` overrides the request's. With the ``clock`` the steps ran under and
        the steps ``asked`` for, it says whether (and why) the steps stopped early."""
        if include_data is None:
            include_data = self.req.include_data
        steps_done = len(history)
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
            "data": self.points() if include_data else None,
            "timing_ms": timing,
            **self.stop_report(clock, self.req.steps if asked is None else asked, steps_done),
        }
        timing["report"] = round((time.perf_counter() - t0) * 1000, 3)
        return out

    def stop_report(self, clock: StepClock | None, asked: int, done: int) -> dict[str, Any]:
        """``steps_done``, and whether the wall clock cut the call short (``truncated``,
        ``stopped``) with a ``notice`` saying so, or saying that the run was estimated to
        need more than the clock allows (it runs until the clock, never refused for it)."""
        truncated = clock is not None and clock.reason == "wall_clock" and done < asked
        notices: list[str] = []
        if clock is not None:
            budget = f"the wall-clock budget train_wall_clock_s={clock.budget_s:g} s"
            if truncated:
                notices.append(
                    f"stopped by {budget} after {done} of {asked} steps; send `state` back "
                    "to continue from there"
                )
            estimate_s = self.estimated_ms(asked) / 1000
            if estimate_s > clock.budget_s:
                notices.append(
                    f"{asked} steps of this model and data were estimated at "
                    f"{estimate_s:.1f} s, over {budget}: such a run takes steps until the "
                    "clock runs out and then answers with what it has done"
                )
        return {
            "steps_done": done,
            "truncated": truncated,
            "stopped": "wall_clock" if truncated else None,
            "notice": "; ".join(notices) or None,
        }

    def _program(self, rows: Array) -> str:
        """This step as a PyTorch program: the playground runs it and shows the same graph."""
        return step_program(
            self.step + 1,
            self.sizes,
            self.activation,
            self.data.x_train[rows],
            self.data.y_train[rows],
            self.host_params(),
        )


def train(req: TrainRequest, settings: Settings) -> dict[str, Any]:
    """POST /api/v1/train: build, advance ``req.steps`` (within the wall clock), report."""
    trainer = Trainer(req, settings, settings.max_train_steps_per_call)
    return run(trainer, StepClock(wall_clock_s(settings)))


def run(trainer: Trainer, clock: StepClock | None = None) -> dict[str, Any]:
    """Advance a new trainer by its request's ``steps`` (fewer if ``clock`` stops it) and
    report."""
    t1 = time.perf_counter()
    history = trainer.advance(trainer.req.steps, trainer.req.include_graph, clock)
    t2 = time.perf_counter()
    timing = {"setup": trainer.setup_ms, "train": round((t2 - t1) * 1000, 3)}
    return trainer.result(history, timing, clock=clock)
