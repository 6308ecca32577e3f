"""``python -m server --host 127.0.0.1 --port 8000``: what ``make run`` starts."""

from __future__ import annotations

import argparse
import os

# One BLAS thread in the server process (training runs here; programs run in the sandbox,
# which sets its own): with OpenBLAS's threads on two cores, a 96-wide MLP's training step
# took 40 ms instead of 0.7 ms. Set before NumPy loads; the Dockerfile sets the same.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import uvicorn  # noqa: E402

from server.serving import uvicorn_options  # noqa: E402
from server.settings import get_settings  # noqa: E402


def main() -> None:
    settings = get_settings()
    parser = argparse.ArgumentParser(prog="python -m server", description=__doc__)
    parser.add_argument("--host", default=settings.host)
    parser.add_argument("--port", type=int, default=settings.port)
    parser.add_argument(
        "--workers", type=int, default=settings.workers, help="server processes (AGP_WORKERS)"
    )
    args = parser.parse_args()
    # each process sizes its sandbox to its share of the machine (server/settings.py)
    os.environ["AGP_WORKERS"] = str(args.workers)
    os.environ.setdefault("AGP_HOST", args.host)
    print(
        f"Autograd Playground on http://{args.host}:{args.port}  "
        f"(device: {settings.default_device}, {args.workers} process(es))"
    )
    uvicorn.run(
        "server.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="info",
        **uvicorn_options(settings),  # head deadline, TCP_NODELAY, WebSocket message cap
    )


if __name__ == "__main__":
    main()
