"""docs/proxying.md's nginx recipe, as written there, in front of `make serve`: Debian's
nginx (`make proxy` installs it; CI does) runs the page's `nginx` block pointed at the
server, and what goes through it is counted by the visitor's address, not nginx's, and
never by an address a visitor wrote.

The addresses are loopback ones, each a role: nginx reaches the server from 127.0.0.1, a
CDN in front of nginx sends from 127.0.0.3 (both in SITELENS_TRUSTED_PROXIES, on a server
of this module's own: the shared one trusts no proxy), visitors from 127.0.0.2 and
127.0.0.4 (Linux answers the whole 127.0.0.0/8 on the loopback interface)."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.analytics.test_goals_served import until
from tests.e2e.test_local_server import ROOT, Server, call, free_ports, start_server, unique_domain
from tests.fixtures.analytics import CHROME

DOC = ROOT / "docs" / "proxying.md"
DOCUMENTED_BASE = "https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com/v1"
NGINX_PROXY, VISITOR, CDN, OTHER_VISITOR = "127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"
BRITISH = "81.2.69.142"  # registered to GB at RIPE (iptocc), whoever writes it


def nginx() -> str | None:
    return shutil.which("nginx") or next(
        (path for path in ("/usr/sbin/nginx",) if Path(path).is_file()), None
    )


def documented_block() -> str:
    """The page's `nginx` block: the two locations a site adds to its server block."""
    [block] = re.findall(r"```nginx\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert DOCUMENTED_BASE in block
    return block


@pytest.fixture(scope="module")
def trusting(worker_dynamodb: str | None) -> Iterator[tuple[Server, str]]:
    key = f"sl_test_proxy_{uuid.uuid4().hex}"
    server = start_server(
        dynamodb=worker_dynamodb,
        SITELENS_DEV_API_KEY=key,
        SITELENS_TRUSTED_PROXIES=f"{NGINX_PROXY}, {CDN}",
        SITELENS_LOCAL_DB="memory",
    )
    try:
        yield server, key
    finally:
        server.stop()


@pytest.fixture(scope="module")
def proxy(trusting: tuple[Server, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """nginx with the documented locations in a server of its own, on a free port."""
    binary = nginx()
    if binary is None:
        pytest.skip("no nginx on PATH or at /usr/sbin/nginx: `make proxy` installs Debian's")
    server, _ = trusting
    home = tmp_path_factory.mktemp("nginx")
    home.chmod(0o777)  # a root master's workers run as nobody: their temporary bodies
    [port] = free_ports(1)
    locations = documented_block().replace(DOCUMENTED_BASE, server.analytics)
    config = home / "nginx.conf"
    config.write_text(
        f"""
worker_processes 1;
pid {home}/nginx.pid;
error_log {home}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {home}/body;
    proxy_temp_path {home}/proxy;
    fastcgi_temp_path {home}/fastcgi;
    uwsgi_temp_path {home}/uwsgi;
    scgi_temp_path {home}/scgi;
    server {{
        listen 127.0.0.1:{port};
        {locations}
    }}
}}
"""
    )
    process = subprocess.Popen(
        [
            binary,
            "-p",
            str(home),
            "-c",
            str(config),
            "-e",
            str(home / "error.log"),
            "-g",
            "daemon off;",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                errors = process.communicate()[1].decode(errors="replace")
                pytest.fail(f"nginx did not start: {errors}")
            time.sleep(0.05)
    try:
        yield port
    finally:
        process.send_signal(signal.SIGQUIT)  # graceful: workers finish, then exit
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def through(
    port: int,
    source: str,
    method: str,
    path: str,
    body: bytes = b"",
    **headers: str,
) -> tuple[int, dict[str, str], bytes]:
    """A request to nginx sent from `source`, one of the loopback addresses."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=10, source_address=(source, 0)
    )
    try:
        connection.request(
            method, path, body=body or None, headers={"User-Agent": CHROME, **headers}
        )
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_the_documented_nginx_block_proxies_script_and_events(
    trusting: tuple[Server, str], proxy: int
) -> None:
    server, key = trusting
    domain = unique_domain("proxied")
    form = {"domain": domain, "exclude_ips": VISITOR}
    created = call("POST", f"{server.analytics}/api/v1/websites", key, form=form)
    assert created.status == 201, created.body
    site = created.body["data"]["id"]
    page = f"https://{domain}/pricing"
    sitelens_form = {"Content-Type": "application/x-www-form-urlencoded"}
    event = f"page={page}".encode()

    # the script, as the API serves it
    status, headers, script = through(proxy, OTHER_VISITOR, "GET", "/js/script.js")
    direct = call_raw(f"{server.analytics}/js/script.js")
    assert (status, script) == (200, direct)
    assert headers["Access-Control-Allow-Origin"] == "*"

    # a visitor excluded by its own address: not nginx's, and not the one it wrote
    status, _, _ = through(
        proxy, VISITOR, "POST", "/api/event", event, **sitelens_form, **{"X-Forwarded-For": BRITISH}
    )
    assert status == 403
    # a CDN in front of nginx, trusted, names its visitor: counted in Great Britain, sent in
    # Plausible's format as its script sends it
    plausible = json.dumps({"n": "pageview", "u": page, "d": domain, "r": None}).encode()
    status, headers, answer = through(
        proxy,
        CDN,
        "POST",
        "/api/event",
        plausible,
        **{"Content-Type": "text/plain", "X-Forwarded-For": BRITISH},
    )
    assert (status, answer) == (202, b"ok")
    # a visitor of no country (a loopback address) through nginx
    status, _, _ = through(proxy, OTHER_VISITOR, "POST", "/api/event", event, **sitelens_form)
    assert status == 202

    def total(name: str) -> int:
        url = f"{server.analytics}/api/v1/stats/{site}?name={name}"
        return sum(row["count"] for row in call("GET", url, key).body["data"])

    def stat(name: str) -> Any:
        url = f"{server.analytics}/api/v1/stats/{site}?name={name}"
        return call("GET", url, key).body["data"]

    assert until(lambda: (total("pageviews"), stat("excluded")), (2, EXCLUDED)) == (2, EXCLUDED)
    assert stat("country") == [{"value": "GB", "count": 1}]
    assert total("visitors") == 2  # two visitors, not one proxy


EXCLUDED = [{"value": "ip", "count": 1}]


def call_raw(url: str) -> bytes:
    import urllib.request

    from tests.e2e.test_local_server import OPENER

    with OPENER.open(urllib.request.Request(url), timeout=10) as response:
        body: bytes = response.read()
        return body
