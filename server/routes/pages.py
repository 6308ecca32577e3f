"""HTML pages rendered from Jinja2 templates."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from server.assets import Manifest

ROOT = Path(__file__).resolve().parents[2]
router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=ROOT / "templates")
#: ``{{ asset('playground.js') }}``: a bundle's content-hashed URL (server/assets.py)
templates.env.globals["asset"] = Manifest(ROOT / "static" / "dist").url


@router.get("/", response_class=HTMLResponse)
def playground(request: Request) -> HTMLResponse:
    """The playground page."""
    return templates.TemplateResponse(request, "index.html", {"title": "Playground"})


@router.get("/train", response_class=HTMLResponse)
def train(request: Request) -> HTMLResponse:
    """The train page: a small MLP learning a toy dataset live."""
    return templates.TemplateResponse(request, "train.html", {"title": "Train"})


@router.get("/notebook", response_class=HTMLResponse)
def notebook(request: Request) -> HTMLResponse:
    """The notebook page: markdown and code cells, each cell's output and graph."""
    return templates.TemplateResponse(request, "notebook.html", {"title": "Notebook"})
