"""Which URLs the service may deliver to: a guard against server-side request forgery (SSRF).

Anyone with a publish token chooses where the service sends HTTP requests, so by default it refuses
every destination that resolves to an address inside the deployment's own network: loopback,
private ranges, link-local (which holds the cloud metadata service at 169.254.169.254), multicast,
reserved and unspecified addresses, and the IPv6 forms that embed such an IPv4 address. A
deployment opens what it needs with an allow-list of hostnames, addresses and networks.

The host is resolved and *every* address is checked, because a name with one public and one private
address would otherwise let the connection go to the private one.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Sequence
from urllib.parse import urlsplit

__all__ = [
    "DestinationNotAllowed",
    "DestinationPolicy",
    "DestinationUnresolved",
    "IPAddress",
    "PUBLISH_RESOLVE_SECONDS",
    "Resolver",
    "refusal_reason",
    "resolve_host",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]

_ALLOWED_SCHEMES = frozenset({"http", "https"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
# How long a publish waits for a destination's name to resolve before accepting it unchecked; the
# connections of its attempts are vetted whatever the name answers then.
PUBLISH_RESOLVE_SECONDS = 2.0
_HOSTNAME = re.compile(r"^(\*\.)?(?!-)[a-z0-9_-]{1,63}(?<!-)(\.(?!-)[a-z0-9_-]{1,63}(?<!-))*\.?$")
_METADATA_ADDRESSES = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)
# NAT64 (RFC 6052) carries an IPv4 address in its last 32 bits, like the IPv4-mapped form.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class DestinationNotAllowed(ValueError):
    """A destination URL the service refuses to call; the message says which address and why."""


class DestinationUnresolved(DestinationNotAllowed):
    """A destination whose host name does not resolve (now): nothing to connect to, or to refuse."""


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _kind(address: IPAddress) -> str | None:
    if address in _METADATA_ADDRESSES:
        return "the cloud metadata address"
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_reserved:
        return "a reserved address"
    if address.is_private:
        return "a private address"
    if not address.is_global:
        return "an address that is not publicly routable"
    return None


def refusal_reason(address: IPAddress) -> str | None:
    """Why ``address`` is refused by default (e.g. "a loopback address"), or None if it is public."""
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        inner = _kind(embedded)
        if inner is not None:
            return f"{inner} ({embedded}) inside an IPv6 address"
        # ipaddress counts every IPv4-mapped address as private; the embedded address decides.
        return None
    return _kind(address)


def _parse_address(text: str) -> IPAddress:
    # getaddrinfo may return a zone index ("fe80::1%eth0") that ipaddress rejects.
    return ipaddress.ip_address(text.split("%", 1)[0])


class DestinationPolicy:
    """Decides whether a destination URL may be called; ``allow`` lists exceptions to the defaults.

    Each ``allow`` entry is a hostname (``localhost``, or ``*.internal.example`` for every name
    under a domain), an IP address (``::1``) or a network (``127.0.0.0/8``). An allowed hostname is
    trusted whatever it resolves to; an allowed address or network opens only those addresses.
    ``resolver`` (for tests) replaces the system's name resolution.
    """

    __slots__ = ("_hostnames", "_networks", "_resolver", "_suffixes", "allow")

    def __init__(self, allow: Sequence[str] = (), *, resolver: Resolver | None = None) -> None:
        if isinstance(allow, str):
            raise TypeError("allow must be a sequence of entries, not one string")
        self.allow = tuple(allow)
        self._resolver = resolver or resolve_host
        hostnames: set[str] = set()
        suffixes: list[str] = []
        networks: list[IPNetwork] = []
        for raw_entry in self.allow:
            entry = raw_entry.strip().lower()
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
                continue
            except ValueError:
                pass
            if not _HOSTNAME.match(entry):
                raise ValueError(
                    f"destination allow-list entry {raw_entry!r} is not a hostname, "
                    "an IP address or a network such as 10.0.0.0/8"
                )
            name = entry.rstrip(".")
            if name.startswith("*."):
                suffixes.append(name[1:])
            else:
                hostnames.add(name)
        self._hostnames = frozenset(hostnames)
        self._suffixes = tuple(suffixes)
        self._networks = tuple(networks)

    def __repr__(self) -> str:
        return f"DestinationPolicy(allow={list(self.allow)!r})"

    def allows_hostname(self, hostname: str) -> bool:
        """True when ``hostname`` is on the allow-list by name."""
        name = hostname.lower().rstrip(".")
        return name in self._hostnames or any(name.endswith(suffix) for suffix in self._suffixes)

    def allows_address(self, address: IPAddress) -> bool:
        """True when ``address`` (or the IPv4 address it embeds) is in an allowed network."""
        candidates = [address]
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            candidates.append(embedded)
        return any(
            candidate.version == network.version and candidate in network
            for candidate in candidates
            for network in self._networks
        )

    def check_address(self, url: str, address: IPAddress) -> None:
        """Raise ``DestinationNotAllowed`` when ``url`` must not connect to ``address``."""
        if self.allows_address(address):
            return
        reason = refusal_reason(address)
        if reason is not None:
            raise DestinationNotAllowed(
                f"destination {url!r} resolves to {address}, {reason}; the service does not call "
                "such addresses unless they are on its destination allow-list "
                "($SPOOL_ALLOW_DESTINATIONS, or destinations.allow in its config file)"
            )

    async def check(self, url: str, *, resolve: bool = True) -> None:
        """Raise ``DestinationNotAllowed`` unless ``url`` is http(s) and every address it resolves to
        is public or allowed; a host name that does not resolve passes. Resolution uses the event
        loop's resolver, so it never blocks it. With ``resolve=False`` only what the URL itself
        says is checked (scheme, host, credentials, a literal address): for a caller that vets
        the addresses when it connects (server/delivery/transport.py).
        """
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as error:
            raise DestinationNotAllowed(
                f"destination {url!r} is not a valid URL: {error}"
            ) from None
        scheme = parts.scheme.lower()
        if scheme not in _ALLOWED_SCHEMES:
            raise DestinationNotAllowed(
                f"destination {url!r} must use http or https, not {scheme or 'no scheme'!r}"
            )
        hostname = parts.hostname
        if not hostname:
            raise DestinationNotAllowed(f"destination {url!r} has no host")
        if parts.username is not None or parts.password is not None:
            raise DestinationNotAllowed(
                f"destination {url!r} carries credentials; pass them in headers instead"
            )
        if self.allows_hostname(hostname):
            return
        if not resolve:
            try:
                literal = _parse_address(hostname.strip("[]"))
            except ValueError:
                return
            self.check_address(url, literal)
            return
        try:
            async with asyncio.timeout(PUBLISH_RESOLVE_SECONDS):
                await self.vetted_addresses(hostname, port or _DEFAULT_PORTS[scheme], label=url)
        except (DestinationUnresolved, TimeoutError):
            # A name that does not resolve yet (or not quickly: a name server that drops a query
            # costs its client a 5 s retry) may resolve by the time of delivery, where every
            # connection is vetted again (server/delivery/transport.py); until then its attempts
            # fail.
            return

    async def vetted_addresses(
        self, hostname: str, port: int, *, label: str | None = None
    ) -> list[IPAddress]:
        """The addresses a connection to ``hostname``:``port`` may use, resolved once, every one of
        them checked (``DestinationNotAllowed`` names ``label``, the URL, when one is refused;
        ``DestinationUnresolved`` when there are none). A hostname allowed by name may use whatever
        it resolves to.

        Connecting to exactly these addresses, rather than resolving the name again, is what keeps
        a name that answers differently each time (DNS rebinding) from slipping past the check.
        """
        label = label or f"{hostname}:{port}"
        try:
            literal: IPAddress | None = _parse_address(hostname.strip("[]"))
        except ValueError:
            literal = None
        if literal is not None:
            self.check_address(label, literal)
            return [literal]
        try:
            addresses = await self._resolver(hostname, port)
        except (OSError, UnicodeError) as error:
            raise DestinationUnresolved(
                f"destination {label!r}: the host {hostname!r} does not resolve ({error})"
            ) from None
        if not addresses:
            raise DestinationUnresolved(
                f"destination {label!r}: the host {hostname!r} has no IP address"
            )
        if not self.allows_hostname(hostname):
            for address in addresses:
                self.check_address(label, address)
        return addresses


async def resolve_host(hostname: str, port: int) -> list[IPAddress]:
    """Every IP address ``hostname`` resolves to for TCP, from the event loop's resolver."""
    infos = await asyncio.get_running_loop().getaddrinfo(hostname, port, type=socket.SOCK_STREAM)
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _canonname, sockaddr in infos:
        try:
            address = _parse_address(str(sockaddr[0]))
        except ValueError:
            continue
        if address not in addresses:
            addresses.append(address)
    return addresses
