"""A small fixture site a test writes itself, served on 127.0.0.1 (a port of its own), with
every request it received: its host, path and headers.

`localhost` on the same port is another host: a link or redirect there is external, and
the requests it gets are told apart by their `Host`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sitelens.local import STOP_POLL_SECONDS

HTML = {"Content-Type": "text/html; charset=utf-8"}


def page(title: str, links: Sequence[str] = (), head: str = "") -> str:
    anchors = "".join(f'<a href="{href}">{href}</a> ' for href in links)
    return (
        f"<!doctype html><html lang=en><head><title>{title}</title>{head}</head>"
        f"<body><h1>{title}</h1><p>The page {title}.</p>{anchors}</body></html>"
    )


def sitemap(urls: list[str]) -> str:
    locations = "".join(f"<url><loc>{url}</loc></url>" for url in urls)
    return f"<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{locations}</urlset>"


@dataclass
class Request:
    host: str
    path: str
    headers: dict[str, str]  # names lower-cased
    at: float  # time.monotonic() when it came


class SmallSite:
    """`pages`: path -> (status, headers, body); `BASE` and `EXTERNAL` in a body or a
    header are the site's and the other host's origins. Any other path answers 404. The
    other host answers `external` (path -> the same), else 200 with a page."""

    def __init__(
        self,
        pages: dict[str, tuple[int, dict[str, str], str]],
        external: dict[str, tuple[int, dict[str, str], str]] | None = None,
    ) -> None:
        self.pages = pages
        self.external_pages = external or {}
        self.requests: list[Request] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.external = f"http://localhost:{self.port}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True
        )
        self.thread.start()

    def url(self, path: str) -> str:
        return self.base + path

    def paths(self, host: str | None = None) -> list[str]:
        """The paths requested, in order (of the site's own host by default)."""
        host = host or f"127.0.0.1:{self.port}"
        return [r.path for r in self.requests if r.host == host]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _fill(self, text: str) -> str:
        return text.replace("BASE", self.base).replace("EXTERNAL", self.external)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._answer(body=True)

            def do_HEAD(self) -> None:
                self._answer(body=False)

            def _answer(self, body: bool) -> None:
                headers = {name.lower(): value for name, value in self.headers.items()}
                site.requests.append(
                    Request(headers.get("host", ""), self.path, headers, time.monotonic())
                )
                if headers.get("host", "").startswith("localhost"):
                    status, answer, text = site.external_pages.get(
                        self.path, (200, HTML, page("External"))
                    )
                else:
                    status, answer, text = site.pages.get(self.path, (404, HTML, "not found"))
                data = site._fill(text).encode()
                self.send_response(status)
                for name, value in answer.items():
                    self.send_header(name, site._fill(value))
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler
