"""torch.randn in float32 is ATen's to the bit, so a float64 lesson on `randn(...).double()`
data prints PyTorch's float64 numbers; and mixed dtypes into a convolution are refused as
PyTorch refuses them (issue 41: a float64 LeNet drifted from PyTorch's by 6e-4 in accuracy,
and a float32 input ran through a float64 Conv2d)."""

from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np
import pytest

import engine
from tests.tolerances import LIBRARY_FUNCTION, close

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

#: ATen runs float32 Box-Muller through avx_mathfun's polynomials where it dispatches to AVX2
#: or AVX-512 (every x86-64 CPU of the last decade); its DEFAULT kernels call libm instead,
#: whose last bit is its own (tests/matrix.py forces that configuration)
VECTOR_KERNELS = torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")


@pytest.mark.parametrize("seed", [0, 1, 42, 2147483647])
@pytest.mark.parametrize("n", [16, 17, 40, 1000, 3136, 50_000])
def test_float32_randn_is_atens(seed: int, n: int) -> None:
    torch.manual_seed(seed)
    theirs = torch.randn(n).numpy()
    engine.manual_seed(seed)
    ours = engine.randn(n).numpy()
    if VECTOR_KERNELS:
        np.testing.assert_array_equal(ours.view(np.uint32), theirs.view(np.uint32))
    else:
        np.testing.assert_allclose(ours, theirs, **close(LIBRARY_FUNCTION, scale=4.0))


def test_normal_with_a_mean_and_a_std_and_the_stream_after_it() -> None:
    torch.manual_seed(7)
    theirs = [torch.empty(100).normal_(2.0, 3.0).numpy(), torch.rand(5).numpy()]
    engine.manual_seed(7)
    ours = [engine.empty(100).normal_(2.0, 3.0).numpy(), engine.rand(5).numpy()]
    if VECTOR_KERNELS:
        np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])  # the stream stays aligned


LENET_FLOAT64 = """
torch.manual_seed(0)
X = torch.randn(192, 1, 28, 28).double()
y = torch.randint(0, 10, (192,))
loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)
net = nn.Sequential(
    nn.Conv2d(1, 6, 5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2, 2),
    nn.Conv2d(6, 16, 5), nn.Sigmoid(), nn.MaxPool2d(2, 2), nn.Flatten(),
    nn.Linear(400, 120), nn.ReLU(), nn.Dropout(0.1), nn.Linear(120, 84), nn.Sigmoid(),
    nn.Linear(84, 10),
).double()
opt = torch.optim.Adam(net.parameters(), lr=0.003, weight_decay=1e-4)
for epoch in range(2):
    total, right = 0.0, 0
    for xb, yb in loader:
        opt.zero_grad()
        out = net(xb)
        loss = nn.functional.cross_entropy(out, yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(yb)
        right += (out.argmax(dim=1) == yb).sum().item()
    print(f"{total / 192:.14f} {right / 192:.4f}")
"""


def _run(lib: Any) -> str:
    namespace: dict[str, Any] = {
        "torch": lib, "nn": lib.nn, "DataLoader": lib.utils.data.DataLoader,
        "TensorDataset": lib.utils.data.TensorDataset,
    }  # fmt: skip
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(LENET_FLOAT64, namespace)
    return out.getvalue()


@pytest.mark.skipif(not VECTOR_KERNELS, reason="its data come from ATen's vector kernels")
def test_a_float64_lenet_on_randn_data_prints_pytorchs_float64_numbers() -> None:
    """Two epochs of a float64 LeNet (Adam, weight decay, dropout, a shuffled loader): 14
    decimals of the loss agree (float64 rounding differs only in summation order: ~1e-16 a
    step, far under the last printed digit after 12 steps of Adam)."""
    torch.set_num_threads(1)
    ours, theirs = _run(engine), _run(torch)
    assert ours == theirs


#: a convolution fed mixed dtypes, as a function of the library (the engine, or PyTorch)
MIXED: dict[str, Any] = {
    "float32 into a float64 Conv2d": lambda T: T.nn.Conv2d(1, 2, 3).double()(T.randn(1, 1, 5, 5)),
    "float64 into a float32 Conv2d": lambda T: T.nn.Conv2d(1, 2, 3)(T.randn(1, 1, 5, 5).double()),
    "float32 into a float64 Conv2d without bias": lambda T: T.nn.Conv2d(
        1, 2, 3, bias=False
    ).double()(T.randn(1, 1, 5, 5)),
    "float64 into a float32 Conv2d without bias": lambda T: T.nn.Conv2d(1, 2, 3, bias=False)(
        T.randn(1, 1, 5, 5).double()
    ),
    "a float64 bias": lambda T: T.nn.functional.conv2d(
        T.randn(1, 1, 5, 5), T.randn(2, 1, 3, 3), T.randn(2).double()
    ),
    "float32 into a float64 Conv1d": lambda T: T.nn.Conv1d(1, 2, 3).double()(T.randn(1, 1, 5)),
}


@pytest.mark.parametrize("case", list(MIXED))
def test_mixed_dtypes_into_a_convolution_are_refused_as_pytorch_refuses_them(case: str) -> None:
    def error(lib: Any) -> str:
        with pytest.raises(RuntimeError) as raised:
            MIXED[case](lib)
        return str(raised.value).splitlines()[0]

    assert error(engine) == error(torch)
