"""WebFetch: read a page the model already knows the URL of, under governance.

GET only, with the model choosing nothing but the URL and what to extract. Permission per domain
is decided by the permission engine before `run` is called; `run` itself refuses local, private
and metadata addresses (unless the person explicitly allowed that host), converts the page, and
has the small model answer the prompt from it, treating the page as untrusted data.
"""

from __future__ import annotations

import asyncio
import mimetypes
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.protocol.events import Usage
from agent_tui.tools.base import Offer, Tool, ToolContext, ToolOutput
from agent_tui.web.cache import DEFAULT_TTL, LruTtlCache
from agent_tui.web.convert import (
    ContentType,
    content_kind,
    decode_body,
    html_to_markdown,
    render_document,
)
from agent_tui.web.extract import (
    CONTENT_BUDGET,
    RAW_BUDGET,
    ExtractionFailed,
    build_request,
    cut,
    cut_note,
    is_preapproved,
    run_extraction,
)
from agent_tui.web.fetch_types import FetchConfig, FetchError, FetchResult, OffHostRedirect
from agent_tui.web.preflight import SETTING_KEY, SETTING_TABLE, DomainPreflight
from agent_tui.web.urls import UrlRefused, check_url

_SAFE_EXTENSION = re.compile(r"\.[a-z0-9]{1,8}")

# Claude Code's WebFetch guidance, in our words; each claim is what the tool does (tests/web).
DESCRIPTION = f"""\
IMPORTANT: WebFetch fails on authenticated or private URLs (a login, an intranet, a private \
repository). Before fetching, consider whether the URL needs a login (Google Docs, Confluence, \
Jira, GitHub and the like); if so, look for a specialised MCP tool that has authenticated \
access (ToolSearch finds MCP tools) and use that instead.

- Fetches the URL, converts the page to markdown, and has a small, fast model answer the prompt \
from it: the result is that model's answer, not the raw page
- Use it to read and analyse web content whose URL you know

Usage notes:
- If an MCP-provided fetch tool is available, prefer it: it may have fewer restrictions.
- The URL must be a complete, valid URL. HTTP URLs are upgraded to HTTPS.
- The prompt says what to find out from the page.
- Read-only: it changes none of your files. Binary files (PDFs, images) are saved to the \
session's downloads folder and their path returned, not read.
- Large pages are summarised: the extraction model reads at most the \
first {CONTENT_BUDGET:,} characters.
- Results are kept in a self-cleaning {DEFAULT_TTL / 60:.0f}-minute cache, so asking about \
the same URL again is fast.
- When the URL redirects to a different host, WebFetch does not follow it: the result gives the \
redirect URL, and you call WebFetch again with it to read that page.
- Local and private network addresses are refused.
- For GitHub URLs, prefer the gh CLI through Bash (gh pr view, gh issue view, gh api ...).
"""


class WebFetchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(description="The full URL to fetch (https; http is upgraded to https).")
    prompt: str = Field(
        min_length=1, description="What to find out from the page: the question to answer."
    )


@dataclass(frozen=True, slots=True)
class Page:
    """A fetched page, processed: what the cache holds."""

    url: str
    status: int
    reason: str
    content_type: str
    size: int
    kind: str
    #: the text the model (or the extraction) gets; empty for binaries
    text: str = ""
    #: where a binary body was saved
    saved_path: str | None = None
    elapsed: float = 0.0


