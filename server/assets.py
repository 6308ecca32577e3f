"""Static files on a light wire: content-hashed bundles cached for good, pre-compressed copies.

The frontend build (``esbuild.config.mjs``) names each bundle by its content
(``playground-5XGJ2ZQK.js``), writes ``static/dist/manifest.json`` (plain name -> hashed
name, for the templates' :func:`Manifest.url`) and a Brotli and a gzip copy of every text
file. :class:`AssetFiles` serves the copy the client accepts (``Content-Encoding``, ``Vary``),
marks hashed files ``immutable`` (a new build has new names) and everything else ``no-cache``
(revalidated with its ETag: a 304 when unchanged).
"""

from __future__ import annotations

import json
import mimetypes
import os
import re
import stat
from pathlib import Path

import anyio
from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
#: a name esbuild gave by content: ``name-XXXXXXXX.ext`` (its 8-character hash)
HASHED = re.compile(r"^dist/(?:[^/]+/)*[^/]+-[A-Z0-9]{8}\.[A-Za-z0-9.]+$")
#: (Accept-Encoding token, file suffix), in order of preference
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))


def accepted_encodings(header: str) -> set[str]:
    """The codings an ``Accept-Encoding`` header accepts (those with q > 0)."""
    accepted = set()
    for part in header.split(","):
        token, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if token and q > 0:
            accepted.add(token.strip().lower())
    return accepted


class AssetFiles(StaticFiles):
    """StaticFiles that sends pre-compressed copies and says how long to cache."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code not in (200, 304):
            return response
        relative = path.replace(os.sep, "/")
        encoded = await self._encoded(relative, scope)
        if encoded is not None:
            response = encoded
        response.headers["cache-control"] = IMMUTABLE if HASHED.match(relative) else REVALIDATE
        return response

    async def _encoded(self, path: str, scope: Scope) -> Response | None:
        """The response with the pre-compressed copy the client prefers, if there is one."""
        accepted = accepted_encodings(Headers(scope=scope).get("accept-encoding", ""))
        for coding, suffix in ENCODINGS:
            if coding not in accepted:
                continue
            full_path, found = await anyio.to_thread.run_sync(self.lookup_path, path + suffix)
            if found is None or not stat.S_ISREG(found.st_mode):
                continue
            media_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
            response: Response = FileResponse(
                full_path,
                stat_result=found,
                media_type=media_type,
                headers={"content-encoding": coding, "vary": "Accept-Encoding"},
            )
            if self.is_not_modified(response.headers, Headers(scope=scope)):
                response = NotModifiedResponse(response.headers)
            return response
        return None


class Manifest:
    """The build's plain name -> hashed name map, re-read when the build rewrites it."""

    def __init__(self, dist: Path, prefix: str = "/static/dist/") -> None:
        self.path = dist / "manifest.json"
        self.prefix = prefix
        self._mtime = -1.0
        self._names: dict[str, str] = {}

    def url(self, name: str) -> str:
        """The URL of a bundle by its plain name (itself where there is no build yet)."""
        try:
            mtime = self.path.stat().st_mtime
        except OSError:
            return self.prefix + name
        if mtime != self._mtime:
            try:
                self._names = dict(json.loads(self.path.read_text()))
            except (OSError, ValueError):
                self._names = {}
            self._mtime = mtime
        return self.prefix + self._names.get(name, name)
