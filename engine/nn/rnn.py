"""``nn.RNN`` / ``nn.LSTM`` / ``nn.GRU`` and their cells, as composites of the table's rows.

The arithmetic follows ATen's CPU implementation step for step (its order of additions
included): the input projection of a whole sequence is one matrix product, then each step
adds the hidden projection and applies the gates; outputs are stacked over time. So the
numbers are PyTorch's up to float32 rounding, the parameters are named, ordered and
initialised as PyTorch's (``weight_ih_l0``, ``bias_hh_l1_reverse``...), and every step is
an ordinary node in the graph the page draws.
"""

from __future__ import annotations

import math
from typing import Any

from engine.core import rename
from engine.dtypes import float32
from engine.factories import empty, zeros
from engine.nn import functional as F
from engine.nn import init
from engine.nn.modules import Module, Parameter
from engine.nn.rnn_ops import GRU_CELL
from engine.registry import implements
from engine.shapes import cat, stack
from engine.tensor import Tensor, apply

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNCell", "RNNBase"]

#: gates per step: their rows are stacked in the weights (PyTorch's order in the comments)
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}  # LSTM: i f g o; GRU: r z n


def _rnn_step(mode: str, igates: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    hgates = F.linear(h, w_hh, b_hh)
    if mode == "RNN_TANH":
        return (hgates + igates).tanh()
    return F.relu(hgates + igates)


def _lstm_step(
    igates: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None
) -> tuple[Tensor, Tensor]:
    gates = F.linear(h, w_hh, b_hh) + igates
    i, f, g, o = gates.chunk(4, -1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    c_next = f * c + i * g
    return o * c_next.tanh(), c_next


def _gru_step(igates: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """One GRU step from its input projection: the hidden projection, then the gates (one
    fused row, engine/nn/rnn_ops.py)."""
    return apply(GRU_CELL, (igates, F.linear(h, w_hh, b_hh), h))


@implements(GRU_CELL)
def gru_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    """``torch.gru_cell``: one GRU step of ``input`` from the hidden state ``hx``."""
    return _gru_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


class RNNBase(Module):
    """The multi-layer, optionally bidirectional recurrence shared by RNN, LSTM and GRU."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size:
            raise NotImplementedError("LSTM with proj_size is not in the playground")
        if dropout > 0 and num_layers == 1:
            import warnings

            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                UserWarning,
                stacklevel=3,
            )
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else hidden_size * directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes: list[tuple[str, tuple[int, ...]]] = [
                    ("weight_ih", (gate_size, layer_input)),
                    ("weight_hh", (gate_size, hidden_size)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                for name, shape in shapes:
                    setattr(
                        self, name + suffix, Parameter(empty(*shape, dtype=dtype, device=device))
                    )
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self) -> list[list[Parameter]]:
        per = 4 if self.bias else 2
        flat = [getattr(self, n) for n in self._flat_weights_names]
        return [flat[i : i + per] for i in range(0, len(flat), per)]

    def _weights(self, layer: int, direction: int) -> tuple[Tensor, Tensor, Any, Any]:
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        w_ih, w_hh = getattr(self, "weight_ih" + suffix), getattr(self, "weight_hh" + suffix)
        if self.bias:
            return w_ih, w_hh, getattr(self, "bias_ih" + suffix), getattr(self, "bias_hh" + suffix)
        return w_ih, w_hh, None, None

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += (
                f", dropout={self.dropout:g}"
                if self.dropout != int(self.dropout)
                else f", dropout={self.dropout}"
            )
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:
        lstm = self.mode == "LSTM"
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D "
                "tensor instead"
            )
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{input.shape[-1]}"
            )
        directions = 2 if self.bidirectional else 1
        batch = input.shape[1]
        state_shape = (self.num_layers * directions, batch, self.hidden_size)
        if hx is None:
            h0 = zeros(*state_shape, dtype=input.dtype, device=input.device)
            c0 = zeros(*state_shape, dtype=input.dtype, device=input.device) if lstm else None
        else:
            h0, c0 = hx if lstm else (hx, None)
            if not batched:
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            for name, state in (("hidden", h0), ("cell", c0)):
                if state is not None and tuple(state.shape) != state_shape:
                    label = (
                        "Expected hidden size" if name == "hidden" else "Expected hidden[1] size"
                    )
                    raise RuntimeError(f"{label} {state_shape}, got {list(state.shape)}")
        layer_input = input
        h_n: list[Tensor] = []
        c_n: list[Tensor] = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, direction)
                igates = F.linear(layer_input, w_ih, b_ih).unbind(0)  # the whole sequence at once
                order = range(len(igates)) if direction == 0 else range(len(igates) - 1, -1, -1)
                h = h0[k]
                c = c0[k] if c0 is not None else None
                steps: list[Tensor] = [None] * len(igates)  # type: ignore[list-item]
                for t in order:
                    if lstm:
                        h, c = _lstm_step(igates[t], h, c, w_hh, b_hh)  # type: ignore[arg-type]
                    elif self.mode == "GRU":
                        h = _gru_step(igates[t], h, w_hh, b_hh)
                    else:
                        h = _rnn_step(self.mode, igates[t], h, w_hh, b_hh)
                    steps[t] = h
                outputs.append(stack(steps, 0))
                h_n.append(h)
                if c is not None:
                    c_n.append(c)
            layer_input = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        output = layer_input
        if lstm and directions == 1 and output.grad_fn is not None and output.dtype == float32:
            rename(output.grad_fn, "MkldnnRnnLayerBackward0")  # PyTorch's CPU LSTM: oneDNN
        hidden = stack(h_n, 0)
        cell = stack(c_n, 0) if lstm else None
        if not batched:
            output = output.squeeze(1)
            hidden = hidden.squeeze(1)
            cell = cell.squeeze(1) if cell is not None else None
        elif self.batch_first:
            output = output.transpose(0, 1)
            if not lstm and output.grad_fn is not None:
                rename(output.grad_fn, "TransposeBackward1")  # PyTorch transposes in place
        return output, ((hidden, cell) if lstm else hidden)


class RNN(RNNBase):
    """Elman RNN: h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh) (or relu)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:  # RNN(input_size, hidden_size, num_layers, nonlinearity, ...)
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.nonlinearity = nonlinearity
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o; c' = f·c + i·g; h' = o·tanh(c')."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit: gates r, z, n; h' = (1 − z)·n + z·h."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("GRU", *args, **kwargs)


class _CellBase(Module):
    _gates = 1

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gate_size = self._gates * hidden_size
        self.weight_ih = Parameter(empty(gate_size, input_size, dtype=dtype, device=device))
        self.weight_hh = Parameter(empty(gate_size, hidden_size, dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(empty(gate_size, dtype=dtype, device=device))
            self.bias_hh = Parameter(empty(gate_size, dtype=dtype, device=device))
        else:
            self.bias_ih = None  # type: ignore[assignment]
            self.bias_hh = None  # type: ignore[assignment]
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"  # type: ignore[attr-defined]
        return s

    def _prepare(self, input: Tensor, hx: Any) -> tuple[Tensor, bool]:
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[-1]} expected "
                f"{self.input_size}"
            )
        batched = input.dim() == 2
        return (input if batched else input.unsqueeze(0)), batched

    def _zeros(self, input: Tensor) -> Tensor:
        return zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)


class RNNCell(_CellBase):
    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, batched = self._prepare(input, hx)
        h = self._zeros(x) if hx is None else (hx if batched else hx.unsqueeze(0))
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        out = _rnn_step(mode, F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh,
                        self.bias_hh)  # fmt: skip
        return out if batched else out.squeeze(0)


class LSTMCell(_CellBase):
    _gates = 4

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:
        x, batched = self._prepare(input, hx)
        if hx is None:
            h, c = self._zeros(x), self._zeros(x)
        else:
            h, c = hx if batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        igates = F.linear(x, self.weight_ih, self.bias_ih)
        h, c = _lstm_step(igates, h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(_CellBase):
    _gates = 3

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, batched = self._prepare(input, hx)
        h = self._zeros(x) if hx is None else (hx if batched else hx.unsqueeze(0))
        out = _gru_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)
