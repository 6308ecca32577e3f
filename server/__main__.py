"""``python -m server --host 127.0.0.1 --port 8000``: what ``make run`` starts."""

from __future__ import annotations

import argparse

import uvicorn

from server.settings import get_settings


def main() -> None:
    settings = get_settings()
    parser = argparse.ArgumentParser(prog="python -m server", description=__doc__)
    parser.add_argument("--host", default=settings.host)
    parser.add_argument("--port", type=int, default=settings.port)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    print(
        f"Autograd Playground on http://{args.host}:{args.port}  (device: {settings.default_device})"
    )
    uvicorn.run(
        "server.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="info",
    )


if __name__ == "__main__":
    main()
