"""The page cache: TTL, byte-bounded LRU eviction, aliases; and the tool's use of it."""

from __future__ import annotations

import threading

from web_helpers import Server, make_ctx, static

from agent_tui.tools.builtin.web_fetch import WebFetchInput, WebFetchTool
from agent_tui.web.cache import DEFAULT_MAX_BYTES, DEFAULT_TTL, LruTtlCache


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_defaults_are_fifteen_minutes_and_fifty_megabytes() -> None:
    assert DEFAULT_TTL == 15 * 60
    assert DEFAULT_MAX_BYTES == 50 * 1024 * 1024


def test_hit_then_expiry() -> None:
    clock = FakeClock()
    cache: LruTtlCache[str] = LruTtlCache(clock=clock)
    cache.put("https://a/", "page", 10)
    clock.now += 14 * 60
    assert cache.get("https://a/") == ("page", 14 * 60)
    clock.now += 60
    assert cache.get("https://a/") is None
    assert len(cache) == 0 and cache.total_bytes == 0


def test_alias_maps_requested_url_to_final_url() -> None:
    cache: LruTtlCache[str] = LruTtlCache(clock=FakeClock())
    cache.put("https://a/final", "page", 10, aliases=["https://a/start"])
    assert cache.get("https://a/start") == ("page", 0.0)
    assert cache.get("https://a/final") == ("page", 0.0)


def test_lru_eviction_by_total_bytes() -> None:
    cache: LruTtlCache[str] = LruTtlCache(max_bytes=100, clock=FakeClock())
    cache.put("a", "A", 40, aliases=["a0"])
    cache.put("b", "B", 40)
    assert cache.get("a") is not None  # a is now more recently used than b
    cache.put("c", "C", 40)  # 120 > 100: evicts the least recently used, b
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None
    assert cache.total_bytes == 80
    cache.put("d", "D", 90)  # needs both a and c gone
    assert [k for k in "acd" if cache.get(k)] == ["d"]
    assert cache.get("a0") is None  # the alias went with its entry
    assert cache.total_bytes == 90


def test_entry_larger_than_the_cache_is_not_stored() -> None:
    cache: LruTtlCache[str] = LruTtlCache(max_bytes=100, clock=FakeClock())
    cache.put("a", "A", 50)
    assert cache.put("huge", "H", 101) is False
    assert cache.get("huge") is None
    assert cache.get("a") is not None


def test_replacing_an_entry_keeps_byte_count_right() -> None:
    cache: LruTtlCache[str] = LruTtlCache(max_bytes=100, clock=FakeClock())
    cache.put("a", "A", 60)
    cache.put("a", "A2", 30)
    assert cache.total_bytes == 30
    assert cache.get("a") == ("A2", 0.0)


def test_concurrent_threads_keep_the_books_balanced() -> None:
    cache: LruTtlCache[int] = LruTtlCache(max_bytes=1000)

    def work(n: int) -> None:
        for i in range(500):
            cache.put(f"k{(n * 7 + i) % 60}", i, 37)
            cache.get(f"k{i % 60}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.total_bytes == 37 * len(cache) <= 1000


async def test_tool_cache_hit_expiry_and_progress(server: Server, tmp_path) -> None:
    clock = FakeClock()
    server.route("/doc", static(200, b"some text", {"content-type": "text/plain"}))
    tool = WebFetchTool()
    ctx, progress = make_ctx(tmp_path, clock=clock)
    params = WebFetchInput(url=server.url("/doc"), prompt="x")

    first = await tool.run(params, ctx)
    assert "Cached: no" in first.content
    assert not first.meta["cached"]

    clock.now += 60
    second = await tool.run(params, ctx)
    assert server.hits("/doc") == 1
    assert "Cached: yes" in second.content
    assert second.meta["cached"]
    assert progress.statuses[-1].endswith(" · cached")
    assert second.summary.endswith("cached")

    clock.now += 15 * 60
    third = await tool.run(params, ctx)
    assert server.hits("/doc") == 2
    assert "Cached: no" in third.content


async def test_redirected_fetch_is_cached_under_both_urls(server: Server, tmp_path) -> None:
    server.route("/old", static(301, headers={"location": "/new"}))
    server.route("/new", static(200, b"moved here", {"content-type": "text/plain"}))
    tool = WebFetchTool()
    ctx, _ = make_ctx(tmp_path, clock=FakeClock())
    await tool.run(WebFetchInput(url=server.url("/old"), prompt="x"), ctx)
    again = await tool.run(WebFetchInput(url=server.url("/old"), prompt="x"), ctx)
    final = await tool.run(WebFetchInput(url=server.url("/new"), prompt="x"), ctx)
    assert again.meta["cached"] and final.meta["cached"]
    assert (server.hits("/old"), server.hits("/new")) == (1, 1)


async def test_errors_are_not_cached(server: Server, tmp_path) -> None:
    server.route("/flaky", static(500, b"oops"))
    tool = WebFetchTool()
    ctx, _ = make_ctx(tmp_path, clock=FakeClock())
    for _ in range(2):
        out = await tool.run(WebFetchInput(url=server.url("/flaky"), prompt="x"), ctx)
        assert out.is_error and "HTTP 500" in out.content
    assert server.hits("/flaky") == 2
