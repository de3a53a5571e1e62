"""POST /api/event in Plausible's format (`analytics.plausible`): real API Gateway events
through the template's route, hits read back from the (moto) queue."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sitelens.analytics import hit as hits_model
from sitelens.analytics.warehouse import rows
from tests.fixtures.analytics import CHROME
from tests.integration.test_tracking import CORS, create_website, queued

PLAIN = {"Content-Type": "text/plain"}
OK = (202, "ok")


def send(client: Any, body: Any, headers: dict[str, str] | None = None, **kw: Any) -> Any:
    """A Plausible event as its script sends it: JSON text, `Content-Type: text/plain`."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {"User-Agent": CHROME, **(PLAIN if headers is None else headers)}
    return client.request("POST", "/api/event", body=raw, headers=sent, key=None, **kw)


def pageview(**fields: Any) -> dict[str, Any]:
    return {"n": "pageview", "u": "https://example.com/pricing", "d": "example.com", **fields}


@pytest.mark.parametrize(
    "headers",
    [PLAIN, {"Content-Type": "application/json"}, {"Content-Type": "text/plain;charset=UTF-8"}, {}],
    ids=["text-plain", "json", "text-plain-charset", "no-content-type"],
)
def test_a_pageview_is_answered_ok_as_plausible_answers(analytics, headers):
    website = create_website(analytics)
    body = pageview(r="https://news.example.org/a", v=36)
    reply = send(analytics, body, headers)
    assert (reply.status, reply.body) == OK
    assert reply.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert reply.headers[CORS] == "*"
    assert "X-Plausible-Dropped" not in reply.headers
    [sent] = queued()
    assert sent["website_id"] == website["id"]
    assert (sent["page"], sent["referrer"], sent["visit"]) == ("/pricing", "news.example.org", True)
    assert "event" not in sent and "engaged_ms" not in sent


def test_long_names_as_the_events_api_takes_them(analytics):
    create_website(analytics)
    body = {
        "name": "Signup",
        "url": "https://www.example.com/join",
        "domain": "example.com",
        "referrer": "https://example.com/",
        "props": {"plan": "pro"},
        "revenue": {"amount": "15.99", "currency": "usd"},
        "interactive": False,
    }
    assert (send(analytics, body, {"Content-Type": "application/json"}).status) == 202
    [sent] = queued()
    assert (sent["page"], sent["event"], sent["props"]) == ("/join", "Signup::", '{"plan":"pro"}')
    assert (sent["revenue_amount"], sent["revenue_currency"], sent["interactive"]) == (
        "15.99",
        "USD",
        False,
    )


def test_a_custom_event_with_props_and_revenue(analytics):
    create_website(analytics)
    body = {
        "n": "Purchase",
        "u": "https://example.com/checkout",
        "d": "example.com",
        "r": None,
        "p": {"plan": "pro", "seats": 3, "coupon": "", "none": None, "nested": {"a": 1}},
        "$": {"amount": 19.99, "currency": "EUR"},
    }
    assert send(analytics, body).status == 202
    [sent] = queued()
    assert sent["event"] == "Purchase::"
    # Plausible leaves out blank, null and nested values; numbers are kept as their text
    assert json.loads(sent["props"]) == {"plan": "pro", "seats": "3"}
    assert (sent["revenue_amount"], sent["revenue_currency"]) == ("19.99", "EUR")
    assert "interactive" not in sent  # an event is interactive unless it says not


def test_props_as_json_text(analytics):
    create_website(analytics)
    body = {"n": "Signup", "u": "https://example.com/", "p": json.dumps({"plan": "team"})}
    assert send(analytics, body).status == 202
    [sent] = queued()
    assert json.loads(sent["props"]) == {"plan": "team"}


def test_a_non_interactive_event_leaves_its_visit_a_bounce(analytics):
    create_website(analytics)
    assert send(analytics, {"n": "Autoplay", "u": "https://example.com/", "i": False}).status == 202
    assert send(analytics, {"n": "Play", "u": "https://example.com/", "i": True}).status == 202
    autoplay, play = (hits_model.Hit.from_json(json.dumps(sent)) for sent in queued())
    assert (autoplay.interactive, play.interactive) == (False, None)
    assert [rows.row(h)["interactive"] for h in (autoplay, play)] == [False, True]  # type: ignore[index]


def test_hash_based_routing_counts_the_fragment(analytics):
    create_website(analytics)
    url = "https://example.com/app#/settings/profile"
    assert send(analytics, pageview(u=url, h=1)).status == 202
    assert send(analytics, pageview(u=url)).status == 202
    assert [sent["page"] for sent in queued()] == ["/app#/settings/profile", "/app"]


