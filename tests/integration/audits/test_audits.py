"""Audits through API Gateway events on moto: create, crawl (the queue drained through the
worker), the cross-page issues on a fixture site with known defects, pages, runs, CSV,
validation and isolation between accounts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import pairwise

import pytest
from botocore.exceptions import ClientError

from sitelens.audits import analysis, crawler
from sitelens.core import config
from sitelens.core.config import settings
from sitelens.data import audits as stored_audits
from sitelens.data import clients
from sitelens.data.clients import client
from tests.conftest import Client
from tests.integration.audits.site import EXPECTED, Site, page


@pytest.fixture(scope="module")
def audit_site() -> Iterator[Site]:
    served = Site()
    yield served
    served.close()


@pytest.fixture
def crawlable(monkeypatch):
    """Private addresses allowed (the fixture site is on 127.0.0.1), and no rate to wait for."""
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("SITELENS_AUDIT_RATE", "1000")
    config.reset()
    yield
    config.reset()


def drain(limit: int = 500, redeliver: bool = False) -> int:
    """Run the crawl's queued steps through the worker until none is left; steps run. A
    step that fails fails the test, or with `redeliver` is received again at once (as SQS
    does once its visibility timeout is over)."""
    sqs = client("sqs")
    url = settings().audit_queue_url
    done = 0
    while done < limit:
        answer = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["ApproximateReceiveCount"]
        )
        messages = answer.get("Messages") or []
        if not messages:
            return done
        records = [
            {"messageId": m["MessageId"], "body": m["Body"], "attributes": m["Attributes"]}
            for m in messages
        ]
        failed = crawler.handle(records)
        assert redeliver or failed == []
        for m in messages:
            if m["MessageId"] in failed:
                sqs.change_message_visibility(
                    QueueUrl=url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=0
                )
            else:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        done += len(messages)
    raise AssertionError("the crawl did not end")


def audit(seo, audit_site, **form):
    reply = seo.post(
        "/api/v1/audits", {"url": audit_site.url("/"), "exclude": "?utm_source=", **form}
    )
    assert reply.status == 201, reply.body
    return reply.data


@pytest.fixture
def crawled(seo, audit_site, crawlable):
    audit_site.requests.clear()
    created = audit(seo, audit_site)
    drain()
    return created


def paths(site, issue):
    return {page["url"].removeprefix(site.base) or "/" for page in issue["pages"]}


def test_create_answers_the_queued_audit(seo, audit_site, crawlable):
    created = audit(seo, audit_site)
    assert created["status"] == "queued" and created["run"] == 1
    assert created["max_pages"] == 500 and created["respect_robots"] == 1
    assert created["schedule"] == "none" and created["password"] is False
    assert seo.get(f"/api/v1/audits/{created['id']}").data["status"] == "queued"


def check_the_crawl_finds_every_planted_defect_and_nothing_else(seo, audit_site, crawled):
    found = seo.get(f"/api/v1/audits/{crawled['id']}/issues").data
    cross_page = {i["code"]: i for i in found if not i["code"].startswith("page_")}
    for code, expected in EXPECTED.items():
        got = paths(audit_site, cross_page[code]) if code in cross_page else set()
        assert got == expected, code
    assert set(cross_page) <= set(EXPECTED)
    for issue in found:
        assert issue["severity"] in ("high", "medium", "low") and issue["fix"]
        assert issue["learn_more"].startswith("https://")
        assert issue["count"] == len(issue["pages"])
    shown = seo.get(f"/api/v1/audits/{crawled['id']}").data
    assert shown["status"] == "done"
    assert 0 <= shown["score"] <= 100
    assert sum(shown["issues"].values()) == len(found)


def check_robots_txt_is_obeyed_under_the_crawler_s_own_agent(seo, audit_site, crawled):
    fetched = [path for path, _ in audit_site.requests]
    assert "/private" not in fetched
    assert all(agent.startswith(crawler.AGENT) for _, agent in audit_site.requests)
    blocked = seo.get(f"/api/v1/audits/{crawled['id']}/pages", query={"per_page": 100}).data
    assert [p["blocked"] for p in blocked if p["url"].endswith("/private")] == [True]


def check_urls_are_fetched_once_under_one_name(seo, audit_site, crawled):
    counted = [p for p, _ in audit_site.requests]
    for path in ("/", "/a", "/dup2", "/orphan", "/c", "/redirect2"):
        assert counted.count(path) == 1, path
    listed = seo.get(f"/api/v1/audits/{crawled['id']}/pages", query={"per_page": 100}).data
    urls = [page["url"] for page in listed]
    assert len(urls) == len(set(urls))
    assert not any("#" in url or "utm_source" in url for url in urls)


def check_pages_are_paged_and_filtered(seo, audit_site, crawled):
    path = f"/api/v1/audits/{crawled['id']}/pages"
    first = seo.get(path, query={"per_page": 10})
    assert len(first.data) == 10 and first.body["meta"]["next_cursor"]
    second = seo.get(path, query={"per_page": 10, "cursor": first.body["meta"]["next_cursor"]})
    assert {p["url"] for p in first.data}.isdisjoint(p["url"] for p in second.data)
    missing = seo.get(path, query={"status_code": 404, "per_page": 100}).data
    assert {p["url"].removeprefix(audit_site.base) for p in missing} == {"/broken"} | {
        p["url"].removeprefix(audit_site.base) for p in missing if "localhost" in p["url"]
    }
    dead = seo.get(path, query={"issue": "dead_end"}).data
    assert [p["url"] for p in dead] == [audit_site.url("/b")]
    at_zero = seo.get(path, query={"depth": 0}).data
    assert [p["url"] for p in at_zero] == [audit_site.url("/")]


def check_pages_and_issues_as_csv(seo, audit_site, crawled):
    pages = seo.get(f"/api/v1/audits/{crawled['id']}/pages", query={"format": "csv"})
    assert pages.status == 200 and pages.headers["Content-Type"].startswith("text/csv")
    assert pages.body.splitlines()[0].startswith("url,status_code,depth")
    issues = seo.get(f"/api/v1/audits/{crawled['id']}/issues", query={"format": "csv"})
    assert issues.status == 200 and "dead_end" in issues.body


def check_runs_list_the_finished_run(seo, audit_site, crawled):
    [run] = seo.get(f"/api/v1/audits/{crawled['id']}/runs").data
    assert run["run"] == 1 and run["status"] == "done" and run["pages"] > 20
    assert set(run["issues"]) == {"high", "medium", "low"}


def test_one_crawl_of_the_fixture_site(seo, audit_site, crawled):
    """One crawl (1.5 s) read every way a client reads it."""
    check_the_crawl_finds_every_planted_defect_and_nothing_else(seo, audit_site, crawled)
    check_robots_txt_is_obeyed_under_the_crawler_s_own_agent(seo, audit_site, crawled)
    check_urls_are_fetched_once_under_one_name(seo, audit_site, crawled)
    check_pages_are_paged_and_filtered(seo, audit_site, crawled)
    check_pages_and_issues_as_csv(seo, audit_site, crawled)
    check_runs_list_the_finished_run(seo, audit_site, crawled)


def test_max_pages_bounds_the_crawl(seo, audit_site, crawlable):
    created = audit(seo, audit_site, max_pages="3")
    drain()
    shown = seo.get(f"/api/v1/audits/{created['id']}").data
    assert shown["status"] == "done" and shown["progress"]["discovered"] == 3
    listed = seo.get(f"/api/v1/audits/{created['id']}/pages", query={"per_page": 100}).data
    assert len([p for p in listed if not p["external"]]) == 3


def test_delete_cancels_the_crawl(seo, audit_site, crawlable):
    audit_site.requests.clear()
    created = audit(seo, audit_site)
    reply = seo.delete(f"/api/v1/audits/{created['id']}")
    assert reply.body == {"id": created["id"], "object": "audit", "deleted": True, "status": 200}
    assert drain() == 1  # the start step, dropped
    assert audit_site.requests == []
    assert seo.get(f"/api/v1/audits/{created['id']}").status == 404


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("url", "ftp://example.com/"),
        ("max_pages", "0"),
        ("max_pages", "100001"),
        ("max_depth", "-1"),
        ("respect_robots", "2"),
        ("schedule", "hourly"),
        ("privacy", "3"),
        ("exclude", "no-slash"),
    ],
)
def test_invalid_fields_are_422_and_store_nothing(seo, field, value):
    form = {"url": "https://example.com/", field: value}
    reply = seo.post("/api/v1/audits", form)
    assert reply.status == 422 and field in reply.body["message"], reply.body
    assert seo.get("/api/v1/audits").data == []


def test_a_password_is_required_with_privacy_2_and_never_shown(seo):
    assert seo.post("/api/v1/audits", {"url": "https://e.com/", "privacy": "2"}).status == 422
    reply = seo.post(
        "/api/v1/audits", {"url": "https://e.com/", "privacy": "2", "password": "long enough"}
    )
    assert reply.status == 201 and reply.data["password"] is True
    assert "long enough" not in json.dumps(reply.body)


def test_other_accounts_audits_are_invisible(seo, other_seo):
    created = seo.post("/api/v1/audits", {"url": "https://example.com/"}).data
    base = f"/api/v1/audits/{created['id']}"
    for path in (base, f"{base}/pages", f"{base}/issues", f"{base}/runs"):
        assert other_seo.get(path).status == 404, path
    assert other_seo.delete(base).status == 404
    assert other_seo.post(f"{base}/runs").status == 404
    assert other_seo.get("/api/v1/audits").data == []
    assert seo.get(base).data["id"] == created["id"]


def test_list_and_unknown_ids(seo):
    for n in range(3):
        seo.post("/api/v1/audits", {"url": f"https://example.com/{n}"})
    listed = seo.get("/api/v1/audits", query={"per_page": 10, "sort": "asc"}).data
    assert [a["url"] for a in listed] == [f"https://example.com/{n}" for n in range(3)]
    assert seo.get("/api/v1/audits/999").status == 404
    assert seo.get("/api/v1/audits/abc").status == 404
    assert seo.get("/api/v1/audits/1/pages", query={"run": "2"}).status == 422
    assert seo.get("/api/v1/audits/1/pages", query={"cursor": "forged"}).status == 422


def test_a_second_run_says_what_changed(seo, audit_site, crawlable):
    created = audit(seo, audit_site)
    path = f"/api/v1/audits/{created['id']}/runs"
    assert seo.post(path).status == 409  # the first run has not finished
    drain()
    html = {"Content-Type": "text/html; charset=utf-8"}
    saved = dict(audit_site.pages)
    try:
        audit_site.pages["/b"] = (200, html, page("Dead end B", ["/"]))  # no dead end now
        audit_site.pages["/a"] = (200, html, page("Page A", ["/", "/deep1", "/missing"]))
        again = seo.post(path)
        assert again.status == 201 and again.data["run"] == 2, again.body
        drain()
    finally:
        audit_site.pages = saved
    second, first = seo.get(path).data
    assert first["run"] == 1 and first["diff"] is None and first["regression"] is False
    change = second["diff"]
    assert {i["code"] for i in change["fixed"]} == {"dead_end"}
    assert change["new"] == []
    [broken] = [i for i in change["persisting"] if i["code"] == "broken_internal_link"]
    assert broken["new_pages"] == 1 and broken["fixed_pages"] == 0  # /a now links to a 404
    # /missing answers 404: a URL crawled, not a page the site serves
    assert change["pages_added"] == 0 and change["pages_removed"] == 0
    assert change["score_delta"] == second["score"] - first["score"]
    assert second["regression"] is True  # new pages with a high-severity issue
    issues = seo.get(f"/api/v1/audits/{created['id']}/issues", query={"run": "1"}).data
    assert "dead_end" in {i["code"] for i in issues}
    assert seo.get(f"/api/v1/audits/{created['id']}").data["run"] == 2


def test_scheduled_audits_run_again_when_due(seo, audit_site, crawlable, monkeypatch):
    from datetime import UTC, datetime, timedelta

    from sitelens.audits import schedules
    from sitelens.core import clock

    daily = audit(seo, audit_site, schedule="daily", max_pages="2")
    unscheduled = audit(seo, audit_site, max_pages="2")
    drain()
    assert schedules.run_due() == 0  # nothing is due yet
    later = datetime.now(UTC) + timedelta(days=1, minutes=1)
    monkeypatch.setattr(clock, "now", lambda: later)
    assert schedules.run_due() == 1
    assert schedules.run_due() == 0  # started: due again a day later, not now
    assert seo.get(f"/api/v1/audits/{daily['id']}").data["run"] == 2
    assert seo.get(f"/api/v1/audits/{unscheduled['id']}").data["run"] == 1
    drain()
    runs = seo.get(f"/api/v1/audits/{daily['id']}/runs").data
    assert [run["status"] for run in runs] == ["done", "done"]


def test_the_schedule_event_replays(aws_env):
    from sitelens.local import gateway

    handler = gateway.load_module(
        gateway.ROOT / "functions" / "audits" / "schedule" / "app.py"
    ).handler
    event = json.loads((gateway.ROOT / "events" / "audits-schedule.json").read_text())
    assert handler(event, gateway.LambdaContext("AuditScheduleFunction")) == {"started": 0}


def test_crawl_delay_spaces_the_fetches(seo, audit_site, crawlable):
    robots = "User-agent: SitelensAudit\nCrawl-delay: 0.2\nDisallow: /private\n"
    saved = dict(audit_site.pages)
    audit_site.pages["/robots.txt"] = (200, {"Content-Type": "text/plain"}, robots)
    audit_site.times.clear()
    try:
        audit(seo, audit_site, max_pages="6")
        drain()
    finally:
        audit_site.pages = saved
    # the external links' host (localhost, the same server) is paced by its own robots.txt
    others = ("/robots.txt", "/llms.txt", "/gone", "/fine")  # read once at the start
    pages = [at for at, path in audit_site.times if path not in others and "sitemap" not in path]
    assert len(pages) >= 6
    gaps = [later - earlier for earlier, later in pairwise(pages)]
    assert min(gaps) >= 0.18, gaps  # 0.2 s apart, less the clocks' jitter


def test_an_analysis_that_failed_is_done_when_its_step_comes_again(
    seo, audit_site, crawlable, monkeypatch
):
    """A throttle (or a worker killed) midway through the analysis leaves the run analysing;
    the step's redelivery analyses it again, and the run is done once, with its issues."""
    save_issues = stored_audits.save_issues
    attempts: list[str] = []

    def throttled_once(crawl, issues, expires_at):
        attempts.append(crawl)
        if len(attempts) == 1:
            raise ClientError({"Error": {"Code": "ThrottlingException"}}, "BatchWriteItem")
        save_issues(crawl, issues, expires_at)

    monkeypatch.setattr(stored_audits, "save_issues", throttled_once)
    created = audit(seo, audit_site)
    drain(redeliver=True)
    assert len(attempts) == 2
    shown = seo.get(f"/api/v1/audits/{created['id']}").data
    assert shown["status"] == "done" and isinstance(shown["score"], int)
    found = seo.get(f"/api/v1/audits/{created['id']}/issues").data
    assert sum(shown["issues"].values()) == len(found) > 0
    assert [run["run"] for run in seo.get(f"/api/v1/audits/{created['id']}/runs").data] == [1]


