"""create_app(settings): routers, static files, templates, middleware."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from server.routes import api, pages
from server.settings import Settings, get_settings

ROOT = Path(__file__).resolve().parent.parent


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the application; pass settings to override the environment's."""
    settings = settings or get_settings()
    app = FastAPI(
        title="Autograd Playground",
        version="0.1.0",
        description="Record a PyTorch-style program's graph, run backward, replay the walk.",
    )
    app.state.settings = settings
    app.dependency_overrides[get_settings] = lambda: settings
    app.include_router(api.router)
    app.include_router(pages.router)
    static_dir = ROOT / "static"
    if static_dir.is_dir():
        app.mount("/static", StaticFiles(directory=static_dir), name="static")
    return app
