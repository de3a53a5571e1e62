"""POST /api/v1/websites/{id}/logs and crawl queries, through API Gateway's events: each
log format, real and spoofed crawlers (a fake resolver: nothing here looks a name up),
people's and malformed lines, another account's website, an upload sent twice."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sitelens.analytics.crawls import verification
from sitelens.data import warehouse
from tests.fixtures.local_warehouse import local_warehouse  # noqa: F401

DAY = (datetime.now(UTC) - timedelta(days=1)).replace(hour=10, minute=0, second=0, microsecond=0)
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
GPTBOT = (
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; "
    "+https://openai.com/gptbot)"
)
CLAUDEBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0)"
AHREFS = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)"
CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
REAL_GOOGLE = "66.249.66.1"  # its PTR is under googlebot.com and resolves back (FakeDns)
FAKE_GOOGLE = "203.0.113.9"  # its PTR claims googlebot.com but resolves elsewhere
GPT_ADDRESS = "20.171.206.7"  # in ranges/openai_gptbot.json
ELSEWHERE = "198.51.100.77"


class FakeDns:
    """Reverse and forward answers of a few addresses, and a record of the questions."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def reverse(self, ip: str) -> list[str]:
        self.asked.append(ip)
        return {
            REAL_GOOGLE: ["crawl-66-249-66-1.googlebot.com"],
            FAKE_GOOGLE: ["crawl-66-249-66-1.googlebot.com"],
        }.get(ip, [])

    def forward(self, name: str) -> list[str]:
        return [REAL_GOOGLE] if name == "crawl-66-249-66-1.googlebot.com" else []


@pytest.fixture(autouse=True)
def refreshed_ranges(monkeypatch):
    """The published ranges as `make crawler-ranges` leaves them: fetched whole, so an
    address outside them is spoofed (the shipped seeds say unverified: test_crawlers)."""
    monkeypatch.setattr(verification, "fetched", lambda file: True)


@pytest.fixture
def dns() -> Iterator[FakeDns]:
    fake = FakeDns()
    verification.use(fake)
    yield fake
    verification.use(None)


@pytest.fixture
def served(local_warehouse, dns):  # noqa: F811
    """make serve's engine: files placed in the warehouse's folder, read by its views."""
    engine = warehouse.local_engine()
    assert engine is not None
    warehouse.use(
        warehouse.LocalEngine(
            "duckdb", engine.query, engine.store, root=local_warehouse.root,
            place=local_warehouse.place,
        )
    )  # fmt: skip
    return local_warehouse


def combined(ip: str, agent: str, page: str, status: int = 200, at: datetime = DAY) -> str:
    stamp = at.strftime("%d/%b/%Y:%H:%M:%S +0000")
    return f'{ip} - - [{stamp}] "GET {page} HTTP/1.1" {status} 512 "-" "{agent}"'


def send(analytics: Any, site_id: int, text: str | bytes, **query: str) -> Any:
    """Lines as text/plain; bytes (gzip) as application/gzip, as a client sends a file."""
    kind = "text/plain" if isinstance(text, str) else "application/gzip"
    body = text.encode() if isinstance(text, str) else text
    return analytics.request(
        "POST",
        f"/api/v1/websites/{site_id}/logs",
        body=body,
        query=query,
        headers={"Content-Type": kind},
    )


def crawls(analytics: Any, site_id: int, dimensions: list[str], **more: Any) -> list[Any]:
    answer = analytics.request(
        "POST",
        "/api/v1/query",
        json_body={
            "site_id": site_id,
            "metrics": ["crawls"],
            "date_range": "7d",
            "dimensions": dimensions,
            **more,
        },
    )
    assert answer.status == 200, answer.body
    return [[*row["dimensions"], *row["metrics"]] for row in answer.body["results"]]


@pytest.fixture
def site(analytics) -> int:
    return int(analytics.post("/api/v1/websites", {"domain": "crawled.example"}).data["id"])


MIXED = "\n".join(
    [
        combined(REAL_GOOGLE, GOOGLEBOT, "/"),
        combined(REAL_GOOGLE, GOOGLEBOT, "/pricing"),
        combined(FAKE_GOOGLE, GOOGLEBOT, "/pricing"),
        combined(GPT_ADDRESS, GPTBOT, "/blog/a", 404),
        combined(ELSEWHERE, GPTBOT, "/blog/a"),
        combined(ELSEWHERE, AHREFS, "/"),
        combined(ELSEWHERE, CHROME, "/"),  # a person: the script counts them
        "this is no log line",
    ]
)


