"""The prepared GPU check: CuPy parity of every op, the API on "cuda", and MLP step timings.

Run it on a machine with a GPU (``python -m bench.gpu_check``; < 5 minutes). It needs CuPy
(``pip install -e '.[gpu]'``, or wheels carried as the device tool's README explains).
``--device cpu`` runs the same script with the CPU standing in for the GPU, which is how it is
tested where no GPU exists (every path runs; the numbers compare the CPU with itself).

It prints, in order:
1. parity of each op-table case (tests/unit/op_cases.py), float32 and float64, forward value
   and every input gradient, device vs CPU (max abs / rel error, pass/fail);
2. /api/v1/run (the lessons' tiny example) and /api/v1/train (moons, 2-16-16-2) through the
   app in-process with ``device`` set, checked against the same requests on "cpu";
3. synchronised median step times: 784-256-256-10 ReLU MLP (batch 128) and a 4096-wide MLP
   (784-4096-4096-10, batch 512), engine on the device vs engine on the CPU vs NumPy.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

import engine
from engine import backend


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        engine.cuda.synchronize()


def op_parity(device: str) -> tuple[int, int]:
    from tests.unit.op_cases import CASES

    passed = failed = 0
    print("\n## Op-table parity: device vs cpu\n")
    print("| op | case | dtype | max abs err (value) | max abs err (grads) | result |")
    print("|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for name, cases in CASES.items():
        for i, (fn, specs) in enumerate(cases):
            arrays = []
            for shape, dom in specs:
                if dom == "pos":
                    arrays.append(rng.uniform(0.5, 2.0, shape))
                elif dom == "unit":
                    arrays.append(rng.uniform(0.1, 0.9, shape))
                else:
                    x = rng.normal(size=shape)
                    if dom == "away":
                        x = np.where(np.abs(x) < 0.2, 0.3 * np.sign(x + 1e-12), x)
                        x = x + np.arange(x.size).reshape(shape) * 1e-3
                    arrays.append(x)
            for dtype, tol in ((engine.float32, 1e-4), (engine.float64, 1e-10)):
                try:
                    results = []
                    for dev in ("cpu", device):
                        engine.set_default_device(dev)
                        ts = [
                            engine.tensor(a, dtype=dtype, device=dev, requires_grad=True)
                            for a in arrays
                        ]
                        out = fn(engine, *ts)
                        g = engine.tensor(
                            np.linspace(-1, 1, out.numel()).reshape(out.shape),
                            dtype=dtype,
                            device=dev,
                        )
                        out.backward(g)
                        results.append(
                            (
                                out.detach().cpu().numpy(),
                                [t.grad.cpu().numpy() if t.grad is not None else None for t in ts],
                            )
                        )
                    (v0, g0), (v1, g1) = results
                    err_v = float(np.max(np.abs(v0 - v1))) if v0.size else 0.0
                    err_g = max(
                        (
                            float(np.max(np.abs(a - b)))
                            for a, b in zip(g0, g1, strict=True)
                            if a is not None and b is not None and a.size
                        ),
                        default=0.0,
                    )
                    scale = max(1.0, float(np.max(np.abs(v0))) if v0.size else 1.0)
                    ok = err_v <= tol * scale and err_g <= tol * 10 * scale
                    ok = ok and all((a is None) == (b is None) for a, b in zip(g0, g1, strict=True))
                except Exception as exc:  # report, keep going
                    ok, err_v, err_g = False, float("nan"), float("nan")
                    print(f"<!-- {name}[{i}] {dtype}: {type(exc).__name__}: {exc} -->")
                finally:
                    engine.set_default_device("cpu")
                passed += ok
                failed += not ok
                print(
                    f"| {name} | {i} | {dtype} | {err_v:.2e} | {err_g:.2e} | "
                    f"{'pass' if ok else 'FAIL'} |"
                )
    print(f"\nop parity: {passed} passed, {failed} failed")
    return passed, failed


def api_parity(device: str) -> tuple[int, int]:
    from fastapi.testclient import TestClient

    from server.app import create_app
    from server.schemas import TINY_EXAMPLE
    from server.settings import Settings
    from server.training.schemas import MOONS_REQUEST

    print("\n## API on the device vs cpu\n")
    passed = failed = 0
    settings = Settings(rate_limit_per_minute=0, sandbox_workers=1)
    with TestClient(create_app(settings)) as client:
        run = {}
        for dev in ("cpu", device):
            r = client.post("/api/v1/run", json={"source": TINY_EXAMPLE, "device": dev})
            run[dev] = r.json()
        a, b = run["cpu"], run[device]
        grads = [(n["name"], n["grad"]) for n in (a.get("graph") or {}).get("nodes", [])]
        grads_dev = [(n["name"], n["grad"]) for n in (b.get("graph") or {}).get("nodes", [])]
        ok = (
            bool(a.get("ok"))
            and bool(b.get("ok"))
            and a["stdout"] == b["stdout"]
            and grads == grads_dev
            and b.get("device") == device
        )
        print(
            f"/api/v1/run tiny example on {device}: {'pass' if ok else 'FAIL'} "
            f"(device field {b.get('device')!r}, error {b.get('error')})"
        )
        passed += ok
        failed += not ok
        spec = {**MOONS_REQUEST, "optimizer": {"name": "adam", "lr": 0.02}}
        train = {}
        for dev in ("cpu", device):
            r = client.post("/api/v1/train", json={**spec, "device": dev})
            train[dev] = (
                r.json()
                if r.status_code == 200
                else {"status": r.status_code, "body": r.text[:300]}
            )
        ha, hb = train["cpu"].get("history"), train[device].get("history")
        ok = bool(ha) and bool(hb) and abs(ha[-1]["train_loss"] - hb[-1]["train_loss"]) < 1e-3
        print(
            f"/api/v1/train moons 100 steps on {device}: {'pass' if ok else 'FAIL'} "
            f"(final train loss cpu {ha[-1]['train_loss'] if ha else None}, "
            f"{device} {hb[-1]['train_loss'] if hb else train[device]})"
        )
        passed += ok
        failed += not ok
    return passed, failed


def _median_time(fn: Callable[[], Any], device: str, repeats: int = 15) -> float:
    for _ in range(3):
        fn()
    _sync(device)
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        _sync(device)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def mlp_step(device: str, sizes: list[int], batch: int) -> Callable[[], None]:
    engine.manual_seed(0)
    layers: list[Any] = []
    for i, o in itertools.pairwise(sizes):
        layers += [engine.nn.Linear(i, o), engine.nn.ReLU()]
    model = engine.nn.Sequential(*layers[:-1]).to(device)
    rng = np.random.default_rng(1)
    x = engine.tensor(rng.normal(size=(batch, sizes[0])).astype(np.float32), device=device)
    y = engine.tensor(rng.integers(0, sizes[-1], batch), device=device)
    opt = engine.optim.SGD(model.parameters(), lr=1e-3)
    loss_fn = engine.nn.CrossEntropyLoss()

    def step() -> None:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    return step


def timings(device: str) -> None:
    from bench.engine_bench import mlp_numpy

    print("\n## MLP step, synchronised medians\n")
    print(f"| model | engine on {device} | engine on cpu | hand-written NumPy | cpu / {device} |")
    print("|---|---|---|---|---|")
    for sizes, batch in (([784, 256, 256, 10], 128), ([784, 4096, 4096, 10], 512)):
        t_dev = _median_time(mlp_step(device, sizes, batch), device)
        t_cpu = _median_time(mlp_step("cpu", sizes, batch), "cpu", repeats=5)
        t_np = _median_time(mlp_numpy(sizes, batch, "relu", "ce"), "cpu", repeats=5)
        label = "-".join(map(str, sizes)) + f", batch {batch}"
        print(
            f"| {label} | {t_dev * 1e3:.2f} ms | {t_cpu * 1e3:.2f} ms | {t_np * 1e3:.2f} ms | "
            f"{t_cpu / t_dev:.1f}× |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gpu_check")
    parser.add_argument(
        "--device",
        default="cuda",
        help="cuda (default), cuda:N, or cpu to dry-run the script where no GPU exists",
    )
    parser.add_argument("--skip-timings", action="store_true")
    args = parser.parse_args()
    reason = backend.cuda_unavailable_reason()
    if args.device.startswith("cuda") and reason is not None:
        print(f"no GPU here: {reason}")
        return 2
    if args.device.startswith("cuda"):
        cp = backend._cupy()
        props = cp.cuda.runtime.getDeviceProperties(0)
        print(f"device: {props['name'].decode()}, CuPy {cp.__version__}")
    total_fail = 0
    for part in (op_parity, api_parity):
        try:
            _, failed = part(args.device)
            total_fail += failed
        except Exception:
            traceback.print_exc()
            total_fail += 1
    if not args.skip_timings:
        try:
            timings(args.device)
        except Exception:
            traceback.print_exc()
            total_fail += 1
    print(f"\nGPU check finished: {'all passed' if total_fail == 0 else f'{total_fail} failures'}")
    return 0 if total_fail == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
