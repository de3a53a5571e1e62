"""Fetching a page for an SEO report, safely.

Every request, including the robots.txt and missing-page probes, follows the same rules:
only http and https, only ports 80 and 443 (`SITELENS_FETCH_PORTS` adds others, for local
development), at most `MAX_REDIRECTS` redirects, `CONNECT_TIMEOUT`/`READ_TIMEOUT` per socket
operation and `DEADLINE` for the whole fetch, at most `MAX_BODY` decoded bytes, and never a
non-public address (OWASP API7, server-side request forgery) unless the operator sets
`SITELENS_ALLOW_PRIVATE_URLS=1`. The deadline is checked after DNS, before each hop and
before each body read; headers trickled in byte by byte are cut off at the deadline by
`fetch_site`, which shuts its connections down (`connections.Session`).

Every network failure (no such host, a refused or reset connection, a timeout, a failed TLS
handshake, a port we do not fetch) gives one sentence, `UNREACHABLE`, so that answers do
not tell an open port from a closed or filtered one. Only what the page itself is (not
HTML, too large, too many redirects, undecodable) has a sentence of its own.

No thread outlives a fetch: `fetch_site` cuts its connections at the deadline and joins
its threads before it returns, so that a report's analysis may fork (`timebox`) while no
fetching thread holds a lock. The one wait it cannot cut short is a DNS lookup, which the
system resolver bounds.

URLs with credentials (`user:pass@host`) are refused: we never send them, and they mostly
serve to disguise the real host. A page without a Content-Type counts as HTML when its body
starts like an HTML document (`_looks_like_html`).

DNS pinning (`checked_addresses`): each hop's host is resolved once by `resolve`, every address is
checked with `is_public`, and the connection is opened to a checked address itself (with the
original host for the `Host` header, TLS SNI and certificate verification), so a second DNS
answer cannot swap in a private address between the check and the connect (DNS rebinding).
"""

from __future__ import annotations

import contextlib
import functools
import re
import secrets
import socket
import time
from concurrent.futures import Future
from dataclasses import dataclass
from urllib.parse import urljoin

from urllib3 import BaseHTTPResponse, Timeout
from urllib3.connection import HTTPConnection
from urllib3.exceptions import DecodeError, HTTPError, NewConnectionError
from urllib3.util import make_headers

from sitelens.core import hosts, scopes
from sitelens.core.config import settings
from sitelens.seo.addresses import is_public, resolve
from sitelens.seo.connections import OPENING, Session
from sitelens.seo.page import LINE_HEADERS, Response, Site
from sitelens.seo.robots import MAX_ROBOTS_BYTES

USER_AGENT = "Sitelens/1.0 (+https://sitelens.dev/bot)"
ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"
MAX_REDIRECTS = 10
MAX_BODY = 5 * 1024 * 1024  # decoded bytes
CONNECT_TIMEOUT = 5.0  # seconds, per connection attempt
READ_TIMEOUT = 5.0  # seconds, per socket read
DEADLINE = 10.0  # seconds for a whole fetch: every hop, redirect and the body
CHUNK_SIZE = 64 * 1024

INVALID_URL = "The URL is not valid."
UNSUPPORTED_SCHEME = "Only http and https URLs can be analysed."
CREDENTIALS = "URLs with a user name or password cannot be analysed."
BLOCKED_ADDRESS = "The URL points to a private or reserved address."
# Every network failure alike, and a port we do not fetch: see the module's docstring.
UNREACHABLE = (
    "The page could not be fetched: the host was not found, refused the connection, did not"
    " answer in time or failed the secure connection, or the port is not 80 or 443."
)
NOT_HTML = "The URL does not point to an HTML page."
TOO_MANY_REDIRECTS = "The page redirects too many times."
UNDECODABLE = "The page's compressed content could not be decoded."

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_BOM = b"\xef\xbb\xbf"
# Roughly the WHATWG MIME-sniffing HTML signatures, also allowing any whitespace after the tag.
_HTML_START = re.compile(
    rb"<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p)"
    rb"[\s>]|<!--"
)


class FetchError(Exception):
    """A page could not be fetched; `str(err)` is one sentence to show the user."""


@dataclass(frozen=True)
class Target:
    """One request's destination, parsed and checked for scheme and credentials."""

    scheme: str
    host: str  # ASCII (IDNA), without IPv6 brackets
    port: int
    authority: str  # host[:port], as sent in the Host header
    path: str  # request target: path and query


def fetch(url: str) -> Response:
    """GET an HTML page, following redirects; raise `FetchError` when that fails."""
    session = Session()
    try:
        return get(session, url, html_only=True, read_body=True)
    finally:
        session.close()


