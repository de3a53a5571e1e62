"""Listing websites: filters, orders, validation and cursor pagination."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from sitelens.data import pages
from sitelens.tokens import signing
from tests.fixtures import lists


def create(client, domain, **fields):
    reply = client.post("/api/v1/websites", {"domain": domain, **fields})
    assert reply.status == 201, reply.body
    return reply.data


def query_of(link):
    return {k: v[-1] for k, v in parse_qs(urlsplit(link).query).items()}


def walk(client, query, direction="next"):
    """Follow links.next (or prev) to the end; returns the pages' id lists."""
    pages = []
    reply = client.get("/api/v1/websites", query=query)
    while True:
        assert reply.status == 200, reply.body
        pages.append([r["id"] for r in reply.data])
        link = reply.body["links"][direction]
        if link is None:
            return pages, reply
        reply = client.get("/api/v1/websites", query=query_of(link))


@pytest.fixture
def sites(analytics):
    domains = ["delta.com", "alpha.com", "echo.org", "charlie.net", "bravo.io"]
    made = [create(analytics, d) for d in domains]
    for record in made[1::2]:
        analytics.put(f"/api/v1/websites/{record['id']}", {"favorite": "1"})
    return made


def ids(reply):
    return [r["id"] for r in reply.data]


def test_default_list_is_newest_first(analytics, sites):
    reply = analytics.get("/api/v1/websites")
    assert reply.status == 200
    assert ids(reply) == [r["id"] for r in reversed(sites)]
    assert reply.body["status"] == 200
    assert reply.body["links"] == {"first": None, "last": None, "prev": None, "next": None}
    assert reply.body["meta"] == {
        "path": "https://api.test/api/v1/websites",
        "per_page": 10,
        "next_cursor": None,
        "prev_cursor": None,
    }


@pytest.mark.parametrize(
    ("sort_by", "sort", "expected"),
    [
        ("id", "asc", ["delta.com", "alpha.com", "echo.org", "charlie.net", "bravo.io"]),
        ("id", "desc", ["bravo.io", "charlie.net", "echo.org", "alpha.com", "delta.com"]),
        ("domain", "asc", ["alpha.com", "bravo.io", "charlie.net", "delta.com", "echo.org"]),
        ("domain", "desc", ["echo.org", "delta.com", "charlie.net", "bravo.io", "alpha.com"]),
    ],
)
def test_sort_orders(analytics, sites, sort_by, sort, expected):
    reply = analytics.get("/api/v1/websites", query={"sort_by": sort_by, "sort": sort})
    assert [r["domain"] for r in reply.data] == expected


def test_favorite_filter(analytics, sites):
    favorites = analytics.get("/api/v1/websites", query={"favorite": "1", "sort": "asc"})
    assert [r["domain"] for r in favorites.data] == ["alpha.com", "charlie.net"]
    others = analytics.get(
        "/api/v1/websites", query={"favorite": "0", "sort_by": "domain", "sort": "asc"}
    )
    assert [r["domain"] for r in others.data] == ["bravo.io", "delta.com", "echo.org"]


def test_search_is_a_case_insensitive_substring_of_the_domain(analytics, sites):
    reply = analytics.get("/api/v1/websites", query={"search": "A.C", "sort": "asc"})
    assert [r["domain"] for r in reply.data] == ["delta.com", "alpha.com"]
    reply = analytics.get(
        "/api/v1/websites", query={"search": "o", "search_by": "domain", "favorite": "1"}
    )
    assert [r["domain"] for r in reply.data] == ["alpha.com"]
    assert analytics.get("/api/v1/websites", query={"search": "zzz"}).data == []


@pytest.mark.parametrize(
    ("param", "value", "sentence"),
    [
        ("sort_by", "name", "The sort by field must be one of: id, domain."),
        ("sort", "up", "The sort field must be one of: desc, asc."),
        ("per_page", "20", "The per page field must be one of: 10, 25, 50, 100."),
        ("per_page", "abc", "The per page field must be one of: 10, 25, 50, 100."),
        ("search_by", "url", "The search by field must be one of: domain."),
        ("favorite", "yes", "The favorite field must be one of: 0, 1."),
        ("cursor", "garbage", "The cursor is invalid."),
    ],
)
def test_invalid_list_parameters_are_422(analytics, param, value, sentence):
    reply = analytics.get("/api/v1/websites", query={param: value})
    assert reply.status == 422
    assert reply.body == {"message": {param: [sentence]}, "status": 422}