def test_a_combined_log_counts_verified_and_spoofed_crawlers_not_people(analytics, site, served):
    sent = send(analytics, site, MIXED)
    assert sent.status == 200, sent.body
    assert sent.data == {
        "lines": 8,
        "crawls": 6,
        "humans": 1,
        "other_hosts": 0,
        "malformed": 1,
        "verification": {"spoofed": 2, "unverified": 1, "verified": 3},
        "families": {"ai-training": 2, "search": 3, "seo-tool": 1},
    }
    assert crawls(analytics, site, ["crawl:bot", "crawl:verification"]) == [
        ["Googlebot", "verified", 2],
        ["AhrefsBot", "unverified", 1],
        ["GPTBot", "spoofed", 1],
        ["GPTBot", "verified", 1],
        ["Googlebot", "spoofed", 1],
    ]
    assert crawls(analytics, site, ["crawl:family"]) == [
        ["search", 3],
        ["ai-training", 2],
        ["seo-tool", 1],
    ]
    assert crawls(analytics, site, ["event:page", "crawl:status"]) == [
        ["/", 200, 2],
        ["/pricing", 200, 2],
        ["/blog/a", 200, 1],
        ["/blog/a", 404, 1],
    ]
    assert crawls(
        analytics, site, ["crawl:bot"], filters=[["is", "crawl:verification", ["verified"]]]
    ) == [["Googlebot", 2], ["GPTBot", 1]]
    assert crawls(analytics, site, []) == [[6]]


def test_an_upload_sent_twice_counts_once(analytics, site, served, dns):
    assert send(analytics, site, MIXED).status == 200
    assert send(analytics, site, MIXED).status == 200
    # the same lines again within another upload (a pull of the same log) count once too
    assert send(analytics, site, MIXED + "\n" + combined(ELSEWHERE, CHROME, "/x")).status == 200
    assert crawls(analytics, site, []) == [[6]]
    assert dns.asked.count(REAL_GOOGLE) == 1  # the answer is kept


def test_the_same_line_twice_in_a_log_is_two_requests(analytics, site, served):
    line = combined(ELSEWHERE, AHREFS, "/")
    assert send(analytics, site, f"{line}\n{line}").data["crawls"] == 2
    assert crawls(analytics, site, []) == [[2]]


def test_cloudfront_standard_logs_gzipped(analytics, site, served):
    fields = (
        "date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status "
        "cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type "
        "x-edge-request-id x-host-header cs-protocol cs-bytes time-taken"
    )

    def line(ip: str, agent: str, page: str, host: str = "crawled.example") -> str:
        cells = [
            DAY.strftime("%Y-%m-%d"), "10:00:00", "FRA56-P1", "2300", ip, "GET",
            "d111111abcdef8.cloudfront.net", page, "200", "-", agent.replace(" ", "%20"),
            "q=1", "-", "Hit", "abc==", host, "https", "120", "0.002",
        ]  # fmt: skip
        return "\t".join(cells)

    text = "\n".join(
        [
            "#Version: 1.0",
            f"#Fields: {fields}",
            line(REAL_GOOGLE, GOOGLEBOT, "/docs"),
            line(GPT_ADDRESS, GPTBOT, "/docs"),
            line(REAL_GOOGLE, GOOGLEBOT, "/docs", host="other.example"),
            line(ELSEWHERE, CHROME, "/docs"),
            "short\tline",
        ]
    )
    sent = send(analytics, site, gzip.compress(text.encode()))
    assert sent.status == 200, sent.body
    assert sent.data["crawls"] == 2
    assert sent.data["other_hosts"] == 1
    assert sent.data["humans"] == 1
    assert sent.data["malformed"] == 1
    assert crawls(analytics, site, ["event:page", "crawl:bot"]) == [
        ["/docs?q=1", "GPTBot", 1],
        ["/docs?q=1", "Googlebot", 1],
    ]


def test_cloudfront_realtime_logs_in_the_configured_order(analytics, site, served):
    stamp = f"{DAY.timestamp():.3f}"
    chosen = "timestamp,c-ip,sc-status,cs-host,cs-uri-stem,cs-user-agent"
    lines = [
        "\t".join([stamp, GPT_ADDRESS, "200", "crawled.example", "/a", GPTBOT.replace(" ", "%20")]),
        "\t".join([stamp, ELSEWHERE, "301", "crawled.example", "/b", CLAUDEBOT]),
    ]
    sent = send(analytics, site, "\n".join(lines), format="cloudfront-realtime", fields=chosen)
    assert sent.status == 200, sent.body
    assert sent.data["verification"] == {"spoofed": 1, "verified": 1}
    assert crawls(analytics, site, ["crawl:bot", "crawl:status"]) == [
        ["ClaudeBot", 301, 1],
        ["GPTBot", 200, 1],
    ]
    # the same lines read in CloudFront's default order are not its lines
    assert send(analytics, site, "\n".join(lines), format="cloudfront-realtime").status == 400
    refused = send(analytics, site, "x", format="cloudfront-realtime", fields="timestamp,nope")
    assert refused.status == 422
    assert "nope" in json.dumps(refused.body)


