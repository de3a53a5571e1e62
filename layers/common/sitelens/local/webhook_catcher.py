"""`make serve`'s webhook catcher: a receiver on `SITELENS_WEBHOOK_CATCHER_PORT` (3010)
that answers every POST 200 and keeps it, headers and body, as a JSON file in
`.webhooks/`, newest last by name. Point an endpoint at `http://127.0.0.1:3010/<any path>`
(with `SITELENS_ALLOW_PRIVATE_URLS=1` and the port in `SITELENS_FETCH_PORTS`, since the
guard refuses local addresses otherwise) to see what Sitelens sends, signatures included.
"""

from __future__ import annotations

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from sitelens.local import STOP_POLL_SECONDS

FOLDER = Path(".webhooks")
MAX_BODY = 1024 * 1024  # bytes kept of one delivery


def port() -> int:
    return int(os.environ.get("SITELENS_WEBHOOK_CATCHER_PORT", "3010"))


def start(host: str, folder: Path = FOLDER) -> ThreadingHTTPServer | None:
    """Serve the catcher in a daemon thread (shut it down to stop it); None when its port
    is taken (another `make serve`, say): the stack runs without it."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = min(int(self.headers.get("content-length") or 0), MAX_BODY)
            body = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            caught = {
                "path": self.path,
                "headers": headers,
                "body": body.decode("utf-8", "replace"),
            }
            folder.mkdir(parents=True, exist_ok=True)
            name = f"{time.time_ns()}-{headers.get('webhook-id', 'unsigned')[:64]}.json"
            (folder / name.replace("/", "_")).write_text(json.dumps(caught, indent=2))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    try:
        server = ThreadingHTTPServer((host, port()), Handler)
    except OSError:
        return None
    server.daemon_threads = True
    threading.Thread(
        target=server.serve_forever, args=(STOP_POLL_SECONDS,), name="webhook-catcher", daemon=True
    ).start()
    return server
