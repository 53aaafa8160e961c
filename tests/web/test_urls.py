"""Scheme, shape and SSRF rules, decided before any request (no DNS, no network)."""

from __future__ import annotations

import ipaddress

import pytest

from agent_tui.web.urls import (
    MAX_URL_LENGTH,
    UrlRefused,
    address_problem,
    check_url,
    parse_ipv4_number,
)

ALLOWED = [
    ("https://example.com/", "https://example.com/"),
    ("http://example.com/page", "https://example.com/page"),
    ("HTTPS://Example.COM/Path?q=1#frag", "https://example.com/Path?q=1#frag"),
    ("https://example.com:8443/x", "https://example.com:8443/x"),
    ("https://docs.python.org/3/library/ipaddress.html", None),
    ("https://bücher.de/", "https://xn--bcher-kva.de/"),
    ("https://xn--bcher-kva.de/", "https://xn--bcher-kva.de/"),
    ("https://8.8.8.8/", "https://8.8.8.8/"),
    ("https://[2606:4700:4700::1111]/", "https://[2606:4700:4700::1111]/"),
    ("https://sub_domain.example.com/", None),
    ("https://example.com./", None),
    ("http://93.184.216.34/", "https://93.184.216.34/"),
    ("https://1.1.1.1:443/", None),
    ("https://example.com/a%20b", None),
]

REFUSED = [
    # scheme and shape
    ("ftp://example.com/file", "Only http and https"),
    ("file:///etc/passwd", "Only http and https"),
    ("javascript:alert(1)", "absolute"),
    ("gopher://example.com/", "Only http and https"),
    ("example.com/page", "absolute"),
    ("//example.com/page", "absolute"),
    ("http:/example.com", "absolute"),
    ("https:///path-only", "no host"),
    ("https://user:pass@example.com/", "user name or password"),
    ("https://user@example.com/", "user name or password"),
    ("https://@example.com/", "user name or password"),
    ("https://example.com\\@127.0.0.1/", "backslashes"),
    ("https://exa mple.com/", "spaces"),
    ("https://example.com/\x00", "control"),
    ("https://example.com:99999/", "port"),
    ("https://" + "a" * (MAX_URL_LENGTH) + ".com/", "limit is 2000"),
    ("https://%31%32%37.0.0.1/", "not a valid host"),
    ("https://ｅｘａｍｐｌｅ.com/", "not valid"),
    # loopback, in every spelling
    ("http://127.0.0.1/", "loopback"),
    ("http://127.0.0.1:8080/admin", "loopback"),
    ("http://127.1/", "non-standard"),
    ("http://127.0.1/", "non-standard"),
    ("http://2130706433/", "non-standard"),
    ("http://0x7f000001/", "non-standard"),
    ("http://0x7f.1/", "non-standard"),
    ("http://0177.0.0.1/", "not valid"),  # httpx rejects it first
    ("http://0177.0000.0000.0001/", "not valid"),  # httpx rejects it first
    ("http://017700000001/", "non-standard"),
    ("http://127.000.000.001/", "not valid"),  # httpx rejects it first
    ("http://0x7f.0x0.0x0.0x1/", "non-standard"),
    ("http://127.0.0.1./", "loopback"),
    ("http://08.0.0.1/", "valid ipv4"),
    ("http://1.2.3.4.5/", "not a valid IPv4"),
    ("http://256.0.0.1/", "valid ipv4"),
    ("http://localhost/", "loopback name"),
    ("http://LOCALHOST:3000/", "loopback name"),
    ("http://app.localhost/", "loopback name"),
    ("http://[::1]/", "loopback"),
    ("http://[0:0:0:0:0:0:0:1]/", "loopback"),
    ("http://[::ffff:127.0.0.1]/", "loopback"),
    ("http://[::ffff:7f00:1]/", "loopback"),
    ("http://[64:ff9b::7f00:1]/", "loopback"),
    ("http://[64:ff9b::a00:1]/", "private"),
    ("http://[2002:7f00:1::]/", "loopback"),
    ("http://[::127.0.0.1]/", "reserved"),
    # unspecified
    ("http://0.0.0.0/", "unspecified"),
    ("http://0/", "non-standard"),
    ("http://[::]/", "unspecified"),
    # private
    ("http://10.0.0.1/", "private"),
    ("http://10.255.255.255/", "private"),
    ("http://172.16.0.1/", "private"),
    ("http://172.31.255.254/", "private"),
    ("http://192.168.1.1/", "private"),
    ("http://3232235777/", "non-standard"),
    ("http://[fc00::1]/", "private"),
    ("http://[fd12:3456::1]/", "private"),
    ("http://[::ffff:10.0.0.1]/", "private"),
    ("http://[::ffff:192.168.0.1]/", "private"),
    # link-local and metadata
    ("http://169.254.169.254/latest/meta-data/", "metadata"),
    ("http://169.254.170.2/v2/credentials", "metadata"),
    ("http://[fd00:ec2::254]/", "metadata"),
    ("http://100.100.100.200/", "metadata"),
    ("http://168.63.129.16/", "metadata"),
    ("http://[::ffff:169.254.169.254]/", "metadata"),
    ("http://0xa9fea9fe/", "non-standard"),
    ("http://metadata.google.internal/computeMetadata/v1/", "metadata service"),
    ("http://metadata/", "metadata service"),
    ("http://169.254.1.1/", "link-local"),
    ("http://[fe80::1]/", "link-local"),
    ("http://[fe80::1%25eth0]/", "not a valid IPv6"),
    # multicast, reserved, shared, documentation
    ("http://224.0.0.1/", "multicast"),
    ("http://239.255.255.250/", "multicast"),
    ("http://[ff02::1]/", "multicast"),
    ("http://240.0.0.1/", "reserved"),
    ("http://255.255.255.255/", "reserved"),
    ("http://100.64.0.1/", "non-public"),
    ("http://192.0.2.1/", "private"),
    ("http://198.18.0.1/", "private"),
]


