"""create_app(settings): routers, static files, templates, middleware."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from engine import backend
from server.admission import Admission
from server.clients import TrustedProxies
from server.metrics import Metrics
from server.middleware import BodyLimitMiddleware, RateLimitMiddleware, SecurityHeadersMiddleware
from server.routes import api, notebook, pages, train
from server.sandbox import service
from server.serialize import OrjsonResponse
from server.settings import Settings, get_settings

ROOT = Path(__file__).resolve().parent.parent


async def validation_error(request: Request, exc: Exception) -> OrjsonResponse:
    """422 like FastAPI's, rendered by orjson: a NaN in the request must not become a 500."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    return OrjsonResponse({"detail": jsonable_encoder(errors)}, status_code=422)


def create_app(settings: Settings | None = None, sandbox_paths: list[str] | None = None) -> FastAPI:
    """Build the application; pass settings to override the environment's.

    ``sandbox_paths`` are put first on the sandbox's import path (tests: a fake CuPy).
    """
    settings = settings or get_settings()
    resolved = settings

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # the zygote and its jailed workers, ready before the first request
        app.state.sandbox = await run_in_threadpool(service.start, resolved, sandbox_paths)
        app.state.admission = Admission(
            slots=resolved.sandbox_workers,
            queue_limit=resolved.admission_queue or 4 * resolved.sandbox_workers,
            max_wait_s=min(
                resolved.admission_max_wait_s or resolved.wall_clock_s, resolved.wall_clock_s
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

    app.include_router(api.meta)
    app.include_router(api.router)
    app.include_router(notebook.router)
    app.include_router(train.router)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.include_router(pages.router)
    static_dir = ROOT / "static"
    if static_dir.is_dir():
        app.mount("/static", StaticFiles(directory=static_dir), name="static")
    # Outermost last: headers on every response, then the rate limit, then the body cap.
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(
        RateLimitMiddleware,
        per_minute=settings.rate_limit_per_minute,
        trusted=app.state.trusted_proxies,
        busy_first=settings.busy_first_requests,
    )
    app.add_middleware(SecurityHeadersMiddleware)
    return app
