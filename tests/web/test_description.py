"""WebFetch's description carries Claude Code's guidance, and the tool does what it says. Each
claim's behaviour is tested where it lives: https upgrade (test_urls), the cut and summary of big
pages (test_web_fetch_tool), the 15-minute cache (test_cache), cross-host redirects coming back to
the model (test_fetch); failures on pages that need a login are tested here."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from web_helpers import Server, make_ctx, static

from agent_tui.tools.builtin.web_fetch import DESCRIPTION, WebFetchInput, WebFetchTool
from agent_tui.web.cache import DEFAULT_TTL, LruTtlCache
from agent_tui.web.extract import CONTENT_BUDGET
from agent_tui.web.fetch import _check_status
from agent_tui.web.fetch_types import FetchError


def test_the_description_gives_claude_codes_guidance() -> None:
    text = " ".join(DESCRIPTION.split())
    for claim in (
        "fails on authenticated or private URLs",
        "look for a specialised MCP tool that has authenticated access",
        "If an MCP-provided fetch tool is available, prefer it",
        "HTTP URLs are upgraded to HTTPS",
        f"Large pages are summarised: the extraction model reads at most the first "
        f"{CONTENT_BUDGET:,} characters",
        f"{DEFAULT_TTL / 60:.0f}-minute cache",
        "redirects to a different host, WebFetch does not follow it",
        "call WebFetch again with it",
        "For GitHub URLs, prefer the gh CLI through Bash",
    ):
        assert claim in text, claim
    assert DEFAULT_TTL == 15 * 60 and LruTtlCache().ttl == DEFAULT_TTL
    assert WebFetchTool().schema()["description"] == DESCRIPTION


@pytest.mark.parametrize("status", [401, 403])
async def test_a_page_behind_a_login_fails_and_says_what_to_use(
    status: int, server: Server, tmp_path: Path
) -> None:
    server.route("/private", static(status, b"sign in"))
    ctx, _ = make_ctx(tmp_path)
    out = await WebFetchTool().run(WebFetchInput(url=server.url("/private"), prompt="x"), ctx)

    assert out.is_error and out.meta == {"error": "http_status", "status": status}
    assert f"HTTP {status}" in out.content
    assert "needs a login, and WebFetch cannot sign in" in out.content
    assert "MCP tool" in out.content and "gh CLI" not in out.content


def _status_error(status: int, url: str) -> FetchError:
    response = httpx.Response(status, request=httpx.Request("GET", url))
    with pytest.raises(FetchError) as info:
        _check_status(response)
    return info.value


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/someone/private-repo",
        "https://raw.githubusercontent.com/someone/private-repo/main/README.md",
        "https://api.github.com/repos/someone/private-repo",
    ],
)
def test_github_pages_that_need_a_login_point_to_gh(url: str) -> None:
    for status in (401, 403, 404):  # GitHub answers 404 to a stranger asking for a private repo
        error = _status_error(status, url)
        assert error.kind == "http_status" and error.status == status
        assert "gh CLI through Bash" in error.message, (status, error.message)


def test_other_hosts_missing_pages_are_plain_404s() -> None:
    error = _status_error(404, "https://example.com/gone")
    assert error.message == "HTTP 404 Not Found from https://example.com/gone"
