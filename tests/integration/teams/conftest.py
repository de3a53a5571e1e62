"""Members for the teams tests: an account's owner (its first key, the founder's) invites
an address with a role, the invitation's link is read from the mail outbox and accepted,
and the member's first key comes back."""

from __future__ import annotations

import email
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from sitelens.core import config
from tests.conftest import Client


@pytest.fixture
def outbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "outbox"
    monkeypatch.setenv("SITELENS_MAIL_OUTBOX", str(folder))
    config.reset()
    return folder


def invitation_token(outbox: Path, address: str) -> str:
    """The token of the latest invitation link mailed to `address`."""
    mailed = sorted(outbox.glob("*.eml"))
    for path in reversed(mailed):
        message = email.message_from_bytes(path.read_bytes())
        if message["To"] == address:
            body = message.get_payload(decode=True).decode()
            link = next(w for w in body.split() if "/api/v1/members/accept?" in w)
            return parse_qs(urlsplit(link).query)["token"][0]
    raise AssertionError(f"no invitation to {address}")


Join = Callable[[str, str], tuple[int, str]]


@pytest.fixture
def join(analytics: Client, outbox: Path) -> Join:
    """join(email, role) -> (member id, its first key), invited by the account's owner."""

    def made(address: str, role: str) -> tuple[int, str]:
        invited = analytics.post("/api/v1/members", {"email": address, "role": role})
        assert invited.status == 201, invited.body
        token = invitation_token(outbox, address)
        accepted = Client("AnalyticsApi", None).post(
            "/api/v1/members/accept", query={"token": token}, key=None
        )
        assert accepted.status == 201, accepted.body
        return accepted.data["id"], accepted.data["key"]["key"]

    return made
