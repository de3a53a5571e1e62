"""External links, checked as their own hosts ask (a crawl checks their status; it does not
crawl them).

- **The link's host's robots.txt**, not the audited site's, decides: read once per
  container per `ROBOTS_TTL` through the crawler's fetcher, at most `MAX_HOSTS` hosts
  remembered (the least recently used forgotten first). A link it disallows for
  `SitelensAudit` is recorded `blocked`, never requested, and is not a broken link. Its
  status is read as Google reads it (`seo.robots`): 2xx is parsed, 4xx means no rules, 5xx
  and 429 mean nothing may be fetched. A host that cannot be reached at all has no rules
  here: its links are checked, and reported broken, which they are.
- **Its crawl-delay** spaces the host's slot, as the audited site's spaces its pages
  (`sitelens.audits.politeness`).
- **HEAD first**: the status alone, through the report fetcher's guard (SSRF, ports,
  timeouts), its redirect not followed (the status the link itself answers); GET, its body
  left unread, when HEAD is refused (405, 501) or fails. A host that refused HEAD is asked
  with GET from then on (remembered with its robots.txt), so a link costs it one request.

Requests to other hosts go out under Sitelens' own agent and without a run's headers,
which are for the audited site only.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from protego import Protego

from sitelens.audits.fetching import AGENT, USER_AGENT, Fetched, get
from sitelens.core import scopes
from sitelens.seo import fetch, robots
from sitelens.seo.connections import Session
from sitelens.seo.page import Response

MAX_HOSTS = 1_000  # hosts remembered in a container: a robots.txt kept is at most 500 KB
ROBOTS_TTL = 3600.0  # seconds a host's robots.txt is trusted (RFC 9309 allows a day)
HEAD_REFUSED = frozenset({405, 501})  # Method Not Allowed, Not Implemented: ask with GET
BLOCKED = "The link's host disallows SitelensAudit in its robots.txt."


@dataclass
class Host:
    """What a container knows of an external host (an origin): its robots.txt rules (None:
    none to obey), whether it closed itself (5xx, 429), its crawl-delay for the crawler's
    agent, when it was read, and whether it answers HEAD."""

    rules: Protego | None
    closed: bool
    delay: float
    read_at: float
    head: bool = True

    def allows(self, url: str) -> bool:
        """Whether the crawler may request `url` on this host."""
        if self.closed:
            return False
        return self.rules is None or self.rules.can_fetch(url, AGENT)


_hosts: OrderedDict[str, Host] = OrderedDict()  # by origin, least recently used first
_lock = threading.Lock()


def origin(url: str) -> str:
    """The origin whose robots.txt rules `url` (`scheme://host[:port]`); "" for a URL the
    fetcher refuses anyway."""
    try:
        target = fetch.target_of(url)
    except fetch.FetchError:
        return ""
    return f"{target.scheme}://{target.authority}"


def read(urls: list[str]) -> None:
    """Read the robots.txt of the hosts of `urls` not known (or known too long), at once."""
    now = time.monotonic()
    with _lock:
        wanted = {
            found
            for found in map(origin, urls)
            if found and (found not in _hosts or now - _hosts[found].read_at > ROBOTS_TTL)
        }
    if wanted:
        with scopes.ThreadPool(max_workers=len(wanted)) as pool:
            for found, host in zip(wanted, pool.map(_read, wanted), strict=True):
                _keep(found, host)


def host(url: str) -> Host:
    """The host of `url` as the container knows it (its robots.txt read if need be)."""
    found = origin(url)
    if not found:
        return Host(None, False, 0.0, time.monotonic())
    with _lock:
        known = _hosts.get(found)
        if known is not None and time.monotonic() - known.read_at <= ROBOTS_TTL:
            _hosts.move_to_end(found)
            return known
    return _keep(found, _read(found))


def check(url: str) -> Fetched:
    """The link's status: HEAD, or GET when the host refuses HEAD or HEAD fails."""
    known = host(url)
    if known.head:
        try:
            response = _request(url, "HEAD")
            if response.status not in HEAD_REFUSED:
                return Fetched(url, response, None)
            known.head = False
        except fetch.FetchError:
            pass  # some servers drop HEAD: GET says whether the link is broken
    try:
        return Fetched(url, _request(url, "GET"), None)
    except fetch.FetchError as err:
        return Fetched(url, None, str(err))


def forget() -> None:
    """Forget every host (tests)."""
    with _lock:
        _hosts.clear()


def _keep(found: str, known: Host) -> Host:
    with _lock:
        _hosts[found] = known
        _hosts.move_to_end(found)
        while len(_hosts) > MAX_HOSTS:
            _hosts.popitem(last=False)
    return known


def _read(found: str) -> Host:
    """An origin's robots.txt as `Host` keeps it."""
    now = time.monotonic()
    try:
        response = get(f"{found}/robots.txt", cap=robots.MAX_ROBOTS_BYTES)
    except fetch.FetchError:
        return Host(None, False, 0.0, now)  # unreachable: its links are checked (and fail)
    if response.status >= 500 or response.status == 429:
        return Host(None, True, 0.0, now)
    if not 200 <= response.status < 300:
        return Host(None, False, 0.0, now)
    rules = Protego.parse(robots.text(response))
    return Host(rules, False, float(rules.crawl_delay(AGENT) or 0.0), now)


def _request(url: str, method: str) -> Response:
    session = Session(USER_AGENT)
    try:
        return fetch.get(
            session, url, html_only=False, read_body=False, follow=False, method=method
        )
    finally:
        session.close()
