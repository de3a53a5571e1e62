"""The reports and projects operations, with pages served by a local fixture site."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from sitelens.core import config
from sitelens.seo import analysis, checks, timebox
from tests.fixtures.site import GOOD

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
RECORD_FIELDS = {
    "id",
    "url",
    "project",
    "result",
    "score",
    "privacy",
    "password",
    "share_url",
    "results",
    "field_data",  # real visits of the page (tests/integration/seo/test_report_field_data.py)
    "generated_at",
    "created_at",
    "updated_at",
}


@pytest.fixture
def private_urls(monkeypatch):
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    config.reset()
    yield
    config.reset()


@pytest.fixture
def seo(seo, private_urls):
    return seo


def create(seo, url, **fields):
    reply = seo.post("/api/v1/reports", {"url": url, **fields})
    assert reply.status == 201, reply.body
    return reply.data


def query_of(link):
    return {k: v[-1] for k, v in parse_qs(urlsplit(link).query).items()}


# -- create -----------------------------------------------------------------------------


def test_create_fetches_analyses_and_stores(seo, site):
    reply = seo.post("/api/v1/reports", {"url": site.url("/good")})
    assert reply.status == 201 and reply.body["status"] == 201
    record = reply.data
    assert set(record) == RECORD_FIELDS
    assert record["url"] == site.url("/good")
    assert record["project"] == "127.0.0.1"
    assert record["privacy"] == 0 and record["password"] is False
    assert set(record["results"]) == set(checks.CHECKS)
    for entry in record["results"].values():
        # a failed check also says how to fix it and where its standard is (seo/guidance)
        advice = set() if entry["passed"] else {"fix", "learn_more"}
        assert set(entry) == {"passed", "importance", "category", "value", "errors", *advice}
    assert record["results"]["title"]["value"] == "Website analytics and reports"
    assert record["results"]["https_encryption"]["passed"] is False
    assert 80 <= record["score"] <= 100 and record["result"] == "good"
    assert ISO.match(record["generated_at"]) and ISO.match(record["created_at"])
    assert seo.get(f"/api/v1/reports/{record['id']}").body == {"data": record, "status": 200}


@pytest.mark.parametrize(("path", "result"), [("/poor", "decent"), ("/private/bad", "bad")])
def test_result_bands(seo, site, path, result):
    record = create(seo, site.url(path))
    assert record["result"] == result
    assert record["results"]["title"]["passed"] is False


def test_robots_rules_are_applied(seo, site):
    record = create(seo, site.url("/private/page"))
    assert record["results"]["robots"]["passed"] is False
    assert record["results"]["sitemap"]["passed"] is True
    assert record["results"]["404_page"]["passed"] is True


def test_url_is_the_final_url_after_redirects(seo, site):
    record = create(seo, site.url("/redirect-to/good", host="localhost"))
    assert record["url"] == site.url("/good", host="localhost")
    assert record["project"] == "localhost"


@pytest.mark.parametrize(
    ("url", "sentence"),
    [
        ("", "The url must be a valid http or https URL."),
        ("example.com", "The url must be a valid http or https URL."),
        ("ftp://example.com/", "The url must be a valid http or https URL."),
        ("http://", "The url must be a valid http or https URL."),
        (
            "https://example.com/" + "a" * 2048,
            "The url field must not be greater than 2048 characters.",
        ),
    ],
)
def test_invalid_urls_are_422(seo, url, sentence):
    reply = seo.post("/api/v1/reports", {"url": url})
    assert reply.status == 422
    assert reply.body["message"] == {"url": [sentence]}


def test_url_is_required(seo):
    reply = seo.post("/api/v1/reports", {"privacy": "1"})
    assert reply.status == 422 and reply.body["message"] == {"url": ["The url field is required."]}


@pytest.mark.parametrize(
    ("path", "words"),
    [("/data.json", "HTML"), ("/redirect-to/redirect-to/data.json", "HTML")],
)
def test_unfetchable_pages_are_422_with_the_reason(seo, site, path, words):
    reply = seo.post("/api/v1/reports", {"url": site.url(path)})
    assert reply.status == 422
    [sentence] = reply.body["message"]["url"]
    assert words in sentence
    assert seo.get("/api/v1/reports").data == []


def test_refused_connection_is_422(seo):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    reply = seo.post("/api/v1/reports", {"url": f"http://127.0.0.1:{port}/"})
    assert reply.status == 422 and "refused" in reply.body["message"]["url"][0].lower()


def test_private_addresses_are_blocked_without_the_flag(seo, site, monkeypatch):
    monkeypatch.delenv("SITELENS_ALLOW_PRIVATE_URLS")
    config.reset()
    for url in (site.url("/good"), "http://[::1]/", "http://169.254.169.254/latest/meta-data/"):
        reply = seo.post("/api/v1/reports", {"url": url})
        assert reply.status == 422
        assert "private" in reply.body["message"]["url"][0].lower()


def test_password_rules(seo, site, account):
    refused = seo.post("/api/v1/reports", {"url": site.url("/good"), "privacy": "2"})
    assert refused.status == 422 and "password" in refused.body["message"]
    record = create(seo, site.url("/good"), privacy="2", password="s3cret-horse")
    assert record["privacy"] == 2 and record["password"] is True
    path = f"/api/v1/reports/{record['id']}"
    opened = seo.put(path, {"privacy": "0"}).data
    assert opened["password"] is False and opened["privacy"] == 0
    assert seo.put(path, {"privacy": "2"}).status == 422
    # 8 characters at least, on create and on update (PUT and PATCH)
    short = {
        "message": {"password": ["The password field must be at least 8 characters."]},
        "status": 422,
    }
    refused = seo.post(
        "/api/v1/reports", {"url": site.url("/good"), "privacy": "2", "password": "1234567"}
    )
    assert (refused.status, refused.body) == (422, short)
    for method in ("PUT", "PATCH"):
        reply = seo.request(method, path, form={"privacy": "2", "password": "1234567"})
        assert (reply.status, reply.body) == (422, short)
    assert seo.put(path, {"privacy": "2", "password": "12345678"}).status == 200


# -- update -----------------------------------------------------------------------------


def test_update_without_results_changes_settings_only(seo, site):
    record = create(seo, site.url("/good"))
    path = f"/api/v1/reports/{record['id']}"
    for method, form in (("PUT", {"privacy": "1"}), ("PATCH", {"results": "0", "url": "x"})):
        updated = seo.request(method, path, form=form).data
        assert updated["results"] == record["results"]
        assert updated["generated_at"] == record["generated_at"]
        assert updated["url"] == record["url"]
    assert seo.get(path).data["privacy"] == 1


def test_update_with_results_regenerates(seo, site):
    site.pages["/mutable"] = site.pages["/poor"]
    record = create(seo, site.url("/mutable"))
    assert record["result"] == "decent"
    site.pages["/mutable"] = GOOD
    updated = seo.put(f"/api/v1/reports/{record['id']}", {"results": "1"}).data
    assert updated["result"] == "good" and updated["score"] > record["score"]
    assert updated["generated_at"] > record["generated_at"]
    assert updated["results"]["title"]["passed"] is True
    assert updated["created_at"] == record["created_at"]
    projects = seo.get("/api/v1/projects").data
    assert projects[0]["score"] == updated["score"]


def test_invalid_results_value(seo, site):
    record = create(seo, site.url("/good"))
    reply = seo.put(f"/api/v1/reports/{record['id']}", {"results": "2"})
    assert reply.status == 422
    assert reply.body["message"] == {"results": ["The results field must be one of: 0, 1."]}


def test_failed_regeneration_changes_nothing(seo, site):
    site.pages["/vanishing"] = GOOD
    record = create(seo, site.url("/vanishing"))
    site.pages.pop("/vanishing")
    site.pages["/vanishing-gone"] = GOOD
    # The page now answers 404 HTML: that is a report (a failing one), not an error.
    updated = seo.put(f"/api/v1/reports/{record['id']}", {"results": "1"}).data
    assert updated["results"]["http_status_code"]["passed"] is False


# -- delete and isolation ---------------------------------------------------------------


def test_delete_removes_the_report_and_its_empty_project(seo, site):
    first = create(seo, site.url("/good"))
    second = create(seo, site.url("/poor"))
    reply = seo.delete(f"/api/v1/reports/{first['id']}")
    assert reply.body == {"id": first["id"], "object": "report", "deleted": True, "status": 200}
    assert seo.get(f"/api/v1/reports/{first['id']}").status == 404
    [project] = seo.get("/api/v1/projects").data
    assert project["reports"] == 1 and project["score"] == second["score"]
    seo.delete(f"/api/v1/reports/{second['id']}")
    assert seo.get("/api/v1/projects").data == []
    assert seo.delete(f"/api/v1/reports/{second['id']}").status == 404


def test_other_accounts_reports_are_invisible(seo, other_seo, site, private_urls):
    record = create(seo, site.url("/good"))
    path = f"/api/v1/reports/{record['id']}"
    assert other_seo.get(path).status == 404
    assert other_seo.put(path, {"privacy": "1"}).status == 404
    assert other_seo.patch(path, {"results": "1"}).status == 404
    assert other_seo.delete(path).status == 404
    assert other_seo.get("/api/v1/reports").data == []
    assert other_seo.get("/api/v1/projects").data == []
    assert seo.get(path).data == record


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/api/v1/reports", "GET, POST"),
        ("POST", "/api/v1/reports/1", "DELETE, GET, PATCH, PUT"),
        ("POST", "/api/v1/projects", "GET"),
    ],
)
def test_wrong_method_is_405(seo, method, path, allow):
    reply = seo.request(method, path)
    assert reply.status == 405 and reply.headers["Allow"] == allow


def test_websites_are_not_on_the_seo_api(seo):
    assert seo.get("/api/v1/websites").status == 404


# -- lists ------------------------------------------------------------------------------


@pytest.fixture
def many(seo, site):
    made = []
    for n, path in enumerate(["/good", "/poor", "/private/bad"] * 4):
        host = "localhost" if n % 2 else "127.0.0.1"
        made.append(create(seo, site.url(path, host=host) + f"?n={n:02d}"))
    return made


def test_filters_and_orders(seo, many):
    def listed(**query):
        reply = seo.get("/api/v1/reports", query={"per_page": 100, **query})
        assert reply.status == 200, reply.body
        return reply.data

    for result in ("good", "decent", "bad"):
        assert [r["id"] for r in listed(result=result)] == [
            r["id"] for r in reversed(many) if r["result"] == result
        ]
    assert {r["project"] for r in listed(project="localhost")} == {"localhost"}
    assert len(listed(project="www.LOCALHOST")) == 6
    assert listed(project="nowhere.example") == []
    both = listed(project="localhost", result="good", sort="asc")
    assert [r["id"] for r in both] == [
        r["id"] for r in many if r["project"] == "localhost" and r["result"] == "good"
    ]
    by_score = listed(sort_by="result", sort="asc")
    assert [r["score"] for r in by_score] == sorted(r["score"] for r in many)
    by_url = listed(sort_by="url")
    assert [r["url"] for r in by_url] == sorted((r["url"] for r in many), reverse=True)
    by_generated = listed(sort_by="generated_at", sort="asc")
    assert [r["id"] for r in by_generated] == [r["id"] for r in many]
    searched = listed(search="LOCALHOST", search_by="url")
    assert len(searched) == 6 and all("localhost" in r["url"] for r in searched)


@pytest.mark.parametrize(
    ("query", "sort_key"),
    [
        ({"sort_by": "result"}, "score"),
        ({"sort_by": "url", "sort": "asc"}, "url"),
        ({"result": "bad"}, "id"),
        ({"project": "localhost", "sort_by": "generated_at"}, "id"),
        ({"search": "good"}, "id"),
    ],
)
def test_cursor_walks(seo, many, query, sort_key):
    everything = seo.get("/api/v1/reports", query={**query, "per_page": 100}).data
    pages, reply = [], seo.get("/api/v1/reports", query={**query, "per_page": 10})
    while True:
        pages.append(reply.data)
        if not reply.body["links"]["next"]:
            break
        reply = seo.get("/api/v1/reports", query=query_of(reply.body["links"]["next"]))
    assert [r["id"] for p in pages for r in p] == [r["id"] for r in everything]
    if len(pages) > 1:
        back = seo.get("/api/v1/reports", query=query_of(reply.body["links"]["prev"]))
        assert [r["id"] for r in back.data] == [r["id"] for r in pages[-2]]


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("sort_by", "score"),
        ("sort", "down"),
        ("per_page", "5"),
        ("result", "great"),
        ("search_by", "domain"),
        ("cursor", "x.y"),
    ],
)
def test_invalid_report_list_parameters(seo, param, value):
    reply = seo.get("/api/v1/reports", query={param: value})
    assert reply.status == 422 and list(reply.body["message"]) == [param]


def test_projects_list(seo, many):
    reply = seo.get("/api/v1/projects", query={"sort_by": "project", "sort": "asc"})
    assert reply.status == 200
    rows = reply.data
    assert [r["project"] for r in rows] == ["127.0.0.1", "localhost"]
    for row in rows:
        mine = [r["score"] for r in many if r["project"] == row["project"]]
        assert row["reports"] == len(mine)
        assert row["score"] == round(sum(mine) / len(mine))
        assert set(row) == {"project", "reports", "score", "created_at"}
    newest_first = seo.get("/api/v1/projects").data
    assert [r["project"] for r in newest_first] == ["localhost", "127.0.0.1"]
    assert seo.get("/api/v1/projects", query={"search": "local"}).data[0]["project"] == "localhost"
    assert seo.get("/api/v1/projects", query={"sort_by": "score"}).status == 422


# -- bounded sizes and time -------------------------------------------------------------

# each over 500 KB: a whole page as the value of one check
UNCLOSED_TITLE = "<html><head><title>" + "Sitelens measures every page. " * 20_000
UNCLOSED_H1 = (
    '<html lang="en"><head><title>Unclosed heading</title></head><body><h1>'
    + "A heading that never ends. " * 20_000
)


def stored_size(record):
    return len(json.dumps(record["results"], separators=(",", ":")))


def test_an_unclosed_title_gives_a_normal_report(seo, site):
    site.pages["/unclosed-title"] = UNCLOSED_TITLE
    record = create(seo, site.url("/unclosed-title"))
    title = record["results"]["title"]
    assert title["passed"] is False and set(title["errors"]) == {"too_long"}
    assert len(title["value"]) == analysis.MAX_TEXT
    assert title["value"].startswith("Sitelens measures every page. Sitelens")
    assert title["value"].endswith("…")
    assert stored_size(record) <= analysis.MAX_RESULTS_BYTES
    assert seo.get(f"/api/v1/reports/{record['id']}").data == record


def test_an_unclosed_heading_gives_a_normal_report_also_when_regenerated(seo, site):
    site.pages["/unclosed-h1"] = GOOD
    record = create(seo, site.url("/unclosed-h1"))
    site.pages["/unclosed-h1"] = UNCLOSED_H1
    updated = seo.put(f"/api/v1/reports/{record['id']}", {"results": "1"}).data
    [heading] = updated["results"]["headings"]["value"]
    assert len(heading) == analysis.MAX_ITEM_TEXT and heading.endswith("…")
    assert heading.startswith("A heading that never ends.")
    assert updated["results"]["headings"]["passed"] is True
    assert stored_size(updated) <= analysis.MAX_RESULTS_BYTES
    assert seo.get(f"/api/v1/reports/{record['id']}").data == updated


def test_long_lists_keep_their_first_entries_and_say_how_many_are_left_out(seo, site):
    images = "".join(f'<img src="/photo-{n}.jpg">' for n in range(35))
    site.pages["/gallery"] = f"<html><body>{images}</body></html>"
    record = create(seo, site.url("/gallery"))
    missing_alt = record["results"]["image_keywords"]
    assert missing_alt["value"] == [
        *(site.url(f"/photo-{n}.jpg") for n in range(analysis.MAX_ITEMS)),
        "… 15 more",
    ]
    assert missing_alt["errors"]["missing_alt"].startswith("35 images without alt text")


def test_a_page_that_cannot_be_analysed_in_time_gets_a_report_saying_so(seo, site, monkeypatch):
    monkeypatch.setattr(analysis, "ANALYSIS_SECONDS", 1.0)
    site.pages["/deep"] = "<html><body>" + "<div>" * 100_000  # minutes for the parser alone
    given: list[float] = []
    real = timebox.call

    def call(function, argument, seconds):
        given.append(seconds)
        return real(function, argument, seconds)

    monkeypatch.setattr(timebox, "call", call)
    record = create(seo, site.url("/deep"))
    assert given == [1.0]  # the analysis ran once, in a worker given 1 s (stopped: see below)
    assert (record["score"], record["result"]) == (0, "bad")
    for entry in record["results"].values():
        assert entry["passed"] is False and entry["value"] is None
        assert entry["errors"] == {"unfinished": "The page could not be analysed within 1 s."}
    assert seo.get(f"/api/v1/reports/{record['id']}").data == record
