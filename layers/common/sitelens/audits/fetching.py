"""The crawler's fetches: one GET through the report fetcher under a run's identity (its
user agent, and the headers its settings send to the audited site's own origin), and one
crawl's fetches in a worker spaced as its politeness asks."""

from __future__ import annotations

import base64
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from urllib3 import BaseHTTPResponse, HTTPConnectionPool

from sitelens.seo import fetch
from sitelens.seo.connections import Session
from sitelens.seo.page import Response

# The crawler's own user agent, for robots.txt groups and server logs.
AGENT = "SitelensAudit"
USER_AGENT = f"{AGENT}/1.0 (+https://sitelens.dev/bot)"
_TOKEN = f"{AGENT}/1.0 +https://sitelens.dev/bot"
# The user agents an audit may crawl as (its `user_agent` setting): Sitelens' own, or
# Googlebot's smartphone and desktop strings (as Google documents them) keeping Sitelens'
# token, so that a site serving Googlebot differently is audited as Google sees it while
# its logs still name the crawler. robots.txt is obeyed for `AGENT` whichever is sent.
USER_AGENTS = {
    "sitelens": USER_AGENT,
    "googlebot_smartphone": (
        "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36"
        " (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 (compatible;"
        f" Googlebot/2.1; +http://www.google.com/bot.html; {_TOKEN})"
    ),
    "googlebot_desktop": (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1;"
        f" +http://www.google.com/bot.html; {_TOKEN}) Chrome/131.0.0.0 Safari/537.36"
    ),
}
# Headers a run's settings may not set: the fetcher's own (the host asked, the agent
# chosen by `user_agent`, the encodings it decodes) and the message's framing.
RESERVED_HEADERS = frozenset(
    {"host", "user-agent", "accept-encoding", "content-length", "transfer-encoding", "connection"}
)
MAX_HEADERS = 20
MAX_HEADER_BYTES = 8 * 1024  # of a run's headers together
_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")  # an RFC 9110 token
_VALUE = re.compile(r"^[\t\x20-\x7e\x80-\xff]*$")  # no control characters (no CR, LF)


class BadCredentials(ValueError):
    """A run's crawl secret cannot be sent; `str(err)` says why, naming no value."""


@dataclass(frozen=True)
class Identity:
    """How a run's requests present themselves: the user agent, and the headers sent to
    the audited site's own origin only (`host`, the start URL's `host[:port]`; over https
    only when the start URL is https), never to another host, an external link or across
    a redirect to another host."""

    user_agent: str = USER_AGENT
    host: str = ""
    https_only: bool = True
    headers: tuple[tuple[str, str], ...] = ()

    def sends_to(self, scheme: str, authority: str) -> bool:
        """Whether a request to `scheme://authority` carries the headers."""
        if not self.headers or authority.lower() != self.host:
            return False
        return scheme == "https" or not self.https_only

    def added_to(self, headers: Mapping[str, str]) -> dict[str, str]:
        """The fetcher's headers with the run's (which replace those of the same name)."""
        own = {name.lower() for name, _ in self.headers}
        return {**{k: v for k, v in headers.items() if k.lower() not in own}, **dict(self.headers)}


def identity(
    agent: str, start: str, host: str, secret: Mapping[str, Any] | None = None
) -> Identity:
    """A run's identity: its `user_agent` setting (an unknown one is Sitelens' own), the
    start URL and its `host[:port]`, and its unsealed crawl secret (`{"headers": {name:
    value}, "basic_auth": "user:password" | null, "cookie": "a=b; c=d" | null}`);
    BadCredentials when the secret cannot be sent as it is."""
    https_only = start.lower().startswith("https:")
    user_agent = USER_AGENTS.get(agent, USER_AGENT)
    return Identity(user_agent, host.lower(), https_only, _headers(secret or {}))