@pytest.mark.parametrize("per_page", [10, 25, 50, 100])
def test_per_page_values(analytics, per_page):
    reply = analytics.get("/api/v1/websites", query={"per_page": per_page})
    assert reply.status == 200 and reply.body["meta"]["per_page"] == per_page


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"sort": "asc"},
        {"sort_by": "domain"},
        {"sort_by": "domain", "sort": "asc"},
        {"favorite": "0"},
        {"favorite": "0", "sort_by": "domain", "sort": "asc"},
        {"search": "site"},
        {"search": "1", "sort_by": "domain"},
    ],
)
def test_cursor_walk_visits_everything_once_both_ways(analytics, query):
    for n in range(23):
        create(analytics, f"site{n:02d}.example")
    expected_all = analytics.get("/api/v1/websites", query={**query, "per_page": 100}).data
    expected = [r["id"] for r in expected_all]
    pages, last = walk(analytics, {**query, "per_page": 10})
    assert [len(p) for p in pages][:-1] == [10] * (len(pages) - 1)
    assert [i for p in pages for i in p] == expected
    # Back again from the last page with links.prev.
    back = [[r["id"] for r in last.data]]
    reply = last
    while reply.body["links"]["prev"]:
        reply = analytics.get("/api/v1/websites", query=query_of(reply.body["links"]["prev"]))
        back.append([r["id"] for r in reply.data])
    assert list(reversed(back)) == pages
    assert reply.body["meta"]["prev_cursor"] is None


def test_links_repeat_every_list_parameter(analytics):
    for n in range(12):
        create(analytics, f"site{n:02d}.example")
    query = {
        "search": "site",
        "sort_by": "domain",
        "sort": "asc",
        "per_page": "10",
        "favorite": "0",
    }
    reply = analytics.get("/api/v1/websites", query=query)
    link = reply.body["links"]["next"]
    assert link.startswith("https://api.test/api/v1/websites?")
    params = query_of(link)
    assert params.pop("cursor") == reply.body["meta"]["next_cursor"]
    assert params == {**query, "search_by": "domain"}
    second = analytics.get("/api/v1/websites", query=query_of(link))
    assert second.body["links"]["prev"] is not None
    assert second.body["links"]["next"] is None


def test_records_added_between_pages_are_neither_lost_nor_repeated(analytics):
    for n in range(15):
        create(analytics, f"old{n:02d}.example")
    first = analytics.get("/api/v1/websites", query={"sort": "asc"})
    # New records sort after everything seen so far (ids grow): they show up later, once.
    added = [create(analytics, f"new{n}.example")["id"] for n in range(7)]
    pages, _ = walk(analytics, query_of(first.body["links"]["next"]))
    seen = [r["id"] for r in first.data] + [i for p in pages for i in p]
    assert len(seen) == len(set(seen)) == 22
    assert seen[-7:] == added
    # Descending, records added meanwhile are newer than the walk: not repeated, none lost.
    top = analytics.get("/api/v1/websites")
    create(analytics, "newest.example")
    rest, _ = walk(analytics, query_of(top.body["links"]["next"]))
    walked = [r["id"] for r in top.data] + [i for p in rest for i in p]
    assert len(walked) == len(set(walked)) == 22


def test_tampered_cursor_is_422(analytics):
    for n in range(12):
        create(analytics, f"site{n:02d}.example")
    token = analytics.get("/api/v1/websites").body["meta"]["next_cursor"]
    payload, signature = token.split(".")
    original = signing._unb64(payload)
    changed = original.replace(b'"key":3', b'"key":9')
    assert changed != original
    forged = signing._b64(changed) + "." + signature
    for bad in (forged, token[:-2], token + "x", "a.b", ""):
        reply = analytics.get("/api/v1/websites", query={"cursor": bad})
        if bad == "":
            continue  # an empty cursor is no cursor
        assert reply.status == 422, bad
        assert reply.body["message"] == {"cursor": ["The cursor is invalid."]}


