"""The examples gallery: the lessons' worked examples and the lessons as notebooks."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from server.examples import gallery
from server.schemas import Example
from server.serialize import dumps, json_bytes_response

router = APIRouter(prefix="/api/v1", tags=["playground"])


@router.get("/examples", response_model=list[Example], tags=["playground"])
def examples() -> Response:
    """The examples gallery: the lessons' worked examples, each with an explanation, and the
    lessons themselves as notebooks (``cells``: prose as markdown, code blocks as code)."""
    return json_bytes_response(dumps(gallery()))
