"""The crawler's fetches: one GET through the report fetcher under the crawler's agent, and
one crawl's fetches in a worker spaced as its politeness asks."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from sitelens.seo import fetch
from sitelens.seo.connections import Session
from sitelens.seo.page import Response

# The crawler's own user agent, for robots.txt groups and server logs.
AGENT = "SitelensAudit"
USER_AGENT = f"{AGENT}/1.0 (+https://sitelens.dev/bot)"


@dataclass
class Fetched:
    """What one fetch brought back: the response, or why there was none."""

    url: str
    response: Response | None
    error: str | None


def get(url: str, cap: int | None = fetch.MAX_BODY, follow: bool = True) -> Response:
    """One GET through the report fetcher (SSRF guard, timeouts, size cap; its redirects
    with `follow`), any media type, its first `cap` bytes, under the crawler's agent."""
    session = Session(USER_AGENT)
    try:
        return fetch.get(session, url, html_only=False, read_body=True, cap=cap, follow=follow)
    finally:
        session.close()


def _fetched(url: str, not_before: float) -> Fetched:
    wait = not_before - time.time()
    if wait > 0:
        time.sleep(wait)
    try:
        # a redirect is a page of its own: its target is claimed, and fetched (or not, as
        # robots.txt says) in its own step; chains and loops are found across pages
        return Fetched(url, get(url, follow=False), None)
    except fetch.FetchError as err:
        return Fetched(url, None, str(err))


class Politeness:
    """One crawl's fetches in this worker. With a crawl-delay, one at a time, each begun
    at its reserved slot and at least the delay after the previous one ended, so that the
    site sees the gap however late a busy machine runs a thread; without one, at the
    reserved slots (the configured rate), several at once."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.lock = threading.Lock()
        self.ended = 0.0

    def fetch(self, url: str, not_before: float) -> Fetched:
        if not self.delay:
            return _fetched(url, not_before)
        with self.lock:
            try:
                return _fetched(url, max(not_before, self.ended + self.delay))
            finally:
                self.ended = time.time()
