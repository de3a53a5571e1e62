"""Client recipients of a website's (or an audit's) digest: double opt-in (a confirmation
mailed, nothing else until it is followed), one-click unsubscribe per recipient (RFC 8058),
at most MAX_RECIPIENTS, and only their account's keys may see or change them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sitelens import accounts, recipients
from sitelens.analytics.hits import Hit
from tests.conftest import Client
from tests.fixtures.analytics import hit_record, run
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


@pytest.mark.usefixtures("local_warehouse")
def test_a_recipient_with_a_segment_gets_the_figures_under_it(
    analytics, account, shop, queue, outbox, monkeypatch
):
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    when = datetime(2026, 11, 17, 12, tzinfo=UTC)
    hits = [Hit(website_id=shop["id"], at=when, page="/", visit=True) for _ in range(6)]
    hits += [Hit(website_id=shop["id"], at=when, page="/pricing", visit=True) for _ in range(4)]
    batch = [hit_record(hit, account.id, n) for n, hit in enumerate(hits)]
    assert run("HitsQueue", batch) == {"batchItemFailures": []}
    segments = f"/api/v1/websites/{shop['id']}/segments"
    pricing = analytics.post(
        segments,
        json_body={"name": "Pricing", "filters": [["is", "event:page", ["/pricing"]]]},
    ).data
    people = f"/api/v1/websites/{shop['id']}/recipients"
    for refused in ("999", "abc", "0"):  # no segment of the website's: nothing stored
        answer = analytics.post(people, {"email": CLIENT, "segment": refused})
        assert answer.status == 422 and "segment" in str(answer.body), answer.body
    assert analytics.get(people).data == [] and mailed_to(outbox, "Client@shop.example") == []
    added = analytics.post(people, {"email": CLIENT, "segment": str(pricing["id"])})
    assert added.status == 201 and added.data["segment"] == pricing["id"]
    whole = analytics.post(people, {"email": "boss@shop.example"})
    assert whole.data["segment"] is None
    public = Client("AnalyticsApi", None)
    for address in ("Client@shop.example", "boss@shop.example"):
        [confirmation] = mailed_to(outbox, address)
        follow(public, link_in(confirmation, "/api/v1/recipients/confirm"), "POST")

    def digests_to(address: str) -> list[EmailMessage]:
        return [m for m in mailed_to(outbox, address) if "Confirm" not in m["Subject"]]

    run_day(monkeypatch, queue, MONDAY)
    [segmented] = digests_to("Client@shop.example")
    assert "shop.example (Pricing)" in segmented["Subject"]
    assert "Pageviews: 4 " in parts(segmented)[0]
    [whole_site] = digests_to("boss@shop.example")
    assert "(Pricing)" not in whole_site["Subject"]
    assert "Pageviews: 10 " in parts(whole_site)[0]

    # the segment deleted: its recipient gets nothing rather than other figures
    assert analytics.delete(f"{segments}/{pricing['id']}").status == 200
    run_day(monkeypatch, queue, MONDAY + timedelta(days=7))
    assert len(digests_to("Client@shop.example")) == 1
    assert len(digests_to("boss@shop.example")) == 2


def test_an_audit_s_recipient_takes_no_segment(seo, outbox, monkeypatch):
    audit = seo.post("/api/v1/audits", {"url": "https://shop.example/"}).data
    answer = seo.post(f"/api/v1/audits/{audit['id']}/recipients", {"email": CLIENT, "segment": "1"})
    assert answer.status == 422 and "segment" in str(answer.body)
    assert seo.get(f"/api/v1/audits/{audit['id']}/recipients").data == []
