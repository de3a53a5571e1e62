"""`make serve`'s HTTP front: each request to one of the template's APIs, as the proxy event
API Gateway would deliver, to the route's handler, and its answer back as API Gateway
sends it (the contract's JSON errors, gzip past the API's minimum compression size).
Not shipped in the Lambda layer."""

from __future__ import annotations

import base64
import gzip
import re
import sys
from email.errors import InvalidHeaderDefect, MissingHeaderBodySeparatorDefect
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BufferedIOBase
from typing import Any

from sitelens.core import errors
from sitelens.edge import http
from sitelens.local import gateway

MAX_REQUEST_BYTES = 8 * 1024 * 1024  # far above the API's own 64 KiB limit, which it reports
# A chunked body's lines: a chunk's size line, and its trailer lines (far above what clients send).
MAX_LINE_BYTES = 1024
MAX_TRAILER_LINES = 100
HEX_DIGITS = re.compile(rb"[0-9A-Fa-f]{1,16}")
# All header lines together (the stdlib already refuses one line over 64 KiB).
MAX_HEADER_BYTES = 64 * 1024
# The stdlib's own refusals (request line over 64 KiB, a header line over 64 KiB or more
# than 100 of them, a malformed request), in the contract's JSON instead of its HTML page.
STDLIB_REFUSALS: dict[int, type[errors.ApiError]] = {
    414: errors.UriTooLong,
    431: errors.HeaderFieldsTooLarge,
}

# What the header parser notes when a line of the header section is no header (its other
# defects are about a multipart Content-Type's parameters, which the API reads itself).
UNREADABLE_HEADERS = (MissingHeaderBodySeparatorDefect, InvalidHeaderDefect)


def request_handler(
    api: gateway.Gateway, min_compression_size: int = -1
) -> type[BaseHTTPRequestHandler]:
    """Requests to `api`; bodies of `min_compression_size` bytes or more are gzipped for
    clients that accept it, as API Gateway does (-1: never)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "sitelens-local"
        # Headers and body go out in two writes; with Nagle's algorithm the body waits for
        # the client's delayed ACK, 40 ms per request on a keep-alive connection.
        disable_nagle_algorithm = True

        def __getattr__(self, name: str) -> Any:
            # Every method goes to the gateway, whose fallback route answers an unknown one
            # with 405 and Allow, instead of the stdlib's HTML 501.
            if name.startswith("do_"):
                return self._serve
            raise AttributeError(name)

        def parse_request(self) -> bool:
            if not super().parse_request():
                return False
            if self.request_version == "HTTP/0.9":  # a line of two words: no client's today
                self.send_error(400, "HTTP/0.9")
                return False
            # A line of the header section the parser cannot read as a header (a name with a
            # space or a NUL, no name) ends its headers there: the rest, Content-Length
            # included, would be lost and the body read as the connection's next request.
            if any(isinstance(found, UNREADABLE_HEADERS) for found in self.headers.defects):
                self._refuse(errors.BadRequest())
                return False
            if sum(len(k) + len(v) for k, v in self.headers.items()) > MAX_HEADER_BYTES:
                self._refuse(errors.HeaderFieldsTooLarge())
                return False
            return True

        def _serve(self) -> None:
            path, _, query = self.path.partition("?")
            try:
                body = self._read_body()
            except errors.ApiError as refused:
                self._refuse(refused)
                return
            except ClientGone as gone:
                self.close_connection = True  # nobody to answer: nothing is served
                self.log_message('"%s" %s', self.requestline, gone)
                return
            headers: dict[str, str] = {}
            for name, value in self.headers.items():
                headers[name] = f"{headers[name]},{value}" if name in headers else value
            # API Gateway tells the handler the scheme; links must point back at plain http.
            headers.setdefault("X-Forwarded-Proto", "http")
            event = gateway.proxy_event(
                self.command,
                path,
                "",
                query=query,
                headers=headers,
                body=body,
                source_ip=self.client_address[0],
            )
            answer = api.handle(event)
            raw = answer.get("body") or ""
            payload = base64.b64decode(raw) if answer.get("isBase64Encoded") else raw.encode()
            out = dict(answer.get("headers") or {})
            for name, values in (answer.get("multiValueHeaders") or {}).items():
                out[name] = ", ".join(values)
            self._reply(answer["statusCode"], out, payload)

        def _read_body(self) -> bytes:
            """The request's body, of its Content-Length or chunked (as clients send a body
            whose length they do not know; API Gateway reads both). Raises what to refuse."""
            encoding = self.headers.get("Transfer-Encoding")
            if encoding is not None:  # it wins over a Content-Length (RFC 9112, 6.3) ...
                if encoding.strip().lower() != "chunked":
                    raise errors.BadRequest()
                if "Content-Length" in self.headers:
                    self.close_connection = True  # ... and with one, the connection ends
                return read_chunked(self.rfile)
            stated = set(self.headers.get_all("Content-Length") or ["0"])
            declared = stated.pop()
            if stated or not declared.isdigit():  # two lengths: which would end the body?
                raise errors.BadRequest()
            length = int(declared)
            if length > MAX_REQUEST_BYTES:
                raise errors.PayloadTooLarge()
            body = self.rfile.read(length) if length else b""
            if len(body) < length:
                raise ClientGone(f"disconnected after {len(body)} of {length} bytes of its body")
            return body

        def _refuse(self, err: errors.ApiError) -> None:
            """Answer without reading the request's body, then close the connection."""
            answer = http.error(err).to_event()
            self.close_connection = True
            self._reply(err.status, answer["headers"], answer["body"].encode())

        def send_error(
            self, code: int, message: str | None = None, explain: str | None = None
        ) -> None:
            self.log_error("refused with %d: %s", code, message or explain or "")
            # A request line it cannot read leaves the version at HTTP/0.9, whose answers
            # have no status line: answered so, the client would read the body as one. (API
            # Gateway does not speak HTTP/0.9 either.)
            self.request_version = self.protocol_version
            self._refuse(STDLIB_REFUSALS.get(code, errors.BadRequest)())

        def _reply(self, status: int, headers: dict[str, str], payload: bytes) -> None:
            # As API Gateway's MinimumCompressionSize: gzip what is large enough, when asked
            sent = getattr(self, "headers", None)  # not there when the stdlib refused the request
            accepted = sent.get("Accept-Encoding", "") if sent else ""
            if (
                len(payload) >= min_compression_size >= 0
                and "gzip" in accepted.lower()
                and "Content-Encoding" not in headers
            ):
                payload = gzip.compress(payload, compresslevel=6)
                headers = {**headers, "Content-Encoding": "gzip", "Vary": "Accept-Encoding"}
            if self.close_connection:
                headers = {**headers, "Connection": "close"}
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return Handler


