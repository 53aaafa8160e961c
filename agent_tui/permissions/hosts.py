"""URL hosts for WebFetch, and the preapproved documentation-host list.

The list (`agent_tui/data/preapproved_hosts.txt`) lets WebFetch, and nothing else, read those
documentation sites without asking. An entry may carry a path (`github.com/anthropics`), covering
that path and below at segment boundaries (`/anthropics/x`, not `/anthropics-evil`).
"""

from __future__ import annotations

import contextlib
import ipaddress
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from agent_tui.paths import package_data

_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Url:
    """An http(s) URL's parts (`parse_url`): scheme lowercased, host canonical, path "/" at
    least."""

    scheme: str
    host: str
    port: int | None
    path: str


def normalize_host(host: str) -> str:
    """Lower case, no IPv6 brackets, no trailing dot, ASCII (punycode: the form requested)."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host.rstrip(".")
    if not host.isascii():
        import idna  # only for international names; not loaded at start-up

        with contextlib.suppress(idna.IDNAError, UnicodeError):
            host = idna.encode(host, uts46=True).decode("ascii")
    return host


def ipv4_number(host: str) -> int | None:
    """`host` read as an IPv4 address the way URL parsers and `inet_aton` do (`127.1`,
    `2130706433`, `0x7f000001`, `0177.0.0.1`), or None for a name (it doesn't end in a number).
    Raises ValueError for a malformed number, which a resolver might still read as an address."""
    parts = host.split(".")
    if parts and parts[-1] == "":
        parts.pop()
    if not parts or not _is_number_like(parts[-1]):
        return None
    if len(parts) > 4:
        raise ValueError(f"{host!r} is not a valid IPv4 address")
    values: list[int] = []
    for part in parts:
        value = _ipv4_part(part)
        if value is None:
            raise ValueError(f"{host!r} is not a valid IPv4 address")
        values.append(value)
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (5 - len(values)):
        raise ValueError(f"{host!r} is not a valid IPv4 address")
    number = last
    for i, v in enumerate(head):
        number += v << (8 * (3 - i))
    return number


_HEX = frozenset("0123456789abcdefABCDEF")


def _is_number_like(part: str) -> bool:
    return part.isdigit() or (part[:2] in ("0x", "0X") and all(c in _HEX for c in part[2:]))


def _ipv4_part(part: str) -> int | None:
    if part[:2] in ("0x", "0X"):
        digits, base = part[2:], 16
        if not digits:
            return 0
    elif len(part) > 1 and part.startswith("0"):
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    try:
        return int(digits, base) if digits.isalnum() and digits.isascii() else None
    except ValueError:
        return None


def canonical_host(host: str) -> str:
    """The one spelling a host is compared in: `normalize_host`, and an IP address in its
    standard form whatever notation it was written in (`127.1`, `0x7f000001`, `2130706433` and
    `0177.0.0.1` are all `127.0.0.1`; IPv6 compressed)."""
    host = normalize_host(host)
    if ":" in host and "%" not in host:
        with contextlib.suppress(ValueError):
            return ipaddress.IPv6Address(host).compressed
        return host
    try:
        number = ipv4_number(host)
    except ValueError:
        return host  # malformed: compared as written (and refused when fetched)
    return str(ipaddress.IPv4Address(number)) if number is not None else host


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
    return Url(parts.scheme.lower(), canonical_host(host), port, parts.path or "/")


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
    """The preapproved documentation hosts (`preapproved_hosts.txt`) and the paths each covers."""

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