def test_json_lines(analytics, site, served):
    lines = [
        {"time": DAY.isoformat(), "path": "/j", "status": 200, "user_agent": GOOGLEBOT,
         "ip": REAL_GOOGLE},
        {"timestamp": DAY.timestamp(), "url": "https://crawled.example/k?x=1", "status": "200",
         "ua": CLAUDEBOT, "ip": ELSEWHERE},
        {"time": DAY.isoformat(), "host": "www.crawled.example", "path": "/l", "status": 500,
         "user_agent": AHREFS, "ip": ELSEWHERE},
        {"time": "yesterday", "path": "/m", "status": 200, "user_agent": AHREFS},
    ]  # fmt: skip
    sent = send(analytics, site, "\n".join(json.dumps(line) for line in lines))
    assert sent.status == 200, sent.body
    assert (sent.data["crawls"], sent.data["malformed"]) == (3, 1)
    assert crawls(analytics, site, ["event:page"]) == [["/j", 1], ["/k?x=1", 1], ["/l", 1]]


def test_a_common_log_names_no_crawler(analytics, site, served):
    stamp = DAY.strftime("%d/%b/%Y:%H:%M:%S +0000")
    sent = send(analytics, site, f'{REAL_GOOGLE} - - [{stamp}] "GET / HTTP/1.1" 200 12')
    assert sent.status == 200
    assert (sent.data["lines"], sent.data["humans"], sent.data["crawls"]) == (1, 1, 0)


def test_a_body_that_is_no_log_is_a_400(analytics, site, served):
    for body in ("<html>hello</html>\nsecond line", ""):
        refused = send(analytics, site, body)
        assert refused.status == 400, body
        assert refused.body["status"] == 400
    assert send(analytics, site, "just words", format="combined").status == 400
    assert send(analytics, site, b"\x1f\x8bnot gzip at all").status == 400
    as_form = analytics.request(
        "POST", f"/api/v1/websites/{site}/logs", body=MIXED.encode(),
        headers={"Content-Type": "multipart/form-data; boundary=x"},
    )  # fmt: skip
    assert as_form.status == 415


def test_bounds(analytics, site, served, monkeypatch):
    from sitelens.analytics.crawls import uploads

    monkeypatch.setattr(uploads, "MAX_LINES", 3)
    line = combined(ELSEWHERE, AHREFS, "/")
    assert send(analytics, site, "\n".join([line] * 4)).status == 422
    monkeypatch.setattr(uploads, "MAX_BODY_BYTES", 100)
    assert send(analytics, site, line).status == 413
    monkeypatch.setattr(uploads, "MAX_BODY_BYTES", 10_000)
    monkeypatch.setattr(uploads, "MAX_LINES", 100)
    monkeypatch.setattr(uploads, "MAX_TEXT_BYTES", 1_000)
    assert send(analytics, site, gzip.compress(("\n".join([line] * 10)).encode())).status == 413


def test_another_account_s_website_is_not_found(analytics, other_analytics, site, served):
    assert send(other_analytics, site, MIXED).status == 404
    assert send(analytics, 999_999, MIXED).status == 404
    answer = other_analytics.request(
        "POST", "/api/v1/query",
        json_body={"site_id": site, "metrics": ["crawls"], "date_range": "7d"},
    )  # fmt: skip
    assert answer.status == 404


def test_a_read_key_may_not_upload(analytics, site, served):
    key = analytics.post("/api/v1/keys", {"name": "reader", "access": "read"})
    assert key.status in (200, 201), key.body
    reader = type(analytics)("AnalyticsApi", key.data["key"])
    assert send(reader, site, MIXED).status == 403


def test_crawl_queries_refuse_what_they_cannot_answer(analytics, site, served):
    def ask(**body: Any) -> int:
        sent = {"site_id": site, "metrics": ["crawls"], "date_range": "7d", **body}
        return int(analytics.request("POST", "/api/v1/query", json_body=sent).status)

    assert ask(metrics=["crawls", "visitors"]) == 422
    assert ask(dimensions=["visit:source", "crawl:bot"]) == 422
    assert ask(filters=[["contains", "crawl:bot", ["G"]]]) == 422
    assert ask(dimensions=["crawl:bot"], include={"total_rows": True}) == 422
    assert ask(dimensions=["crawl:bot"]) == 200


def test_clickhouse_refuses_crawl_queries_with_a_400(analytics, site, served, monkeypatch):
    monkeypatch.setattr(warehouse, "dialect", lambda: "clickhouse")
    answer = analytics.request(
        "POST", "/api/v1/query",
        json_body={"site_id": site, "metrics": ["crawls"], "date_range": "7d"},
    )  # fmt: skip
    assert answer.status == 400
    assert "ClickHouse" in answer.body["message"]


def test_the_sam_local_invoke_event_uploads_two_crawls(served, aws_env):
    """events/logs-upload.json, as `sam local invoke` would deliver it to the function."""
    from sitelens import accounts
    from tests.integration.test_events import KEY, event, invoke

    account = accounts.create_account("Events")
    accounts.add_key(account, "events", key=KEY)
    status, _, body = invoke(event("websites-create"))
    assert status == 201, body
    status, _, body = invoke(event("logs-upload"))
    assert status == 200, body
    assert body["data"]["crawls"] == 2
    assert body["data"]["verification"] == {"verified": 2}
