"""Pydantic models of /api/v1/train, /train/stream and /train/live (docs/architecture.md, "API contract").

Static bounds live here (field limits); the budgets an operator may tune (parameters, steps per
call, grid size, cost per step) live in settings and are checked by the trainer
(server/training/trainer.py), which refuses an oversized spec with a 422 naming the limit.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from server.schemas import Graph
from server.training import toydata as data

DatasetName = Literal["linear", "xor", "circles", "moons", "spiral", "blobs", "gaussians"]
MAX_SAMPLES = 5_000
MAX_POINTS = 2_000
MAX_LAYERS = 8
MAX_WIDTH = 256


class DatasetSpec(BaseModel):
    """A named toy dataset (plus optional user points), or user points alone."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"name": "moons", "n_samples": 200, "noise": 0.1, "test_fraction": 0.3, "seed": 0},
                {"name": "spiral", "classes": 3, "n_samples": 300, "noise": 0.05},
                {"points": [[0.5, 0.5, 0], [-0.5, -0.5, 1], [0.4, -0.3, 0], [-0.2, 0.6, 1]]},
            ]
        },
    )

    name: DatasetName | None = Field(
        default=None, description="A generated dataset; omit it to train on `points` alone."
    )
    n_samples: int = Field(default=200, ge=4, le=MAX_SAMPLES)
    noise: float = Field(
        default=0.1, ge=0.0, le=1.0, description="Std of the Gaussian jitter (blob spread)."
    )
    test_fraction: float = Field(default=0.3, ge=0.0, le=0.9)
    seed: int = Field(default=0, ge=0, le=2**32 - 1)
    classes: int = Field(
        default=2, ge=2, le=data.MAX_CLASSES, description="For spiral and blobs; others have 2."
    )
    points: list[tuple[float, float, int]] = Field(
        default_factory=list,
        max_length=MAX_POINTS,
        description="User points [x, y, label]: the whole dataset, or added to the training part.",
    )

    @model_validator(mode="after")
    def _consistent(self) -> DatasetSpec:
        if self.name is None and len(self.points) < 2:
            raise ValueError("give a dataset `name`, or at least 2 `points` [x, y, label]")
        binary = self.name is not None and data.canonical_name(self.name) in data.BINARY
        if binary and self.classes != 2:
            raise ValueError(f"dataset {self.name!r} has exactly 2 classes")
        limit = self.classes if self.name is not None else data.MAX_CLASSES
        for x, y, label in self.points:
            if not 0 <= label < limit:
                raise ValueError(f"point label {label} is outside 0..{limit - 1}")
            if abs(x) > 100 or abs(y) > 100:
                raise ValueError("point coordinates must lie within [-100, 100]")
        return self


class ModelSpec(BaseModel):
    """An MLP: 2 inputs, these hidden layers, one logit per class (the loss is cross-entropy)."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"hidden": [16, 16], "activation": "tanh"}]}
    )

    hidden: list[int] = Field(default_factory=lambda: [16, 16], max_length=MAX_LAYERS)
    activation: Literal["tanh", "relu", "sigmoid"] = "tanh"

    @model_validator(mode="after")
    def _widths(self) -> ModelSpec:
        for width in self.hidden:
            if not 1 <= width <= MAX_WIDTH:
                raise ValueError(f"hidden layer widths must be 1..{MAX_WIDTH} (got {width})")
        return self


class OptimizerSpec(BaseModel):
    """SGD, SGD with momentum, or Adam, with their hyperparameters."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"name": "adam", "lr": 0.03}, {"name": "sgd", "lr": 0.1}]},
    )

    name: Literal["sgd", "momentum", "adam"] = "adam"
    lr: float = Field(default=0.03, gt=0.0, le=10.0)
    momentum: float = Field(default=0.9, ge=0.0, lt=1.0, description="For `momentum` only.")
    betas: tuple[float, float] = Field(default=(0.9, 0.999), description="For `adam` only.")
    weight_decay: float = Field(default=0.0, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _betas(self) -> OptimizerSpec:
        if not all(0.0 <= b < 1.0 for b in self.betas):
            raise ValueError("betas must each be in [0, 1)")
        return self


class ArrayData(BaseModel):
    """A float32 array: little-endian bytes in base64 (exact, unlike decimal text)."""

    model_config = ConfigDict(extra="forbid")

    shape: list[int] = Field(max_length=4)
    dtype: Literal["float32"] = "float32"
    data: str = Field(max_length=1_000_000)


class TrainState(BaseModel):
    """Everything needed to continue a run: parameters, optimizer state, the step count."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    step: int = Field(ge=0, description="Steps taken so far; also fixes the minibatch order.")
    layers: list[int] = Field(max_length=MAX_LAYERS + 2, description="Layer widths, 2 ... classes.")
    params: list[ArrayData] = Field(
        max_length=2 * (MAX_LAYERS + 1), description="weight, bias of each layer in order."
    )
    optimizer: str | None = Field(default=None, description="Which optimizer `slots` belong to.")
    slots: list[dict[str, ArrayData | int]] = Field(
        default_factory=list,
        max_length=2 * (MAX_LAYERS + 1),
        description="Per parameter: momentum_buffer (momentum) or step/exp_avg/exp_avg_sq (adam).",
    )


#: TrainRequest's example, two moons: the benches and tests start from it.
MOONS_REQUEST: dict[str, Any] = {
    "dataset": {"name": "moons", "n_samples": 200, "noise": 0.1, "seed": 0},
    "model": {"hidden": [16, 16], "activation": "tanh"},
    "optimizer": {"name": "adam", "lr": 0.03},
    "batch_size": 32,
    "steps": 100,
    "seed": 0,
}


class TrainRequest(BaseModel):
    """A model, a dataset, an optimizer and how many steps; optionally the state to resume."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [MOONS_REQUEST]},
    )

    dataset: DatasetSpec = Field(default_factory=lambda: DatasetSpec(name="moons"))
    model: ModelSpec = Field(default_factory=ModelSpec)
    optimizer: OptimizerSpec = Field(default_factory=OptimizerSpec)
    batch_size: int = Field(default=32, ge=1, le=MAX_SAMPLES + MAX_POINTS)
    steps: int = Field(default=10, ge=0, le=1_000_000, description="0 only evaluates.")
    seed: int = Field(default=0, ge=0, le=2**32 - 1, description="Initial weights and batches.")
    device: str = Field(default="cpu", max_length=16, examples=["cpu", "cuda"])
    state: TrainState | None = Field(default=None, description="From a previous response.")
    grid: int = Field(default=40, ge=2, le=1_000, description="Boundary cells per side.")
    include_graph: bool = Field(default=False, description="Graph + walk of the last step.")
    include_data: bool = Field(default=False, description="Return the dataset's points.")


