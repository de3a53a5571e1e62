"""The tracking script's answers (`GET /js/<file>`): the file in the content coding the
caller ranks highest of those kept (br, gzip), with a strong ETag of the bytes sent, and a
year's caching at a versioned URL (`?v=<version>`, named by `Content-Location`)."""

from __future__ import annotations

from collections.abc import Iterable

from sitelens.analytics import script
from sitelens.edge.http import Request, Response, cacheable


def content_coding(accept_encoding: str, offered: Iterable[str]) -> str | None:
    """Of `offered` (the preferred first), the coding `Accept-Encoding` ranks highest: its
    q-values, `*` for codings it does not name, q=0 for none (RFC 9110, 12.5.3); None to
    send the body as it is."""
    ranks: dict[str, float] = {}
    for item in accept_encoding.lower().split(","):
        name, _, parameters = item.partition(";")
        rank = 1.0
        for parameter in parameters.split(";"):
            key, _, value = parameter.strip().partition("=")
            if key == "q":
                try:
                    rank = float(value)
                except ValueError:
                    rank = 0.0
        name = name.strip()
        if name:
            ranks["gzip" if name == "x-gzip" else name] = rank
    chosen, best = None, 0.0
    for coding in offered:
        rank = ranks.get(coding, ranks.get("*", 0.0))
        if rank > best:
            chosen, best = coding, rank
    return chosen


def answer(request: Request, found: script.Script) -> Response:
    """`found` as the caller asked for it: 304 when its copy is current (`If-None-Match`)."""
    coding = content_coding(request.headers.get("accept-encoding", ""), script.CODINGS)
    sent = found.encoded(coding)
    versioned = request.query.get("v") == found.version
    body = sent.body if coding else sent.body.decode()
    response = cacheable(
        request,
        body,
        sent.etag,
        script.CONTENT_TYPE,
        script.CACHE_CONTROL_VERSIONED if versioned else script.CACHE_CONTROL,
    )
    response.headers |= {
        "Vary": "Accept-Encoding",
        # relative to the URL asked, so right behind a stage's path or a site's proxy
        "Content-Location": f"{found.name}?v={found.version}",
        "Timing-Allow-Origin": "*",  # pages may time its load (Resource Timing)
    }
    if coding and response.status == 200:
        response.headers["Content-Encoding"] = coding
    return response