class WebFetchTool(Tool):
    name: ClassVar[str] = "WebFetch"
    subject_fields: ClassVar[tuple[str, ...]] = ("url",)
    order: ClassVar[int] = 90
    description: ClassVar[str] = DESCRIPTION
    input_model: ClassVar[type[BaseModel]] = WebFetchInput
    read_only: ClassVar[bool] = True
    should_defer: ClassVar[bool] = True

    @classmethod
    def for_session(cls, offer: Offer) -> WebFetchTool:
        """With its domain preflight unless the person turned it off in their own settings
        (`[web] skip_web_fetch_preflight = true`, Claude Code's `skipWebFetchPreflight`): a
        project's settings can't, since the check guards against blocked domains."""
        skip = offer.setting(SETTING_TABLE, SETTING_KEY) is True
        return cls(preflight=DomainPreflight(skip=skip))

    def __init__(
        self,
        *,
        config: FetchConfig | None = None,
        cache: LruTtlCache[Page] | None = None,
        content_budget: int = CONTENT_BUDGET,
        raw_budget: int = RAW_BUDGET,
        preflight: DomainPreflight | None = None,
    ) -> None:
        self.config = config or FetchConfig()
        #: the session's domain checks (kept per domain for as long as the tool lives)
        self.preflight = preflight if preflight is not None else DomainPreflight()
        self.cache: LruTtlCache[Page] = cache if cache is not None else LruTtlCache()
        self.content_budget = content_budget
        self.raw_budget = raw_budget

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        ctx.progress(status=f"fetching: {params.url}")
        try:
            return await self._run(params, ctx)
        except Exception as exc:  # a bug must not take the agent loop down (CancelledError passes)
            return _error(ctx, f"WebFetch failed: {type(exc).__name__}: {exc}", kind="internal")

    async def _run(self, params: WebFetchInput, ctx: ToolContext) -> ToolOutput:
        try:
            checked = check_url(params.url, ctx.explicit_hosts)
        except UrlRefused as exc:
            return _error(ctx, str(exc))

        now = ctx.clock() if ctx.clock else None
        hit = self.cache.get(checked.url, now=now)
        cached_age: float | None = None
        if hit is not None and (hit[0].saved_path is None or Path(hit[0].saved_path).exists()):
            page, cached_age = hit
        else:
            refusal = await self.preflight.check(checked.host, ctx.provider)
            if refusal is not None:
                return _error(ctx, refusal.message, kind=refusal.kind)
            try:
                from agent_tui.web.fetch import fetch  # httpx loads with the first fetch

                result = await fetch(checked, ctx.explicit_hosts, self.config)
            except FetchError as exc:
                return _error(ctx, exc.message, kind=exc.kind, status=exc.status)
            if isinstance(result, OffHostRedirect):
                return _redirect_output(ctx, result)
            try:
                page = await asyncio.to_thread(_process, result, ctx.data_dir)
            except OSError as exc:
                return _error(ctx, f"Could not save the download: {exc}")
            self.cache.put(page.url, page, _page_size(page), aliases=[checked.url], now=now)

        status_line = _status_line(page, cached_age is not None)
        ctx.progress(status=status_line)
        header = _header(page, checked.url, cached_age)
        meta: dict[str, Any] = {
            "url": page.url,
            "status": page.status,
            "bytes": page.size,
            "content_type": page.content_type,
            "cached": cached_age is not None,
        }
        if page.saved_path is not None:
            meta["saved_path"] = page.saved_path
            note = (
                f"Binary content ({page.content_type or 'unknown type'}, {_human(page.size)}) "
                f"was saved to {page.saved_path}; it was not read."
            )
            return ToolOutput(f"{header}\n\n{note}", summary=status_line, meta=meta)

        body, usage, how = await self._answer(page, params.prompt, ctx, status_line)
        meta["extraction"] = how
        if usage is not None:
            meta["model"] = ctx.small_model  # priced at the small model's rate, not the main one
        return ToolOutput(f"{header}\n\n{body}", summary=status_line, usage=usage, meta=meta)

    async def _answer(
        self, page: Page, prompt: str, ctx: ToolContext, status_line: str
    ) -> tuple[str, Usage | None, str]:
        """The extraction (or the page itself where no extraction is needed or possible)."""
        if (
            page.kind in ("html", "markdown")
            and len(page.text) <= self.raw_budget
            and is_preapproved(page.url)
        ):
            return page.text, None, "raw"
        if ctx.provider is None or not ctx.small_model:
            return (
                self._raw(page, "No extraction model is configured; this is the page itself."),
                None,
                "none",
            )
        ctx.progress(status=f"{status_line} · extracting")
        request = build_request(
            model=ctx.small_model,
            url=page.url,
            prompt=prompt,
            content=page.text,
            budget=self.content_budget,
        )
        try:
            answer, usage = await run_extraction(ctx.provider, request)
        except ExtractionFailed as exc:
            ctx.progress(status=f"{status_line} · extraction failed")
            note = f"Extraction failed ({exc.message}); this is the page itself, untrusted."
            return self._raw(page, note), exc.usage, "failed"
        ctx.progress(status=status_line)
        return answer or "(The extraction model returned no text.)", usage, "model"

    def _raw(self, page: Page, note: str) -> str:
        text, was_cut = cut(page.text, self.content_budget)
        tail = f"\n\n{cut_note(len(text), len(page.text))}" if was_cut else ""
        return f"[{note}]\n\n{text}{tail}"


