"""The crawler's rules on their own: what a page leads to and what it stores, the scope of a
list, a run's identity (user agent, and headers for its own origin only), the reasons a
run fails, and the stall rule held to the queue's settings in the template."""

from __future__ import annotations

import base64
from datetime import timedelta

import pytest

from sitelens.audits import facts, failures, fetching, runs
from sitelens.audits.fetching import BadCredentials, Fetched
from sitelens.audits.urls import Scope
from sitelens.seo import fetch
from sitelens.seo.page import Response
from tests.conftest import TEMPLATE

SCOPE = Scope("https://e.com/", "", "/cart*")


def html(head: str = "", body: str = "") -> bytes:
    return f"<html><head><title>T</title>{head}</head><body>{body}</body></html>".encode()


def test_every_internal_link_is_a_target_and_the_stored_list_is_bounded():
    anchors = "".join(f'<a href="/p/{n}">p</a>' for n in range(1_100))
    anchors += '<a href="/p/0#again">again</a><a rel="nofollow" href="/hidden">n</a>'
    parsed = facts.parse("https://e.com/", html(body=anchors), {}, SCOPE)
    assert parsed.targets == [f"https://e.com/p/{n}" for n in range(1_100)]
    assert parsed.facts["links_found"] == 1_100
    assert parsed.facts["links"] == parsed.targets[: facts.MAX_LINKS]


def test_the_character_budget_bounds_what_is_stored_not_what_is_crawled():
    long = "x" * 1_900
    count = facts.MAX_LINK_CHARACTERS // 1_900 + 20
    anchors = "".join(f'<a href="/{long}/{n}">p</a>' for n in range(count))
    anchors += '<a href="https://other.com/">o</a>'
    parsed = facts.parse("https://e.com/", html(body=anchors), {}, SCOPE)
    stored = parsed.facts["links"]
    assert sum(map(len, stored)) <= facts.MAX_LINK_CHARACTERS < sum(map(len, parsed.targets))
    assert len(parsed.targets) == parsed.facts["links_found"] == count > len(stored)
    assert parsed.facts["external_links"] == ["https://other.com/"]


def test_canonicals_alternates_and_next_and_prev_are_targets():
    head = (
        '<link rel="canonical" href="/c"><link rel="alternate" hreflang="de" href="/de">'
        '<link rel="alternate" hreflang="fr" href="https://fr.e.com/">'
        '<link rel="alternate" type="application/rss+xml" href="/feed">'
        '<link rel="next" href="/2"><link rel="prev" href="/0"><link rel="stylesheet" href="/s">'
    )
    parsed = facts.parse("https://e.com/1", html(head, '<a href="/a">a</a>'), {}, SCOPE)
    names = ["/a", "/c", "/de", "/2", "/0"]
    assert parsed.targets == [f"https://e.com{p}" for p in names]  # the other host: no target
    assert parsed.facts["canonical"] == "https://e.com/c"
    assert parsed.facts["hreflang"] == [["de", "https://e.com/de"], ["fr", "https://fr.e.com/"]]
    assert parsed.facts["links"] == ["https://e.com/a"] and parsed.facts["links_found"] == 1


def test_the_scope_of_a_list():
    listed = "https://e.com/a\n\nhttps://E.com/a#top\nhttps://e.com/cart/1\nhttps://o.com/\n /b"
    assert SCOPE.listed(listed) == ["https://e.com/a"]
    assert SCOPE.crawls("http://e.com/x") and not SCOPE.crawls("https://e.com/cart")


def test_the_user_agents_keep_sitelens_token():
    for name, agent in fetching.USER_AGENTS.items():
        assert "SitelensAudit/1.0" in agent, name
    assert fetching.USER_AGENTS["sitelens"] == fetching.USER_AGENT
    assert "Mobile" in fetching.USER_AGENTS["googlebot_smartphone"]
    assert "Googlebot/2.1" in fetching.USER_AGENTS["googlebot_desktop"]
    assert fetching.identity("curl", "https://e.com/", "e.com").user_agent == fetching.USER_AGENT


