"""The destination policy: SSRF refusals by default, the allow-list, and what the errors say."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from urllib.parse import urlsplit

import pytest
from hypothesis import given, settings, strategies as st

from sdk._limits import URL_PATTERN
from server import destinations
from server.destinations import (
    DestinationNotAllowed,
    DestinationPolicy,
    DestinationUnresolved,
    IPAddress,
    refusal_reason,
)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1/", "a loopback address"),
        ("http://127.8.9.10:8080/hook", "a loopback address"),
        ("http://[::1]:9000/", "a loopback address"),
        ("http://10.1.2.3/", "a private address"),
        ("http://172.16.0.1/", "a private address"),
        ("https://192.168.1.1/", "a private address"),
        ("http://[fd00::1]/", "a private address"),
        ("http://169.254.169.254/latest/meta-data/", "the cloud metadata address"),
        ("http://[fd00:ec2::254]/", "the cloud metadata address"),
        ("http://169.254.1.1/", "a link-local address"),
        ("http://[fe80::1]/", "a link-local address"),
        ("http://[fe80::1%25eth0]/", "a link-local address"),
        ("http://224.0.0.1/", "a multicast address"),
        ("http://[ff02::1]/", "a multicast address"),
        ("http://0.0.0.0/", "an unspecified address"),
        ("http://[::]/", "an unspecified address"),
        ("http://240.0.0.1/", "a reserved address"),
        ("http://100.64.0.1/", "not publicly routable"),
        ("http://[::ffff:127.0.0.1]/", r"a loopback address \(127.0.0.1\) inside an IPv6 address"),
        ("http://[::ffff:169.254.169.254]/", "the cloud metadata address"),
        ("http://[2002:7f00:1::]/", r"a loopback address \(127.0.0.1\) inside an IPv6 address"),
        ("http://[2002:a00:1::]/", r"a private address \(10.0.0.1\)"),
        ("http://[64:ff9b::a9fe:a9fe]/", "the cloud metadata address"),
    ],
)
async def test_internal_addresses_are_refused_by_default(url: str, reason: str) -> None:
    """Loopback, private, link-local, metadata, multicast, reserved and embedded forms are refused,
    naming the settings that allow them.
    """
    with pytest.raises(DestinationNotAllowed, match=reason) as caught:
        await DestinationPolicy().check(url)
    assert (
        "allow-list ($SPOOL_ALLOW_DESTINATIONS, or destinations.allow in its config file)"
        in str(caught.value)
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://8.8.8.8/",
        "https://1.1.1.1:8443/path?query=1",
        "http://[2606:4700:4700::1111]/",
        "http://[::ffff:8.8.8.8]/",
        "http://[2002:808:808::]/",
    ],
)
async def test_public_addresses_pass(url: str) -> None:
    """Public literal addresses, also embedded in IPv6 forms, need no allow-list."""
    await DestinationPolicy().check(url)


async def test_localhost_is_resolved_and_refused() -> None:
    """A hostname is resolved and refused when it points at loopback."""
    with pytest.raises(DestinationNotAllowed, match="resolves to .*a loopback address"):
        await DestinationPolicy().check("http://localhost:8080/hook")


@pytest.mark.parametrize(
    ("allow", "url"),
    [
        (["localhost"], "http://localhost:8080/hook"),
        (["LOCALHOST."], "http://localhost/"),
        (["127.0.0.0/8"], "http://localhost:8080/hook"),
        (["127.0.0.1", "::1"], "http://localhost/"),
        (["127.0.0.1"], "http://127.0.0.1:1234/"),
        (["127.0.0.0/8"], "http://[::ffff:127.0.0.1]/"),
        (["[::1]"], "http://[::1]/"),
        (["10.0.0.0/8"], "http://10.20.30.40/"),
        (["*.internal.example"], "http://api.internal.example/"),
    ],
)
async def test_allow_list_opens_hosts_addresses_and_networks(allow: list[str], url: str) -> None:
    """An allowed hostname, address or network lets the destination through."""
    await DestinationPolicy(allow).check(url)


async def test_allowing_one_network_keeps_the_others_refused() -> None:
    """The allow-list is an exception list, not a switch that turns the guard off."""
    policy = DestinationPolicy(["127.0.0.0/8"])
    with pytest.raises(DestinationNotAllowed, match="private"):
        await policy.check("http://10.0.0.1/")
    with pytest.raises(DestinationNotAllowed, match="metadata"):
        await policy.check("http://169.254.169.254/")
    with pytest.raises(DestinationNotAllowed, match="loopback"):
        await DestinationPolicy(["*.internal.example"]).check("http://[::1]/")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://8.8.8.8/file", "must use http or https, not 'ftp'"),
        ("file:///etc/passwd", "must use http or https, not 'file'"),
        ("gopher://8.8.8.8/", "must use http or https"),
        ("8.8.8.8/path", "must use http or https, not 'no scheme'"),
        ("http:///path", "has no host"),
        ("http://8.8.8.8:99999/", "not a valid URL"),
        ("http://user:secret@8.8.8.8/", "carries credentials"),
        ("http://[::1/", "not a valid URL"),
    ],
)
async def test_malformed_or_non_http_urls_are_refused(url: str, message: str) -> None:
    """Only well-formed http(s) URLs without credentials are considered at all."""
    with pytest.raises(DestinationNotAllowed, match=message):
        await DestinationPolicy(["0.0.0.0/0", "::/0"]).check(url)


@settings(max_examples=500, deadline=None)
@given(st.from_regex(URL_PATTERN, fullmatch=True))
def test_every_url_the_documents_pattern_allows_is_one_the_policy_reads(url: str) -> None:
    """openapi.yaml's URL pattern is the whole syntax rule (sdk/_limits.py holds it, checked equal
    by tests/sdk/test_limits.py): every URL it allows parses with a host, a port and no user
    info, and the policy, with every address allowed, refuses none of them.
    """
    parts = urlsplit(url)
    assert parts.hostname
    assert parts.port is None or 0 <= parts.port <= 65535
    assert (parts.username, parts.password) == (None, None)
    asyncio.run(DestinationPolicy(["0.0.0.0/0", "::/0"]).check(url, resolve=False))


@pytest.mark.parametrize(
    "address",
    [
        "::",
        "::1",
        "1::",
        "fe80::1%25eth0",
        "1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:1.2.3.4",
        "::ffff:1.2.3.4",
    ],
)
def test_the_documents_pattern_takes_ipv6_addresses_in_every_form(address: str) -> None:
    """Compressed, full, IPv4-ended and zoned IPv6 literals all match the URL pattern."""
    assert re.fullmatch(URL_PATTERN, f"http://[{address}]:8080/hook")


def _fake_resolver(
    monkeypatch: pytest.MonkeyPatch, answer: list[str] | OSError
) -> list[tuple[str, int]]:
    """Make the running loop's getaddrinfo answer ``answer`` (no real DNS in tests)."""
    asked: list[tuple[str, int]] = []

    async def getaddrinfo(host: str, port: int, **_options: object) -> list[tuple[object, ...]]:
        asked.append((host, port))
        if isinstance(answer, OSError):
            raise answer
        return [
            (
                socket.AF_INET6 if ":" in address else socket.AF_INET,
                socket.SOCK_STREAM,
                6,
                "",
                (address, port),
            )
            for address in answer
        ]

    monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", getaddrinfo)
    return asked


