"""Events per second that `make serve` takes, and how soon it counts them.

    .venv/bin/python -m tests.load --clients 8 --seconds 20 [--rate 900] [--db memory|disk|moto]

starts the server (on an in-memory DynamoDB Local unless `--db` says otherwise), creates
a website, then has each client send `POST /api/event` pageviews on its own keep-alive
connection as fast as the server answers (or, with `--rate`, at that many events a second
in all, each client sending on a fixed schedule), for the given time. It prints the events
accepted per second, the latency percentiles, how long after the last answer every
accepted event was counted, and how many were lost (accepted but never counted). The test
suite runs a short one (tests/e2e/test_local_server.py): nothing lost, everything counted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import threading
import time
import uuid
from dataclasses import dataclass
from urllib.parse import urlencode

from tests.fixtures.analytics import CHROME
from tests.soak import Running

CLIENTS = 8
COUNT_WITHIN = 120.0  # seconds to wait for the counters to reach what was accepted


@dataclass
class Figures:
    accepted: int
    refused: int
    seconds: float
    latencies: list[float]  # seconds, one per request
    counted_after: float | None  # seconds from the last answer until all were counted
    counted: int

    @property
    def lost(self) -> int:
        return self.accepted - self.counted

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0

    def __str__(self) -> str:
        ms = 1000
        counted = f"{self.counted_after:.1f} s" if self.counted_after is not None else "never"
        return (
            f"{self.accepted} events accepted in {self.seconds:.1f} s "
            f"({self.accepted / self.seconds:.0f}/s), {self.refused} refused; latency "
            f"p50 {self.percentile(0.5) * ms:.1f} ms, p95 {self.percentile(0.95) * ms:.1f} ms, "
            f"p99 {self.percentile(0.99) * ms:.1f} ms, mean "
            f"{statistics.fmean(self.latencies or [0]) * ms:.1f} ms; all counted {counted} "
            f"after the last answer; {self.lost} lost"
        )


def _connection(netloc: str) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(netloc, timeout=30)


def _api(netloc: str, method: str, path: str, key: str, form: dict[str, str] | None = None):
    connection = _connection(netloc)
    try:
        body = urlencode(form).encode() if form is not None else None
        headers = {"Authorization": f"Bearer {key}"}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def pageviews(netloc: str, key: str, website_id: int) -> int:
    """The website's pageviews as its statistics show them now (every day, one page)."""
    status, body = _api(netloc, "GET", f"/api/v1/stats/{website_id}?name=pageviews", key)
    assert status == 200, body
    return sum(row["count"] for row in body["data"])


def run(
    server: Running, key: str, seconds: float, clients: int = CLIENTS, rate: float = 0
) -> Figures:
    """Send pageviews from `clients` connections for `seconds` (at `rate` a second in all,
    or as fast as answered); then wait until counted."""
    netloc = server.analytics.removeprefix("http://")
    domain = f"load-{uuid.uuid4().hex[:8]}.example.com"
    status, body = _api(netloc, "POST", "/api/v1/websites", key, {"domain": domain})
    assert status == 201, body
    website_id = body["data"]["id"]
    latencies: list[list[float]] = [[] for _ in range(clients)]
    outcomes = [[0, 0] for _ in range(clients)]  # accepted, refused
    start = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def send(index: int) -> None:
        connection = _connection(netloc)
        headers = {"User-Agent": CHROME, "Content-Type": "application/x-www-form-urlencoded"}
        start.wait()
        n = 0
        began = time.monotonic()
        while time.monotonic() < stop_at[0]:
            if rate:  # the next send on this client's schedule; a late one goes at once
                time.sleep(max(0.0, began + n * clients / rate - time.monotonic()))
            page = f"https://{domain}/page-{index}-{n % 20}"
            body = urlencode({"page": page}).encode()
            sent = time.monotonic()
            try:
                connection.request("POST", "/api/event", body=body, headers=headers)
                response = connection.getresponse()
                response.read()
                ok = response.status == 202
            except (http.client.HTTPException, OSError):
                connection.close()
                connection = _connection(netloc)
                ok = False
            latencies[index].append(time.monotonic() - sent)
            outcomes[index][0 if ok else 1] += 1
            n += 1
        connection.close()

    threads = [threading.Thread(target=send, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    stop_at[0] = time.monotonic() + seconds
    began = time.monotonic()
    start.wait()
    for thread in threads:
        thread.join()
    took = time.monotonic() - began
    accepted = sum(a for a, _ in outcomes)
    deadline = time.monotonic() + COUNT_WITHIN
    ended = time.monotonic()
    counted_after = None
    while time.monotonic() < deadline:
        counted = pageviews(netloc, key, website_id)
        if counted >= accepted:
            counted_after = time.monotonic() - ended
            break
        time.sleep(0.2)
    return Figures(
        accepted=accepted,
        refused=sum(r for _, r in outcomes),
        seconds=took,
        latencies=[latency for per_client in latencies for latency in per_client],
        counted_after=counted_after,
        counted=counted,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients", type=int, default=CLIENTS)
    parser.add_argument("--rate", type=float, default=0, help="events a second in all")
    parser.add_argument("--db", choices=("memory", "disk", "moto"), default="memory")
    args = parser.parse_args()
    from tests.e2e.test_local_server import start_server

    key = "sl_load_" + uuid.uuid4().hex
    server = start_server(SITELENS_DEV_API_KEY=key, SITELENS_LOCAL_DB=args.db, cheap_scrypt=False)
    try:
        print(run(server, key, args.seconds, args.clients, args.rate), flush=True)
    finally:
        if server.process.poll() is None:
            server.stop()
        said = [line for line in server.lines if not line.startswith("127.0.0.1 ")]
        print("\n".join(said[-20:]), flush=True)


if __name__ == "__main__":
    main()
