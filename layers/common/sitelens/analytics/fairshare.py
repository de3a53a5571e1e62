"""A fair share of the event function per website: a token bucket per site, in the container.

Each website may send `SITELENS_SITE_HITS_PER_SECOND` hits a second through one container
(default 100) and save up a burst of `SITE_HITS_BURST` (default 1,000); a hit beyond that
is refused (`admit` is False), and the caller answers 429 with `Retry-After` and counts it
as `HitsThrottled` with reason `site_share`. 0 hits a second turns the share off.

Why in the container and not shared: a shared count costs a DynamoDB write per hit (as
much as the hit's own counting) on one hot item per site, the flooding site's, in exactly
the moment it floods. A bucket in memory costs nothing and decides in microseconds, so a
refused hit holds the container for about a millisecond instead of a queue send.

What that gives when deployed: every container grants every site its own rate, so a site
may send at most the per-container rate times the containers its hits reach (the event
function's concurrency), and the method throttle (`EventThrottleRate`/`EventThrottleBurst`,
or the HTTP API's) caps all sites together; the optional WAF rule (`WafRateLimitPer5Min`)
caps each IP address before either. Concurrency follows busy time: a refused hit is cheap,
so refusals start no containers, and a site alone above `rate x concurrency` is slowed as
well. Hence the default rate sits near one container's throughput (a hit takes 5-10 ms):
the share bites a site that fills containers by itself, so that other sites' hits still
find slots in them. Under `make serve` the whole server is one container.

Memory is bounded: at most `MAX_SITES` buckets, the least recently seen site forgotten
first. It comes back with a full bucket, which it would have had anyway unless the
container saw `MAX_SITES` other sites within `burst / rate` seconds (10 s by default).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from sitelens.core.config import settings

# Buckets one container keeps: ~150 bytes each, so at most ~1.5 MB of the 512 MB.
MAX_SITES = 10_000


class SiteShare:
    """Token buckets by website id: `rate` hits a second, `burst` at most, thread-safe."""

    def __init__(
        self,
        rate: float,
        burst: float,
        max_sites: int = MAX_SITES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.max_sites = max_sites
        self.clock = clock
        # website id -> (tokens left, when they were counted), least recently seen first
        self._buckets: OrderedDict[int, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def admit(self, website_id: int, now: float | None = None) -> bool:
        """Take one token of the site's bucket: False when it is empty (refuse the hit)."""
        if not self.rate:
            return True
        moment = self.clock() if now is None else now
        with self._lock:
            tokens, counted = self._tokens(website_id, moment)
            admitted = tokens >= 1
            self._buckets[website_id] = (tokens - 1 if admitted else tokens, counted)
            self._buckets.move_to_end(website_id)
            if len(self._buckets) > self.max_sites:
                self._buckets.popitem(last=False)
            return admitted

    def retry_after(self, website_id: int, now: float | None = None) -> int:
        """Whole seconds until the site's next token (at least 1, as Retry-After says it)."""
        if not self.rate:
            return 1
        moment = self.clock() if now is None else now
        with self._lock:
            missing = 1 - self._tokens(website_id, moment)[0]
        return max(1, math.ceil(missing / self.rate))

    def __len__(self) -> int:
        return len(self._buckets)

    def _tokens(self, website_id: int, moment: float) -> tuple[float, float]:
        """The site's tokens at `moment`, and the time they are counted up to."""
        tokens, counted = self._buckets.get(website_id, (self.burst, moment))
        # a clock that steps back (an injected one) neither adds nor takes tokens
        later = max(counted, moment)
        return min(self.burst, tokens + (later - counted) * self.rate), later


_share: SiteShare | None = None
_share_lock = threading.Lock()


def share() -> SiteShare:
    """The container's buckets, sized by the settings on first use."""
    global _share
    if _share is None:
        with _share_lock:
            if _share is None:
                found = settings()
                _share = SiteShare(found.site_hits_per_second, found.site_hits_burst)
    return _share


def admit(website_id: int, now: float | None = None) -> bool:
    """True when the website's hit fits its share of this container; False: answer 429."""
    return share().admit(website_id, now)


def retry_after(website_id: int, now: float | None = None) -> int:
    """The Retry-After, in seconds, of a hit `admit` refused."""
    return share().retry_after(website_id, now)


def reset() -> None:
    """Forget every bucket and read the settings again (tests)."""
    global _share
    with _share_lock:
        _share = None
