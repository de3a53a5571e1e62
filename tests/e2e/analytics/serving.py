"""A collector (`test_script_browser.Collector`) serving a page of a test's own: the tracking
script's files under /js/ as the API sends them, `page(path, collector)` for every other
path, as (status, HTML)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sitelens.local import STOP_POLL_SECONDS
from tests.e2e.analytics.test_script_browser import Collector, Handler

Page = Callable[[str, Collector], tuple[int, str]]


@contextmanager
def collecting(page: Page) -> Iterator[Collector]:
    class PageHandler(Handler):
        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            if path.startswith("/js/"):
                self.script()
            else:
                status, html = page(path, self.server)
                self.reply(status, html.encode(), "text/html; charset=utf-8")

    server = Collector()
    server.RequestHandlerClass = PageHandler
    thread = threading.Thread(target=server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
