"""URL hosts for WebFetch, and the preapproved documentation-host list.

The list (`agent_tui/data/preapproved_hosts.txt`) lets WebFetch, and nothing else, read those
documentation sites without asking. An entry may carry a path (`github.com/anthropics`), covering
that path and below at segment boundaries (`/anthropics/x`, not `/anthropics-evil`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from agent_tui.paths import package_data

_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Url:
    scheme: str
    host: str
    port: int | None
    path: str


def parse_url(url: object) -> Url | None:
    """The parts of an http(s) URL, host lowercased without a trailing dot; None if unusable."""
    if not isinstance(url, str) or any(c.isspace() or ord(c) < 0x20 for c in url):
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").rstrip(".")
    if parts.scheme.lower() not in _DEFAULT_PORTS or not host:
        return None
    return Url(parts.scheme.lower(), host.lower(), port, parts.path or "/")


def _segments(path: str) -> list[str] | None:
    # Dot segments or encoded separators could step outside the approved path once the server
    # decodes them, so such paths never count as inside an entry.
    lowered = path.lower()
    if "%2f" in lowered or "%2e" in lowered or "%5c" in lowered or "\\" in path:
        return None
    segs = [s for s in path.split("/") if s]
    if any(s in (".", "..") for s in segs):
        return None
    return segs


@dataclass(frozen=True, slots=True)
class PreapprovedHosts:
    #: host -> path prefixes as segment lists ([] = the whole host)
    entries: dict[str, tuple[tuple[str, ...], ...]]

    @classmethod
    def parse(cls, text: str) -> PreapprovedHosts:
        entries: dict[str, list[tuple[str, ...]]] = {}
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            host, _, path = line.partition("/")
            entries.setdefault(host.lower().rstrip("."), []).append(
                tuple(s for s in path.split("/") if s)
            )
        return cls({h: tuple(p) for h, p in entries.items()})

    @classmethod
    def load(cls, path: Path | None = None) -> PreapprovedHosts:
        return cls.parse((path or package_data("preapproved_hosts.txt")).read_text("utf-8"))

    def match(self, url: Url) -> str | None:
        """The entry covering `url` (e.g. "github.com/anthropics"), or None."""
        prefixes = self.entries.get(url.host)
        if not prefixes or url.port not in (None, _DEFAULT_PORTS[url.scheme]):
            return None
        segs = _segments(url.path)
        for prefix in prefixes:
            if not prefix:
                return url.host
            if segs is not None and tuple(segs[: len(prefix)]) == prefix:
                return url.host + "/" + "/".join(prefix)
        return None


@lru_cache(maxsize=1)
def default_preapproved() -> PreapprovedHosts:
    return PreapprovedHosts.load()
