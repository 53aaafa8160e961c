"""What WebFetch may fetch at all, decided before any request is made.

`check_url` validates and normalises a URL (scheme, length, userinfo, host, literal addresses in any
encoding) and `address_problem` says why an IP address is off limits. The same `address_problem`
is applied again to every address a name resolves to, at connect time (see `fetch.py`), so a name
that resolves to an internal address is refused as well, without a second DNS lookup to race.

The host the person explicitly allowed (`explicit_hosts`: their own rules, never a project's, in
canonical spelling) is exempt from the address rules, for that exact host only: it is how tests
reach a loopback server, and how a person reaches a LAN host. A name's resolved addresses are
still checked and pinned; a cloud metadata address is reachable only if named itself.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Collection
from dataclasses import dataclass

from agent_tui.permissions.hosts import canonical_host, ipv4_number, normalize_host

MAX_URL_LENGTH = 2000

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Cloud metadata services. Most sit in ranges refused anyway (link-local, ULA, shared address
# space); 168.63.129.16 (Azure's host endpoint) is in public space, so the list is checked first.
METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",
        "169.254.170.2",
        "169.254.169.253",
        "100.100.100.200",
        "168.63.129.16",
        "192.0.0.192",
        "fd00:ec2::254",
        "fd00:ec2::23",
    )
)
METADATA_HOSTS = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "metadata.azure.internal",
        "instance-data",
        "instance-data.ec2.internal",
    }
)
# RFC 6052 / RFC 8215 NAT64 prefixes: the last 32 bits are an IPv4 address.
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))

_HOST_CHARS = re.compile(r"[a-z0-9_.-]+")
_CONTROL_OR_SPACE = re.compile(r"[\x00-\x20\x7f\\]")


class UrlRefused(ValueError):
    """A URL WebFetch will not fetch; the message says why, in words the model can act on."""


@dataclass(frozen=True, slots=True)
class CheckedUrl:
    #: the URL to request (normalised, `http` upgraded to `https` where required)
    url: str
    #: ASCII host, lower case, without brackets or a trailing dot
    host: str
    #: the host is in `explicit_hosts`: address rules do not apply to it
    explicit: bool
    upgraded: bool = False


def is_loopback_name(host: str) -> bool:
    """`localhost` and its subdomains are loopback by definition (RFC 6761), whatever DNS says."""
    host = normalize_host(host)
    return host == "localhost" or host.endswith(".localhost")


def is_loopback_host(host: str) -> bool:
    host = normalize_host(host)
    if is_loopback_name(host):
        return True
    ip = _plain_ip(host)
    return ip is not None and (ip.is_loopback or _embedded_loopback(ip))


def address_problem(ip: IPAddress) -> str | None:
    """Why WebFetch must not connect to `ip` ("a loopback address", ...), or None if it may."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            problem = address_problem(embedded)
            if problem:
                return f"{problem} (embedded in {ip})"
    if ip in METADATA_ADDRESSES:
        return "a cloud metadata address"
    checks = (
        (ip.is_unspecified, "an unspecified address"),
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_reserved, "a reserved address"),
        (ip.is_private, "a private address"),
        # shared address space (100.64/10), benchmarking, documentation, 6to4 relays, ...
        (not ip.is_global, "a non-public address"),
    )
    return next((why for hit, why in checks if hit), None)


def parse_ipv4_number(host: str) -> tuple[ipaddress.IPv4Address, bool] | None:
    """Parse `host` as an IPv4 address the way URL parsers and `inet_aton` do.

    Returns `(address, canonical)` where `canonical` means plain dotted decimal, or None if the
    host does not end in a number (so is a name). Raises `UrlRefused` for a malformed number,
    which a resolver might still read as an address (`0x7f.1`, `0177.0.0.1`, `2130706433`, `127.1`).
    """
    try:
        number = ipv4_number(host)
    except ValueError:
        raise UrlRefused(f"The host {host!r} is not a valid IPv4 address.") from None
    if number is None:
        return None
    address = ipaddress.IPv4Address(number)
    return address, host.rstrip(".") == str(address)