def _process(result: FetchResult, data_dir: Path) -> Page:
    """Decode and convert the body, or save it if binary (runs in a thread: CPU and disk)."""
    ctype = ContentType.parse(result.content_type)
    kind = content_kind(ctype.mime, result.body)

    def page(text: str = "", saved_path: str | None = None) -> Page:
        return Page(
            url=result.url,
            status=result.status,
            reason=result.reason,
            content_type=ctype.mime,
            size=len(result.body),
            kind=kind,
            text=text,
            saved_path=saved_path,
            elapsed=result.elapsed,
        )

    if kind == "binary":
        return page(saved_path=str(_save_binary(result, ctype.mime, data_dir)))
    text, _encoding = decode_body(result.body, ctype.charset, html=kind == "html")
    if kind == "html":
        text = render_document(html_to_markdown(text, result.url), result.url)
    return page(text=text)


def _save_binary(result: FetchResult, mime: str, data_dir: Path) -> Path:
    # The name is ours alone: nothing the server sends (path, Content-Disposition) goes into it
    # except an extension that passes a strict pattern.
    ext = mimetypes.guess_extension(mime) if mime else None
    if not ext or not _SAFE_EXTENSION.fullmatch(ext):
        suffix = Path(result.url.split("?", 1)[0].split("#", 1)[0]).suffix.lower()
        ext = suffix if _SAFE_EXTENSION.fullmatch(suffix) else ".bin"
    folder = data_dir / "downloads"
    folder.mkdir(parents=True, exist_ok=True)
    name = f"webfetch-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}{ext}"
    path = folder / name
    with open(path, "xb") as fh:
        fh.write(result.body)
    return path


def _page_size(page: Page) -> int:
    # Characters × up to 4 bytes is an upper bound; a few hundred bytes cover the other fields.
    return 4 * len(page.text) + 512 if page.text else 512


def _status_line(page: Page, cached: bool) -> str:
    line = f"{page.status} · {_human(page.size)} · {page.elapsed:.1f}s"
    return f"{line} · cached" if cached else line


def _header(page: Page, requested: str, cached_age: float | None) -> str:
    lines = [f"URL: {page.url}"]
    if requested != page.url:
        lines.append(f"Redirected from: {requested}")
    lines += [
        f"Status: {page.status} {page.reason}".rstrip(),
        f"Content-Type: {page.content_type or 'unknown'}",
        f"Bytes: {page.size:,}",
        "Cached: no"
        if cached_age is None
        else f"Cached: yes (fetched {_human_age(cached_age)} ago)",
    ]
    return "\n".join(lines)


def _redirect_output(ctx: ToolContext, redirect: OffHostRedirect) -> ToolOutput:
    ctx.progress(status=f"{redirect.status} · redirect to another host")
    text = (
        f"The page redirects to a different host, which WebFetch does not follow by itself.\n"
        f"Original URL: {redirect.url}\n"
        f"Redirect URL: {redirect.target}\n"
        f"Status: {redirect.status}\n\n"
        f"To read it, call WebFetch again with url={redirect.target!r} and the same prompt."
    )
    return ToolOutput(
        text,
        summary=f"{redirect.status} · redirect to {redirect.target}",
        meta={"url": redirect.url, "redirect": redirect.target, "status": redirect.status},
    )


def _error(
    ctx: ToolContext, message: str, *, kind: str = "refused", status: int | None = None
) -> ToolOutput:
    ctx.progress(status=f"error: {message}")
    meta: dict[str, Any] = {"error": kind}
    if status is not None:
        meta["status"] = status
    return ToolOutput(message, is_error=True, summary=f"error: {kind}", meta=meta)


def _human(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _human_age(seconds: float) -> str:
    if seconds < 60:
        return f"{int(seconds)}s"
    return f"{int(seconds // 60)} min"