def test_a_run_its_record_missed_is_kept_when_the_next_one_starts(
    seo, audit_site, crawlable, monkeypatch
):
    """A worker killed between a run's done state and its audit's record: the next run's
    start writes the run's summary into the record, so the audit's history keeps it."""
    with monkeypatch.context() as killed_between:
        killed_between.setattr(analysis, "_record_run", lambda state, summary: None)
        created = audit(seo, audit_site)
        drain()
    first = seo.get(f"/api/v1/audits/{created['id']}").data
    assert first["status"] == "done" and isinstance(first["score"], int)
    assert seo.post(f"/api/v1/audits/{created['id']}/runs").status == 201
    drain()
    runs = seo.get(f"/api/v1/audits/{created['id']}/runs").data
    assert [(run["run"], run["status"]) for run in runs] == [(2, "done"), (1, "done")]
    assert runs[1]["score"] == first["score"]


def test_a_run_that_lost_a_step_fails_after_90_minutes_and_the_next_one_starts(
    seo, account, audit_site, crawlable, monkeypatch
):
    """A step that failed its three deliveries waits in the dead-letter queue, and its run
    would stay `crawling` for ever: 90 minutes without a step ending, the run is shown
    failed, the next run starts, and a redrive of the lost step changes nothing."""
    from datetime import UTC, datetime, timedelta

    from sitelens.core import clock

    created = audit(seo, audit_site)
    path = f"/api/v1/audits/{created['id']}"
    sqs, queue = client("sqs"), settings().audit_queue_url
    [start] = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=1)["Messages"]
    assert crawler.handle([{"messageId": start["MessageId"], "body": start["Body"]}]) == []
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=start["ReceiptHandle"])
    lost = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    assert lost  # the start step queued the first fetches: all of them lost
    sqs.purge_queue(QueueUrl=queue)
    assert seo.get(path).data["status"] == "crawling"
    assert seo.post(f"{path}/runs").status == 409

    now = datetime.now(UTC)
    monkeypatch.setattr(clock, "now", lambda: now + timedelta(minutes=89))
    assert seo.get(path).data["status"] == "crawling"  # not yet
    monkeypatch.setattr(clock, "now", lambda: now + timedelta(minutes=91))
    shown = seo.get(path).data
    assert shown["status"] == "failed" and shown["score"] is None
    assert [r["status"] for r in seo.get(f"{path}/runs").data] == ["failed"]
    shared = Client("SeoApi", None).get(f"/share/audits/{created['share_id']}").body
    assert "The first run of this audit failed (" in shared

    again = seo.post(f"{path}/runs")
    assert again.status == 201 and again.data["run"] == 2, again.body
    first_run = stored_audits.crawl_key(account.id, created["id"], 1)
    assert stored_audits.state(first_run)["status"] == "failed"
    redriven = [{"messageId": m["MessageId"], "body": m["Body"]} for m in lost]
    assert crawler.handle(redriven) == []  # dropped: its run has failed
    assert stored_audits.state(first_run)["status"] == "failed"
    monkeypatch.setattr(clock, "now", lambda: datetime.now(UTC))
    drain()
    runs = seo.get(f"{path}/runs").data
    assert [(r["run"], r["status"]) for r in runs] == [(2, "done"), (1, "failed")]
    assert runs[1]["score"] is None and runs[1]["finished_at"] is None
    assert runs[0]["diff"] is None  # the run before did not finish: nothing to compare
    shown = seo.get(path).data
    assert shown["status"] == "done" and shown["score"] == runs[0]["score"]