def check_url(raw: str, explicit_hosts: Collection[str] = frozenset()) -> CheckedUrl:
    """Validate `raw` and return what to request; raise `UrlRefused` (no request made) if not."""
    if len(raw) > MAX_URL_LENGTH:
        raise UrlRefused(f"The URL is {len(raw)} characters long; the limit is {MAX_URL_LENGTH}.")
    if _CONTROL_OR_SPACE.search(raw.strip()):
        # Parsers disagree on backslashes, whitespace and control characters; refuse them all.
        raise UrlRefused("The URL contains spaces, control characters or backslashes.")
    raw = raw.strip()
    scheme, sep, rest = raw.partition("://")
    if not sep:
        raise UrlRefused("The URL must be absolute and start with https:// or http://.")
    if scheme.lower() not in ("http", "https"):
        raise UrlRefused(f"Only http and https URLs can be fetched, not {scheme!r}.")
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    if "@" in authority:
        raise UrlRefused("URLs with a user name or password are not fetched.")
    import httpx  # deferred: ~100 ms, only needed once a URL is checked

    try:
        url = httpx.URL(raw)
    except (httpx.InvalidURL, ValueError) as exc:
        raise UrlRefused(f"The URL is not valid: {exc}") from None
    host = normalize_host(url.raw_host.decode("ascii", "replace"))
    if not host:
        raise UrlRefused("The URL has no host.")
    if url.port is not None and not 0 < url.port < 65536:
        raise UrlRefused(f"The port {url.port} is not valid.")
    # Only the exact canonical spelling the person named counts: `127.1` is not `127.0.0.1`.
    explicit_set = {canonical_host(h) for h in explicit_hosts}
    explicit = host == canonical_host(host) and host in explicit_set
    if not explicit:
        _check_host(host)

    upgraded = False
    if url.scheme == "http" and not (explicit and is_loopback_host(host)):
        url = url.copy_with(scheme="https")
        upgraded = True
    return CheckedUrl(url=str(url), host=host, explicit=explicit, upgraded=upgraded)


def _check_host(host: str) -> None:
    """Refuse hosts that are, or spell, an address off limits (the DNS answer is checked later)."""
    refusal = "WebFetch does not fetch from local, private or metadata addresses."
    if ":" in host:
        ip6 = _plain_ip(host)
        if ip6 is None:
            raise UrlRefused(f"The host {host!r} is not a valid IPv6 address.")
        problem = address_problem(ip6)
        if problem:
            raise UrlRefused(f"The host {host} is {problem}. {refusal}")
        return
    if not _HOST_CHARS.fullmatch(host) or ".." in host:
        raise UrlRefused(f"The host {host!r} is not a valid host name.")
    if is_loopback_name(host):
        raise UrlRefused(f"The host {host} is a loopback name. {refusal}")
    if host in METADATA_HOSTS:
        raise UrlRefused(f"The host {host} is a cloud metadata service. {refusal}")
    parsed = parse_ipv4_number(host)
    if parsed is None:
        return
    ip4, canonical = parsed
    if not canonical:
        # No legitimate link needs `0x08080808`; such spellings exist to slip past filters.
        raise UrlRefused(
            f"The host {host!r} is an IPv4 address in a non-standard notation ({ip4}); "
            "write addresses in dotted decimal."
        )
    problem = address_problem(ip4)
    if problem:
        raise UrlRefused(f"The host {host} is {problem}. {refusal}")


def _plain_ip(host: str) -> IPAddress | None:
    if "%" in host:  # zone ids (`fe80::1%eth0`) only exist for link-local addresses
        return None
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if any(ip in net for net in _NAT64):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    return None


def _embedded_loopback(ip: IPAddress) -> bool:
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        return embedded is not None and embedded.is_loopback
    return False