def test_cursor_is_bound_to_the_parameters_and_the_account(analytics, other_analytics):
    for n in range(12):
        create(analytics, f"site{n:02d}.example")
    token = analytics.get("/api/v1/websites").body["meta"]["next_cursor"]
    for query in ({"sort": "asc"}, {"sort_by": "domain"}, {"per_page": 25}, {"search": "x"}):
        reply = analytics.get("/api/v1/websites", query={**query, "cursor": token})
        assert reply.status == 422, query
    assert other_analytics.get("/api/v1/websites", query={"cursor": token}).status == 422
    assert analytics.get("/api/v1/websites", query={"cursor": token}).status == 200


def test_empty_parameters_mean_defaults(analytics, sites):
    reply = analytics.get(
        "/api/v1/websites",
        query={
            "favorite": "",
            "sort_by": "",
            "sort": "",
            "per_page": "",
            "search": "",
            "cursor": "",
        },
    )
    assert reply.status == 200
    assert ids(reply) == [r["id"] for r in reversed(sites)]


@pytest.fixture
def counted_queries(monkeypatch):
    return lists.count_queries(monkeypatch)


def test_a_search_reads_a_bounded_number_of_entries_and_links_on(
    analytics, counted_queries, monkeypatch
):
    monkeypatch.setattr(pages, "MAX_FILTERED_READS", 12)  # in place of 1,000
    monkeypatch.setattr(pages, "MAX_FILTERED_QUERIES", 3)
    made = [create(analytics, f"site{n:02d}.example")["id"] for n in range(40)]
    needles = [create(analytics, f"needle{n}.example")["id"] for n in range(3)]
    made += [create(analytics, f"site{n:02d}.example")["id"] for n in range(40, 70)]
    counted_queries.scanned.clear()

    pages_seen, last = walk(analytics, {"search": "needle", "sort": "asc"})
    # every request read at most 12 entries; pages cut short carry on where they stopped
    assert len(pages_seen) > 5
    assert sum(counted_queries.scanned) <= 12 * len(pages_seen)
    assert [] in pages_seen
    assert [i for page in pages_seen for i in page] == needles
    assert last.body["meta"]["next_cursor"] is None
    # and back again with links.prev, each once, in order
    back, reply = [], last
    while True:
        back = [r["id"] for r in reply.data] + back
        if reply.body["links"]["prev"] is None:
            break
        reply = analytics.get("/api/v1/websites", query=query_of(reply.body["links"]["prev"]))
    assert back == needles
    # a full page is not cut short: its search stops as soon as it has per_page + 1
    counted_queries.scanned.clear()
    reply = analytics.get("/api/v1/websites", query={"search": "site", "sort": "asc"})
    assert ids(reply) == made[:10]
    assert reply.body["links"]["next"] is not None
    assert sum(counted_queries.scanned) <= 12


@pytest.mark.parametrize("sort_by", ["id", "url"])  # the table, and a slim index
def test_a_search_over_many_records_is_answered_page_by_page(
    seo, account, counted_queries, sort_by
):
    """At the real bound: 1,000 entries read per request, in at most 10 Queries."""
    needles = lists.stored_reports(account.id, "a-needle.example", 2)  # last, in either order
    lists.stored_reports(account.id, "example.com", 1_050)
    counted_queries.scanned.clear()
    first = seo.get("/api/v1/reports", query={"search": "needle", "sort_by": sort_by})
    assert (first.status, first.data) == (200, [])
    assert len(counted_queries.scanned) <= 10
    assert sum(counted_queries.scanned) == 1_000
    assert first.body["links"]["prev"] is None
    counted_queries.scanned.clear()
    second = seo.get("/api/v1/reports", query=query_of(first.body["links"]["next"]))
    assert [r["id"] for r in second.data] == sorted(needles, reverse=True)
    assert second.body["links"]["next"] is None
    assert sum(counted_queries.scanned) == 52
    # back from there: bounded reads again, two empty pages to the list's start
    back = seo.get("/api/v1/reports", query=query_of(second.body["links"]["prev"]))
    assert (back.status, back.data) == (200, [])
    back = seo.get("/api/v1/reports", query=query_of(back.body["links"]["prev"]))
    assert (back.status, back.data, back.body["links"]["prev"]) == (200, [], None)
