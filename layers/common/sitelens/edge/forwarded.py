"""The client's address behind the proxies the operator trusts (`SITELENS_TRUSTED_PROXIES`):
the right-most address of X-Forwarded-For that none of them wrote."""

from __future__ import annotations

import ipaddress

from sitelens.core import config


def forwarded_client(source_ip: str, forwarded_for: str, trusted: config.Networks) -> str:
    """The right-most address of X-Forwarded-For that is not a trusted proxy, read only
    when `source_ip` is one: each trusted hop appended the address it was reached from, and
    whatever stands left of the first untrusted one was written by the client, so anything.
    A hop that names no address ends the walk at the last address read."""
    if not _trusted(_address(source_ip), trusted):
        return source_ip
    client = source_ip
    for hop in reversed(forwarded_for.split(",")):
        address = _address(hop)
        if address is None:
            break
        client = str(address)
        if not _trusted(address, trusted):
            break
    return client


IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _address(text: str) -> IpAddress | None:
    """An address as X-Forwarded-For writes it (`[2001:db8::1]:443` and `192.0.2.1:80`
    too); an IPv4-mapped IPv6 address as IPv4; None for anything else."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _trusted(address: IpAddress | None, trusted: config.Networks) -> bool:
    return address is not None and any(
        address.version == network.version and address in network for network in trusted
    )
