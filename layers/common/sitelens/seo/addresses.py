"""Which addresses a report's fetch may connect to, the guard against server-side request
forgery (OWASP API7): a host is resolved once (`resolve`) and every address it resolves to
checked (`is_public`); `fetch` then connects to a checked address itself (DNS pinning).
"""

from __future__ import annotations

import ipaddress
import socket

# Ranges `is_global` misses or that differ between Python versions.
_NOT_PUBLIC = tuple(
    ipaddress.ip_network(network)
    for network in (
        "192.0.0.0/24",  # IETF protocol assignments
        "192.88.99.0/24",  # 6to4 relay anycast
        "2001::/23",  # IETF protocol assignments, including Teredo (2001::/32)
        "3fff::/20",  # documentation (RFC 9637)
        "fec0::/10",  # deprecated site-local
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def resolve(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to, in the resolver's order of preference.

    Raises `socket.gaierror` when the name does not resolve.
    """
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def is_public(address: str) -> bool:
    """Whether `address` is a globally reachable unicast address we may connect to."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return False  # a v4 address in disguise; never needed for a public site
        if ip in _NAT64:
            return is_public(str(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)))
        if ip.sixtofour is not None and not is_public(str(ip.sixtofour)):
            return False
    return (
        ip.is_global
        and not ip.is_multicast
        and not ip.is_reserved
        and not any(ip in network for network in _NOT_PUBLIC)
    )
