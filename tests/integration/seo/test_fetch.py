"""Fetching pages safely: redirects, caps, timeouts, decoding, SSRF protection, one answer
for every network failure, and no thread left behind."""

from __future__ import annotations

import contextlib
import datetime
import gzip
import ipaddress
import os
import re
import socket
import ssl
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import brotli
import pytest
import urllib3.util.connection

from sitelens.core import errors
from sitelens.core.config import ConfigError, settings
from sitelens.reports import records
from sitelens.seo import addresses, analysis, connections, fetch, timebox
from sitelens.seo.fetch import FetchError

try:
    from compression import zstd  # Python 3.14+
except ImportError:
    from backports import zstd

HTML = b"<!DOCTYPE html><html><head><title>Test</title></head><body><h1>Hi</h1></body></html>"
BIG = 6 * 1024 * 1024
REAL_RESOLVE = fetch.resolve
# The one answer of every network failure, as `pytest.raises(match=...)` reads it.
NETWORK_FAILURE = f"^{re.escape(fetch.UNREACHABLE)}$"
ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "deflate": zlib.compress,
    "br": brotli.compress,
    "zstd": zstd.compress,
}


# --- the local server -------------------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 2  # idle keep-alive connections end soon after a test
    server: Server

    def do_GET(self) -> None:
        self.server.requests.append((self.path, self.headers))
        route = self.server.routes.get(urlsplit(self.path).path, self.server.fallback)
        try:
            route(self)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client stopped reading, as it should

    def query(self, name: str) -> str:
        return parse_qs(urlsplit(self.path).query)[name][0]

    def send(
        self,
        body: bytes = HTML,
        status: int = 200,
        content_type: str | None = "text/html; charset=utf-8",
        **headers: str,
    ) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def stream(self, chunks: Iterator[bytes]) -> None:
        """A body without Content-Length, ended by closing the connection."""
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for chunk in chunks:
            self.wfile.write(chunk)
            self.wfile.flush()

    def log_message(self, format: str, *args: object) -> None:
        pass


def _redirect(handler: Handler, location: str, status: int = 302) -> None:
    handler.send(b"", status=status, Location=location)


def _redirect_n(handler: Handler) -> None:
    n = int(handler.query("n"))
    _redirect(
        handler, f"/redirect?n={n - 1}" if n > 1 else f"http://{handler.headers['Host']}/page"
    )


DRIP_PIECES = 400  # 50 ms apart: a drip lasts 20 s, unless its client hangs up first


def _dripped(handler: Handler, pieces: Iterator[bytes]) -> None:
    """Write `pieces` 50 ms apart until they end, the client hangs up or the server stops;
    how many went out joins `server.drips` (`Server.dripped` waits for them)."""
    server = handler.server
    with server.changed:
        server.dripping += 1
    sent = 0
    try:
        for piece in pieces:
            if server.stopping.wait(0.05):
                break
            handler.wfile.write(piece)
            handler.wfile.flush()
            sent += 1
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client stopped reading, as it should
    finally:
        handler.close_connection = True
        with server.changed:
            server.dripping -= 1
            server.drips.append(sent)
            server.changed.notify_all()


