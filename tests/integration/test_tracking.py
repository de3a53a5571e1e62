"""POST /api/event and GET /js/script.js end to end: real API Gateway events through the
template's routes, hits read back from the (moto) queue."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from sitelens.analytics import fairshare, tracking
from sitelens.core import config
from sitelens.data import records
from tests.fixtures.analytics import CHROME, FIREFOX, IPHONE, receive, run

VISITOR_IP = "192.0.2.44"
CORS = "Access-Control-Allow-Origin"

BOTS = [
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; "
    "+https://openai.com/gptbot)",
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "HeadlessChrome/124.0.6367.60 Safari/537.36",
    "curl/8.5.0",
    "python-requests/2.32.3",
    "Go-http-client/2.0",
    "",
]
BROWSERS = [
    CHROME,
    IPHONE,
    FIREFOX,
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
    "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
    "SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
]


def create_website(client: Any, **fields: Any) -> dict[str, Any]:
    reply = client.post("/api/v1/websites", {"domain": "example.com", **fields})
    assert reply.status == 201, reply.body
    website: dict[str, Any] = reply.data
    return website


def hit(
    client: Any,
    form: dict[str, str] | None = None,
    ua: str = CHROME,
    source_ip: str = VISITOR_IP,
    headers: dict[str, str] | None = None,
    **kw: Any,
) -> Any:
    sent = {"User-Agent": ua, "Accept-Language": "de-DE,de;q=0.9", **(headers or {})}
    if form is None and "json_body" not in kw:
        form = {"page": "https://example.com/pricing"}
    return client.request(
        "POST", "/api/event", form=form, key=None, headers=sent, source_ip=source_ip, **kw
    )


def queued() -> list[dict[str, Any]]:
    return [json.loads(record["body"]) for record in receive("HitsQueue")]


# -- counted -------------------------------------------------------------------------------


def test_a_pageview_is_accepted_and_queued_enriched(analytics, account):
    website = create_website(analytics, exclude_params="fbclid\nutm_source")
    reply = hit(
        analytics,
        {
            "page": "https://example.com/pricing?plan=pro&fbclid=abc&utm_campaign=launch",
            "referrer": "https://news.example.org/story",
            "screen_resolution": "1920x1080",
        },
    )
    assert reply.status == 202
    assert reply.body == {"message": "Accepted.", "status": 202}
    assert reply.headers[CORS] == "*"
    [record] = receive("HitsQueue")
    sent = json.loads(record["body"])
    assert sent.pop("at").endswith("+00:00")
    assert re.fullmatch(r"[0-9a-f]{32}", sent.pop("visitor"))  # the day's salted 128-bit hash
    # the hit's identity, minted here: a UUIDv7 whose time is the hit's
    assert re.fullmatch(
        r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", sent.pop("id")
    )
    assert sent == {
        "website_id": website["id"],
        "page": "/pricing?plan=pro",
        "visit": True,
        "referrer": "news.example.org",
        "browser": "Chrome",
        "os": "Windows",
        "device": "desktop",
        "language": "de",
        "resolution": "1920x1080",
        "campaign": "launch",
    }
    assert record["messageAttributes"]["account"]["stringValue"] == account.id
    assert VISITOR_IP not in json.dumps(record)  # the address is never queued


def test_www_and_letter_case_find_the_website(analytics):
    website = create_website(analytics)
    for page in (
        "https://www.example.com/",
        "HTTP://WWW.EXAMPLE.COM:8080/a",
        "https://example.com.",
    ):
        assert hit(analytics, {"page": page}).status == 202
    assert [h["website_id"] for h in queued()] == [website["id"]] * 3


def test_json_bodies_and_custom_events(analytics):
    create_website(analytics)
    reply = hit(
        analytics,
        json_body={
            "page": "https://example.com/signup",
            "event[name]": "signup",
            "event[value]": "pro",
            "event[unit]": "plan",
        },
    )
    assert reply.status == 202
    nested = {"page": "https://example.com/signup", "event": {"name": "buy", "value": 42}}
    assert hit(analytics, json_body=nested).status == 202
    first, second = queued()
    assert (first["event"], first["page"], first["visit"]) == ("signup:pro:plan", "/signup", False)
    assert second["event"] == "buy:42:"


def test_the_script_form_body_is_accepted(analytics):
    create_website(analytics)
    reply = analytics.request(
        "POST",
        "/api/event",
        body=b"page=https%3A%2F%2Fexample.com%2F&referrer=&screen_resolution=390x844",
        headers={
            "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8",
            "User-Agent": IPHONE,
        },
        key=None,
        source_ip=VISITOR_IP,
    )
    assert reply.status == 202
    [sent] = queued()
    assert (sent["device"], sent["resolution"], sent["visit"]) == ("mobile", "390x844", True)


def test_a_referrer_on_the_website_itself_continues_the_visit(analytics):
    create_website(analytics)
    form = {"page": "https://example.com/b", "referrer": "https://www.example.com/a"}
    assert hit(analytics, form).status == 202
    [sent] = queued()
    assert sent["visit"] is False
    assert "referrer" not in sent  # a visit counts the referrer; the pageview does not


@pytest.mark.parametrize(
    ("exclude", "sent", "kept"),
    [
        ("fbclid", "/a?fbclid=1&id=3", "/a?id=3"),
        ("fbclid\nid", "/a?fbclid=1&id=3", "/a"),
        ("&", "/a?x=1&y=2", "/a"),
        ("utm_source", "/a?b=%20x&utm_source=news", "/a?b=%20x"),
    ],
)
def test_excluded_parameters_are_stripped(analytics, exclude, sent, kept):
    create_website(analytics, exclude_params=exclude)
    assert hit(analytics, {"page": f"https://example.com{sent}"}).status == 202
    assert queued()[0]["page"] == kept


def test_a_page_is_counted_as_people_read_its_path(analytics, account, store):
    """A browser sends every page escaped (`location.href`): `/über` arrives as
    `/%C3%BCber`. It is counted, listed and matched by a goal as `/über`, as Plausible
    shows it, and a client sending it unescaped counts on the same page."""
    website = create_website(analytics)
    goal = analytics.post(f"/api/v1/websites/{website['id']}/goals", {"page_path": "/über"})
    assert goal.status == 201, goal.body
    for page in ("https://example.com/%C3%BCber", "https://example.com/über"):
        assert hit(analytics, {"page": page}).status == 202
    records = receive("HitsQueue")
    assert {json.loads(record["body"])["page"] for record in records} == {"/über"}
    assert run("HitsQueue", records) == {"batchItemFailures": []}
    pages = analytics.get(f"/api/v1/stats/{website['id']}", query={"name": "page"})
    assert pages.data == [{"value": "/über", "count": 2}]
    body = {
        "site_id": website["id"],
        "metrics": ["visitors", "events"],
        "date_range": "day",
        "dimensions": ["event:goal"],
    }
    converted = analytics.post("/api/v1/query", json_body=body)
    assert converted.body["results"] == [{"dimensions": ["Visit /über"], "metrics": [1, 2]}]


# -- excluded ------------------------------------------------------------------------------


@pytest.mark.parametrize("ua", BOTS)
def test_bots_are_forbidden_when_excluded(analytics, ua):
    create_website(analytics, exclude_bots=1)
    reply = hit(analytics, ua=ua)
    assert reply.status == 403
    assert reply.body == {"message": "Forbidden.", "status": 403}
    assert reply.headers[CORS] == "*"
    # nothing of the visitor is queued: only that a bot was excluded, to be counted
    [excluded] = queued()
    assert set(excluded) == {"website_id", "at", "visit", "excluded", "id"}
    assert excluded["excluded"] == "bot"


def test_a_flood_of_excluded_hits_is_queued_as_tallies(analytics, monkeypatch, capsys):
    website = create_website(analytics, exclude_bots=1)
    moment = [1000.0]
    monkeypatch.setattr(tracking.time, "monotonic", lambda: moment[0])
    for second in range(3):
        for _ in range(50):
            assert hit(analytics, ua="curl/8.5.0").status == 403
        moment[0] += 1.0
    assert hit(analytics, ua="curl/8.5.0").status == 403  # sends what the last second held
    records = receive("HitsQueue")
    tallies = [json.loads(record["body"]) for record in records]
    # ten exclusions a second at once, the rest of that second as one tally with the
    # next second's first: 31 messages for 151 hits
    at_once = [1] * (tracking.ExcludedTally.SENT_AT_ONCE - 1)
    assert [t.get("weight", 1) for t in tallies] == [1, *at_once, *([41, *at_once] * 2), 41]
    assert {t["excluded"] for t in tallies} == {"bot"}
    assert len({t["id"] for t in tallies}) == 31
    assert "HitsExcluded" not in capsys.readouterr().out  # the user's choice, no metric
    # ... and the aggregator reads and counts each (a tally has no page: none is sent)
    assert run("HitsQueue", records) == {"batchItemFailures": []}
    counted = analytics.get(f"/api/v1/stats/{website['id']}", query={"name": "excluded"})
    assert counted.data == [{"value": "bot", "count": 151}]


def test_a_few_excluded_hits_are_each_counted_at_once(analytics):
    """A few bots in a second are queued as they come: counted with no later request."""
    website = create_website(analytics, exclude_bots=1)
    for ua in BOTS[:5]:
        assert hit(analytics, ua=ua).status == 403
    assert run("HitsQueue", receive("HitsQueue")) == {"batchItemFailures": []}
    counted = analytics.get(f"/api/v1/stats/{website['id']}", query={"name": "excluded"})
    assert counted.data == [{"value": "bot", "count": 5}]


@pytest.mark.parametrize("ua", BOTS)
def test_bots_are_counted_when_not_excluded(analytics, ua):
    create_website(analytics, exclude_bots=0)
    assert hit(analytics, ua=ua).status == 202
    assert queued()[0]["device"] == "other"


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
@pytest.mark.parametrize("ua", BROWSERS)
def test_browsers_are_counted_when_bots_are_excluded(analytics, ua):
    create_website(analytics, exclude_bots=1)
    assert hit(analytics, ua=ua).status == 202
    assert len(queued()) == 1


@pytest.mark.parametrize(
    ("source_ip", "status"),
    [
        ("203.0.113.7", 403),  # the address
        ("198.51.100.99", 403),  # in the IPv4 range
        ("2001:db8:1::5", 403),  # in the IPv6 range
        ("::ffff:203.0.113.7", 403),  # IPv4-mapped
        ("203.0.113.8", 202),
        ("2001:db9::1", 202),
    ],
)
def test_excluded_addresses(analytics, source_ip, status):
    create_website(analytics, exclude_ips="203.0.113.7\n198.51.100.0/24\n2001:db8::/32")
    reply = hit(analytics, source_ip=source_ip)
    assert reply.status == status
    [sent] = queued()
    assert sent.get("excluded") == ("ip" if status == 403 else None)


# -- refused -------------------------------------------------------------------------------


def test_unknown_domain_is_404(analytics):
    create_website(analytics)
    reply = hit(analytics, {"page": "https://unknown.example/"})
    assert reply.status == 404
    assert reply.body == {"message": "Resource not found.", "status": 404}
    assert reply.headers[CORS] == "*"
    assert queued() == []


@pytest.mark.parametrize(
    ("form", "sentence"),
    [
        ({}, "The page field is required."),
        ({"page": ""}, "The page field is required."),
        ({"referrer": "https://example.com/"}, "The page field is required."),
        ({"page": "example.com/pricing"}, "The page must be a valid http or https URL."),
        ({"page": "ftp://example.com/"}, "The page must be a valid http or https URL."),
        ({"page": "https://exa mple.com/"}, "The page must be a valid http or https URL."),
        ({"page": "https://example.com:99999/"}, "The page must be a valid http or https URL."),
        (
            {"page": "https://example.com/" + "a" * 2048},
            "The page must be a valid http or https URL.",
        ),
    ],
)
def test_missing_or_invalid_page_is_422(analytics, form, sentence):
    create_website(analytics)
    reply = hit(analytics, form)
    assert reply.status == 422
    assert reply.body == {"message": {"page": [sentence]}, "status": 422}
    assert reply.headers[CORS] == "*"


def test_other_body_types_are_415_with_cors(analytics):
    create_website(analytics)
    reply = analytics.request(
        "POST", "/api/event", body=b"<page/>", headers={"Content-Type": "application/xml"}, key=None
    )
    assert reply.status == 415
    assert reply.headers[CORS] == "*"


def test_plain_text_is_read_as_json_and_a_form_in_it_is_422(analytics):
    """text/plain is what Plausible's script (and sendBeacon with a string) sends: JSON."""
    create_website(analytics)
    reply = analytics.request(
        "POST", "/api/event", body=b"page=x", headers={"Content-Type": "text/plain"}, key=None
    )
    assert reply.status == 422
    assert reply.body == {"message": {"body": ["The body is not valid JSON."]}, "status": 422}
    assert reply.headers[CORS] == "*"


