"""Memory of `make serve` over a long run of mixed requests.

    .venv/bin/python -m tests.soak --requests 50000

starts the server (on an in-memory DynamoDB Local), warms it up, sends the requests from
a few clients on keep-alive connections, waits until every accepted hit is counted, and
prints the server's resident memory before and after. The test suite runs a short one
(tests/e2e/test_local_server.py).
"""

from __future__ import annotations

import argparse
import http.client
import json
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlencode

from tests.fixtures.analytics import CHROME

DEFAULT_REQUESTS = 1_000  # the test's; a manual run sends 50,000
WARM_UP = 500  # imports, caches and the allocator's arenas settle first
CLIENTS = 8


class Running(Protocol):
    """What a soak needs of a started server (tests.e2e.test_local_server.Server)."""

    analytics: str
    process: Any


@dataclass
class Figures:
    requests: int
    seconds: float
    rss_before_kib: int
    rss_after_kib: int
    errors: int
    statuses: Counter[int] = field(default_factory=Counter)

    @property
    def growth_kib(self) -> int:
        return self.rss_after_kib - self.rss_before_kib

    def __str__(self) -> str:
        statuses = dict(sorted(self.statuses.items()))
        return (
            f"{self.requests} requests in {self.seconds:.0f} s "
            f"({self.requests / self.seconds:.0f}/s), {self.errors} errors; server RSS "
            f"{self.rss_before_kib / 1024:.1f} MiB before, {self.rss_after_kib / 1024:.1f} MiB "
            f"after ({self.growth_kib / 1024:+.1f} MiB); statuses {statuses}"
        )


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


class Client:
    """One keep-alive connection, opened again when the server closes it; each step sends
    the next request of the mix and checks its status."""

    def __init__(self, server: Running, key: str, website_id: int, tag: str) -> None:
        self.netloc = server.analytics.removeprefix("http://")
        self.auth = {"Authorization": f"Bearer {key}"}
        self.website_id = website_id
        self.tag = tag
        self.created: list[int] = []
        self.connection: http.client.HTTPConnection | None = None

    def send(
        self, method: str, path: str, headers: dict[str, str], form: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        body = urlencode(form).encode() if form is not None else None
        if body is not None:
            headers = {**headers, "Content-Type": "application/x-www-form-urlencoded"}
        reused = self.connection is not None
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.netloc, timeout=30)
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            payload = response.read()
        except (http.client.HTTPException, OSError) as err:
            self.connection.close()
            self.connection = None
            if reused and isinstance(err, http.client.RemoteDisconnected):
                # A kept-alive connection may be closed when idle; clients send again.
                return self.send(method, path, headers, form)
            raise
        if response.will_close:
            self.connection.close()
            self.connection = None
        return response.status, payload

    def step(self, n: int) -> tuple[int, bool]:
        """Request number n of the mix: (status, whether it was the expected one)."""
        kind = n % 12
        if kind == 0:
            status, _ = self.send("GET", "/api/v1/account", self.auth)
            return status, status == 200
        if kind == 1:
            status, _ = self.send("GET", "/api/v1/websites?per_page=25&sort_by=domain", self.auth)
            return status, status == 200
        if kind == 2:
            domain = f"soak-{self.tag}-{n}.example.com"
            status, body = self.send("POST", "/api/v1/websites", self.auth, {"domain": domain})
            if status == 201:
                self.created.append(json.loads(body)["data"]["id"])
            return status, status == 201
        if kind == 3 and self.created:
            path = f"/api/v1/websites/{self.created.pop()}"
            status, _ = self.send("DELETE", path, self.auth)
            return status, status == 200
        if kind in (3, 4):
            # One request in twelve is a hit (and one in twelve a failed delete): a mix of
            # every kind; tests.load measures a stream of hits alone.
            page = f"https://soak-{self.tag}.example.com/page-{n % 50}"
            status, _ = self.send("POST", "/api/event", {"User-Agent": CHROME}, {"page": page})
            return status, status == 202
        if kind == 5:
            status, _ = self.send("GET", "/api/v1/websites?favorite=0&sort=asc", self.auth)
            return status, status == 200
        if kind == 6:
            path = f"/api/v1/stats/{self.website_id}?name=page&per_page=10"
            status, _ = self.send("GET", path, self.auth)
            return status, status == 200
        if kind == 7:
            status, _ = self.send("GET", "/js/script.js", {})
            return status, status == 200
        if kind == 8:
            status, _ = self.send("GET", f"/api/v1/nothing/{n}", self.auth)
            return status, status == 404
        if kind == 9:
            status, _ = self.send("TRACE" if n % 24 == 9 else "DELETE", "/api/v1/account", {})
            return status, status == 405
        if kind == 10:
            status, _ = self.send("GET", "/api/v1/websites", {"Authorization": "Bearer sl_no"})
            return status, status == 401
        if n % 120 == 11:  # now and then a refused request, which closes the connection
            status, _ = self.send("GET", "/api/v1/account", {"X-Big": "a" * 70_000})
            return status, status == 431
        status, _ = self.send("GET", f"/api/v1/websites/{self.website_id}", self.auth)
        return status, status == 200