async def test_an_unresolvable_host_passes_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name that does not resolve (yet) is accepted: there is no address to refuse, and every
    connection to it is vetted again at delivery.
    """
    _fake_resolver(monkeypatch, socket.gaierror(socket.EAI_NONAME, "Name or service not known"))
    await DestinationPolicy().check("http://hooks.example/")


async def test_a_host_that_resolves_slowly_passes_the_check_in_bounded_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A publish does not wait on a slow name server: past the bound the name is accepted like one
    that does not resolve yet, and every connection to it is vetted at delivery.
    """
    monkeypatch.setattr(destinations, "PUBLISH_RESOLVE_SECONDS", 0.05)

    async def never_answers(hostname: str, port: int) -> list[IPAddress]:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async with asyncio.timeout(5):
        await DestinationPolicy(resolver=never_answers).check("http://slow.example/")


async def test_vetting_an_unresolvable_host_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked for the addresses to connect to, the policy says the name does not resolve."""
    _fake_resolver(monkeypatch, socket.gaierror(socket.EAI_NONAME, "Name or service not known"))
    with pytest.raises(DestinationUnresolved, match="'hooks.example' does not resolve"):
        await DestinationPolicy().vetted_addresses("hooks.example", 80)


async def test_a_host_without_addresses_is_unresolved(monkeypatch: pytest.MonkeyPatch) -> None:
    """A resolver answer with no usable address gives nothing to connect to."""
    _fake_resolver(monkeypatch, [])
    await DestinationPolicy().check("https://hooks.example/")
    with pytest.raises(DestinationUnresolved, match="has no IP address"):
        await DestinationPolicy().vetted_addresses("hooks.example", 443)


async def test_any_internal_address_among_several_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """One private address among public ones is enough to refuse (the connection could use it)."""
    asked = _fake_resolver(monkeypatch, ["93.184.215.14", "2606:2800:21f:cb07::1", "10.0.0.7"])
    with pytest.raises(DestinationNotAllowed, match="10.0.0.7, a private address"):
        await DestinationPolicy().check("https://hooks.example/path")
    assert asked == [("hooks.example", 443)]


async def test_public_resolution_passes_with_the_url_port(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name resolving only to public addresses passes; the URL's port is the one resolved."""
    asked = _fake_resolver(monkeypatch, ["93.184.215.14", "fe80::1%eth0"])
    with pytest.raises(DestinationNotAllowed, match="link-local"):
        await DestinationPolicy().check("http://hooks.example:8080/")
    asked.clear()
    _fake_resolver(monkeypatch, ["93.184.215.14"])
    await DestinationPolicy().check("http://hooks.example:8080/")


def test_invalid_allow_entries_are_rejected() -> None:
    """A typo in the allow-list is a configuration error, not a silently ignored entry."""
    with pytest.raises(ValueError, match="not a hostname, an IP address or a network"):
        DestinationPolicy(["10.0.0.0/33"])
    with pytest.raises(ValueError, match="not a hostname"):
        DestinationPolicy(["http://localhost"])
    with pytest.raises(TypeError, match="not one string"):
        DestinationPolicy("localhost")


def test_policy_repr_and_refusal_reason() -> None:
    """The repr shows the allow-list; refusal_reason is None for public addresses."""
    assert repr(DestinationPolicy(["localhost"])) == "DestinationPolicy(allow=['localhost'])"
    assert refusal_reason(ipaddress.ip_address("8.8.4.4")) is None
    assert refusal_reason(ipaddress.ip_address("192.168.0.1")) == "a private address"


def test_destination_not_allowed_is_a_value_error() -> None:
    """Callers that map ValueError to a 400 keep working."""
    assert issubclass(DestinationNotAllowed, ValueError)