def test_a_deleted_website_is_404_at_once_and_its_stats_are_scheduled(analytics):
    website = create_website(analytics)
    assert hit(analytics).status == 202  # the look-up is cached now
    assert analytics.delete(f"/api/v1/websites/{website['id']}").status == 200
    assert hit(analytics).status == 404
    [cleanup] = receive("TasksQueue")
    assert json.loads(cleanup["body"]) == {"kind": "cleanup", "website_id": website["id"]}


def test_a_new_owner_of_a_deleted_domain_gets_its_hits(analytics, other_analytics):
    create_website(analytics)
    assert hit(analytics).status == 202
    analytics.delete("/api/v1/websites/1")
    website = create_website(other_analytics)
    assert hit(analytics).status == 202
    assert queued()[-1]["website_id"] == website["id"]


# -- cached look-ups ------------------------------------------------------------------------


def test_lookups_are_cached_also_when_the_domain_is_unknown(analytics, monkeypatch):
    create_website(analytics)
    lookups: list[str] = []
    real = records.get_claim

    def counted(collection: Any, name: str) -> Any:
        lookups.append(name)
        return real(collection, name)

    monkeypatch.setattr(records, "get_claim", counted)
    for _ in range(3):
        assert hit(analytics).status == 202
        assert hit(analytics, {"page": "https://unknown.example/"}).status == 404
    assert sorted(lookups) == ["example.com", "unknown.example"]


