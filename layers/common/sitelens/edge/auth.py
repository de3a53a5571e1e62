"""Bearer-key authorization, with a short cache in the warm container."""

from __future__ import annotations

import time

from sitelens import accounts
from sitelens.core import errors
from sitelens.core.config import settings

# Keys are opaque tokens: anything else in the header cannot be one of ours.
_MAX_KEY_LENGTH = 200
_cache: dict[str, tuple[float, accounts.Account]] = {}


def authorize(headers: dict[str, str]) -> accounts.Account:
    """The account of the request's bearer key; 401 for a missing, unknown or revoked key."""
    scheme, _, key = headers.get("authorization", "").strip().partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key or len(key) > _MAX_KEY_LENGTH or " " in key:
        raise errors.Unauthenticated()
    hashed = accounts.key_hash(key)
    cached = _cache.get(hashed)
    now = time.monotonic()
    if cached and cached[0] > now:
        return cached[1]
    account = accounts.account_for_key(key)
    if account is None:
        _cache.pop(hashed, None)
        raise errors.Unauthenticated()
    _cache[hashed] = (now + settings().key_cache_seconds, account)
    return account


def forget() -> None:
    """Drop this container's cached keys (tests)."""
    _cache.clear()