def fetch_site(url: str) -> Site:
    """Fetch the page, its site's /robots.txt and a random missing path.

    robots.txt and the missing path belong to the origin of the page's *final* URL, after
    redirects: they are fetched from the requested origin at once, concurrently with the
    page, and fetched again from the final origin when the page's redirects led to another.
    A failure of the page raises `FetchError`; a failure of either probe is kept (robots)
    or gives None (the missing page). The whole answer is due within `DEADLINE`, and every
    thread this started has ended when it returns or raises.
    """
    requested = _origin(target_of(url))
    # Socket timeouts bound each read, not a server that drips its headers byte by byte:
    # the answer is due at the deadline whatever the fetching threads are still doing.
    answer_by = time.monotonic() + DEADLINE
    session = Session()
    workers = scopes.ThreadPool(max_workers=5, thread_name_prefix="sitelens-fetch")
    try:
        page = workers.submit(get, session, url, html_only=True, read_body=True)
        probes = _probes(workers, session, requested)
        try:
            page_response = page.result(timeout=max(0.0, answer_by - time.monotonic()))
        except TimeoutError:
            raise FetchError(UNREACHABLE) from None
        final = _origin(target_of(page_response.url))
        if final != requested:
            probes = _probes(workers, session, final)
        robots, probe = probes
        robots_txt, robots_error = _outcome(robots, answer_by)
        missing_page, _ = _outcome(probe, answer_by)
        return Site(
            page=page_response,
            robots_txt=robots_txt,
            robots_error=robots_error,
            missing_page_status=missing_page.status if missing_page else None,
        )
    finally:
        session.cut()  # whatever is still reading gets end-of-file at once
        workers.shutdown(wait=True, cancel_futures=True)
        session.close()


def _origin(target: Target) -> str:
    return f"{target.scheme}://{target.authority}"


def _probes(
    workers: scopes.ThreadPool, session: Session, origin: str
) -> tuple[Future[Response], Future[Response]]:
    """robots.txt (its first `MAX_ROBOTS_BYTES`) and a random path that should not exist."""
    missing = f"{origin}/sitelens-404-check-{secrets.token_hex(8)}"
    robots = workers.submit(
        get,
        session,
        f"{origin}/robots.txt",
        html_only=False,
        read_body=True,
        cap=MAX_ROBOTS_BYTES,
    )
    return robots, workers.submit(get, session, missing, html_only=False, read_body=False)


def get(
    session: Session,
    url: str,
    *,
    html_only: bool,
    read_body: bool,
    cap: int | None = None,
    follow: bool = True,
    method: str = "GET",
) -> Response:
    """One GET with its redirects; `cap`: read at most that many bytes and keep them (a
    robots.txt), instead of refusing a body over `MAX_BODY`; without `follow`, a redirect
    is the answer (an audit's crawler follows each hop as a page of its own); `method`
    HEAD asks for the status alone (an audit's external links), with `read_body` False."""
    started = time.monotonic()
    deadline = started + DEADLINE
    current = url
    for redirects in range(MAX_REDIRECTS + 1):
        target = target_of(current)
        response = _open(session, target, deadline, method)
        try:
            location = response.headers.get("location")
            if follow and response.status in _REDIRECT_STATUSES and location:
                current = urljoin(current, location.strip())
                continue
            headers = {name.lower(): value for name, value in response.headers.itermerged()}
            media_type = headers.get("content-type", "").split(";")[0].strip().lower()
            if html_only and media_type and media_type not in _HTML_TYPES:
                raise FetchError(NOT_HTML)
            body = _read(response, deadline, cap) if read_body else b""
            if html_only and not media_type and not _looks_like_html(body):
                raise FetchError(NOT_HTML)
            return Response(
                url=current,
                status=response.status,
                headers=headers,
                body=body,
                elapsed=time.monotonic() - started,
                redirects=redirects,
                content_encoding=headers.get("content-encoding", "").strip().lower(),
                header_lines={
                    name: response.headers.getlist(name)
                    for name in LINE_HEADERS
                    if name in response.headers
                },
            )
        finally:
            # An unread body makes the connection unusable; a fully read one is already pooled.
            response.close()
            response.release_conn()
    raise FetchError(TOO_MANY_REDIRECTS)


def target_of(url: str) -> Target:
    """Where a request for `url` goes, or the FetchError that refuses it before any DNS
    (scheme, credentials, host, port)."""
    parts = hosts.split_url(url)
    if parts is None:
        raise FetchError(INVALID_URL)
    port = parts.port
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise FetchError(UNSUPPORTED_SCHEME)
    if parts.username is not None or parts.password is not None:
        raise FetchError(CREDENTIALS)
    if not parts.hostname or port == 0:
        raise FetchError(INVALID_URL)
    try:
        parsed = hosts.parse(parts.hostname)
    except hosts.InvalidHost as exc:
        raise FetchError(INVALID_URL) from exc
    host, authority = parsed.ascii, parsed.authority
    if port is None:
        port = _DEFAULT_PORTS[scheme]
    elif port != _DEFAULT_PORTS[scheme]:
        authority = f"{authority}:{port}"
    if port not in settings().fetch_ports:  # refused before DNS, as any failure is told
        raise FetchError(UNREACHABLE)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(scheme, host, port, authority, path)