# -- CORS preflight and the script -------------------------------------------------------


def test_preflight(analytics):
    reply = analytics.request(
        "OPTIONS",
        "/api/event",
        key=None,
        headers={
            "Origin": "https://example.com",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert reply.status == 204
    assert reply.headers[CORS] == "*"
    assert reply.headers["Access-Control-Allow-Methods"] == "POST, OPTIONS"
    assert reply.headers["Access-Control-Allow-Headers"] == "Content-Type"
    assert int(reply.headers["Access-Control-Max-Age"]) >= 600


def test_other_methods_on_the_event_route_are_405(analytics):
    reply = analytics.get("/api/event", key=None)
    assert reply.status == 405
    assert reply.headers["Allow"] == "OPTIONS, POST"


def test_the_script_is_served_with_long_cache_headers(analytics):
    reply = analytics.get("/js/script.js", key=None)
    assert reply.status == 200
    assert reply.headers["Timing-Allow-Origin"] == "*"
    assert reply.headers["Content-Type"] == "application/javascript; charset=utf-8"
    assert "max-age=86400" in reply.headers["Cache-Control"]
    assert reply.headers[CORS] == "*"
    assert "sitelens" in reply.body and "/api/event" in reply.body
    etag = reply.headers["ETag"]
    again = analytics.get("/js/script.js", key=None, headers={"If-None-Match": etag})
    assert again.status == 304
    assert again.body is None
    assert again.headers["ETag"] == etag
    stale = analytics.get("/js/script.js", key=None, headers={"If-None-Match": '"old"'})
    assert stale.status == 200


@pytest.mark.parametrize(
    "body",
    [
        {"page": "https://example.com/", "event": {"name": "signup", "unit": {}}},
        {"page": ["https://example.com/"]},
        {"page": "https://example.com/", "referrer": None},
        {"page": "https://example.com/", "event": "signup"},
        {"page": "https://example.com/", "referrer": 5},
        {"page": "https://example.com/", "screen_resolution": 1920},
    ],
)
def test_fields_that_are_not_text_are_refused_and_nothing_is_queued(analytics, body):
    create_website(analytics)
    reply = hit(analytics, json_body=body)
    assert reply.status == 422
    assert reply.body["status"] == 422 and len(reply.body["message"]) == 1
    assert receive("HitsQueue") == []


@pytest.mark.parametrize("sent", ["", "big", "1920", "1920x1080x2"])
def test_a_screen_resolution_that_is_not_width_x_height_is_accepted_and_not_counted(
    analytics, sent
):
    create_website(analytics)
    reply = hit(analytics, json_body={"page": "https://example.com/", "screen_resolution": sent})
    assert reply.status == 202
    [record] = receive("HitsQueue")
    assert "resolution" not in json.loads(record["body"])


@pytest.mark.parametrize(
    ("domain", "page"),
    [
        ("localhost", "http://localhost:8000/"),
        ("http://localhost:3000", "http://localhost:8000/docs"),
        ("shop.localhost", "http://shop.localhost:5173/cart"),
        ("127.0.0.1", "http://127.0.0.1:8080/"),
        ("[::1]", "http://[::1]:8080/"),
    ],
)
def test_a_local_page_is_counted_for_a_loopback_domain(analytics, domain, page):
    create_website(analytics, domain=domain)
    assert hit(analytics, {"page": page}).status == 202
    [sent] = queued()
    assert sent["page"] == "/" + page.split("/", 3)[3]


def test_a_flooding_site_is_held_to_its_share_and_the_others_are_counted(
    analytics, monkeypatch, capsys
):
    monkeypatch.setenv("SITELENS_SITE_HITS_PER_SECOND", "2")
    monkeypatch.setenv("SITELENS_SITE_HITS_BURST", "3")
    config.reset()
    fairshare.reset()
    fairshare.share().clock = lambda: 1000.0  # one instant: no token comes back meanwhile
    create_website(analytics)
    analytics.post("/api/v1/websites", {"domain": "other.example"})
    answers = [hit(analytics) for _ in range(5)]
    assert [a.status for a in answers] == [202, 202, 202, 429, 429]
    refused = answers[-1]
    assert refused.body == {"message": "Too Many Attempts.", "status": 429}
    assert int(refused.headers["Retry-After"]) >= 1
    assert refused.headers["Access-Control-Expose-Headers"] == "Retry-After"
    other = hit(analytics, {"page": "https://other.example/"})
    assert other.status == 202  # another site's share is its own
    assert len(queued()) == 4
    emitted = [json.loads(line) for line in capsys.readouterr().out.splitlines() if "_aws" in line]
    throttled = [line for line in emitted if "HitsThrottled" in line]
    assert sum(sum(line["HitsThrottled"]) for line in throttled) == 2
    assert {line["reason"] for line in throttled} == {"site_share"}
    assert sum(sum(line.get("HitsLost", [])) for line in emitted) == 2  # the sum alarmed
