"""Client recipients of a website's (or an audit's) digest: double opt-in (a confirmation
mailed, nothing else until it is followed), one-click unsubscribe per recipient (RFC 8058),
at most MAX_RECIPIENTS, and only their account's keys may see or change them."""

from __future__ import annotations

from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sitelens import accounts, recipients
from tests.conftest import Client
from tests.integration import test_digests
from tests.integration.test_digests import MONDAY, emails, parts, run_day

outbox = test_digests.outbox  # the digests' fixtures: the mail caught, their queue
queue = test_digests.queue

CLIENT = "Client@Shop.Example"


@pytest.fixture
def shop(analytics) -> dict:
    return analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1}).data


def mailed_to(folder: Path, address: str) -> list[EmailMessage]:
    return [m for m in emails(folder) if m["To"] == address]


def link_in(message: EmailMessage, path: str) -> str:
    text = message.get_body(("plain",)).get_content()
    [line] = [word for word in text.split() if path in word]
    return line


def local(url: str) -> tuple[str, str]:
    parts_ = urlsplit(url)
    return parts_.path, parts_.query


def follow(client: Client, url: str, method: str = "GET", **kw):
    path, query = local(url)
    return client.request(method, path, query=query, **kw)


@pytest.mark.usefixtures("local_warehouse")
def test_only_a_confirmed_recipient_gets_the_digest_until_it_leaves(
    analytics, account, shop, queue, outbox, monkeypatch
):
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    seo = Client("SeoApi", account.key)
    seo.put("/api/v1/projects/shop.example/brand", {"name": "Acme Agency", "contact": "Call Acme"})
    added = analytics.post(f"/api/v1/websites/{shop['id']}/recipients", {"email": CLIENT})
    assert added.status == 201 and added.data["confirmed"] is False
    assert added.data["email"] == "Client@shop.example"
    again = analytics.post(f"/api/v1/websites/{shop['id']}/recipients", {"email": CLIENT})
    assert again.status == 200 and again.data["id"] == added.data["id"]
    [confirmation] = mailed_to(outbox, "Client@shop.example")  # once, however often added
    assert "Acme Agency" in confirmation["From"]
    confirm = link_in(confirmation, "/api/v1/recipients/confirm")
    assert (
        "Client" not in confirm and "shop.example" not in confirm
    )  # the address is not in the link

    run_day(monkeypatch, queue, MONDAY)  # unconfirmed: nothing but the confirmation
    assert len(mailed_to(outbox, "Client@shop.example")) == 1
    assert len(mailed_to(outbox, "owner@example.com")) == 1

    public = Client("AnalyticsApi", None)
    asked = follow(public, confirm)  # a mail scanner's GET changes nothing
    assert asked.status == 200 and "Send these reports to Client@shop.example?" in asked.body
    assert analytics.get(f"/api/v1/websites/{shop['id']}/recipients").data[0]["confirmed"] is False
    assert follow(public, confirm, "POST").body["data"] == {"confirmed": "Client@shop.example"}
    [listed] = analytics.get(f"/api/v1/websites/{shop['id']}/recipients").data
    assert listed["confirmed"] is True and listed["confirmed_at"]

    run_day(monkeypatch, queue, MONDAY + timedelta(days=7))  # the next week
    [_, digest] = mailed_to(outbox, "Client@shop.example")
    assert digest["From"].startswith("Acme Agency") and "shop.example" in digest["Subject"]
    text, html = parts(digest)
    assert "Pageviews:" in text and "Call Acme" in text and "Made with Sitelens" in text
    assert "Acme Agency" in html
    leave = digest["List-Unsubscribe"].strip("<>")
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert leave in text
    one_click = follow(public, leave, "POST", form={"List-Unsubscribe": "One-Click"})
    assert one_click.body["data"] == {"unsubscribed": "Client@shop.example"}
    assert analytics.get(f"/api/v1/websites/{shop['id']}/recipients").data == []
    assert follow(public, leave, "POST").body["data"] == {"unsubscribed": None}


