"""`make serve` as a developer watches it, on ports other than the defaults: the OpenAPI
documents it serves name the base URLs it listens on, a client that disconnects mid-request
is one line without a traceback, and a server with nothing to do prints nothing (its
minutely goal.converted pass runs every second here)."""

from __future__ import annotations

import http.client
import json
import socket
import struct
import time
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from tests.e2e.test_local_server import HOST, READY, Server, call, start_server

MINUTE_SECONDS = 1
# the scheduled functions' info lines, which a pass with nothing to do must not write
PASS_LINES = ("goal.converted", "traffic alerts", "digests planned", "compacted")


@pytest.fixture(scope="module")
def serve(worker_dynamodb: str | None) -> Iterator[tuple[Server, float]]:
    server = start_server(
        dynamodb=worker_dynamodb,
        SITELENS_LOCAL_MINUTE_SECONDS=str(MINUTE_SECONDS),
        POWERTOOLS_LOG_LEVEL="INFO",  # make serve's own level (the tests' is WARNING)
    )
    try:
        yield server, time.monotonic()
    finally:
        server.stop()


def lines_until(server: Server, found: str, seconds: float = 10) -> list[str]:
    deadline = time.monotonic() + seconds
    while not any(found in line for line in server.lines):
        assert time.monotonic() < deadline, f"no line with {found!r}:\n{server.output}"
        time.sleep(0.05)
    return [line for line in server.lines if found in line]


def test_the_served_documents_name_the_base_urls_in_use(serve) -> None:
    server, _ = serve
    for base in (server.analytics, server.seo):
        port = urlsplit(base).port
        assert port not in (3000, 3001)
        document = call("GET", f"{base}/api/v1/openapi.json").body
        assert [entry["url"] for entry in document["servers"]] == [base]
        # asked through another name of this machine, that name
        connection = http.client.HTTPConnection(HOST, port, timeout=10)
        connection.request("GET", "/api/v1/openapi.json", headers={"Host": f"localhost:{port}"})
        answer = json.loads(connection.getresponse().read())
        connection.close()
        assert [entry["url"] for entry in answer["servers"]] == [f"http://localhost:{port}"]


def test_a_client_that_disconnects_mid_request_is_one_line_without_a_traceback(serve) -> None:
    server, _ = serve
    port = urlsplit(server.analytics).port
    assert port is not None
    probe = uuid.uuid4().hex
    # a body cut short: the client closes after 9 of its 100 bytes
    with socket.create_connection((HOST, port)) as cut:
        cut.sendall(
            f"POST /api/v1/websites?probe={probe} HTTP/1.1\r\nHost: {HOST}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n".encode()
            + b'{"domain"'
        )
    # half a header section, then a reset (SO_LINGER 0 closes with RST)
    reset = socket.create_connection((HOST, port))
    reset.sendall(b"GET /api/v1/websites HTTP/1.1\r\nHost: ")
    client = "{}:{}".format(*reset.getsockname())
    reset.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    reset.close()

    [short] = lines_until(server, probe)
    assert short.endswith("disconnected after 9 of 100 bytes of its body"), short
    [gone] = lines_until(server, f"{client} disconnected")
    assert gone == f"{client} disconnected: Connection reset by peer"
    assert "Traceback" not in server.output
    assert "Exception occurred" not in server.output
    # nothing was made of the half request
    assert call("GET", f"{server.analytics}/api/v1/openapi.json").status == 200


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_an_idle_server_prints_nothing_periodically(serve) -> None:
    server, started = serve
    # at least two passes of the minutely function after the first one at start
    time.sleep(max(0.0, started + 2.5 * MINUTE_SECONDS - time.monotonic()))
    after_ready = server.lines[server.lines.index(READY) :]
    written = [json.loads(line)["message"] for line in after_ready if line.startswith("{")]
    assert not [message for message in written if message in PASS_LINES], written
    before_ready = server.lines[: server.lines.index(READY)]
    assert not [line for line in before_ready if any(f'"{m}"' in line for m in PASS_LINES)]