class ClientGone(Exception):
    """The client closed its connection before its request was whole."""


def read_chunked(stream: BufferedIOBase) -> bytes:
    """A chunked body (RFC 9112, 7.1): chunks of a hexadecimal size line each, up to a chunk
    of size 0, then trailer lines (ignored) up to an empty one. Raises BadRequest when it is
    not that, PayloadTooLarge past `MAX_REQUEST_BYTES`."""
    body = bytearray()
    while True:
        size_line = stream.readline(MAX_LINE_BYTES + 1)
        digits = size_line.split(b";", 1)[0].strip()  # a chunk extension after ";" is ignored
        if len(size_line) > MAX_LINE_BYTES or not HEX_DIGITS.fullmatch(digits):
            raise errors.BadRequest()
        size = int(digits, 16)
        if len(body) + size > MAX_REQUEST_BYTES:
            raise errors.PayloadTooLarge()
        if not size:
            break
        chunk = stream.read(size)
        if len(chunk) < size or stream.readline(3) not in (b"\r\n", b"\n"):
            raise errors.BadRequest()
        body += chunk
    for _ in range(MAX_TRAILER_LINES):
        if stream.readline(MAX_LINE_BYTES + 1) in (b"\r\n", b"\n"):
            return bytes(body)
    raise errors.BadRequest()


class LocalHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # The stdlib's backlog of 5 refuses connections when many clients arrive at once; the
    # kernel caps this at net.core.somaxconn.
    request_queue_size = 1024

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (a reset, a closed socket mid-answer) is one line, as
        any request is; anything else keeps the stdlib's traceback."""
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError):
            reason = error.strerror or type(error).__name__
            sys.stderr.write(f"{client_address[0]}:{client_address[1]} disconnected: {reason}\n")
            return
        super().handle_error(request, client_address)
