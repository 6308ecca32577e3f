"""Request hygiene: JSON only, body cap, validation, rate limit, security headers, OpenAPI."""

from __future__ import annotations

from fastapi.testclient import TestClient

from server.app import create_app
from server.examples import EXAMPLES
from server.lessons import lessons
from tests.api.conftest import make_settings

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


def test_security_headers_on_api_and_errors(client: TestClient) -> None:
    for response in (
        client.get("/healthz"),
        client.get("/api/v1/nope"),
        client.post("/api/v1/run", json={}),
    ):
        assert response.headers["content-security-policy"] == CSP
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "no-referrer"


def test_body_over_the_cap_is_413_json(client: TestClient) -> None:
    big = b'{"source": "' + b"x" * 300_000 + b'"}'
    response = client.post("/api/v1/run", content=big, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert "too large" in response.json()["detail"]


def test_streamed_body_over_the_cap_is_413(client: TestClient) -> None:
    def chunks():  # no content-length: chunked transfer
        for _ in range(40):
            yield b"x" * 10_000

    response = client.post(
        "/api/v1/run", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413


def test_non_json_is_415_json(client: TestClient) -> None:
    response = client.post("/api/v1/run", data={"source": "1"})
    assert response.status_code == 415
    assert response.json()["detail"]


def test_malformed_and_invalid_requests_are_422_json(client: TestClient) -> None:
    for content in (
        b"{",
        b"[]",
        b'{"source": 3}',
        b'{"source": "1", "seed": -1}',
        b'{"source": "1", "extra": 1}',
        b'{"source": "1", "device": "tpu"}',
        b'{"source": "1", "bindings": {"__class__": 1}}',
        b'{"source": "1", "bindings": {"w": "text"}}',
        b'{"source": "1", "bindings": {"w": [[[[[[[[[[1]]]]]]]]]]}}',
    ):
        response = client.post(
            "/api/v1/run", content=content, headers={"content-type": "application/json"}
        )
        assert response.status_code == 422, content
        assert "detail" in response.json()


def test_source_over_64_kib_is_rejected(client: TestClient) -> None:
    response = client.post("/api/v1/run", json={"source": "#" * (64 * 1024 + 1)})
    assert response.status_code == 422


def test_rate_limit_per_client_then_429_with_retry_after() -> None:
    with TestClient(create_app(make_settings(rate_limit_per_minute=3))) as limited:
        codes = [limited.get("/api/v1/examples").status_code for _ in range(5)]
        assert codes[:3] == [200, 200, 200]
        assert codes[3] == 429
        response = limited.get("/api/v1/examples")
        assert response.status_code == 429 and int(response.headers["retry-after"]) >= 1
        assert limited.get("/healthz").status_code == 200  # only the API is limited


def test_examples_gallery(client: TestClient) -> None:
    examples = client.get("/api/v1/examples").json()
    assert len(examples) == len(EXAMPLES) + len(lessons())
    ids = [e["id"] for e in examples]
    assert len(set(ids)) == len(ids)
    for e in examples:
        assert e["title"] and len(e["explanation"]) > 40, e["id"]
        if e.get("cells"):  # a lesson: its code cells joined are its source (prose only: none)
            code = [c["source"] for c in e["cells"] if c["kind"] == "code"]
            assert e["source"] == "\n\n".join(code), e["id"]
        else:
            assert e["source"], e["id"]


def test_openapi_documents_every_model_with_examples(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    components = schema["components"]["schemas"]
    for name in (
        "RunRequest",
        "RunResponse",
        "UserErrorInfo",
        "Example",
        "ErrorBody",
        "BindingSpec",
    ):
        assert name in components
        assert components[name].get("examples"), name
    run = schema["paths"]["/api/v1/run"]["post"]
    assert {"200", "413", "415", "422", "429"} <= set(run["responses"])
    assert client.get("/docs").status_code == 200


def test_huge_integer_body_is_a_422_not_a_500() -> None:
    """A 65-bit integer echoed back in a validation error must not break the JSON encoder."""
    from fastapi.testclient import TestClient

    from server.app import create_app
    from server.settings import Settings

    with TestClient(create_app(Settings(rate_limit_per_minute=0))) as client:
        for path in ("/api/v1/run", "/api/v1/train"):
            r = client.post(
                path, content=b"-9223372036854775809", headers={"content-type": "application/json"}
            )
            assert r.status_code == 422, (path, r.status_code)
            assert r.json()["detail"]


def test_docs_are_served_from_this_app() -> None:
    """/docs references the app's own Swagger bundle (works offline) under a docs-only CSP."""
    from fastapi.testclient import TestClient

    from server.app import create_app
    from server.settings import Settings

    with TestClient(create_app(Settings(rate_limit_per_minute=0))) as client:
        page = client.get("/docs")
        assert page.status_code == 200
        assert "/static/dist/swagger/swagger-ui-bundle.js" in page.text
        assert "cdn" not in page.text.lower()
        assert "https:" not in page.headers["content-security-policy"]
        assert client.get("/openapi.json").json()["paths"]["/api/v1/run"]
