"""`GET /js/script.js`: the tracking script, read once per container.

It is cached for a day (and used while it revalidates for a week after that) rather than
marked immutable: its URL carries no version, so a new deploy must reach browsers. The
ETag makes the revalidation a 304 without a body.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources

from sitelens.http import Request, Response

CONTENT_TYPE = "application/javascript; charset=utf-8"
CACHE_CONTROL = "public, max-age=86400, stale-while-revalidate=604800"


@cache
def _script() -> tuple[str, str]:
    source = resources.files("sitelens.analytics").joinpath("script.js").read_text("utf-8")
    return source, f'"{hashlib.sha256(source.encode()).hexdigest()[:32]}"'


def response(request: Request) -> Response:
    """The script, or 304 when the browser's copy (If-None-Match) is current."""
    source, etag = _script()
    headers = {
        "Cache-Control": CACHE_CONTROL,
        "ETag": etag,
        "Access-Control-Allow-Origin": "*",
    }
    known = {
        tag.strip().removeprefix("W/")
        for tag in request.headers.get("if-none-match", "").split(",")
    }
    if etag in known or "*" in known:
        return Response(304, "", headers, CONTENT_TYPE)
    return Response(200, source, headers, CONTENT_TYPE)