class HistoryRow(BaseModel):
    """Losses (mean cross-entropy) and accuracies after one step; test values null if no test set."""

    step: int
    train_loss: float | None
    test_loss: float | None
    train_acc: float | None
    test_acc: float | None


class Boundary(BaseModel):
    """Class probabilities at cell centres; row 0 is the top (y_max), column 0 the left (x_min)."""

    extent: tuple[float, float, float, float] = Field(description="x_min, x_max, y_min, y_max")
    size: int
    probs: list[list[list[float]]] = Field(description="[row][column][class]")


class DatasetPoints(BaseModel):
    classes: int
    extent: tuple[float, float, float, float]
    train: list[tuple[float, float, int]]
    test: list[tuple[float, float, int]]


class TrainResponse(BaseModel):
    """History rows of this call, the state to send back, the boundary and optional extras."""

    history: list[HistoryRow]
    state: TrainState
    boundary: Boundary
    classes: int
    parameters: int
    device: str
    graph: Graph | None = None
    program: str | None = Field(
        default=None, description="The last step as a PyTorch program (for the playground)."
    )
    data: DatasetPoints | None = None
    timing_ms: dict[str, float] = Field(default_factory=dict)
    steps_done: int = Field(
        default=0, description="Steps this call took: `steps`, or fewer when `truncated`."
    )
    truncated: bool = Field(
        default=False,
        description="The wall-clock budget (`train_wall_clock_s`) stopped the call between two "
        "steps before it took all of `steps`: `history` and `state` hold what it did (send "
        "`state` back to continue; no graph of the last step then).",
    )
    stopped: Literal["wall_clock"] | None = Field(
        default=None, description="Why the call stopped early, when `truncated`."
    )
    notice: str | None = Field(
        default=None,
        description="Says that the wall clock stopped the call, or that the run was estimated "
        "to need more time than the wall clock allows (it runs until the clock, then answers).",
    )


# ---- the live run's messages (WebSocket /api/v1/train/live, server/training/live.py) --------


class LiveStart(BaseModel):
    """(Re)start the connection's run: fresh weights if ``request.state`` is null, else resume
    from that state (a reconnecting page sends the last one it received). ``request.steps`` is
    the number of steps per update while playing."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["start"]
    run: int = Field(ge=0, le=2**53, description="The page's run number, echoed by updates.")
    request: TrainRequest
    playing: bool = False


class LiveChange(BaseModel):
    """New settings for the running model (learning rate, optimizer, batch, steps per update,
    points, device); the run keeps its parameters and ``request.state`` is ignored."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["change"]
    request: TrainRequest


class LivePlay(BaseModel):
    """Keep sending updates of ``request.steps`` steps, at most ``window`` unacknowledged."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["play"]


class LivePause(BaseModel):
    """Stop after the update in progress."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["pause"]


class LiveStep(BaseModel):
    """Pause, then take exactly one step; its update echoes ``id``."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["step"]
    id: int | None = Field(default=None, ge=0, le=2**53)
    include_graph: bool = Field(default=False, description="Graph, walk and program of it.")


class LiveAck(BaseModel):
    """The page has shown one update: the server may send one more."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["ack"]
    seq: int | None = Field(default=None, ge=0, le=2**53)


LiveClientMessage = Annotated[
    LiveStart | LiveChange | LivePlay | LivePause | LiveStep | LiveAck,
    Field(discriminator="type"),
]


class LiveUpdate(BaseModel):
    """One update: the steps taken since the last one (none for an evaluation) and the model."""

    type: Literal["update"]
    run: int
    seq: int = Field(description="Counts this connection's updates from 1.")
    id: int | None = Field(description="The `step` message's id this update answers, if any.")
    response: TrainResponse


class LiveError(BaseModel):
    """A refused message or spec, like the 422 of POST /train; the run is paused."""

    type: Literal["error"]
    run: int | None
    detail: str | list[Any]


__all__ = [
    "DatasetSpec",
    "ModelSpec",
    "OptimizerSpec",
    "TrainRequest",
    "TrainResponse",
    "TrainState",
    "LiveClientMessage",
    "LiveUpdate",
    "LiveError",
]