def test_the_headers_go_to_the_audited_origin_only():
    secret = {"headers": {"X-Token": "t"}, "basic_auth": "ann:pw", "cookie": "a=b"}
    https = fetching.identity("sitelens", "https://e.com/", "E.com", secret)
    basic = "Basic " + base64.b64encode(b"ann:pw").decode()
    assert dict(https.headers) == {"X-Token": "t", "Authorization": basic, "Cookie": "a=b"}
    assert https.sends_to("https", "e.com")
    assert not https.sends_to("http", "e.com")  # never in clear text when the site is https
    assert not https.sends_to("https", "e.com:8443") and not https.sends_to("https", "o.com")
    http = fetching.identity("sitelens", "http://e.com:8080/", "e.com:8080", secret)
    assert http.sends_to("http", "e.com:8080") and http.sends_to("https", "e.com:8080")
    assert not fetching.identity("sitelens", "https://e.com/", "e.com").sends_to("https", "e.com")
    sent = https.added_to({"Host": "e.com", "accept": "text/html", "x-token": "old"})
    assert sent == {"Host": "e.com", "accept": "text/html", **dict(https.headers)}


@pytest.mark.parametrize(
    "secret",
    [
        {"headers": {"Host": "o.com"}},
        {"headers": {"User-Agent": "curl"}},
        {"headers": {"X-A": "one\r\nX-B: two"}},
        {"headers": {"bad name": "v"}},
        {"headers": ["X-A"]},
        {"basic_auth": "no colon"},
        {"cookie": "a=b\nc=d"},
        {"headers": {f"X-{n}": "v" for n in range(fetching.MAX_HEADERS + 1)}},
    ],
)
def test_credentials_that_cannot_be_sent_are_refused(secret):
    with pytest.raises(BadCredentials):
        fetching.identity("sitelens", "https://e.com/", "e.com", secret)


def answer(status: int) -> Fetched:
    response = Response(
        url="https://e.com/", status=status, headers={}, body=b"", elapsed=0.1, redirects=0
    )
    return Fetched("https://e.com/", response, None)


def test_why_a_start_url_fails_its_run():
    assert failures.start_failure(answer(200)) is None
    assert failures.start_failure(answer(301)) is None  # a redirect: its target is crawled
    unreachable = Fetched("https://e.com/", None, fetch.UNREACHABLE)
    assert failures.start_failure(unreachable) == (
        f"The start URL could not be reached. {fetch.UNREACHABLE}"
    )
    assert failures.start_failure(answer(403)).startswith(
        "The start URL answered 403 Forbidden: the site refused the crawler."
    )
    assert "max_rate" in failures.start_failure(answer(429))
    assert failures.start_failure(answer(503)) == (
        "The start URL answered 503 Service Unavailable: the site's server failed. Run the"
        " audit again later."
    )
    assert failures.start_failure(answer(599)).startswith("The start URL answered 599:")


def test_the_stall_rule_follows_the_queue_s_redelivery():
    """A step failing its last delivery fails its run (`DELIVERIES`, the queue's
    maxReceiveCount); a run with no step ending is failed when a step lost at once would
    have reached the dead-letter queue, after its last delivery could have ended."""
    resources = TEMPLATE["Resources"]
    queue = resources["AuditQueue"]["Properties"]
    worker = resources["AuditFunction"]["Properties"]
    deliveries = queue["RedrivePolicy"]["maxReceiveCount"]
    visibility = timedelta(seconds=queue["VisibilityTimeout"])
    assert deliveries == failures.DELIVERIES
    assert deliveries * visibility == runs.STALLED_AFTER == timedelta(minutes=90)
    last_ends = (deliveries - 1) * visibility + timedelta(seconds=worker["Timeout"])
    assert last_ends < runs.STALLED_AFTER
    assert "90 minutes" in runs.STALLED