def _headers(secret: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    given = secret.get("headers") or {}
    if not isinstance(given, Mapping) or len(given) > MAX_HEADERS:
        raise BadCredentials(f"The headers must be at most {MAX_HEADERS} names and values.")
    headers: dict[str, str] = {}
    for name, value in given.items():
        if not isinstance(name, str) or not isinstance(value, str) or not _NAME.match(name):
            raise BadCredentials("A header's name is not a valid HTTP header name.")
        if name.lower() in RESERVED_HEADERS:
            raise BadCredentials(f"The header {name} cannot be set.")
        if not _VALUE.match(value):
            raise BadCredentials(f"The value of the header {name} has control characters.")
        headers[name] = value
    basic_auth, cookie = secret.get("basic_auth"), secret.get("cookie")
    if basic_auth:
        if not isinstance(basic_auth, str) or ":" not in basic_auth:
            raise BadCredentials("Basic auth must be a user name and password: user:password.")
        encoded = base64.b64encode(basic_auth.encode()).decode()
        headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        headers["Authorization"] = f"Basic {encoded}"
    if cookie:
        if not isinstance(cookie, str) or not _VALUE.match(cookie):
            raise BadCredentials("The cookie must be text without control characters.")
        headers = {k: v for k, v in headers.items() if k.lower() != "cookie"}
        headers["Cookie"] = cookie
    if sum(len(k) + len(v) for k, v in headers.items()) > MAX_HEADER_BYTES:
        raise BadCredentials(f"The headers must be at most {MAX_HEADER_BYTES} bytes together.")
    return tuple(headers.items())


SITELENS = Identity()  # Sitelens' own agent, no headers: a run without crawl settings


def _session(identity: Identity) -> Session:
    """A session under the identity's agent whose requests to the audited origin carry its
    headers. The report fetcher writes each request's headers itself (its `Host` naming
    the host asked), so they are added where a request leaves: its connection pool."""
    session = Session(identity.user_agent)
    if identity.headers:
        by_scheme = session.pools.pool_classes_by_scheme
        session.pools.pool_classes_by_scheme = {
            scheme: _sending(pool, identity) for scheme, pool in by_scheme.items()
        }
    return session


def _sending(base: type[HTTPConnectionPool], identity: Identity) -> type[HTTPConnectionPool]:
    def urlopen(
        pool: HTTPConnectionPool,
        method: str,
        url: str,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> BaseHTTPResponse:
        if headers is not None and identity.sends_to(pool.scheme, headers.get("Host", "")):
            headers = identity.added_to(headers)
        return base.urlopen(pool, method, url, body, headers, **kwargs)

    return cast(type[HTTPConnectionPool], type(base.__name__, (base,), {"urlopen": urlopen}))


@dataclass
class Fetched:
    """What one fetch brought back: the response, or why there was none."""

    url: str
    response: Response | None
    error: str | None
    elapsed_ms: int | None = None  # from the request sent to the body read (its wait aside)


def get(
    url: str,
    cap: int | None = fetch.MAX_BODY,
    follow: bool = True,
    identity: Identity = SITELENS,
) -> Response:
    """One GET through the report fetcher (SSRF guard, timeouts, size cap; its redirects
    with `follow`), any media type, its first `cap` bytes, under the run's identity."""
    session = _session(identity)
    try:
        return fetch.get(session, url, html_only=False, read_body=True, cap=cap, follow=follow)
    finally:
        session.close()


def _fetched(url: str, not_before: float, identity: Identity) -> Fetched:
    wait = not_before - time.time()
    if wait > 0:
        time.sleep(wait)
    began = time.monotonic()
    try:
        # a redirect is a page of its own: its target is claimed, and fetched (or not, as
        # robots.txt says) in its own step; chains and loops are found across pages
        response = get(url, follow=False, identity=identity)
        return Fetched(url, response, None, round((time.monotonic() - began) * 1000))
    except fetch.FetchError as err:
        return Fetched(url, None, str(err))


class Politeness:
    """One crawl's fetches in this worker. With a crawl-delay, one at a time, each begun
    at its reserved slot and at least the delay after the previous one ended, so that the
    site sees the gap however late a busy machine runs a thread; without one, at the
    reserved slots (the configured rate), several at once."""

    def __init__(self, delay: float, identity: Identity = SITELENS) -> None:
        self.delay = delay
        self.identity = identity
        self.lock = threading.Lock()
        self.ended = 0.0

    def fetch(self, url: str, not_before: float) -> Fetched:
        if not self.delay:
            return _fetched(url, not_before, self.identity)
        with self.lock:
            try:
                return _fetched(url, max(not_before, self.ended + self.delay), self.identity)
            finally:
                self.ended = time.time()