def checked_addresses(session: Session, target: Target, deadline: float) -> list[str]:
    """The target's addresses, resolved once and each checked public (DNS pinning: connect
    to one of these, never resolve again); a FetchError otherwise."""
    try:
        session.check()  # no new lookup once the fetch is over
        addresses = resolve(target.host, target.port)
    except (socket.gaierror, ConnectionAbortedError) as exc:
        raise FetchError(UNREACHABLE) from exc
    except UnicodeError as exc:  # a label the IDNA codec rejects, e.g. empty or too long
        raise FetchError(INVALID_URL) from exc
    _remaining(deadline)  # a slow resolver spends the same deadline
    if not addresses:
        raise FetchError(UNREACHABLE)
    if not settings().allow_private_urls and not all(map(is_public, addresses)):
        raise FetchError(BLOCKED_ADDRESS)
    return addresses


def _open(
    session: Session, target: Target, deadline: float, method: str = "GET"
) -> BaseHTTPResponse:
    """Send the request to the first checked address that accepts a connection."""
    *others, last = checked_addresses(session, target, deadline)
    token = OPENING.set(session)  # for the connections opened in this thread, now
    try:
        for address in others:
            with contextlib.suppress(NewConnectionError):  # refused or unreachable: next one
                return _request(session, target, address, deadline, method)
        return _request(session, target, last, deadline, method)
    except (HTTPError, OSError) as exc:
        raise _failure(exc) from exc
    finally:
        OPENING.reset(token)


def _request(
    session: Session, target: Target, address: str, deadline: float, method: str = "GET"
) -> BaseHTTPResponse:
    remaining = _remaining(deadline)
    session.check()
    # TLS must name and verify the host the user asked for, not the address we dial.
    tls = {"server_hostname": target.host} if target.scheme == "https" else None
    pool = session.pools.connection_from_host(
        address, port=target.port, scheme=target.scheme, pool_kwargs=tls
    )
    return pool.urlopen(
        method,
        target.path,
        headers={
            "Host": target.authority,
            "User-Agent": session.user_agent or USER_AGENT,
            "Accept": ACCEPT,
            "Accept-Encoding": _accept_encoding(),
        },
        retries=False,
        redirect=False,
        assert_same_host=False,
        preload_content=False,
        decode_content=True,
        timeout=Timeout(connect=min(CONNECT_TIMEOUT, remaining), read=min(READ_TIMEOUT, remaining)),
    )


def _read(response: BaseHTTPResponse, deadline: float, cap: int | None = None) -> bytes:
    """The decoded body, within the size cap and the deadline; with `cap`, its first `cap`
    bytes however long it is."""
    length = response.headers.get("content-length", "").strip()
    if cap is None and length.isdigit() and int(length) > MAX_BODY:
        raise FetchError(_too_large())
    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            _limit_read(response, deadline)
            # read1 returns after one socket read, so a slow drip still meets the deadline.
            chunk = response.read1(CHUNK_SIZE, decode_content=True)
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if cap is not None and size >= cap:
                chunks.append(chunk[: len(chunk) - (size - cap)])
                return b"".join(chunks)
            if size > MAX_BODY:
                raise FetchError(_too_large())
            chunks.append(chunk)
    except (HTTPError, OSError) as exc:
        raise _failure(exc) from exc


def _limit_read(response: BaseHTTPResponse, deadline: float) -> None:
    """Shorten the next socket read so that it cannot outlast the deadline."""
    remaining = _remaining(deadline)
    connection = response.connection
    if isinstance(connection, HTTPConnection) and connection.sock is not None:
        connection.sock.settimeout(min(READ_TIMEOUT, remaining))


def _remaining(deadline: float) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise FetchError(UNREACHABLE)
    return remaining


def _failure(exc: Exception) -> FetchError:
    """The user-facing sentence for an error while fetching: `UNDECODABLE` for the page's
    content, else the one sentence of every network failure; internals stay in the cause."""
    return FetchError(UNDECODABLE if isinstance(exc, DecodeError) else UNREACHABLE)


def _too_large() -> str:
    return f"The page is larger than {MAX_BODY / (1024 * 1024):g} MB."


def _looks_like_html(body: bytes) -> bool:
    """Sniff a body sent without Content-Type: it starts with a typical HTML tag."""
    start = body[:1024].removeprefix(_BOM).lstrip().lower()
    return _HTML_START.match(start) is not None


def _outcome(future: Future[Response], answer_by: float) -> tuple[Response | None, str | None]:
    """A probe's response, or None and why it failed."""
    try:
        return future.result(timeout=max(0.0, answer_by - time.monotonic())), None
    except FetchError as err:
        return None, str(err)
    except TimeoutError:
        return None, UNREACHABLE


@functools.cache
def _accept_encoding() -> str:
    """The encodings urllib3 can decode here (gzip, deflate, and br/zstd when installed)."""
    return make_headers(accept_encoding=True)["accept-encoding"].replace(",", ", ")
