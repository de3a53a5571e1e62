"""The per-account rate limit: a token bucket per account on the keyed routes, refilled at
`SITELENS_ACCOUNT_RATE_LIMIT` requests a second and holding `SITELENS_ACCOUNT_RATE_BURST`,
shared by every container (`sitelens.data.buckets`) and cheap to keep.

Each warm container reserves tokens from the account's shared bucket in blocks, one
conditional write a block, and spends them locally: a block starts at `FIRST_BLOCK`,
doubles while the container uses it up, up to a quarter of the burst, and starts small
again after one lapsed. Tokens not spent within `LAPSE_SECONDS` of their reservation
lapse, so the account-wide limit holds across containers within this tolerance: in any
span of `t` seconds the account gets at most `burst + rate * (t + LAPSE_SECONDS)`
requests through, and at least what its bucket holds less the lapsed tokens (at most a
block per container it reaches).

A key made with a `rate_limit` has a bucket of its own too (`admit_key`), spent after its
account's: the answer carries the key's headers, the tighter of the two.

Every keyed answer carries `X-RateLimit-Limit` (the burst), `X-RateLimit-Remaining` (the
requests the bucket holds now, as this container sees it) and `X-RateLimit-Reset` (Unix
time, seconds, when it is full again); a 429 also `Retry-After` (seconds to its next
token), and counts `RequestsThrottled` (reason `account_rate`), which has an alarm.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

from sitelens.core import errors, metrics
from sitelens.core.config import settings
from sitelens.data import buckets

FIRST_BLOCK = 4  # tokens: what a client that makes one request leaves unspent, at most 3
LAPSE_SECONDS = 1.0  # a block's tokens are spent within this or lost: the tolerance above
MAX_ACCOUNTS = 10_000  # blocks a container keeps (a few dozen bytes each)


@dataclass
class _Block:
    tokens: int = 0  # reserved, not spent yet
    size: int = FIRST_BLOCK  # of the next reservation
    lapses: float = 0.0  # Unix time when the unspent tokens are lost
    due: int = 0  # the shared bucket's `due` at the last reservation (its units)


_blocks: dict[str, _Block] = {}
_lock = threading.Lock()


def admit(account_id: str) -> dict[str, str]:
    """Spend one of the account's tokens: the rate-limit headers for the answer; 429 with
    them and `Retry-After` when its bucket is empty. Nothing when the limit is off (0)."""
    found = settings()
    return _admit(account_id, found.account_rate_limit, found.account_rate_burst, "account_rate")


def admit_key(key_id: str, rate: int) -> dict[str, str]:
    """Spend one of a key's own tokens (a key made with a `rate_limit`: `rate` a second,
    holding `KEY_BURST_SECONDS` of them), within its account's bucket, which stays the
    ceiling: the key's headers, or 429 with them when its bucket is empty."""
    return _admit(f"key:{key_id}", rate, rate * KEY_BURST_SECONDS, "key_rate")


KEY_BURST_SECONDS = 5  # a key's bucket holds this many seconds of its rate


def admit_request(account_id: str, key_id: str, key_rate: int | None) -> dict[str, str]:
    """Spend a token of the account and, when the key has a rate of its own, one of the
    key (a request the key's bucket refuses has spent its account's token): the headers
    of whichever bucket holds fewer now; 429 from the first that is empty."""
    headers = admit(account_id)
    if not key_rate:
        return headers
    own = admit_key(key_id, key_rate)
    remaining = "X-RateLimit-Remaining"
    if not headers or int(own[remaining]) <= int(headers[remaining]):
        return own
    return headers


def _admit(subject: str, rate: int, burst: int, reason: str) -> dict[str, str]:
    if not rate:
        return {}
    now = time.time()
    with _lock:
        block = _blocks.get(subject) or _Block()
        if block.tokens and now < block.lapses:
            block.tokens -= 1
            return _headers(block, rate, burst, now)
        if block.tokens or now >= block.lapses + LAPSE_SECONDS:  # lapsed: start small
            block.size = FIRST_BLOCK
        elif block.lapses:  # used up in time: a busy client, reserve more
            block.size *= 2
        block.size = min(block.size, max(burst // 4, 1))
        wanted = block.size
    reserved = buckets.reserve(subject, wanted, rate, burst, now)
    with _lock:
        block.tokens, block.due = max(reserved.granted - 1, 0), reserved.due
        block.lapses = now + LAPSE_SECONDS
        if len(_blocks) >= MAX_ACCOUNTS and subject not in _blocks:
            _blocks.clear()  # many accounts: start afresh, stay small
        _blocks[subject] = block
        headers = _headers(block, rate, burst, now)
    if not reserved.granted:
        metrics.count("RequestsThrottled", reason=reason)
        wait = buckets.retry_after(reserved.due, burst, rate, now)
        raise errors.TooManyRequests(retry_after=wait, headers=headers)
    return headers


def _headers(block: _Block, rate: int, burst: int, now: float) -> dict[str, str]:
    shared = buckets.held(block.due, burst, buckets.units(now, rate))
    return {
        "X-RateLimit-Limit": str(burst),
        "X-RateLimit-Remaining": str(min(burst, shared + block.tokens)),
        "X-RateLimit-Reset": str(math.ceil(max(buckets.seconds(block.due, rate), now))),
    }


def forget() -> None:
    """Forget this container's blocks and its view of the buckets (tests)."""
    with _lock:
        _blocks.clear()
    buckets.forget()