def _drip(handler: Handler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.send_header("Connection", "close")
    handler.end_headers()
    _dripped(handler, iter([b"<html><body>"] + [b"<p>still loading</p>"] * (DRIP_PIECES - 1)))


def _drip_headers(handler: Handler) -> None:
    """Headers a byte at a time: every socket read succeeds, the fetch never finishes."""
    handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
    _dripped(handler, (bytes([byte]) for byte in b"X-Slow: " + b"a" * (DRIP_PIECES - 8)))


def _stall(handler: Handler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.send_header("Content-Length", str(len(HTML)))
    handler.end_headers()
    handler.wfile.flush()
    handler.server.stopping.wait(3)


ROUTES: dict[str, Callable[[Handler], None]] = {
    "/page": lambda h: h.send(),
    "/xhtml": lambda h: h.send(content_type="application/xhtml+xml"),
    "/encoded": lambda h: h.send(
        ENCODERS[h.query("as")](HTML), Content_Encoding=h.query("as"), Vary="Accept-Encoding"
    ),
    "/redirect": _redirect_n,
    "/loop": lambda h: _redirect(h, "/loop", 301),
    "/redirect-to": lambda h: _redirect(h, h.query("to")),
    "/json": lambda h: h.send(b'{"a": 1}', content_type="application/json"),
    "/png": lambda h: h.send(b"\x89PNG\r\n\x1a\n", content_type="image/png"),
    "/untyped-html": lambda h: h.send(
        b"\xef\xbb\xbf\n  <!doctype html><title>x</title>", 200, None
    ),
    "/untyped-text": lambda h: h.send(b"just some text", 200, None),
    "/big": lambda h: h.send(b"<html>" + b" " * BIG),
    "/big-unsized": lambda h: h.stream(b" " * (64 * 1024) for _ in range(BIG // (64 * 1024))),
    "/bomb": lambda h: h.send(gzip.compress(b"<html>" + b" " * BIG), Content_Encoding="gzip"),
    "/drip": _drip,
    "/drip-headers": _drip_headers,
    "/stall": _stall,
    "/robots.txt": lambda h: h.send(b"User-agent: *\nDisallow:\n", content_type="text/plain"),
    "/server-error": lambda h: h.send(b"<h1>Oops</h1>", status=500),
}


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.requests: list[tuple[str, Message]] = []
        self.routes = dict(ROUTES)
        self.fallback: Callable[[Handler], None] = lambda h: h.send(b"<h1>Not found</h1>", 404)
        self.stopping = threading.Event()
        self.sni: list[str | None] = []  # server names sent in TLS handshakes
        self.changed = threading.Condition()
        self.dripping = 0
        self.drips: list[int] = []  # the pieces each ended drip wrote

    @property
    def port(self) -> int:
        return self.server_address[1]

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def paths(self) -> list[str]:
        return [path for path, _ in self.requests]

    def dripped(self) -> list[int]:
        """The pieces each drip wrote, once none is still dripping."""
        with self.changed:
            self.changed.wait_for(lambda: not self.dripping)
            return list(self.drips)


def _serve(server: Server) -> Iterator[Server]:
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield server
    server.stopping.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def server(fetch_ports: Callable[[int], None]) -> Iterator[Server]:
    server = Server()
    fetch_ports(server.port)
    yield from _serve(server)


# --- isolation: settings, DNS and outgoing connections ----------------------------------


@pytest.fixture(autouse=True)
def fetch_ports(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """Ports 80 and 443 only, as deployed; each local site adds its own, as make serve would
    with SITELENS_FETCH_PORTS."""
    ports = ["80", "443"]
    monkeypatch.setenv("SITELENS_FETCH_PORTS", ",".join(ports))
    settings.cache_clear()

    def allow(port: int) -> None:
        ports.append(str(port))
        monkeypatch.setenv("SITELENS_FETCH_PORTS", ",".join(ports))
        settings.cache_clear()

    return allow


@pytest.fixture(autouse=True)
def private_urls_denied(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("SITELENS_ALLOW_PRIVATE_URLS", raising=False)
    settings.cache_clear()
    yield
    settings.cache_clear()


@pytest.fixture
def allow_private(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    settings.cache_clear()
    yield
    settings.cache_clear()


@pytest.fixture(autouse=True)
def hosts(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """A resolver that never leaves the machine: names in this table, else numeric hosts."""
    table: dict[str, list[str]] = {}

    def resolve(host: str, port: int) -> list[str]:
        if host in table:
            return table[host]
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
        return list(dict.fromkeys(str(info[4][0]) for info in infos))

    monkeypatch.setattr(fetch, "resolve", resolve)
    return table


@pytest.fixture(autouse=True)
def dialled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every address urllib3 connects to; anything but loopback fails the test at once."""
    addresses: list[str] = []
    real = urllib3.util.connection.create_connection

    def create_connection(
        address: tuple[str, int], *args: object, **kwargs: object
    ) -> socket.socket:
        addresses.append(address[0])
        assert ipaddress.ip_address(address[0]).is_loopback, f"tried to connect to {address[0]}"
        return real(address, *args, **kwargs)

    monkeypatch.setattr(urllib3.util.connection, "create_connection", create_connection)
    return addresses


@pytest.fixture
def first_hop_public(monkeypatch: pytest.MonkeyPatch, hosts: dict[str, list[str]]) -> None:
    """`public.example` resolves to the test server and passes the check; later hops don't."""
    hosts["public.example"] = ["127.0.0.1"]
    real = fetch.is_public
    passes = [True]
    monkeypatch.setattr(
        fetch, "is_public", lambda address: passes.pop() if passes else real(address)
    )


# --- fetching pages ---------------------------------------------------------------------


def test_fetches_an_html_page(server: Server, allow_private: None) -> None:
    started = time.monotonic()
    page = fetch.fetch(f"{server.origin}/page")
    took = time.monotonic() - started

    assert page.url == f"{server.origin}/page"
    assert page.status == 200
    assert page.body == HTML
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.redirects == 0
    assert page.content_encoding == ""
    assert 0 < page.elapsed <= took  # in seconds, of this fetch
    _, headers = server.requests[0]
    assert headers["User-Agent"] == fetch.USER_AGENT == "Sitelens/1.0 (+https://sitelens.dev/bot)"
    assert headers["Accept"] == "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"
    assert headers["Accept-Encoding"] == "gzip, deflate, br, zstd"
    assert headers["Host"] == f"127.0.0.1:{server.port}"


@pytest.mark.parametrize("encoding", sorted(ENCODERS))
def test_decodes_compressed_pages(server: Server, allow_private: None, encoding: str) -> None:
    page = fetch.fetch(f"{server.origin}/encoded?as={encoding}")

    assert page.body == HTML
    assert page.content_encoding == encoding
    assert page.headers["vary"] == "Accept-Encoding"


def test_accepts_xhtml_and_error_pages(server: Server, allow_private: None) -> None:
    assert fetch.fetch(f"{server.origin}/xhtml").status == 200
    assert fetch.fetch(f"{server.origin}/server-error").status == 500
    assert fetch.fetch(f"{server.origin}/nowhere").status == 404


def test_follows_redirects_to_the_final_url(server: Server, allow_private: None) -> None:
    page = fetch.fetch(f"{server.origin}/redirect?n=3")

    assert page.url == f"{server.origin}/page"
    assert page.redirects == 3
    assert page.body == HTML
    assert server.paths() == ["/redirect?n=3", "/redirect?n=2", "/redirect?n=1", "/page"]


def test_follows_at_most_ten_redirects(server: Server, allow_private: None) -> None:
    assert fetch.fetch(f"{server.origin}/redirect?n=10").redirects == 10

    with pytest.raises(FetchError, match=r"^The page redirects too many times.$"):
        fetch.fetch(f"{server.origin}/redirect?n=11")


def test_refuses_a_redirect_loop(server: Server, allow_private: None) -> None:
    with pytest.raises(FetchError, match=r"^The page redirects too many times.$"):
        fetch.fetch(f"{server.origin}/loop")

    assert len(server.requests) == 11


@pytest.mark.parametrize("path", ["/json", "/png", "/untyped-text"])
def test_refuses_non_html(server: Server, allow_private: None, path: str) -> None:
    with pytest.raises(FetchError, match=r"^The URL does not point to an HTML page.$"):
        fetch.fetch(server.origin + path)


def test_sniffs_html_without_content_type(server: Server, allow_private: None) -> None:
    page = fetch.fetch(f"{server.origin}/untyped-html")

    assert page.body.startswith(b"\xef\xbb\xbf\n  <!doctype html>")
    assert "content-type" not in page.headers


@pytest.mark.parametrize("path", ["/big", "/big-unsized", "/bomb"])
def test_refuses_bodies_over_5_mb(server: Server, allow_private: None, path: str) -> None:
    with pytest.raises(FetchError, match=r"^The page is larger than 5 MB.$"):
        fetch.fetch(server.origin + path)


def test_gives_up_at_the_total_deadline(
    server: Server, allow_private: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fetch, "DEADLINE", 0.5)
    started = time.monotonic()

    with pytest.raises(FetchError, match=NETWORK_FAILURE):
        fetch.fetch(f"{server.origin}/drip")

    assert time.monotonic() - started >= 0.5  # not before the deadline
    [sent] = server.dripped()
    assert sent < DRIP_PIECES  # the fetch hung up at the deadline, before the drip ended


def test_the_report_answer_is_due_at_the_deadline_even_if_headers_drip(
    server: Server, allow_private: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fetch, "DEADLINE", 0.5)

    with pytest.raises(FetchError, match=NETWORK_FAILURE):
        fetch.fetch_site(f"{server.origin}/drip-headers")

    [sent] = server.dripped()
    assert sent < DRIP_PIECES  # the fetch hung up at the deadline, before the drip ended


def test_gives_up_on_a_stalled_read(
    server: Server, allow_private: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fetch, "READ_TIMEOUT", 0.3)

    with pytest.raises(FetchError, match=NETWORK_FAILURE):
        fetch.fetch(f"{server.origin}/stall")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/file", "Only http and https URLs can be analysed."),
        ("file:///etc/passwd", "Only http and https URLs can be analysed."),
        ("javascript:alert(1)", "Only http and https URLs can be analysed."),
        ("example.com", "Only http and https URLs can be analysed."),
        (
            "http://user:secret@example.com/",
            "URLs with a user name or password cannot be analysed.",
        ),
        ("http://example.com@127.0.0.1/", "URLs with a user name or password cannot be analysed."),
        ("http:///path", "The URL is not valid."),
        ("http://example.com:99999/", "The URL is not valid."),
        ("http://example.com:0/", "The URL is not valid."),
        ("http://[::1/", "The URL is not valid."),
    ],
)
def test_refuses_invalid_urls_even_when_private_urls_are_allowed(
    allow_private: None, dialled: list[str], url: str, message: str
) -> None:
    with pytest.raises(FetchError) as caught:
        fetch.fetch(url)

    assert str(caught.value) == message
    assert dialled == []


def test_refuses_a_redirect_to_another_scheme(server: Server, allow_private: None) -> None:
    with pytest.raises(FetchError, match=r"^Only http and https URLs can be analysed.$"):
        fetch.fetch(f"{server.origin}/redirect-to?to={quote('file:///etc/passwd')}")


def test_idn_hosts_are_sent_as_punycode(
    server: Server, allow_private: None, hosts: dict[str, list[str]]
) -> None:
    hosts["xn--bcher-kva.example"] = ["127.0.0.1"]

    fetch.fetch(f"http://bücher.example:{server.port}/page")

    assert server.requests[0][1]["Host"] == f"xn--bcher-kva.example:{server.port}"


# --- SSRF protection --------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/page",
        "http://[::1]:{port}/page",
        "http://[::ffff:127.0.0.1]:{port}/page",
        "http://2130706433:{port}/page",
        "http://0177.0.0.1:{port}/page",
        "http://0x7f.1:{port}/page",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://[fd00::1]/",
    ],
)
def test_refuses_private_addresses_without_connecting(
    server: Server, dialled: list[str], url: str
) -> None:
    with pytest.raises(FetchError, match=r"^The URL points to a private or reserved address.$"):
        fetch.fetch(url.format(port=server.port))

    assert dialled == []
    assert server.requests == []


def test_allow_private_urls_lets_local_pages_through(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"{server.origin}/page"
    with pytest.raises(FetchError, match="private or reserved"):
        fetch.fetch(url)

    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    settings.cache_clear()  # the autouse fixture clears it again afterwards

    assert fetch.fetch(url).body == HTML
    assert fetch.fetch(f"http://2130706433:{server.port}/page").body == HTML


@pytest.mark.parametrize(
    "location",
    [
        "http://127.0.0.1:{port}/page",
        "http://[::1]:{port}/page",
        "http://[::ffff:127.0.0.1]:{port}/page",
        "http://2130706433:{port}/page",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
    ],
)
def test_refuses_a_redirect_to_a_private_address(
    server: Server, first_hop_public: None, dialled: list[str], location: str
) -> None:
    to = quote(location.format(port=server.port))

    with pytest.raises(FetchError, match=r"^The URL points to a private or reserved address.$"):
        fetch.fetch(f"http://public.example:{server.port}/redirect-to?to={to}")

    assert server.paths() == [f"/redirect-to?to={to}"]
    assert dialled == ["127.0.0.1"]


def test_connects_to_the_checked_address(
    server: Server, first_hop_public: None, dialled: list[str]
) -> None:
    # public.example has no real DNS answer: the page arrives only if the checked address is used.
    page = fetch.fetch(f"http://public.example:{server.port}/page")

    assert page.body == HTML
    assert dialled == ["127.0.0.1"]
    assert server.requests[0][1]["Host"] == f"public.example:{server.port}"


def test_tries_the_next_checked_address_when_one_refuses(
    server: Server, allow_private: None, hosts: dict[str, list[str]], dialled: list[str]
) -> None:
    hosts["dual.example"] = ["127.0.0.2", "127.0.0.1"]  # nothing listens on 127.0.0.2

    page = fetch.fetch(f"http://dual.example:{server.port}/page")

    assert page.body == HTML
    assert dialled == ["127.0.0.2", "127.0.0.1"]


# --- ports: 80 and 443 only --------------------------------------------------------------


class Listener:
    """A TCP port that counts the connections it accepts, and then resets them (`reset`),
    answers something that is not HTTP (`garbage`) or says nothing (`silent`)."""

    def __init__(self, behaviour: str) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.02)
        self.port: int = self.sock.getsockname()[1]
        self.behaviour = behaviour
        self.accepted: list[socket.socket] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, name="listener", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.accepted.append(connection)
            if self.behaviour == "reset":  # closing with a zero linger sends RST
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                connection.close()
            elif self.behaviour == "garbage":
                connection.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
                connection.close()

    def close(self) -> None:
        self.stopping.set()
        self.thread.join()
        for connection in self.accepted:
            connection.close()
        self.sock.close()


@pytest.fixture
def listen() -> Iterator[Callable[[str], Listener]]:
    listeners: list[Listener] = []

    def start(behaviour: str) -> Listener:
        listeners.append(Listener(behaviour))
        return listeners[-1]

    yield start
    for listener in listeners:
        listener.close()


def test_fetch_ports_default_to_80_and_443(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SITELENS_FETCH_PORTS")
    settings.cache_clear()
    assert [port for port in range(1, 65536) if port in settings().fetch_ports] == [80, 443]

    monkeypatch.setenv("SITELENS_FETCH_PORTS", "80, 443,8000-8002")
    settings.cache_clear()
    allowed = [port for port in range(1, 65536) if port in settings().fetch_ports]
    assert allowed == [80, 443, 8000, 8001, 8002]
    assert "80" not in settings().fetch_ports  # a port is a number

    for wrong in ("http", "0", "65536", "80,", "8002-8000x", "-1"):
        monkeypatch.setenv("SITELENS_FETCH_PORTS", wrong)
        settings.cache_clear()
        with pytest.raises(ConfigError, match="SITELENS_FETCH_PORTS"):
            settings()


def test_refuses_other_ports_without_connecting(
    allow_private: None, dialled: list[str], listen: Callable[[str], Listener]
) -> None:
    listener = listen("silent")

    with pytest.raises(FetchError, match=NETWORK_FAILURE):
        fetch.fetch(f"http://127.0.0.1:{listener.port}/")
    with pytest.raises(FetchError, match=NETWORK_FAILURE):
        fetch.fetch_site(f"https://127.0.0.1:{listener.port}/")

    time.sleep(0.1)  # a connection, had one been opened, would have been accepted by now
    assert dialled == []
    assert listener.accepted == []


def test_refuses_a_redirect_to_another_port_without_connecting(
    server: Server, allow_private: None, dialled: list[str], listen: Callable[[str], Listener]
) -> None:
    listener = listen("silent")
    to = quote(f"http://127.0.0.1:{listener.port}/page")

    with pytest.raises(FetchError, match=NETWORK_FAILURE):
        fetch.fetch(f"{server.origin}/redirect-to?to={to}")

    time.sleep(0.1)
    assert dialled == ["127.0.0.1"]  # the test server only
    assert listener.accepted == []


def test_ports_80_and_443_are_fetched() -> None:
    assert fetch.target_of("http://example.com/").port == 80
    assert fetch.target_of("https://example.com/").port == 443
    assert fetch.target_of("http://example.com:443/").authority == "example.com:443"
    assert fetch.target_of("https://example.com:80/").authority == "example.com:80"


# --- one answer for every network failure -----------------------------------------------


def _closed_port(fetch_ports: Callable[[int], None]) -> int:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port: int = closed.getsockname()[1]
    fetch_ports(port)
    return port


FAILURES = ["refused", "reset", "not http", "timeout", "deadline", "unknown host", "tls", "port"]


@pytest.mark.parametrize("failure", FAILURES)
def test_every_network_failure_gives_the_same_answer(
    server: Server,
    allow_private: None,
    listen: Callable[[str], Listener],
    fetch_ports: Callable[[int], None],
    monkeypatch: pytest.MonkeyPatch,
    failure: str,
) -> None:
    """An answer must not tell an open port from a closed or a filtered one."""
    monkeypatch.setattr(fetch, "READ_TIMEOUT", 0.3)
    monkeypatch.setattr(fetch, "DEADLINE", 0.6)
    listener = listen({"reset": "reset", "not http": "garbage"}.get(failure, "silent"))
    if failure in {"reset", "not http", "timeout"}:
        fetch_ports(listener.port)
    url = {
        "refused": f"http://127.0.0.1:{_closed_port(fetch_ports)}/",
        "reset": f"http://127.0.0.1:{listener.port}/",
        "not http": f"http://127.0.0.1:{listener.port}/",
        "timeout": f"http://127.0.0.1:{listener.port}/",
        "deadline": f"{server.origin}/drip-headers",
        "unknown host": "http://no-such-host.invalid/",
        "tls": f"https://127.0.0.1:{server.port}/page",
        "port": f"http://127.0.0.1:{listener.port}/",  # not in SITELENS_FETCH_PORTS
    }[failure]

    with pytest.raises(errors.Invalid) as caught:
        records.generate(url)

    assert caught.value.message == {"url": [fetch.UNREACHABLE]}


def test_what_the_page_is_keeps_its_own_sentence(server: Server, allow_private: None) -> None:
    with pytest.raises(errors.Invalid) as caught:
        records.generate(f"{server.origin}/json")
    assert caught.value.message == {"url": ["The URL does not point to an HTML page."]}


def test_resolve_normalises_numeric_hosts() -> None:
    assert REAL_RESOLVE("2130706433", 80) == ["127.0.0.1"]
    assert REAL_RESOLVE("0x7f.1", 80) == ["127.0.0.1"]
    assert REAL_RESOLVE("::ffff:127.0.0.1", 80) == ["::ffff:127.0.0.1"]


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("1.1.1.1", True),
        ("93.184.215.14", True),
        ("172.32.0.1", True),
        ("100.128.0.1", True),
        ("192.169.0.1", True),
        ("2606:4700:4700::1111", True),
        ("2a00:1450:4001:82a::200e", True),
        ("64:ff9b::808:808", True),  # NAT64 of 8.8.8.8
        ("0.0.0.0", False),
        ("0.1.2.3", False),
        ("127.0.0.1", False),
        ("127.255.255.254", False),
        ("10.0.0.1", False),
        ("172.16.0.1", False),
        ("172.31.255.255", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("100.127.255.255", False),
        ("192.0.0.9", False),
        ("192.0.2.1", False),
        ("192.88.99.1", False),
        ("198.18.0.1", False),
        ("198.51.100.1", False),
        ("203.0.113.1", False),
        ("224.0.0.1", False),
        ("239.255.255.250", False),
        ("240.0.0.1", False),
        ("255.255.255.255", False),
        ("::", False),
        ("::1", False),
        ("::7f00:1", False),  # IPv4-compatible 127.0.0.1
        ("::ffff:127.0.0.1", False),
        ("::ffff:10.0.0.1", False),
        ("::ffff:8.8.8.8", False),  # IPv4-mapped is refused whatever it embeds
        ("64:ff9b::7f00:1", False),  # NAT64 of 127.0.0.1
        ("64:ff9b::a9fe:a9fe", False),  # NAT64 of 169.254.169.254
        ("64:ff9b:1::808:808", False),  # local-use NAT64
        ("2002:7f00:1::1", False),  # 6to4 of 127.0.0.1
        ("2002:a00:1::1", False),  # 6to4 of 10.0.0.1
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo
        ("2001:db8::1", False),
        ("3fff::1", False),
        ("100::1", False),
        ("fc00::1", False),
        ("fd12:3456::1", False),
        ("fe80::1", False),
        ("fe80::1%eth0", False),
        ("fec0::1", False),
        ("ff02::1", False),
        ("ff0e::1", False),
        ("example.com", False),
        ("", False),
    ],
)
def test_is_public(address: str, public: bool) -> None:
    assert addresses.is_public(address) is public


# --- TLS --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A test CA and a certificate it signed for public.example."""
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    directory = tmp_path_factory.mktemp("tls")
    now = datetime.datetime.now(datetime.UTC)

    def certificate(
        subject: str,
        key: ec.EllipticCurvePrivateKey,
        issuer: str,
        signer: ec.EllipticCurvePrivateKey,
        ca: bool,
    ) -> bytes:
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
            # the key identifiers every public certificate has (RFC 5280), without which
            # Python 3.13's strict verification (the Lambda runtime's) refuses the chain
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(signer.public_key()), False
            )
        )
        if ca:
            builder = builder.add_extension(
                x509.KeyUsage(False, False, False, False, False, True, True, False, False),
                critical=True,
            )
        else:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False
            )
        return builder.sign(signer, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)

    ca_key = ec.generate_private_key(ec.SECP256R1())
    site_key = ec.generate_private_key(ec.SECP256R1())
    files = {
        "ca": directory / "ca.pem",
        "cert": directory / "cert.pem",
        "key": directory / "key.pem",
    }
    files["ca"].write_bytes(
        certificate("Sitelens Test CA", ca_key, "Sitelens Test CA", ca_key, True)
    )
    files["cert"].write_bytes(
        certificate("public.example", site_key, "Sitelens Test CA", ca_key, False)
    )
    files["key"].write_bytes(
        site_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return files


@pytest.fixture
def tls_server(
    certificates: dict[str, Path], fetch_ports: Callable[[int], None]
) -> Iterator[Server]:
    server = Server()
    fetch_ports(server.port)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates["cert"], certificates["key"])
    context.sni_callback = lambda sock, name, ctx: server.sni.append(name)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    yield from _serve(server)


def test_tls_verifies_the_requested_host_not_the_address(
    tls_server: Server,
    certificates: dict[str, Path],
    allow_private: None,
    hosts: dict[str, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hosts["public.example"] = hosts["other.example"] = ["127.0.0.1"]
    real_pools = connections.pools
    monkeypatch.setattr(connections, "pools", lambda: real_pools(ca_certs=str(certificates["ca"])))

    page = fetch.fetch(f"https://public.example:{tls_server.port}/page")
    assert page.body == HTML
    assert tls_server.sni[0] == "public.example"

    with pytest.raises(FetchError, match=NETWORK_FAILURE):
        fetch.fetch(f"https://other.example:{tls_server.port}/page")


# --- fetch_site -------------------------------------------------------------------------


def test_fetch_site_fetches_robots_and_a_missing_page(server: Server, allow_private: None) -> None:
    site = fetch.fetch_site(f"{server.origin}/page")

    assert site.page.body == HTML
    assert site.robots_txt is not None
    assert site.robots_txt.status == 200
    assert site.robots_txt.body == b"User-agent: *\nDisallow:\n"
    assert site.missing_page_status == 404
    probes = [path for path in server.paths() if path.startswith("/sitelens-404-check-")]
    assert len(probes) == 1
    assert re.fullmatch(r"/sitelens-404-check-[0-9a-f]{16}", probes[0])


def test_fetch_site_probes_the_origin_of_the_final_url(
    server: Server, allow_private: None, hosts: dict[str, list[str]]
) -> None:
    hosts["public.example"] = ["127.0.0.1"]
    to = quote(f"{server.origin}/page")
    requested_robots = {
        f"127.0.0.1:{server.port}": b"User-agent: *\nAllow: /\n",
        f"public.example:{server.port}": b"User-agent: *\nDisallow: /\n",
    }
    server.routes["/robots.txt"] = lambda h: h.send(
        requested_robots[h.headers["Host"]], content_type="text/plain"
    )

    site = fetch.fetch_site(f"http://public.example:{server.port}/redirect-to?to={to}")

    assert site.page.url == f"{server.origin}/page"
    # the site that answered is asked too (the requested one's probes, sent at once with the
    # page, may still reach the server after it: no order between them is promised)
    robots = [headers["Host"] for path, headers in server.requests if path == "/robots.txt"]
    assert f"127.0.0.1:{server.port}" in robots
    assert site.robots_txt is not None and site.robots_txt.url == f"{server.origin}/robots.txt"
    assert site.robots_txt.body == b"User-agent: *\nAllow: /\n"
    probes = [
        headers["Host"]
        for path, headers in server.requests
        if path.startswith("/sitelens-404-check-")
    ]
    assert f"127.0.0.1:{server.port}" in probes


def test_a_whole_domain_redirecting_elsewhere_has_the_final_site_s_404(
    server: Server, allow_private: None, hosts: dict[str, list[str]]
) -> None:
    """Every path of old.example redirects to the new site's home page: asked on the old
    host, a missing page would end at a 200 home page, a false soft 404."""
    hosts["old.example"] = ["127.0.0.1"]

    def moved(handler: Handler) -> None:
        if handler.headers["Host"].startswith("old.example"):
            _redirect(handler, f"{server.origin}/page", 301)
        else:
            handler.send(b"<h1>Not found</h1>", 404)

    server.fallback = moved
    server.routes["/page"] = lambda h: moved(h) if h.headers["Host"].startswith("old") else h.send()

    site = fetch.fetch_site(f"http://old.example:{server.port}/anything")

    assert site.page.url == f"{server.origin}/page"
    assert site.missing_page_status == 404


def test_a_missing_page_that_redirects_home_is_a_soft_404(
    server: Server, allow_private: None
) -> None:
    server.fallback = lambda h: _redirect(h, "/page")
    site = fetch.fetch_site(f"{server.origin}/page")
    assert site.missing_page_status == 200


def test_a_robots_txt_over_500_kib_is_read_up_to_500_kib(
    server: Server, allow_private: None
) -> None:
    big = b"User-agent: *\nDisallow: /early\n" + b"#" * (600 * 1024) + b"\nDisallow: /page\n"
    server.routes["/robots.txt"] = lambda h: h.send(big, content_type="text/plain")

    site = fetch.fetch_site(f"{server.origin}/page")

    assert site.robots_txt is not None
    assert site.robots_txt.body == big[: 500 * 1024]


@pytest.mark.parametrize(
    ("route", "status", "error"),
    [
        (lambda h: h.send(b"no", status=404, content_type="text/plain"), 404, None),
        (lambda h: h.send(b"busy", status=503, content_type="text/plain"), 503, None),
        (lambda h: h.send(b"slow down", status=429, content_type="text/plain"), 429, None),
    ],
)
def test_robots_txt_statuses_are_kept(
    server: Server, allow_private: None, route: Callable[[Handler], None], status: int, error: None
) -> None:
    server.routes["/robots.txt"] = route
    site = fetch.fetch_site(f"{server.origin}/page")
    assert site.robots_txt is not None and site.robots_txt.status == status
    assert site.robots_error is None


def test_x_robots_tag_and_link_lines_are_kept_apart(server: Server, allow_private: None) -> None:
    def page(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(len(HTML)))
        handler.send_header("X-Robots-Tag", "googlebot: noindex, nofollow")
        handler.send_header("X-Robots-Tag", "noarchive")
        handler.send_header("Link", '<https://example.com/a>; rel="canonical"')
        handler.end_headers()
        handler.wfile.write(HTML)

    server.routes["/page"] = page
    site = fetch.fetch_site(f"{server.origin}/page")
    assert site.page.lines("x-robots-tag") == ["googlebot: noindex, nofollow", "noarchive"]
    assert site.page.lines("link") == ['<https://example.com/a>; rel="canonical"']


def test_fetch_site_tolerates_failing_probes(server: Server, allow_private: None) -> None:
    server.routes["/robots.txt"] = ROUTES["/loop"]
    server.fallback = lambda h: h.send(
        b" " * BIG, status=404, content_type="application/octet-stream"
    )

    site = fetch.fetch_site(f"{server.origin}/page")

    assert site.page.body == HTML
    assert site.robots_txt is None
    assert site.robots_error == "The page redirects too many times."
    assert site.missing_page_status == 404  # read from the status line, the body is never read


def test_fetch_site_raises_when_the_page_fails(server: Server, allow_private: None) -> None:
    with pytest.raises(FetchError, match=r"^The URL does not point to an HTML page.$"):
        fetch.fetch_site(f"{server.origin}/json")


def test_fetch_site_refuses_private_addresses(server: Server, dialled: list[str]) -> None:
    with pytest.raises(FetchError, match="private or reserved"):
        fetch.fetch_site(f"{server.origin}/page")

    assert dialled == []


# --- no thread left behind --------------------------------------------------------------


def _threads() -> set[threading.Thread]:
    """The live threads, but the test server's, which answer each request in a thread."""
    return {t for t in threading.enumerate() if "process_request_thread" not in t.name}


@pytest.mark.parametrize(
    "case", ["page", "page drips", "robots drips", "stale probes", "refused", "not html"]
)
def test_no_thread_outlives_a_report(
    server: Server,
    allow_private: None,
    hosts: dict[str, list[str]],
    monkeypatch: pytest.MonkeyPatch,
    case: str,
) -> None:
    monkeypatch.setattr(fetch, "DEADLINE", 0.5)
    hosts["old.example"] = ["127.0.0.1"]
    url = {
        "page": f"{server.origin}/page",
        "page drips": f"{server.origin}/drip-headers",
        "robots drips": f"{server.origin}/page",
        "stale probes": f"http://old.example:{server.port}/redirect-to?to="
        + quote(f"{server.origin}/page"),
        "refused": f"http://127.0.0.1:{server.port}/",
        "not html": f"{server.origin}/json",
    }[case]
    if case in {"robots drips", "stale probes"}:  # the requested origin's probes never end
        server.routes["/robots.txt"] = _drip_headers
        server.fallback = _drip_headers
    if case == "refused":
        server.server_close()
    before = _threads()

    with contextlib.suppress(FetchError):
        fetch.fetch_site(url)

    assert all(sent < DRIP_PIECES for sent in server.dripped())  # hung up on at the deadline
    assert _threads() == before
    assert not [t for t in threading.enumerate() if t.name.startswith("sitelens-fetch")]


def test_a_report_forks_only_once_its_fetch_threads_ended(
    server: Server, allow_private: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread holding a lock at fork time would hold it for ever in the child."""
    monkeypatch.setattr(fetch, "DEADLINE", 0.5)
    page = b"<html><body>" + b"<p>words</p>" * 10_000 + b"</body></html>"
    assert len(page) > analysis.IN_PROCESS_BYTES
    server.routes["/page"] = lambda h: h.send(page)
    server.routes["/robots.txt"] = _drip_headers  # a probe still reading at the deadline
    alive_at_fork: list[list[str]] = []
    real_fork = os.fork

    def fork() -> int:
        alive_at_fork.append([t.name for t in threading.enumerate()])
        return real_fork()

    monkeypatch.setattr(timebox.os, "fork", fork)

    report = records.generate(f"{server.origin}/page")

    assert report["url"] == f"{server.origin}/page"
    assert len(alive_at_fork) == 1
    assert not [name for name in alive_at_fork[0] if name.startswith("sitelens-fetch")]
