"""The API docs page works offline: Swagger UI comes from this app, not a CDN."""

from __future__ import annotations

from playwright.sync_api import Page, expect


def test_docs_render_every_operation_without_any_outside_request(page: Page) -> None:
    outside: list[str] = []
    page.on(
        "request",
        lambda request: (
            outside.append(request.url)
            if not request.url.startswith(
                ("http://127.0.0.1", "http://localhost", "data:", "blob:")
            )
            else None
        ),
    )
    page.goto("/docs")
    for path in ("/api/v1/run", "/api/v1/train", "/api/v1/examples", "/api/v1/devices"):
        expect(page.get_by_text(path, exact=True).first).to_be_visible()
    assert outside == []