def test_an_engagement_is_time_on_the_page_and_scroll_depth(analytics):
    create_website(analytics)
    body = {"n": "engagement", "u": "https://example.com/a", "d": "example.com", "e": 5400}
    assert send(analytics, {**body, "sd": 140}).status == 202
    assert send(analytics, {**body, "e": "1200", "sd": 35}).status == 202
    first, second = queued()
    assert (first["engaged_ms"], first["scroll_depth"]) == (5400, 100)  # cut as Plausible cuts
    assert (second["engaged_ms"], second["scroll_depth"]) == (1200, 35)
    reply = send(analytics, {"n": "engagement", "u": "https://example.com/a"})
    assert reply.status == 422
    assert list(reply.body["message"]) == ["e"]


def test_without_a_domain_the_site_is_the_pages_host(analytics):
    website = create_website(analytics)
    body = {"n": "pageview", "u": "https://example.com/", "d": None}
    assert send(analytics, body).status == 202
    [sent] = queued()
    assert sent["website_id"] == website["id"]


def test_the_domain_names_the_site_whatever_the_pages_host(analytics):
    """As Plausible: `d` is the site, so a page on another host (a staging copy, a local
    page) still counts on it."""
    website = create_website(analytics)
    body = pageview(u="http://127.0.0.1:8000/pricing?x=1")
    assert send(analytics, body).status == 202
    [sent] = queued()
    assert (sent["website_id"], sent["page"]) == (website["id"], "/pricing?x=1")


def test_a_list_of_domains_counts_on_each(analytics):
    first = create_website(analytics)
    second = create_website(analytics, domain="rollup.example")
    reply = send(analytics, pageview(d="example.com, www.rollup.example"))
    assert (reply.status, reply.body) == OK
    assert sorted(sent["website_id"] for sent in queued()) == sorted([first["id"], second["id"]])


def test_unknown_sites_and_exclusions_are_dropped_with_202(analytics, capsys):
    create_website(analytics, exclude_ips="203.0.113.0/24")
    reply = send(analytics, pageview(d="example.com,unknown.example,not a host"))
    assert (reply.status, reply.body, reply.headers["X-Plausible-Dropped"]) == (202, "ok", "2")
    assert len(queued()) == 1
    excluded = send(analytics, pageview(), source_ip="203.0.113.9")
    assert (excluded.status, excluded.headers["X-Plausible-Dropped"]) == (202, "1")
    bot = send(analytics, pageview(), {"Content-Type": "text/plain", "User-Agent": "curl/8.5.0"})
    assert (bot.status, bot.headers["X-Plausible-Dropped"]) == (202, "1")
    assert [sent.get("excluded") for sent in queued()] == ["ip", "bot"]  # counted as excluded
    # the sender's setting, not a loss of ours: no metric, and no log line per hit
    assert "HitsDropped" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b"{not json", "body"),
        (b"[1, 2]", "body"),
        ({"u": "https://example.com/"}, "name"),
        ({"n": "", "u": "https://example.com/"}, "name"),
        ({"n": ["pageview"], "u": "https://example.com/"}, "name"),
        ({"n": "pageview", "d": "example.com"}, "page"),
        ({"n": "pageview", "u": "ftp://example.com/"}, "page"),
        ({"n": "pageview", "u": 42}, "page"),
        (pageview(d=""), "domain"),  # Plausible refuses a blank one too
        (pageview(d=["example.com"]), "domain"),
        (pageview(d="example.com,,x.example"), "domain"),
        (pageview(d=",".join(f"s{n}.example" for n in range(11))), "domain"),
        ({"n": "Buy", "u": "https://example.com/", "$": {"amount": 5, "currency": "X"}}, "revenue"),
        ({"n": "Buy", "u": "https://example.com/", "$": "5 EUR"}, "revenue"),
        ({"n": "Buy", "u": "https://example.com/", "p": {"a b": "c"}}, "props"),
    ],
)
def test_bad_bodies_get_the_contracts_422(analytics, body, field):
    create_website(analytics)
    reply = send(analytics, body)
    assert reply.status == 422, reply.body
    assert list(reply.body["message"]) == [field]
    assert reply.body["status"] == 422
    assert reply.headers[CORS] == "*"
    assert queued() == []


def test_a_number_as_the_event_name(analytics):
    create_website(analytics)
    assert send(analytics, {"n": 404, "u": "https://example.com/missing"}).status == 202
    assert queued()[0]["event"] == "404::"


def test_sitelens_own_format_keeps_its_own_answer(analytics):
    create_website(analytics)
    reply = send(analytics, {"page": "https://example.com/", "name": "ignored"})
    assert (reply.status, reply.body) == (202, {"message": "Accepted.", "status": 202})
    reply = send(analytics, b"page=https%3A%2F%2Fexample.com%2F", {})
    assert (reply.status, reply.body) == (202, {"message": "Accepted.", "status": 202})
    reply = send(analytics, {"page": "https://unknown.example/"})
    assert reply.status == 404  # Sitelens' own format is told, as its contract says