def test_another_account_cannot_see_add_or_remove_recipients(
    analytics, other_analytics, shop, outbox
):
    path = f"/api/v1/websites/{shop['id']}/recipients"
    added = analytics.post(path, {"email": CLIENT}).data
    assert other_analytics.get(path).status == 404
    assert other_analytics.post(path, {"email": "spy@example.com"}).status == 404
    assert other_analytics.delete(f"{path}/{added['id']}").status == 404
    assert [r["id"] for r in analytics.get(path).data] == [added["id"]]
    assert mailed_to(outbox, "spy@example.com") == []
    assert analytics.delete(f"{path}/{added['id']}").status == 200
    assert analytics.get(path).data == []
    assert analytics.delete(f"{path}/{added['id']}").status == 404


def test_at_most_ten_recipients_and_only_addresses(analytics, shop, outbox):
    path = f"/api/v1/websites/{shop['id']}/recipients"
    for n in range(recipients.MAX_RECIPIENTS):
        assert analytics.post(path, {"email": f"c{n}@client.example"}).status == 201
    refused = analytics.post(path, {"email": "one-more@client.example"})
    assert refused.status == 422 and "at most 10" in refused.body["message"]["email"][0]
    for bad in (
        "not an address",
        "a@b",
        "x" * 250 + "@client.example",
        "a@b.example\nBcc: c@d.example",
    ):
        assert analytics.post(path, {"email": bad}).status == 422, bad
    assert analytics.post("/api/v1/websites/999/recipients", {"email": "c@x.example"}).status == 404


def test_a_bad_or_foreign_link_changes_nothing(analytics, shop, outbox):
    analytics.post(f"/api/v1/websites/{shop['id']}/recipients", {"email": CLIENT})
    [confirmation] = emails(outbox)
    confirm = link_in(confirmation, "/api/v1/recipients/confirm")
    public = Client("AnalyticsApi", None)
    path, query = local(confirm)
    tampered = query[:-3] + ("AAA" if not query.endswith("AAA") else "BBB")
    assert public.post(path, query=tampered).status == 422
    # a confirmation link is no unsubscribe link
    assert public.post("/api/v1/recipients/unsubscribe", query=query).status == 422
    page = public.get(path, query=tampered, headers={"Accept": "text/html"})
    assert page.status == 422 and "invalid or has expired" in page.body
    assert analytics.get(f"/api/v1/websites/{shop['id']}/recipients").data[0]["confirmed"] is False


def test_an_audit_lists_recipients_on_the_seo_api(seo, other_seo, outbox, monkeypatch):
    audit = seo.post("/api/v1/audits", {"url": "https://shop.example/"})
    assert audit.status == 201, audit.body
    path = f"/api/v1/audits/{audit.data['id']}/recipients"
    assert seo.post(path, {"email": CLIENT}).status == 201
    [confirmation] = emails(outbox)
    assert "/api/v1/recipients/confirm" in link_in(confirmation, "/api/v1/recipients/confirm")
    assert other_seo.get(path).status == 404
    assert [r["email"] for r in seo.get(path).data] == ["Client@shop.example"]


def test_a_key_limited_to_another_project_cannot_touch_an_audits_recipients(seo, outbox):
    audit = seo.post("/api/v1/audits", {"url": "https://shop.example/"}).data
    path = f"/api/v1/audits/{audit['id']}/recipients"
    added = seo.post(path, {"email": CLIENT}).data
    limited = seo.post(
        "/api/v1/keys", {"name": "one", "projects": "other.example", "access": "write"}
    ).data["key"]
    elsewhere = Client("SeoApi", limited)
    assert elsewhere.get(path).status == 404
    assert elsewhere.post(path, {"email": "spy@example.com"}).status == 404
    assert elsewhere.delete(f"{path}/{added['id']}").status == 404
    assert [r["id"] for r in seo.get(path).data] == [added["id"]]