@pytest.mark.parametrize(("raw", "expected"), ALLOWED)
def test_allowed_urls(raw: str, expected: str | None) -> None:
    checked = check_url(raw)
    assert checked.url.startswith("https://")
    if expected is not None:
        assert checked.url == expected
    assert not checked.explicit


@pytest.mark.parametrize(("raw", "reason"), REFUSED)
def test_refused_urls(raw: str, reason: str) -> None:
    with pytest.raises(UrlRefused) as info:
        check_url(raw)
    assert reason.lower() in str(info.value).lower()


def test_table_is_large_enough() -> None:
    assert len(ALLOWED) + len(REFUSED) >= 40


def test_loopback_allowed_only_when_that_exact_host_is_explicit() -> None:
    with pytest.raises(UrlRefused):
        check_url("http://127.0.0.1:8000/page")
    checked = check_url("http://127.0.0.1:8000/page", {"127.0.0.1"})
    # an explicitly allowed loopback host keeps plain http: how tests serve pages
    assert checked.url == "http://127.0.0.1:8000/page"
    assert checked.explicit and not checked.upgraded
    # a different spelling of the same address is not the host the person allowed
    for other in ("http://127.1:8000/", "http://localhost:8000/", "http://[::1]:8000/"):
        with pytest.raises(UrlRefused):
            check_url(other, {"127.0.0.1"})
    assert check_url("http://[::1]:8000/", {"[::1]"}).url == "http://[::1]:8000/"
    assert check_url("http://localhost:8000/", {"localhost"}).url == "http://localhost:8000/"


def test_explicit_non_loopback_host_is_still_upgraded() -> None:
    checked = check_url("http://192.168.1.10/status", {"192.168.1.10"})
    assert checked.explicit
    assert checked.url == "https://192.168.1.10/status"
    assert checked.upgraded


@pytest.mark.parametrize(
    ("host", "address", "canonical"),
    [
        ("127.0.0.1", "127.0.0.1", True),
        ("127.1", "127.0.0.1", False),
        ("2130706433", "127.0.0.1", False),
        ("0x7f.1", "127.0.0.1", False),
        ("0177.0.0.1", "127.0.0.1", False),
        ("0x7F.0.0.0x1", "127.0.0.1", False),
        ("10.1.256", "10.1.1.0", False),
        ("8.8.8.8.", "8.8.8.8", True),
    ],
)
def test_ipv4_number_forms(host: str, address: str, canonical: bool) -> None:
    assert parse_ipv4_number(host) == (ipaddress.IPv4Address(address), canonical)


def test_names_are_not_numbers() -> None:
    assert parse_ipv4_number("example.com") is None
    assert parse_ipv4_number("1.2.3.example") is None


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "10.0.0.1", "169.254.169.254", "::1", "fe80::1", "::ffff:127.0.0.1", "0.0.0.0"],
)
def test_address_problem_refuses(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"])
def test_address_problem_allows_public(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address)) is None


# --- an allow rule names a host: it never lifts the address checks for another spelling ---------


@pytest.mark.parametrize(
    "spelling", ["127.1", "0", "2130706433", "0x7f000001", "0177.0.0.1", "0x7f.1", "127.000.0.1"]
)
def test_a_non_canonical_spelling_is_refused_even_when_named(spelling: str) -> None:
    with pytest.raises(UrlRefused):
        check_url(f"http://{spelling}/", explicit_hosts={spelling, "127.0.0.1"})


def test_an_ipv4_mapped_spelling_is_not_the_named_ipv4_host() -> None:
    with pytest.raises(UrlRefused):
        check_url("http://[::ffff:127.0.0.1]/", explicit_hosts={"127.0.0.1"})


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("127.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("[::FFFF:127.0.0.1]", "::ffff:7f00:1"),
        ("Example.COM.", "example.com"),
        ("bücher.example", "xn--bcher-kva.example"),
    ],
)
def test_canonical_host(written: str, canonical: str) -> None:
    from agent_tui.permissions.hosts import canonical_host

    assert canonical_host(written) == canonical
