"""The per-account rate limit: how many requests a second an account may make on the
authenticated routes, counted across every container (see `sitelens.data.limits`)."""

from __future__ import annotations

import time

from sitelens import errors
from sitelens.config import settings
from sitelens.data import limits as stored_limits


def admit(account_id: str) -> None:
    """Count the request against the account's limit; 429 with `Retry-After: 1` (the next
    second) when it has made its requests of this second already."""
    per_second = settings().account_rate_limit
    second = int(time.time())
    # the item may expire a minute after its second: an idle account's is started again
    if per_second and not stored_limits.take(account_id, per_second, second, second + 60):
        raise errors.TooManyRequests(retry_after=1)
