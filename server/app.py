"""create_app(settings): routers, static files, templates, middleware."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool
from starlette.middleware.gzip import GZipMiddleware

from engine import backend
from server import capacity
from server.admission import Admission
from server.assets import AssetFiles
from server.clients import TrustedProxies
from server.metrics import Metrics
from server.middleware import (
    BodyLimitMiddleware,
    RateLimitMiddleware,
    SecurityHeadersMiddleware,
    SessionCookieMiddleware,
)
from server.routes import gallery, meta, notebook, pages, runs, train
from server.sandbox import startup
from server.serialize import OrjsonResponse, dumps
from server.settings import Settings, get_settings

ROOT = Path(__file__).resolve().parent.parent


_SURROGATE = re.compile("[\ud800-\udfff]")


def _printable(value: Any) -> Any:
    """``value`` with every lone surrogate (``"\\ud800"`` in a JSON string decodes to one)
    replaced by U+FFFD: UTF-8, and so orjson, cannot encode it."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_printable(k): _printable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_printable(v) for v in value]
    return value


async def validation_error(request: Request, exc: Exception) -> OrjsonResponse:
    """422 like FastAPI's, rendered by orjson: a NaN or a lone surrogate in the request must
    not become a 500."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    detail = [_without_a_big_input(e) for e in _printable(jsonable_encoder(errors))]
    return OrjsonResponse({"detail": detail[:MAX_422_ERRORS]}, status_code=422)


#: a 422 names at most this many errors, and echoes an input only up to this many bytes (a
#: 256 KiB program is not sent back to say that its `seed` is not a number)
MAX_422_ERRORS = 20
MAX_ECHOED_INPUT_BYTES = 200


def _without_a_big_input(error: Any) -> Any:
    """A validation error without its ``input`` when that is big (its size said instead)."""
    if not isinstance(error, dict) or "input" not in error:
        return error
    size = len(dumps(error["input"]))
    if size <= MAX_ECHOED_INPUT_BYTES:
        return error
    return {**error, "input": f"({size:,} bytes: not echoed)"}


def create_app(settings: Settings | None = None, sandbox_paths: list[str] | None = None) -> FastAPI:
    """Build the application; pass settings to override the environment's.

    ``sandbox_paths`` are put first on the sandbox's import path (tests: a fake CuPy).
    """
    settings = settings or get_settings()
    resolved = settings

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # the zygote and its jailed workers, ready before the first request
        app.state.sandbox = await run_in_threadpool(startup.start, resolved, sandbox_paths)
        short, long = capacity.run_slots(resolved)
        app.state.admission = Admission(
            slots=short,
            long_slots=long,
            queue_limit=resolved.admission_queue or 4 * short,
            max_wait_s=min(
                resolved.admission_max_wait_s or resolved.wall_clock_s, resolved.wall_clock_s
            ),
            share=(
                resolved.client_short_slots,
                resolved.client_long_slots,
                resolved.client_queue,
            ),
        )
        backend.set_cuda_memory_limit(resolved.cuda_memory_limit_bytes)  # train runs in-process
        try:
            yield
        finally:
            app.state.sandbox.close()

    app = FastAPI(
        title="Autograd Playground",
        version="0.1.0",
        description="Record a PyTorch-style program's graph, run backward, replay the walk.",
        default_response_class=OrjsonResponse,
        lifespan=lifespan,
        docs_url=None,  # served below from /static, so the docs work offline
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.trusted_proxies = TrustedProxies(settings.forwarded_allow_ips.split(","))
    app.state.metrics = Metrics(app)

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        """Swagger UI for the OpenAPI schema, its bundle served by this app (no CDN)."""
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title="Autograd Playground API",
            swagger_js_url="/static/dist/swagger/swagger-ui-bundle.js",
            swagger_css_url="/static/dist/swagger/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
        )

    app.include_router(meta.meta)
    app.include_router(runs.router)
    app.include_router(meta.router)
    app.include_router(gallery.router)
    app.include_router(notebook.router)
    app.include_router(train.router)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.include_router(pages.router)
    static_dir = ROOT / "static"
    if static_dir.is_dir():
        app.mount("/static", AssetFiles(directory=static_dir), name="static")
    # Outermost last: headers on every response, the session cookie, compression, then the
    # rate limit, then the body cap.
    app.add_middleware(
        BodyLimitMiddleware, max_bytes=settings.max_body_bytes, timeout_s=settings.body_timeout_s
    )
    app.add_middleware(
        RateLimitMiddleware,
        per_minute=settings.rate_limit_per_minute,
        trusted=app.state.trusted_proxies,
        busy_first=settings.busy_first_requests,
    )
    # JSON answers and pages (a 30-step lesson's answer: 527 KiB raw, 17 % of it gzipped at
    # level 5, 20 % at level 1 for a third of the CPU); static files come pre-compressed
    # (server/assets.py) and are left alone.
    app.add_middleware(GZipMiddleware, minimum_size=settings.gzip_min_bytes, compresslevel=5)
    app.add_middleware(SessionCookieMiddleware)
    app.add_middleware(SecurityHeadersMiddleware)
    return app
