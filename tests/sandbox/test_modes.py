"""Where the kernel offers no jail: loopback only, unless AGP_SANDBOX=none says so explicitly."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from server.program.budgets import Budgets
from server.runs import responses
from server.sandbox import startup
from server.sandbox.pool import Sandbox, SandboxConfig, SandboxUnavailable
from server.settings import Settings


class _NoJail:
    """A sandbox as it starts on a kernel without seccomp."""

    mode = "none"
    reason = "no seccomp in this test"
    landlock = 0
    closed = False

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_without_a_jail_a_loopback_server_starts(
    monkeypatch: pytest.MonkeyPatch, host: str
) -> None:
    monkeypatch.setattr(startup, "Sandbox", _NoJail)
    box = startup.start(Settings(host=host))
    assert box.mode == "none" and not box.closed  # type: ignore[attr-defined]


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "::", "example.org"])
def test_without_a_jail_a_public_server_refuses(monkeypatch: pytest.MonkeyPatch, host: str) -> None:
    monkeypatch.setattr(startup, "Sandbox", _NoJail)
    with pytest.raises(SandboxUnavailable, match="AGP_SANDBOX=none"):
        startup.start(Settings(host=host))


def test_agp_sandbox_none_is_an_explicit_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(startup, "Sandbox", _NoJail)
    monkeypatch.setenv("AGP_SANDBOX", "none")
    box = startup.start(Settings(host="0.0.0.0"))
    assert box.mode == "none"


def test_an_unjailed_run_says_so_on_the_page() -> None:
    box = Sandbox(SandboxConfig(workers=1, mode="none"))
    try:
        assert box.mode == "none"
        job: dict[str, Any] = {"source": "print(1)", "budgets": Budgets().as_dict()}
        body = orjson.loads(responses.respond(box.run(job), "cpu", box.mode == "none"))
    finally:
        box.close()
    assert body["ok"] and body["stdout"] == "1\n"
    assert body["notice"] == responses.UNJAILED_NOTICE
