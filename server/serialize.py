"""JSON responses encoded with orjson (FastAPI's ORJSONResponse is deprecated)."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import JSONResponse, Response


def dumps(content: Any) -> bytes:
    """orjson with NumPy support; unknown objects become their str()."""
    return orjson.dumps(content, option=orjson.OPT_SERIALIZE_NUMPY, default=str)


class OrjsonResponse(JSONResponse):
    """A JSONResponse rendered by orjson (~40x faster than json for nested float lists)."""

    def render(self, content: Any) -> bytes:
        return dumps(content)


def json_bytes_response(body: bytes, status_code: int = 200) -> Response:
    """A response for a body that is already JSON (what a sandbox worker sends back)."""
    return Response(content=body, status_code=status_code, media_type="application/json")
