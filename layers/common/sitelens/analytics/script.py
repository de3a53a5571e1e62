"""The tracking script (`GET /js/script.js`), read once per container.

It is cached for a day (and used while it revalidates for a week after that) rather than
marked immutable: its URL carries no version, so a new deploy must reach browsers. The
ETag makes the revalidation a 304 without a body.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

CONTENT_TYPE = "application/javascript; charset=utf-8"
CACHE_CONTROL = "public, max-age=86400, stale-while-revalidate=604800"


@dataclass(frozen=True)
class Script:
    source: str
    etag: str  # a strong validator of the source, quoted as the header carries it


@cache
def tracking_script() -> Script:
    """The tracking script websites embed, and its ETag."""
    source = resources.files("sitelens.analytics").joinpath("script.js").read_text("utf-8")
    return Script(source, f'"{hashlib.sha256(source.encode()).hexdigest()[:32]}"')
