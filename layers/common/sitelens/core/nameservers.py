"""The DNS resolver every look-up uses (dnspython's): the system's name servers, or
`SITELENS_DNS_NAMESERVER` (`host` or `host:port`; an IPv6 address as `[::1]:53`), a local
stub server in tests and the developer's own under make serve. Domain proofs ask it for
TXT records, crawler verification for PTR, A and AAAA."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sitelens.core.config import settings

if TYPE_CHECKING:
    import dns.resolver


def resolver() -> dns.resolver.Resolver:
    """A resolver of the configured name server (imported here: only a look-up loads it)."""
    import dns.resolver

    configured = settings().dns_nameserver
    found = dns.resolver.Resolver(configure=not configured)
    if configured:
        server, _, port = configured.rpartition(":")
        if not server or not port.isdigit():  # a bare host (an IPv6 address needs [::1]:53)
            server, port = configured, "53"
        found.nameservers = [server.strip("[]")]
        found.port = int(port)
    return found