def test_a_run_whose_start_could_not_be_queued_is_failed_at_once(
    seo, audit_site, crawlable, monkeypatch
):
    """SQS refused the start step: the answer is an error, the run is failed rather than
    queued for ever, and the next run starts as soon as it is asked for."""
    created = audit(seo, audit_site)
    drain()
    path = f"/api/v1/audits/{created['id']}"

    def refused(messages):
        raise ClientError({"Error": {"Code": "ServiceUnavailable"}}, "SendMessageBatch")

    with monkeypatch.context() as down:
        down.setattr(stored_audits, "send", refused)
        assert seo.post(f"{path}/runs").status >= 500
    assert seo.get(path).data["status"] == "failed"
    assert seo.get(path).data["run"] == 2
    again = seo.post(f"{path}/runs")
    assert again.status == 201 and again.data["run"] == 3, again.body
    drain()
    runs = seo.get(f"{path}/runs").data
    assert [(r["run"], r["status"]) for r in runs] == [(3, "done"), (2, "failed"), (1, "done")]


def test_a_start_that_stopped_half_way_seeds_again_when_its_step_comes_again(
    crawl_backend, seo, account, audit_site, crawlable, monkeypatch
):
    """A throttle that outlasts the retries after the start moved its run to crawling (its
    seeds claimed, none queued): the step's redelivery queues them, the crawl ends with
    every page and defect, the start counts once, and a late copy of it changes nothing."""
    created = audit(seo, audit_site)
    send = stored_audits.send
    sends: list[list[dict]] = []

    def throttled_once(messages):
        sends.append(messages)
        if len(sends) == 1:
            raise ClientError({"Error": {"Code": "ThrottlingException"}}, "SendMessageBatch")
        send(messages)

    monkeypatch.setattr(stored_audits, "send", throttled_once)
    drain(redeliver=True)
    seeds = sends[0]
    assert seeds and {m["kind"] for m in seeds} == {"fetch"}  # the start's, refused
    assert [m["url"] for m in sends[1]] == [m["url"] for m in seeds]  # queued when it came again
    check_the_crawl_finds_every_planted_defect_and_nothing_else(seo, audit_site, created)

    crawl = stored_audits.crawl_key(account.id, created["id"], 1)
    state = stored_audits.state(crawl)
    pages = [p for p in stored_audits.every_page(crawl) if not p.get("external")]
    assert all(p["state"] == "fetched" for p in pages)
    assert (state["pending"], state["fetched"], "seeding" in state) == (0, len(pages), False)
    copy = {"messageId": "late-copy", "body": json.dumps({"kind": "start", "crawl": crawl})}
    assert crawler.handle([copy]) == []
    assert drain() == 0  # it queued nothing
    assert stored_audits.state(crawl) == state


