"""What the client's e2e tests share: a page for reports and audits to fetch."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

PAGE = b'<html lang="en"><head><title>Hello</title></head><body><h1>Hi there</h1></body></html>'


class Hello(BaseHTTPRequestHandler):
    """The page the docs serve on port 8000 for reports (`python3 -m http.server`)."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def page_site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
