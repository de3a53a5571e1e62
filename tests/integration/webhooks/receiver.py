"""A webhook receiver on a free local port: it keeps every request and answers each with
the next of the statuses it is told (200 once they run out), or stalls when told to, or
first runs `during` (what a user does while the delivery is in flight). It counts how many
requests it held at once (`most_at_once`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sitelens.local import STOP_POLL_SECONDS


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    statuses: list[int] = field(default_factory=list)
    stall_seconds: float = 0.0
    during: Callable[[], None] | None = None
    received: list[Received] = field(default_factory=list)
    most_at_once: int = 0
    _held: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                with owner._lock:
                    owner.received.append(Received(self.path, headers, body))
                    owner._held += 1
                    owner.most_at_once = max(owner.most_at_once, owner._held)
                    status = owner.statuses.pop(0) if owner.statuses else 200
                if owner.during is not None:
                    owner.during()
                if owner.stall_seconds:
                    time.sleep(owner.stall_seconds)
                with owner._lock:
                    owner._held -= 1
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(
            target=self.server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True
        ).start()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
