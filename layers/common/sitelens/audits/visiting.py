"""How a run visits its site: as whom (its user agent, and its crawl secret's headers for
the audited host, unsealed once a container) and under which rules (its robots.txt, read
once when the run starts and kept, bounded, in the run's state for every worker)."""

from __future__ import annotations

import functools
import json
from typing import Any

from protego import Protego

from sitelens.audits import fetching, urls
from sitelens.audits.fetching import AGENT, Identity, get
from sitelens.audits.politeness import MAX_CRAWL_DELAY
from sitelens.seo import fetch
from sitelens.seo import robots as robots_txt

MAX_ROBOTS_KEPT = 100 * 1024  # bytes of robots.txt kept in the run's state (a 400 KB item)


def robots(state: dict[str, Any]) -> Protego | None:
    text = state.get("robots")
    return Protego.parse(text) if text and state.get("respect_robots", 1) else None


def identity(state: dict[str, Any]) -> Identity:
    """How the run's requests present themselves (`fetching.identity`): its user agent,
    and its crawl secret's headers for the audited site's host, that of the URL the user
    gave (not the host a start URL redirected to). BadCredentials when the secret cannot
    be sent."""
    given = state.get("moved_from") or state["url"]
    start_url = urls.normalise(given) or given
    sealed = state.get("crawl_secret") or ""
    return fetching.identity(
        state.get("user_agent") or "sitelens",
        start_url,
        urls.origin(start_url),
        unsealed(sealed) if sealed else None,
    )


@functools.lru_cache(maxsize=32)
def unsealed(sealed: str) -> dict[str, Any]:
    """A run's crawl secret (one unseal a container, not one a page); BadCredentials when
    it cannot be read (an error of the key service, a throttle, is raised as it is: the
    step comes again)."""
    from sitelens.tokens import sealing

    try:
        secret = json.loads(sealing.unseal(sealed))
    except (sealing.BadSeal, ValueError):
        raise fetching.BadCredentials("they cannot be read.") from None
    if not isinstance(secret, dict):
        raise fetching.BadCredentials("they cannot be read.")
    return secret


def read_robots(url: str, identity: Identity) -> tuple[str, float, list[str], str | None]:
    """The robots.txt of the URL's origin as the run keeps it (bounded), its crawl-delay
    for the crawler's agent (bounded) and the sitemaps it declares, none without one; and
    why it could not be fetched (None: it was, or it answered an HTTP error)."""
    robots_url = "/".join(url.split("/", 3)[:3]) + "/robots.txt"
    robots_text, delay, declared, unreachable = "", 0.0, [], None
    try:
        response = get(robots_url, cap=robots_txt.MAX_ROBOTS_BYTES, identity=identity)
        if 200 <= response.status < 300:
            robots_text = robots_txt.text(response)
            rules = Protego.parse(robots_text)
            delay = min(float(rules.crawl_delay(AGENT) or 0.0), MAX_CRAWL_DELAY)
            declared = list(rules.sitemaps)
    except fetch.FetchError as err:
        unreachable = str(err)  # no robots.txt to obey: the pages say the rest
    kept = robots_text.encode()[:MAX_ROBOTS_KEPT].decode("utf-8", "ignore")
    return kept, delay, declared, unreachable


def sitemap_body(url: str, identity: Identity) -> bytes | None:
    try:
        response = get(url, identity=identity)
    except fetch.FetchError:
        return None
    return response.body if response.status == 200 else None
