"""Whether a crawler is who its user agent claims: by forward-confirmed reverse DNS (the
address's PTR name under the operator's domains, and that name resolving back to the
address), as Google and Microsoft document, or by the operator's published IP ranges
(`ranges/`, refreshed by `make crawler-ranges`), as OpenAI, Anthropic and Perplexity do.

A line's verification is `verified`, `spoofed` (it claims a checkable crawler and fails
the check) or `unverified` (no check exists for it, or its address is outside a list that
was never fetched whole: shipped lists are seeded until `make crawler-ranges` runs, and
calling a real crawler spoofed would be a false verdict). The resolver is injectable (`use`:
tests give a fake, nothing in the suite looks a name up) and its answers are kept per
container, since a log repeats a crawler's few addresses thousands of times.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any, Final, Protocol

from sitelens.analytics.crawls.crawlers import Crawler
from sitelens.core import nameservers

VERIFIED: Final = "verified"
SPOOFED: Final = "spoofed"
UNVERIFIED: Final = "unverified"
VERIFICATIONS: Final = (VERIFIED, SPOOFED, UNVERIFIED)
_DNS_SECONDS: Final = 2.0  # a lookup's lifetime: an address that does not answer fails
_CACHED: Final = 65_536  # addresses' answers kept (a few MB)

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class Resolver(Protocol):
    def reverse(self, ip: str) -> list[str]:
        """The PTR names of an address ([] for none)."""

    def forward(self, name: str) -> list[str]:
        """The A and AAAA addresses of a name ([] for none)."""


class DnsResolver:
    """dnspython's, of the configured name server (`core.nameservers`), each look-up
    bounded by `_DNS_SECONDS`."""

    def reverse(self, ip: str) -> list[str]:
        import dns.exception
        import dns.reversename

        try:
            answer = nameservers.resolver().resolve(
                dns.reversename.from_address(ip), "PTR", lifetime=_DNS_SECONDS
            )
        except (dns.exception.DNSException, ValueError):
            return []
        return [str(record).rstrip(".") for record in answer]

    def forward(self, name: str) -> list[str]:
        import dns.exception

        found: list[str] = []
        for kind in ("A", "AAAA"):
            try:
                answer = nameservers.resolver().resolve(name, kind, lifetime=_DNS_SECONDS)
            except dns.exception.DNSException:
                continue
            found += [str(record) for record in answer]
        return found


_resolver: Resolver = DnsResolver()
_answers: dict[tuple[str, tuple[str, ...]], bool] = {}


def use(resolver: Resolver | None) -> None:
    """Look names up with `resolver` (None: dnspython's), forgetting the answers kept."""
    global _resolver
    _resolver = resolver if resolver is not None else DnsResolver()
    _answers.clear()


def _same(one: str, other: str) -> bool:
    try:
        return ipaddress.ip_address(one) == ipaddress.ip_address(other)
    except ValueError:
        return False


def confirmed_by_dns(ip: str, domains: Iterable[str]) -> bool:
    """Whether `ip`'s PTR name is under one of `domains` and resolves back to `ip`."""
    suffixes = tuple(sorted(domains))
    key = (ip, suffixes)
    if key in _answers:
        return _answers[key]
    found = False
    for name in _resolver.reverse(ip):
        host = name.lower().rstrip(".")
        if any(host == d or host.endswith("." + d) for d in suffixes) and any(
            _same(ip, back) for back in _resolver.forward(host)
        ):
            found = True
            break
    if len(_answers) >= _CACHED:
        _answers.clear()
    _answers[key] = found
    return found


@cache
def _published(file: str) -> dict[str, Any]:
    text = resources.files("sitelens.analytics.crawls").joinpath("ranges", file).read_text()
    found: dict[str, Any] = json.loads(text)
    return found


def ranges(file: str) -> tuple[IpNetwork, ...]:
    """The networks of a published list shipped in `ranges/`."""
    return tuple(ipaddress.ip_network(p, strict=False) for p in _published(file)["prefixes"])


def fetched(file: str) -> bool:
    """Whether the list was fetched whole from its source (`make crawler-ranges` sets
    `fetched`): a list seeded by hand may lack some of the operator's addresses."""
    return bool(_published(file).get("fetched"))


def in_ranges(ip: str, file: str) -> bool:
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    return any(address in network for network in ranges(file))


def verify(crawler: Crawler, ip: str) -> str:
    """A line's verification: `verified`, `spoofed` or `unverified` (no check for it)."""
    method = (crawler.verify or {}).get("method")
    if method == "dns":
        ok = confirmed_by_dns(ip, crawler.verify["domains"])  # type: ignore[index]
    elif method == "ranges":
        file = crawler.verify["file"]  # type: ignore[index]
        ok = in_ranges(ip, file)
        if not ok and not fetched(file):  # outside a partial list proves nothing
            return UNVERIFIED
    else:
        return UNVERIFIED
    return VERIFIED if ok else SPOOFED
