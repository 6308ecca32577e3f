"""Devices: the backend's choice of array module, clear CUDA errors, and GPU parity (marked)."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine import backend

needs_gpu = pytest.mark.skipif(
    not backend.cuda_is_available(), reason=f"no CUDA here: {backend.cuda_unavailable_reason()}"
)


def test_cpu_is_numpy() -> None:
    assert backend.parse_device("cpu").xp is np
    assert str(engine.zeros(2).device) == "cpu"


def test_cuda_unavailable_names_why() -> None:
    if backend.cuda_is_available():
        pytest.skip("CUDA is available here")
    with pytest.raises(backend.DeviceUnavailableError, match="CUDA is not available: "):
        engine.zeros(2, device="cuda")
    cuda = next(d for d in backend.devices() if d["name"] == "cuda")
    assert cuda["available"] is False and cuda["reason"]
    assert engine.cuda.is_available() is False


def test_bad_device_strings() -> None:
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        backend.parse_device("tpu")


def test_default_device_is_restored_per_request() -> None:
    engine.set_default_device("cpu")
    assert engine.get_default_device().type == "cpu"


def test_gpu_check_script_runs_with_the_cpu_standing_in() -> None:
    """The prepared GPU script (bench/gpu_check.py) must keep working where no GPU exists."""
    from bench import gpu_check

    passed, failed = gpu_check.op_parity("cpu")
    assert failed == 0 and passed > 100


@pytest.mark.gpu
@needs_gpu
def test_op_table_parity_on_cuda() -> None:
    from bench import gpu_check

    _, failed = gpu_check.op_parity("cuda")
    assert failed == 0


@pytest.mark.gpu
@needs_gpu
def test_training_step_on_cuda_matches_cpu() -> None:
    results = []
    for dev in ("cpu", "cuda"):
        engine.manual_seed(0)
        model = engine.nn.Sequential(
            engine.nn.Linear(2, 8), engine.nn.Tanh(), engine.nn.Linear(8, 2)
        ).to(dev)
        opt = engine.optim.Adam(model.parameters(), lr=0.01)
        x = engine.tensor(
            np.random.default_rng(0).normal(size=(32, 2)), dtype=engine.float32, device=dev
        )
        y = engine.tensor(np.arange(32) % 2, device=dev)
        for _ in range(5):
            opt.zero_grad()
            engine.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        results.append([p.detach().cpu().numpy() for p in model.parameters()])
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
