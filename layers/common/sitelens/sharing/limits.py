"""The share routes' limit per client address: a token bucket per address, refilled at
`SITELENS_SHARE_RATE_LIMIT` requests a second and holding `SITELENS_SHARE_RATE_BURST`,
shared by every container (`sitelens.data.buckets`), so that one address can neither
take every share view's throughput nor try links quickly. Every share request but the
pages' assets takes a token, found or not, before anything is read; an empty bucket
answers 429 with `Retry-After` and counts `RequestsThrottled` (reason `share_address`).

A reservation is one conditional write per request: share views are read by people and
dashboards, a request or a few at a time, where blocks reserved ahead (as the per-account
limit keeps) would mostly lapse unspent.
"""

from __future__ import annotations

import ipaddress
import time

from sitelens.core import errors, metrics
from sitelens.core.config import settings
from sitelens.data import buckets
from sitelens.tokens import signing

IPV6_CLIENT_PREFIX = 64  # a host is given a /64 and may use any address in it


def admit(client_address: str) -> None:
    """Spend one of the address's tokens; 429 with `Retry-After` when its bucket is empty.
    Nothing when the limit is off (0)."""
    found = settings()
    rate, burst = found.share_rate_limit, found.share_rate_burst
    if not rate:
        return
    now = time.time()
    reserved = buckets.reserve(f"share:{client_key(client_address)}", 1, rate, burst, now)
    if not reserved.granted:
        metrics.count("RequestsThrottled", reason="share_address")
        raise errors.TooManyRequests(
            retry_after=buckets.retry_after(reserved.due, burst, rate, now)
        )


def client_key(client_address: str) -> str:
    """A client as the limits store it: its address (an IPv6 one by its /64), keyed with
    the stack's secret and cut short, so the accounts table never holds an address or
    anything that leads back to one."""
    client = client_address
    try:
        address = ipaddress.ip_address(client_address)
    except ValueError:
        address = None
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped
        prefix = f"{address}/{IPV6_CLIENT_PREFIX}"
        client = str(mapped) if mapped else str(ipaddress.ip_network(prefix, strict=False))
    return signing.digest(client)
