"""Email digests: one per account and period, with each website's visitors and pageviews
against the period before, text and HTML, links that stop them without a key; sent at
most once however often it runs, failures recorded and never sent twice; the CLI."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import boto3
import pytest

from sitelens import accounts, cli, config, digests
from sitelens.analytics.hits import Hit
from sitelens.data import mail
from tests.fixtures.analytics import hit_record, run

MONDAY = date(2026, 11, 23)  # digests of the week of 16 to 22 November (the 9th to 15th before)


@pytest.fixture
def outbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "outbox"
    monkeypatch.setenv("SITELENS_MAIL_OUTBOX", str(folder))
    monkeypatch.setenv("SITELENS_ANALYTICS_BASE_URL", "https://api.test")
    config.reset()
    return folder


def count_views(account_id: str, website_id: int, days: dict[str, int]) -> None:
    hits = []
    for day, views in days.items():
        when = datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC)
        hits += [
            Hit(website_id=website_id, at=when, page="/", visit=n % 2 == 0) for n in range(views)
        ]
    batch = [hit_record(hit, account_id, n) for n, hit in enumerate(hits)]
    assert run("HitsQueue", batch) == {"batchItemFailures": []}


def emails(folder: Path) -> list[EmailMessage]:
    found = []
    for path in sorted(folder.glob("*.eml")):
        message = message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(message, EmailMessage)
        found.append(message)
    return found


def parts(message: EmailMessage) -> tuple[str, str]:
    text = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


def test_a_weekly_digest_of_the_websites_that_ask_for_one(analytics, account, outbox):
    shop = analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1}).data
    quiet = analytics.post("/api/v1/websites", {"domain": "quiet.example", "email": 0}).data
    analytics.post("/api/v1/websites", {"domain": "secret.example", "email": 1, "privacy": 1})
    count_views(account.id, shop["id"], {"2026-11-17": 6, "2026-11-22": 4, "2026-11-10": 5})
    count_views(account.id, quiet["id"], {"2026-11-17": 9})
    accounts.set_contact(accounts.get_account(account.id), "Owner@Example.com")
    outcome = digests.send_due(MONDAY)
    assert (outcome.sent, outcome.failed, outcome.periods) == (1, 0, ["2026-W47"])
    [message] = emails(outbox)
    assert message["To"] == "Owner@example.com"
    assert "16 Nov to 22 Nov 2026" in message["Subject"]
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text, html = parts(message)
    # shop: 10 pageviews and 5 visitors this week, against 5 and 3 the week before
    assert "shop.example" in text and "quiet.example" not in text
    assert "Pageviews: 10 (+100%; 5 the period before)" in text
    assert "Visitors:  5 (+67%; 3 the period before)" in text
    assert "https://api.test/share/shop.example" in text
    assert "https://api.test/share/secret.example" not in text  # private: no share page
    assert "secret.example" in html and "<strong>shop.example</strong>" in html


def test_the_scheduled_event_sends_the_digests_due(analytics, account, outbox, monkeypatch):
    """`sam local invoke DigestFunction -e events/digests-send.json`, on a Monday: the
    Scheduler's (empty) event runs the week's digests; run again, it sends none."""
    from sitelens.local import gateway

    shop = analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1}).data
    count_views(account.id, shop["id"], {"2026-11-17": 2})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    monkeypatch.setattr("sitelens.clock.now", lambda: datetime(2026, 11, 23, 6, 0, 5, tzinfo=UTC))
    module = gateway.load_module(gateway.ROOT / "functions/digests/send/app.py")
    event = json.loads((gateway.ROOT / "events" / "digests-send.json").read_text())
    first = module.handler(event, gateway.LambdaContext("DigestFunction"))
    again = module.handler(event, gateway.LambdaContext("DigestFunction"))
    assert (first["sent"], first["periods"]) == (1, ["2026-W47"])
    assert (again["sent"], again["already"]) == (0, 1)
    assert len(emails(outbox)) == 1


def test_a_digest_is_sent_once_per_period(analytics, account, outbox):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    assert digests.send_due(MONDAY).sent == 1
    again = digests.send_due(MONDAY)
    assert (again.sent, again.already) == (0, 1)
    assert len(emails(outbox)) == 1
    assert digests.send_due(date(2026, 11, 24)).periods == []  # a Tuesday: nothing due


def test_monthly_accounts_get_theirs_on_the_first(analytics, account, outbox):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com", "monthly")
    assert digests.send_due(MONDAY).sent == 0  # weekly day, monthly account
    outcome = digests.send_due(date(2026, 12, 1))
    assert (outcome.sent, outcome.periods) == (1, ["2026-11"])
    [message] = emails(outbox)
    assert "November 2026" in message["Subject"]


def test_a_failure_is_recorded_and_never_sent_twice(analytics, account, outbox, monkeypatch):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")

    def refused(message: EmailMessage) -> str:
        raise RuntimeError("MessageRejected")

    monkeypatch.setattr(mail, "send", refused)
    assert digests.send_due(MONDAY).failed == 1
    monkeypatch.undo()
    assert digests.send_due(MONDAY).already == 1
    item = boto3.client("dynamodb").get_item(
        TableName=config.settings().accounts_table,
        Key={"pk": {"S": f"DIGEST#{account.id}"}, "sk": {"S": "2026-W47"}},
    )["Item"]
    assert (item["state"]["S"], item["detail"]["S"]) == ("failed", "RuntimeError")


def test_accounts_without_a_website_to_report_get_nothing(analytics, account, outbox):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 0})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    assert digests.send_due(MONDAY).empty == 1
    assert emails(outbox) == []


def test_through_ses(analytics, account, monkeypatch):
    monkeypatch.setenv("SITELENS_MAIL_FROM", "digests@sitelens.example")
    monkeypatch.setenv("SITELENS_ANALYTICS_BASE_URL", "https://api.test")
    config.reset()
    boto3.client("sesv2").create_email_identity(EmailIdentity="digests@sitelens.example")
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    assert digests.send_due(MONDAY).sent == 1


def unsubscribe_link(message: EmailMessage, domain: str) -> str:
    text, _ = parts(message)
    lines = [line for line in text.splitlines() if f"Stop these emails for {domain}" in line]
    return lines[0].rsplit(" ", 1)[1]


def test_the_unsubscribe_link_stops_that_website_without_a_key(analytics, account, outbox):
    one = analytics.post("/api/v1/websites", {"domain": "one.example", "email": 1}).data
    two = analytics.post("/api/v1/websites", {"domain": "two.example", "email": 1}).data
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    digests.send_due(MONDAY)
    [message] = emails(outbox)
    link = unsubscribe_link(message, "one.example")
    token = parse_qs(urlsplit(link).query)["token"][0]
    page = analytics.get("/api/v1/unsubscribe", query={"token": token}, key=None)
    assert page.status == 200 and "one.example" in page.body
    assert analytics.get(f"/api/v1/websites/{one['id']}").data["email"] == 0
    assert analytics.get(f"/api/v1/websites/{two['id']}").data["email"] == 1
    # one click from the mail client: the header's link stops all of them
    header = str(message["List-Unsubscribe"]).strip("<>")
    everything = parse_qs(urlsplit(header).query)["token"][0]
    reply = analytics.request("POST", "/api/v1/unsubscribe", query={"token": everything}, key=None)
    assert reply.status == 200
    assert sorted(reply.data["unsubscribed"]) == ["one.example", "two.example"]
    assert analytics.get(f"/api/v1/websites/{two['id']}").data["email"] == 0


@pytest.mark.parametrize("token", ["", "nonsense", "eyJkIjp7fX0.AAAA"])
def test_a_bad_unsubscribe_link_changes_nothing(analytics, token):
    site = analytics.post("/api/v1/websites", {"domain": "one.example", "email": 1}).data
    page = analytics.get("/api/v1/unsubscribe", query={"token": token}, key=None)
    assert page.status == 422 and "invalid or has expired" in page.body
    reply = analytics.request("POST", "/api/v1/unsubscribe", query={"token": token}, key=None)
    assert reply.body == {"message": {"token": [digests.unsubscribing.INVALID]}, "status": 422}
    assert analytics.get(f"/api/v1/websites/{site['id']}").data["email"] == 1


def test_a_link_for_another_purpose_does_not_unsubscribe(analytics, account):
    from sitelens import signing

    site = analytics.post("/api/v1/websites", {"domain": "one.example", "email": 1}).data
    forged = signing.sign({"account": account.id, "websites": [site["id"]]}, "share", 2e9)
    reply = analytics.request("POST", "/api/v1/unsubscribe", query={"token": forged}, key=None)
    assert reply.status == 422


def test_the_account_shows_its_email_and_digest(analytics, account):
    assert analytics.get("/api/v1/account").data["email"] is None
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com", "monthly")
    from sitelens.edge import auth

    auth.forget()
    data = analytics.get("/api/v1/account").data
    assert (data["email"], data["digest"]) == ("owner@example.com", "monthly")


def test_the_cli_sets_emails_and_sends_digests(aws_env, outbox, capsys):
    assert cli.main(["keys", "create", "--name", "Agency", "--email", "a@example.com"]) == 0
    created = capsys.readouterr().out.splitlines()
    account_id = created[0].split("account ")[1].split(" ")[0]
    assert accounts.get_account(account_id).email == "a@example.com"
    assert cli.main(["accounts", "update", account_id, "--digest", "monthly"]) == 0
    assert json.loads(capsys.readouterr().out)["digest"] == "monthly"
    assert cli.main(["accounts", "update", account_id, "--email", "not an address"]) == 1
    assert "not an email address" in capsys.readouterr().err
    assert cli.main(["accounts", "update", "999", "--email", "b@example.com"]) == 1
    assert cli.main(["digests", "send"]) == 0
    assert json.loads(capsys.readouterr().out)["empty"] == 1  # no website asks for one
    assert cli.main(["digests", "outbox"]) == 0
    assert "No emails" in capsys.readouterr().out
