"""Run the real app with uvicorn in a background thread on a free loopback port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

#: Launch options for Debian's chromium; Playwright's own browsers are never downloaded.
CHROMIUM_LAUNCH_ARGS: dict[str, object] = {
    "executable_path": "/usr/bin/chromium",
    "headless": True,
    "args": [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
    ],
}


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def live_server(app: Any = None, **config: Any) -> Iterator[str]:
    """Serve ``app`` (default: `server.app:create_app()`) and yield its base URL; stop it on exit.

    The app is served as ``python -m server`` serves it (server/serving.py: the head deadline,
    TCP_NODELAY, the WebSocket message cap, from the app's settings); ``config`` goes to
    ``uvicorn.Config`` on top (e.g. ``timeout_keep_alive``)."""
    from server.serving import uvicorn_options  # imported here: collecting stays cheap

    if app is None:
        from server.app import create_app

        app = create_app()
    port = free_port()
    settings = getattr(getattr(app, "state", None), "settings", None)
    options = uvicorn_options(settings) if settings is not None else {"proxy_headers": False}
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
        **{**options, **config},
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="e2e-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the app did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