def _run_requests(clients: list[Client], requests: int, offset: int) -> tuple[int, Counter[int]]:
    def work(index: int) -> tuple[int, Counter[int]]:
        client, errors, statuses = clients[index], 0, Counter[int]()
        for n in range(offset + index, offset + requests, len(clients)):
            try:
                status, expected = client.step(n)
            except (http.client.HTTPException, OSError):
                status, expected = 0, False
            statuses[status] += 1
            errors += not expected
        return errors, statuses

    errors, statuses = 0, Counter[int]()
    with ThreadPoolExecutor(len(clients)) as pool:
        for client_errors, client_statuses in pool.map(work, range(len(clients))):
            errors += client_errors
            statuses.update(client_statuses)
    return errors, statuses


def counted(client: Client, website_id: int, hits: int, within: float = 300) -> bool:
    """Whether the statistics show every accepted hit within `within` seconds (the queue
    drained: what remains in memory after is what stays)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        path = f"/api/v1/stats/{website_id}?name=pageviews&per_page=100"
        status, body = client.send("GET", path, client.auth)
        if status == 200 and sum(row["count"] for row in json.loads(body)["data"]) >= hits:
            return True
        time.sleep(0.5)
    return False


def run(server: Running, key: str, requests: int, clients: int = CLIENTS) -> Figures:
    """Warm the server up, then send `requests` mixed requests; its RSS around them, once
    every accepted hit is counted."""
    tag = uuid.uuid4().hex[:8]
    setup = Client(server, key, 0, tag)
    status, body = setup.send(
        "POST", "/api/v1/websites", setup.auth, {"domain": f"soak-{tag}.example.com"}
    )
    assert status == 201, body
    website_id = json.loads(body)["data"]["id"]
    pool = [Client(server, key, website_id, tag) for _ in range(clients)]
    _, warm_up = _run_requests(pool, WARM_UP, offset=0)
    assert counted(setup, website_id, warm_up[202])
    before = rss_kib(server.process.pid)
    started = time.monotonic()
    errors, statuses = _run_requests(pool, requests, offset=WARM_UP)
    seconds = time.monotonic() - started
    errors += not counted(setup, website_id, warm_up[202] + statuses[202])
    return Figures(requests, seconds, before, rss_kib(server.process.pid), errors, statuses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=50_000)
    parser.add_argument("--clients", type=int, default=CLIENTS)
    args = parser.parse_args()
    from tests.e2e.test_local_server import start_server

    key = "sl_soak_" + uuid.uuid4().hex
    server = start_server(SITELENS_DEV_API_KEY=key, cheap_scrypt=False)  # the real program
    try:
        print(run(server, key, args.requests, args.clients), flush=True)
    finally:
        if server.process.poll() is not None:
            print(f"The server exited with {server.process.returncode}:", flush=True)
        else:
            server.stop()
        # What the server said besides its request log, for a run that went wrong.
        said = [line for line in server.lines if not line.startswith("127.0.0.1 ")]
        print("\n".join(said[-40:]), flush=True)


if __name__ == "__main__":
    main()