def failing_once(monkeypatch, module, name, when, nth=1):
    """`module.name` raising a throttle on the `nth` call for which `when(*args)` holds;
    the calls made, in order."""
    real = getattr(module, name)
    calls: list[tuple] = []
    matching: list[tuple] = []

    def once(*args):
        calls.append(args)
        if when(*args):
            matching.append(args)
            if len(matching) == nth:
                raise ClientError({"Error": {"Code": "ThrottlingException"}}, name)
        return real(*args)

    monkeypatch.setattr(module, name, once)
    return calls


@pytest.fixture(params=["moto", "dynamodb-local"])
def crawl_backend(request, aws_env, monkeypatch):
    """The tables on moto, or on the session's DynamoDB Local (SQS stays moto's), where a
    batch's transaction runs as DynamoDB runs it (one operation an item, conflicts)."""
    if request.param == "dynamodb-local":
        import uuid

        import boto3

        from sitelens.local import resources
        from tests.conftest import TEMPLATE

        local = boto3.client(
            "dynamodb", endpoint_url=request.getfixturevalue("dynamodb_local_endpoint")
        )
        names = resources.create_tables(TEMPLATE, local, suffix=f"-{uuid.uuid4().hex[:12]}")
        for key, value in resources.table_environment(TEMPLATE, names).items():
            monkeypatch.setenv(key, value)
        config.reset()
        clients.use("dynamodb", local)
    return request.param


