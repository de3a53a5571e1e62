"""Proof of a domain's ownership (docs/websites-domains.md), through the template's routes:
the token, each way of proof, the badge, a move between accounts with its grace period and
email, and every way a check fails."""

from __future__ import annotations

import email
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sitelens import accounts
from sitelens.core import clock, config
from sitelens.data import websites as stored_websites
from sitelens.domains import claims, proofs
from sitelens.seo import fetch
from sitelens.websites.rules import DOMAIN_TAKEN
from tests.conftest import Client, make_account
from tests.fixtures.analytics import CHROME, receive, run
from tests.fixtures.dns_stub import StubDns
from tests.fixtures.site import Site

DOMAIN = "shop.example"
VERIFY = "/api/v1/domains/verification"
CHECK = "/api/v1/domains/verification/check"


@pytest.fixture
def local_site(monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    """The fixture site, reached as http://shop.example:<port>/ (its name resolved to
    127.0.0.1 by the fetcher alone), with the allowance make serve and audits use."""
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("SITELENS_FETCH_PORTS", "1-65535")
    config.reset()
    monkeypatch.setattr(fetch, "resolve", lambda host, port: ["127.0.0.1"])
    served = Site()
    yield served
    served.close()


@pytest.fixture
def stub_dns(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubDns]:
    server = StubDns()
    monkeypatch.setenv("SITELENS_DNS_NAMESERVER", server.address)
    config.reset()
    yield server
    server.close()


@pytest.fixture
def outbox(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, other_account) -> Path:
    monkeypatch.setenv("SITELENS_MAIL_OUTBOX", str(tmp_path))
    config.reset()
    accounts.set_contact(accounts.get_account(other_account.id), "holder@shop.example")
    return tmp_path


def mails(folder: Path) -> list[email.message.Message]:
    return [email.message_from_bytes(p.read_bytes()) for p in sorted(folder.glob("*.eml"))]


def token_of(client, domain: str = DOMAIN) -> str:
    reply = client.post(VERIFY, {"domain": domain})
    assert reply.status == 200, reply.body
    return str(reply.data["token"])


def url(site: Site, path: str = "/") -> str:
    return f"http://{DOMAIN}:{site.port}{path}"


def publish_meta(site: Site, token: str) -> None:
    site.pages["/"] = f'<html><head><meta name="sitelens-verification" content="{token}">'


def check(client, site: Site | None = None, **fields):
    sent = {"domain": DOMAIN, **fields}
    if site is not None:
        sent.setdefault("url", url(site))
    return client.post(CHECK, sent)


def at(monkeypatch: pytest.MonkeyPatch, moment: datetime) -> None:
    monkeypatch.setattr(clock, "now", lambda: moment)
    stored_websites.forget_all()


# -- the token ---------------------------------------------------------------------------


def test_the_token_and_its_instructions_stay_the_same_for_the_account(
    analytics, other_analytics
) -> None:
    first = analytics.post(VERIFY, {"domain": "https://www.Shop.example/"})
    assert first.status == 200, first.body
    token = first.data["token"]
    assert len(token) == 32
    assert first.data["domain"] == DOMAIN
    assert first.data["dns"] == {
        "type": "TXT",
        "names": [f"_sitelens.{DOMAIN}", DOMAIN],
        "value": f"sitelens-verification={token}",
    }
    assert first.data["file"] == {
        "url": f"https://{DOMAIN}/.well-known/sitelens-verification.txt",
        "content": f"sitelens-verification={token}",
    }
    assert first.data["meta"] == {"tag": f'<meta name="sitelens-verification" content="{token}">'}
    assert analytics.post(VERIFY, {"domain": DOMAIN}).data == first.data
    assert token_of(other_analytics) != token


@pytest.mark.parametrize(("form", "field"), [({}, "domain"), ({"domain": "not a host"}, "domain")])
def test_the_token_needs_a_domain(analytics, form, field) -> None:
    reply = analytics.post(VERIFY, form)
    assert reply.status == 422 and field in reply.body["message"]


def test_a_check_without_a_token_asks_for_one(analytics) -> None:
    reply = check(analytics, method="meta")
    assert reply.status == 422
    assert reply.body["message"] == {"domain": [claims.ASK_FIRST]}


# -- the badge ---------------------------------------------------------------------------


def test_a_new_website_is_unverified_and_a_proof_gives_it_the_badge(analytics, local_site) -> None:
    website = analytics.post("/api/v1/websites", {"domain": DOMAIN}).data
    assert (website["verified"], website["verified_at"]) == (False, None)
    token = token_of(analytics)
    local_site.pages[proofs.FILE_PATH] = f"# ours\nsitelens-verification={token}\n"
    reply = check(analytics, local_site, method="file")
    assert reply.status == 200, reply.body
    assert reply.data["id"] == website["id"] and reply.data["verified"] is True
    shown = analytics.get(f"/api/v1/websites/{website['id']}").data
    assert shown["verified"] is True and shown["verified_at"] == reply.data["verified_at"]
    assert shown["released_at"] is None and shown["tracking_from"] is None


def test_proving_a_domain_the_account_holds_again_changes_nothing_else(
    analytics, local_site, outbox
) -> None:
    website = analytics.post("/api/v1/websites", {"domain": DOMAIN}).data
    publish_meta(local_site, token_of(analytics))
    assert check(analytics, local_site).status == 200
    again = check(analytics, local_site)
    assert again.status == 200 and again.data["id"] == website["id"]
    assert len(analytics.get("/api/v1/websites").data) == 1
    claim = stored_websites.get_claim(DOMAIN)
    assert claim is not None and "moves_at" not in claim
    assert mails(outbox) == []


def test_a_proof_of_a_free_domain_creates_its_website_verified(analytics, local_site) -> None:
    publish_meta(local_site, token_of(analytics))
    reply = check(analytics, local_site)
    assert reply.status == 201, reply.body
    assert reply.data["domain"] == DOMAIN and reply.data["verified"] is True
    assert reply.data["tracking_from"] is None
    assert stored_websites.by_host(DOMAIN)["id"] == reply.data["id"]


# -- a move between accounts ----------------------------------------------------------------


def send_hit(client, path: str = "/") -> None:
    """A pageview of the domain through the event route, counted by the aggregator."""
    reply = client.post(
        "/api/event",
        {"page": f"https://{DOMAIN}{path}"},
        key=None,
        headers={"User-Agent": CHROME, "Accept-Language": "de"},
        source_ip="192.0.2.10",
    )
    assert reply.status == 202, reply.body
    assert run("HitsQueue", receive("HitsQueue")) == {"batchItemFailures": []}


def pageviews(client, website_id: int) -> int:
    reply = client.get(f"/api/v1/stats/{website_id}", query={"name": "pageviews"})
    assert reply.status == 200, reply.body
    return sum(int(row["count"]) for row in reply.data)


@pytest.fixture
def moved(analytics, other_analytics, local_site) -> tuple[dict, dict]:
    """The old holder's website (with a goal and a counted hit) and the prover's answer."""
    shared = {"domain": DOMAIN, "privacy": 2, "password": "correct horse battery"}
    old = other_analytics.post("/api/v1/websites", shared).data
    assert old["password"] is True
    goal = other_analytics.post(f"/api/v1/websites/{old['id']}/goals", {"page_path": "/thanks"})
    assert goal.status == 201, goal.body
    send_hit(other_analytics)
    taken = analytics.post("/api/v1/websites", {"domain": DOMAIN})
    assert taken.status == 422 and taken.body["message"] == {"domain": [DOMAIN_TAKEN]}
    publish_meta(local_site, token_of(analytics))
    reply = check(analytics, local_site)
    assert reply.status == 201, reply.body
    return old, reply.data


def test_a_proof_moves_the_domain_and_its_statistics_to_the_prover_at_once(
    analytics, other_analytics, account, outbox, moved, warehouse_rows
) -> None:
    old, new = moved
    assert new["id"] == old["id"] and new["verified"] is True
    assert new["tracking_from"] is None and new["released_at"] is None
    assert (new["privacy"], new["password"]) == (1, False)  # the share view starts off
    assert pageviews(analytics, new["id"]) == 1  # the old holder's history, at once
    goals = analytics.get(f"/api/v1/websites/{new['id']}/goals").data
    assert [g["page_path"] for g in goals] == ["/thanks"]
    assert stored_websites.by_host(DOMAIN)["account"] == account.id

    send_hit(other_analytics, "/after")  # counted once, in the one website id
    assert pageviews(analytics, new["id"]) == 2
    assert pageviews(other_analytics, old["id"]) == 2  # the same statistics, read-only
    assert len([r for r in warehouse_rows if int(r["website_id"]) == new["id"]]) == 2

    released = other_analytics.get(f"/api/v1/websites/{old['id']}").data
    assert released["verified"] is False
    moves_at = datetime.fromisoformat(released["released_at"])
    assert abs(moves_at - (clock.now() + claims.GRACE)) < timedelta(minutes=1)
    [mail] = mails(outbox)
    assert mail["To"] == "holder@shop.example"
    assert DOMAIN in mail["Subject"]
    text = mail.get_payload()
    assert released["released_at"][:10] in text and "Acme" not in text  # not who proved it


def test_the_old_holders_record_is_read_only_in_the_grace_period_and_gone_after(
    analytics, other_analytics, other_account, moved, monkeypatch
) -> None:
    old, new = moved
    site = f"/api/v1/websites/{old['id']}"
    refused = [
        other_analytics.patch(site, {"exclude_bots": 0}),
        other_analytics.post(f"{site}/goals", {"page_path": "/more"}),
        other_analytics.post(f"{site}/annotations", {"date": "2026-11-01", "text": "deploy"}),
    ]
    for reply in refused:
        assert reply.status == 409, reply.body
        assert reply.body["message"] == stored_websites.Released.message
    assert other_analytics.get(site).data["exclude_bots"] == 1
    assert stored_websites.of_account(other_account.id) == []  # no digest of it
    assert pageviews(other_analytics, old["id"]) == 1
    assert [w["id"] for w in other_analytics.get("/api/v1/websites").data] == [old["id"]]

    released_at = datetime.fromisoformat(other_analytics.get(site).data["released_at"])
    at(monkeypatch, released_at + timedelta(seconds=1))
    assert other_analytics.get(site).status == 404
    assert other_analytics.get(f"/api/v1/stats/{old['id']}", query={"name": "page"}).status == 404
    assert other_analytics.patch(site, {"exclude_bots": 0}).status == 404
    assert other_analytics.get("/api/v1/websites").data == []
    assert analytics.get(f"/api/v1/websites/{new['id']}").status == 200
    assert pageviews(analytics, new["id"]) == 1
    # the table's TTL removes the stored item at the end of the grace period
    stored = stored_websites.get_as_stored(other_account.id, old["id"])
    assert stored is not None and stored["expires_at"] == int(released_at.timestamp())


def test_the_old_holder_deleting_its_record_leaves_the_provers_data(
    analytics, other_analytics, account, moved
) -> None:
    old, new = moved
    assert other_analytics.delete(f"/api/v1/websites/{old['id']}").status == 200
    assert receive("TasksQueue") == []
    claim = stored_websites.get_claim(DOMAIN)
    assert (claim["owner"], int(claim["record_id"])) == (account.id, new["id"])
    assert pageviews(analytics, new["id"]) == 1
    assert analytics.delete(f"/api/v1/websites/{new['id']}").status == 200
    [cleanup] = receive("TasksQueue")  # the prover's delete takes the data
    assert json.loads(cleanup["body"]) == {"kind": "cleanup", "website_id": new["id"]}


def test_what_is_bound_to_the_old_account_does_not_open_the_provers_data(
    analytics, other_analytics, local_site, monkeypatch
) -> None:
    old = other_analytics.post("/api/v1/websites", {"domain": DOMAIN, "privacy": 0}).data
    limits = {"name": "one site", "access": "read", "websites": str(old["id"])}
    limited = Client("AnalyticsApi", other_analytics.post("/api/v1/keys", limits).data["key"])
    public = Client("AnalyticsApi", None)
    share = f"/api/v1/share/websites/{DOMAIN}/stats"
    assert public.get(share, query={"name": "page"}).status == 200
    publish_meta(local_site, token_of(analytics))
    new = check(analytics, local_site).data
    assert public.get(share, query={"name": "page"}).status == 404  # the prover's: off
    assert limited.get(f"/api/v1/stats/{old['id']}", query={"name": "page"}).status == 200
    at(monkeypatch, datetime.fromisoformat(moves_at(old)))
    assert limited.get(f"/api/v1/stats/{old['id']}", query={"name": "page"}).status == 404
    assert analytics.get(f"/api/v1/stats/{new['id']}", query={"name": "page"}).status == 200


def moves_at(website: dict) -> str:
    """The end of the grace period of the move of the old holder's `website`."""
    claim = stored_websites.get_claim(DOMAIN)
    assert claim is not None and int(claim["previous_record_id"]) == website["id"]
    return str(claim["moves_at"])


def test_during_the_grace_period_only_the_old_holder_may_prove_and_that_cancels_the_move(
    analytics, other_analytics, other_account, local_site, aws_env
) -> None:
    old = other_analytics.post("/api/v1/websites", {"domain": DOMAIN}).data
    publish_meta(local_site, token_of(analytics))
    new = check(analytics, local_site).data
    assert new["id"] == old["id"]

    third = Client("AnalyticsApi", make_account("Third").key)
    publish_meta(local_site, token_of(third))
    refused = check(third, local_site)
    assert refused.status == 409
    assert refused.body["message"] == claims.MovePending.message

    publish_meta(local_site, token_of(other_analytics))
    back = check(other_analytics, local_site)
    assert back.status == 200, back.body
    assert back.data["id"] == old["id"] and back.data["released_at"] is None
    assert back.data["verified"] is True
    claim = stored_websites.get_claim(DOMAIN)
    assert (claim["owner"], int(claim["record_id"])) == (other_account.id, old["id"])
    assert "moves_at" not in claim
    kept = stored_websites.get(other_account.id, old["id"])
    assert kept is not None and "expires_at" not in kept  # the TTL no longer removes it
    assert other_analytics.patch(f"/api/v1/websites/{old['id']}", {"exclude_bots": 0}).status == 200
    assert analytics.get(f"/api/v1/websites/{new['id']}").status == 404  # the prover's is gone


def test_a_domain_proved_back_after_the_grace_period_returns_with_its_history(
    analytics, other_analytics, other_account, moved, local_site, monkeypatch
) -> None:
    old, new = moved
    at(monkeypatch, datetime.fromisoformat(moves_at(old)) + timedelta(seconds=1))
    publish_meta(local_site, token_of(other_analytics))
    back = check(other_analytics, local_site)  # over its own released record, not yet removed
    assert back.status == 201, back.body
    assert back.data["id"] == old["id"] and back.data["released_at"] is None
    assert pageviews(other_analytics, old["id"]) == 1
    assert analytics.get(f"/api/v1/websites/{new['id']}").data["released_at"] is not None


# -- checks that fail ------------------------------------------------------------------------


def test_a_wrong_token_proves_nothing(analytics, other_analytics, local_site) -> None:
    other_analytics.post("/api/v1/websites", {"domain": DOMAIN})
    token_of(analytics)
    publish_meta(local_site, token_of(other_analytics))  # someone's token, not ours
    local_site.pages[proofs.FILE_PATH] = "sitelens-verification=0123456789abcdef"
    reply = check(analytics, local_site, method="")
    assert reply.status == 422  # an empty method is no method
    reply = check(analytics, local_site, method="file")
    assert reply.status == 422
    assert reply.body["message"]["domain"][0] == claims.NOT_FOUND
    assert "does not hold the line" in reply.body["message"]["domain"][1]
    reply = check(analytics, local_site, method="meta")
    assert reply.status == 422 and "has no <meta" in reply.body["message"]["domain"][1]
    claim = stored_websites.get_claim(DOMAIN)
    assert "moves_at" not in claim


def test_a_missing_file_answers_its_status(analytics, local_site) -> None:
    token_of(analytics)
    reply = check(analytics, local_site, method="file")
    assert reply.status == 422
    assert reply.body["message"]["domain"][1].endswith("answered 404, not 200.")


def test_dns_proof_at_the_sitelens_label_and_a_missing_record(analytics, stub_dns) -> None:
    token = token_of(analytics)
    reply = check(analytics, method="dns")
    assert reply.status == 422
    assert reply.body["message"]["domain"] == [
        claims.NOT_FOUND,
        f"No TXT record sitelens-verification={token} was found at _sitelens.{DOMAIN} or {DOMAIN}.",
    ]
    assert stub_dns.questions == [f"_sitelens.{DOMAIN}", DOMAIN]
    stub_dns.records[f"_sitelens.{DOMAIN}"] = ["v=other", f"sitelens-verification={token}"]
    reply = check(analytics, method="dns")
    assert reply.status == 201, reply.body
    assert reply.data["verified"] is True


def test_dns_proof_at_the_domain_itself(analytics, stub_dns) -> None:
    token = token_of(analytics)
    stub_dns.records[DOMAIN] = [f"sitelens-verification={token}"]
    assert check(analytics, method="dns").status == 201


def test_an_unreachable_host_is_said_so(analytics, local_site) -> None:
    token_of(analytics)
    closed = Site()
    closed.close()  # a port nothing listens on any more
    reply = check(analytics, url=f"http://{DOMAIN}:{closed.port}/", method="file")
    assert reply.status == 422
    assert fetch.UNREACHABLE in reply.body["message"]["domain"][1]


def test_a_private_address_is_refused(analytics, local_site, monkeypatch) -> None:
    monkeypatch.delenv("SITELENS_ALLOW_PRIVATE_URLS")
    config.reset()
    publish_meta(local_site, token_of(analytics))
    reply = check(analytics, local_site, method="meta")
    assert reply.status == 422
    assert fetch.BLOCKED_ADDRESS in reply.body["message"]["domain"][1]
    assert stored_websites.get_claim(DOMAIN) is None


def test_the_url_must_be_on_the_domain(analytics, local_site) -> None:
    token_of(analytics)
    reply = check(analytics, url=f"http://elsewhere.example:{local_site.port}/")
    assert reply.status == 422
    assert reply.body["message"] == {"url": [proofs.NOT_ON_DOMAIN]}


def test_a_redirect_to_another_site_proves_nothing(analytics, local_site) -> None:
    token = token_of(analytics)
    local_site.pages["/proof"] = f'<meta name="sitelens-verification" content="{token}">'
    elsewhere = f"http://127.0.0.1:{local_site.port}/proof"
    reply = check(analytics, url=url(local_site, f"/redirect-to{elsewhere}"), method="meta")
    assert reply.status == 422
    assert "redirects to another site" in reply.body["message"]["domain"][1]


def test_a_key_limited_to_websites_proves_only_their_domains(analytics, local_site) -> None:
    website = analytics.post("/api/v1/websites", {"domain": DOMAIN}).data
    limits = {"name": "limited", "access": "write", "websites": str(website["id"])}
    reply = analytics.post("/api/v1/keys", limits)
    limited = Client("AnalyticsApi", reply.data["key"])
    assert limited.post(VERIFY, {"domain": "other.example"}).status == 403
    publish_meta(local_site, token_of(limited))
    assert check(limited, local_site).status == 200


def test_released_at_compares_as_text_in_utc() -> None:
    released = {"released_at": clock.iso(datetime(2026, 1, 8, tzinfo=UTC))}
    assert stored_websites.answers(released, clock.iso(datetime(2026, 1, 7, tzinfo=UTC)))
    assert not stored_websites.answers(released, clock.iso(datetime(2026, 1, 8, tzinfo=UTC)))
    assert stored_websites.answers({"released_at": None}, clock.now_iso())
