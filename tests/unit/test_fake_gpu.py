"""The CUDA code paths, run on the CPU with a stand-in CuPy (tests/unit/fake_cupy).

The fake's device arrays subclass numpy.ndarray but are not of type numpy.ndarray, and, like
CuPy, refuse host float arrays in device computations; so a NumPy-only path taken by a device
tensor shows up as a host array, a wrong device, or a TypeError. The fixture removes the fake
again afterwards, so the rest of the suite still sees no CUDA (tests/unit/test_devices.py).
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import engine
from engine import backend

FAKE_CUPY_DIR = str(Path(__file__).parent / "fake_cupy")


def _drop_fake_modules() -> None:
    for name in list(sys.modules):
        if name.split(".")[0] in ("cupy", "cupyx"):
            del sys.modules[name]


@pytest.fixture
def cupy() -> Iterator[ModuleType]:
    """The fake CuPy, importable as ``cupy`` while the test runs; CUDA is "available"."""
    _drop_fake_modules()
    backend._cupy_or_reason.cache_clear()
    sys.path.insert(0, FAKE_CUPY_DIR)
    try:
        import cupy as fake

        assert fake.__file__ is not None and fake.__file__.startswith(FAKE_CUPY_DIR)
        assert backend.cuda_is_available(), backend.cuda_unavailable_reason()
        yield fake
    finally:
        engine.set_default_device("cpu")
        sys.path.remove(FAKE_CUPY_DIR)
        _drop_fake_modules()
        backend._cupy_or_reason.cache_clear()


def _on_device(t: engine.Tensor, cupy: ModuleType) -> bool:
    return type(t._data) is cupy.ndarray and str(t.device) == "cuda:0"


def test_tensor_on_cuda_prints_and_copies_like_pytorch(cupy: ModuleType) -> None:
    t = engine.tensor([1.0, 2.0], device="cuda")
    assert _on_device(t, cupy) and t.is_cuda
    assert repr(t.device) == "device(type='cuda', index=0)"
    assert repr(t) == "tensor([1., 2.], device='cuda:0')"
    assert (
        repr(engine.tensor(3.0, device="cuda:0", requires_grad=True))
        == "tensor(3., device='cuda:0', requires_grad=True)"
    )
    for host in (t.cpu(), t.to("cpu")):
        assert type(host._data) is np.ndarray and str(host.device) == "cpu"
        assert repr(host) == "tensor([1., 2.])"
        np.testing.assert_array_equal(host.numpy(), [1.0, 2.0])
    assert _on_device(engine.tensor([1.0]).cuda(), cupy)
    assert _on_device(engine.tensor([1.0]).to("cuda"), cupy)
    assert t.tolist() == [1.0, 2.0] and t.sum().item() == 3.0
    with pytest.raises(
        TypeError,
        match=r"^can't convert cuda:0 device type tensor to numpy\. Use Tensor\.cpu\(\) to copy "
        r"the tensor to host memory first\.$",
    ):
        t.numpy()
    with pytest.raises(backend.DeviceUnavailableError, match="invalid device ordinal"):
        engine.zeros(1, device="cuda:1")


def test_mixing_devices_raises_pytorchs_error(cupy: ModuleType) -> None:
    g, c = engine.tensor([1.0, 2.0], device="cuda"), engine.tensor([1.0, 2.0])
    same = "Expected all tensors to be on the same device, but found at least two devices"
    for fn in (
        lambda: g + c,
        lambda: c * g,
        lambda: g - c.double(),  # the mixed-dtype path
        lambda: g == c,
        lambda: g @ c,
        lambda: engine.cat([g, c]),
        lambda: engine.where(g > 0, g, c),
        lambda: engine.nn.functional.mse_loss(g, c),
    ):
        with pytest.raises(RuntimeError, match=same):
            fn()
    # As in PyTorch, a 0-dim CPU tensor may join a CUDA computation (like a Python scalar).
    w = engine.tensor(2.0, requires_grad=True)
    out = (g * w).sum()
    assert _on_device(out, cupy)
    out.backward()
    assert w.grad is not None and str(w.grad.device) == "cpu" and w.grad.item() == 3.0


def test_results_and_gradients_stay_on_the_device(cupy: ModuleType) -> None:
    x = engine.tensor([1.0, -2.0, 3.0], device="cuda", requires_grad=True)
    outs = [
        x.argmax(),
        x.argmin(),
        x.max(dim=0)[1],
        engine.where(x > 0, x, 0.0),
        x[engine.tensor([0, 2], device="cuda")],
        x[[0, 2]],
        x[x > 0],
        (x > 0).any(),
    ]
    for out in outs:
        assert _on_device(out, cupy), out
    assert x.argmax().item() == 2 and x.argmin().item() == 1
    y = (x * x).sum()
    y.backward(engine.tensor(1.0, device="cuda"))
    assert x.grad is not None and _on_device(x.grad, cupy)
    np.testing.assert_allclose(x.grad.cpu().numpy(), [2.0, -4.0, 6.0])


def test_op_table_forward_and_backward_match_cpu(cupy: ModuleType) -> None:
    from bench import gpu_check

    with contextlib.redirect_stdout(io.StringIO()) as out:
        passed, failed = gpu_check.op_parity("cuda")
    failures = [line for line in out.getvalue().splitlines() if "FAIL" in line or "<!--" in line]
    assert failed == 0, failures
    assert passed > 100


def _train(dev: str) -> tuple[list[np.ndarray], list[float]]:
    engine.manual_seed(0)
    model = engine.nn.Sequential(
        engine.nn.Linear(2, 8), engine.nn.Tanh(), engine.nn.Linear(8, 2)
    ).to(dev)
    opt = engine.optim.Adam(model.parameters(), lr=0.01)
    rng = np.random.default_rng(0)
    x = engine.tensor(rng.normal(size=(32, 2)), dtype=engine.float32, device=dev)
    y = engine.tensor(np.arange(32) % 2, device=dev)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = engine.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [p.detach().cpu().numpy() for p in model.parameters()], losses


def test_mlp_adam_steps_on_cuda_match_cpu(cupy: ModuleType) -> None:
    params_cpu, losses_cpu = _train("cpu")
    params_gpu, losses_gpu = _train("cuda")
    np.testing.assert_allclose(losses_gpu, losses_cpu, rtol=1e-6)
    for a, b in zip(params_cpu, params_gpu, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)
    engine.manual_seed(0)
    model = engine.nn.Linear(2, 2).to("cuda")
    assert all(_on_device(p, cupy) for p in model.parameters())
    assert all(str(p.device) == "cpu" for p in model.cpu().parameters())


def test_default_device_cuda_makes_factories_allocate_there(cupy: ModuleType) -> None:
    engine.set_default_device("cuda")
    made = [
        engine.zeros(3),
        engine.ones(2, 2),
        engine.full((2,), 3.0),
        engine.arange(3),
        engine.linspace(0, 1, 3),
        engine.eye(2),
        engine.randn(2),
        engine.rand(2),
        engine.randint(0, 3, (2,)),
        engine.tensor([1.0]),
        engine.zeros_like(engine.zeros(2)),
        engine.Tensor(2),
        engine.FloatTensor([1, 2]),
    ]
    for t in made:
        assert _on_device(t, cupy), t
    assert str(engine.zeros(1, device="cpu").device) == "cpu"
    engine.set_default_device("cpu")
    assert str(engine.zeros(1).device) == "cpu"


def test_memory_limit_reaches_the_pool_and_synchronize_runs(cupy: ModuleType) -> None:
    backend.set_cuda_memory_limit(123_456)
    assert cupy.get_default_memory_pool().limit == 123_456
    engine.cuda.synchronize()
    assert engine.cuda.is_available() and engine.cuda.device_count() == 1


def test_devices_endpoint_reports_cuda_and_train_runs_there(cupy: ModuleType) -> None:
    from fastapi.testclient import TestClient

    from server.app import create_app
    from server.settings import Settings

    with TestClient(create_app(Settings(rate_limit_per_minute=0, sandbox_workers=1))) as client:
        r = client.get("/api/v1/devices")
        spec = {
            "dataset": {"name": "moons", "n_samples": 100, "noise": 0.1, "seed": 0},
            "model": {"hidden": [8], "activation": "tanh"},
            "optimizer": {"name": "adam", "lr": 0.02},
            "batch_size": 32,
            "steps": 20,
            "seed": 0,
        }
        trained = {
            dev: client.post("/api/v1/train", json={**spec, "device": dev})
            for dev in ("cpu", "cuda")
        }
    assert all(t.status_code == 200 for t in trained.values()), trained["cuda"].text[:300]
    losses = {dev: [h["train_loss"] for h in t.json()["history"]] for dev, t in trained.items()}
    np.testing.assert_allclose(losses["cuda"], losses["cpu"], rtol=1e-6)
    assert r.status_code == 200
    assert {d["name"]: (d["available"], d["reason"]) for d in r.json()} == {
        "cpu": (True, None),
        "cuda": (True, None),
    }


def test_sandbox_runs_the_tiny_example_on_cuda_like_cpu(cupy: ModuleType) -> None:
    """A cuda job goes to a worker that started CUDA after the fork, before its jail (with the
    extra system calls a driver needs), and computes what the cpu worker computes."""
    import orjson

    from server.program.budgets import Budgets
    from server.program.packing import unpack_answer
    from server.runs import responses
    from server.sandbox.pool import Sandbox, SandboxConfig
    from server.schemas import TINY_EXAMPLE

    box = Sandbox(SandboxConfig(workers=1, cuda_workers=1, extra_sys_path=[FAKE_CUPY_DIR]))
    try:
        source = TINY_EXAMPLE + "print(loss.device, w.grad.device)\n"
        budgets = Budgets().as_dict()

        def run(dev: str) -> dict[str, Any]:
            job = {"source": source, "device": dev, "seed": 0, "bindings": {}, "budgets": budgets}
            answer = orjson.loads(responses.respond(box.run(job), dev, False))
            body: dict[str, Any] = unpack_answer(answer)  # its passes as whole graphs
            return body

        cpu, gpu = run("cpu"), run("cuda")
        again = run("cpu")
    finally:
        box.close()
    assert cpu["ok"] and gpu["ok"], (cpu["error"], gpu["error"])
    assert gpu["device"] == "cuda"
    assert cpu["stdout"] == "36.0 -24.0 -12.0\ncpu cpu\n"
    assert gpu["stdout"] == "36.0 -24.0 -12.0\ncuda:0 cuda:0\n"

    def grads(r: dict[str, Any]) -> list[tuple[object, object]]:
        graph = r["graph"]
        assert isinstance(graph, dict)
        return [(n["name"], n["grad"]) for n in graph["nodes"]]

    assert grads(gpu) == grads(cpu)
    assert any(g is not None for _, g in grads(gpu))
    assert again["stdout"] == cpu["stdout"]  # a fresh worker: nothing left of the cuda job


def _recorded(dev: str) -> list[Any]:
    """The kept passes of a short loop that cubes, zeroes .grad both ways and steps: the walk
    keeps leaf gradients uncopied, the later passes run unwalked and the latest is frozen,
    then replayed and exported late."""
    from recorder import record_passes

    engine.manual_seed(0)
    model = engine.nn.Linear(3, 1).to(dev)
    opt = engine.optim.SGD(model.parameters(), lr=0.1)
    x = engine.randn(4, 3).to(dev)
    with record_passes(2, max_nodes=100) as log:
        for i in range(4):
            opt.zero_grad(set_to_none=i % 2 == 0)
            (model(x) ** 3).mean().backward()
            opt.step()
    assert log.unwalked == 3  # passes 1-3 ran unwalked: the latest is walked by its replay
    return log.graphs


def test_recorded_passes_on_cuda_match_cpu(cupy: ModuleType) -> None:
    cpu, gpu = _recorded("cpu"), _recorded("cuda")
    assert [g["pass_index"] for g in gpu] == [g["pass_index"] for g in cpu] == [0, 3]
    assert gpu == cpu


def test_fixture_is_undone_after_the_test() -> None:
    """Runs after the tests above it (file order): no fake left behind."""
    assert "cupy" not in sys.modules
    assert not backend.cuda_is_available()