def counted_once(seo, account, audit_site, created):
    """The crawl as one without the fault: every defect, each page fetched and counted
    once in the run's state, nothing pending."""
    check_the_crawl_finds_every_planted_defect_and_nothing_else(seo, audit_site, created)
    crawl = stored_audits.crawl_key(account.id, created["id"], 1)
    state = stored_audits.state(crawl)
    pages = [p for p in stored_audits.every_page(crawl) if not p.get("external")]
    assert pages and all(p["state"] == "fetched" for p in pages)
    assert (state["pending"], state["fetched"], state["discovered"]) == (0, len(pages), len(pages))
    return state


def test_a_fetch_whose_links_could_not_be_queued_comes_again_and_counts_once(
    crawl_backend, seo, account, audit_site, crawlable, monkeypatch
):
    """Queueing a batch's links throttled past the retries, after they were claimed: the
    batch's steps come again, queue the links they had claimed, and each page counts once
    (they were stored first, so their steps never counted, and the run never ended)."""
    created = audit(seo, audit_site)
    fetches = lambda messages: any(m["kind"] == "fetch" for m in messages)  # noqa: E731
    sends = failing_once(monkeypatch, stored_audits, "send", fetches, nth=2)  # 1: the start's
    drain(redeliver=True)
    batches = [{m["url"]: m for m in messages} for (messages,) in sends if fetches(messages)]
    refused = batches[1]  # the first fetch batch's links
    again = [later for later in batches[2:] if set(later) >= set(refused)]
    assert again and all(m["again"] for m in again[0].values())  # queued when it came again
    counted_once(seo, account, audit_site, created)


