"""Digests under `make serve`: the CLI sets an account's address and sends the period's
digests into the outbox, and the caught email's unsubscribe link works against the
running server."""

from __future__ import annotations

import subprocess
import sys
import uuid
from email import message_from_bytes, policy
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import urlopen

import pytest

from tests.e2e.test_local_server import ROOT, base_env, call, start_server

KEY = "sl_test_digests_" + uuid.uuid4().hex


def cli(server, outbox: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "sitelens.cli", "--local", *args],
        cwd=ROOT,
        env=base_env(
            **server.dynamodb,
            SITELENS_AWS_PORT=str(server.aws_port),
            SITELENS_MAIL_OUTBOX=str(outbox),
            SITELENS_ANALYTICS_BASE_URL=server.analytics,
        ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow  # about 3 s or more of a worker: make test-slow (CI)
def test_digests_caught_in_the_outbox_and_unsubscribed(
    tmp_path: Path, worker_dynamodb: str | None
) -> None:
    server = start_server(dynamodb=worker_dynamodb, SITELENS_DEV_API_KEY=KEY)
    try:
        site = call(
            "POST",
            f"{server.analytics}/api/v1/websites",
            KEY,
            form={"domain": "shop.example", "email": "1"},
        ).body["data"]
        account = call("GET", f"{server.analytics}/api/v1/account", KEY).body["data"]
        outbox = tmp_path / "outbox"
        cli(server, outbox, "accounts", "update", str(account["id"]), "--email", "me@example.com")
        assert '"sent": 1' in cli(server, outbox, "digests", "send", "--cadence", "weekly")
        assert '"already": 1' in cli(server, outbox, "digests", "send", "--cadence", "weekly")
        listed = cli(server, outbox, "digests", "outbox")
        assert "me@example.com" in listed and "Sitelens: your week" in listed
        [path] = outbox.glob("*.eml")
        message = message_from_bytes(path.read_bytes(), policy=policy.default)
        link = str(message["List-Unsubscribe"]).strip("<>")
        assert link.startswith(f"{server.analytics}/api/v1/unsubscribe?token=")
        with urlopen(link, timeout=10) as page:  # a GET only asks
            assert page.status == 200 and "shop.example" in page.read().decode()
        stored = call("GET", f"{server.analytics}/api/v1/websites/{site['id']}", KEY).body
        assert stored["data"]["email"] == 1
        with urlopen(link, data=b"List-Unsubscribe=One-Click", timeout=10) as answer:
            assert answer.status == 200  # RFC 8058's one-click POST
        stored = call("GET", f"{server.analytics}/api/v1/websites/{site['id']}", KEY).body
        assert stored["data"]["email"] == 0
        assert urlsplit(link).hostname == "127.0.0.1"
    finally:
        server.stop()