def test_a_fetch_whose_pages_could_not_be_stored_comes_again_and_counts_once(
    crawl_backend, seo, account, audit_site, crawlable, monkeypatch
):
    """The transaction that stores a batch's pages and counts its steps throttled past the
    retries: the steps come again, their links (claimed the first time) are queued again,
    and each page counts once."""
    from sitelens.data import frontier

    created = audit(seo, audit_site)
    calls = failing_once(monkeypatch, frontier, "finish_pages", lambda crawl, found: bool(found))
    drain(redeliver=True)
    assert len(calls) >= 2
    counted_once(seo, account, audit_site, created)


def test_the_last_fetch_whose_analysis_could_not_be_queued_queues_it_when_it_comes_again(
    crawl_backend, seo, account, audit_site, crawlable, monkeypatch
):
    """The last batch's pages stored and counted, then queueing the analysis throttled: the
    batch comes again, finds its pages fetched, fetches nothing and queues the analysis."""
    created = audit(seo, audit_site)
    analyse = lambda messages: [m["kind"] for m in messages] == ["analyse"]  # noqa: E731
    sends = failing_once(monkeypatch, stored_audits, "send", analyse)
    audit_site.requests.clear()
    drain(redeliver=True)
    assert [m["kind"] for (messages,) in sends if analyse(messages) for m in messages] == [
        "analyse",
        "analyse",
    ]
    counted_once(seo, account, audit_site, created)
