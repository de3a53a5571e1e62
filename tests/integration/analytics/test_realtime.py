"""GET /api/v1/stats/{id}/realtime: visitors of the last five minutes, with the pages they
are on and where their visits came from, written by the event function as it accepts each
hit: never waiting for the aggregator, whatever its batching window.

The window is `HitsBatchingWindowSeconds` (the cheap profiles set 300). Tests parametrized
on it run the aggregator at once for 0 and not at all for 300: every hit here was sent
under a minute ago, so no 300 s batch would have closed yet.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from sitelens.core import clock
from sitelens.core.config import settings
from sitelens.data import clients
from tests.fixtures.analytics import receive, redelivered, run

CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
WINDOWS = [0, 300]  # HitsBatchingWindowSeconds: the default's fastest, the lean profile's


def send(analytics: Any, monkeypatch: pytest.MonkeyPatch, ip: str, ago: int, **form: Any):
    moment = datetime.now(UTC) - timedelta(seconds=ago)
    monkeypatch.setattr(clock, "now", lambda: moment)
    reply = analytics.request(
        "POST", "/api/event", form=form, key=None, headers={"User-Agent": CHROME}, source_ip=ip
    )
    assert reply.status == 202, reply.body
    return reply


def batch_window_closes(window: int) -> list[dict[str, Any]]:
    """What the aggregator's trigger does with the hits waiting now: for a window of 0 it
    counts them at once (their records); for 300 none is due yet, and they keep waiting."""
    waiting = receive("HitsQueue")
    assert waiting, "the hits are queued for the aggregator"
    if window:
        return []
    assert run("HitsQueue", waiting) == {"batchItemFailures": []}
    return waiting


def realtime(analytics: Any, site: dict[str, Any]) -> dict[str, Any]:
    reply = analytics.get(f"/api/v1/stats/{site['id']}/realtime")
    assert reply.status == 200, reply.body
    data: dict[str, Any] = reply.data
    return data


def presence_items(site: dict[str, Any]) -> list[dict[str, Any]]:
    answer = boto3.client("dynamodb").query(
        TableName=settings().stats_table,
        KeyConditionExpression="series = :series",
        ExpressionAttributeValues={":series": {"S": f"live#{site['id']}"}},
    )
    return list(answer["Items"])


class PresenceWrites:
    """The DynamoDB client, with each write of a presence (`live#` item) kept; `refuse`
    makes those writes fail as a throttled DynamoDB fails them."""

    def __init__(self, real: Any, refuse: bool = False) -> None:
        self.real = real
        self.refuse = refuse
        self.writes: list[dict[str, Any]] = []

    def __getattr__(self, name: str) -> Any:
        call = getattr(self.real, name)
        if name not in ("update_item", "put_item", "delete_item"):
            return call

        def write(**request: Any) -> Any:
            key = request.get("Key") or request.get("Item") or {}
            if key.get("series", {}).get("S", "").startswith("live#"):
                self.writes.append(request)
                if self.refuse:
                    error = {"Code": "ProvisionedThroughputExceededException", "Message": "slow"}
                    raise ClientError({"Error": error}, name)
            return call(**request)

        return write


@contextmanager
def presence_writes(refuse: bool = False) -> Iterator[PresenceWrites]:
    before = clients.client("dynamodb")
    watched = PresenceWrites(before, refuse)
    clients.use("dynamodb", watched)
    try:
        yield watched
    finally:
        clients.use("dynamodb", before)


@pytest.mark.parametrize("window", WINDOWS)
def test_visitors_pages_and_sources_now(analytics, monkeypatch, window):
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    page = "https://shop.example"
    # one visitor from Google, on /pricing now (it landed on / a minute ago)
    send(
        analytics,
        monkeypatch,
        "198.51.100.1",
        70,
        page=f"{page}/",
        referrer="https://www.google.com/",
    )
    send(analytics, monkeypatch, "198.51.100.1", 5, page=f"{page}/pricing", referrer=f"{page}/")
    # two visitors typing the address, on /
    send(analytics, monkeypatch, "198.51.100.2", 30, page=f"{page}/")
    send(analytics, monkeypatch, "198.51.100.3", 10, page=f"{page}/")
    # one who left ten minutes ago is not here now
    send(analytics, monkeypatch, "198.51.100.4", 600, page=f"{page}/gone", referrer="https://t.co/")
    batch_window_closes(window)
    monkeypatch.undo()
    assert realtime(analytics, site) == {
        "visitors": 3,
        "pages": [{"value": "/", "count": 2}, {"value": "/pricing", "count": 1}],
        "sources": [{"value": "Direct / None", "count": 2}, {"value": "Google", "count": 1}],
    }


@pytest.mark.parametrize("window", WINDOWS)
def test_a_visitor_shows_as_soon_as_its_hit_is_accepted(analytics, monkeypatch, window):
    """The lean profile's probe: a hit sent now is in "visitors now" on the next read, with
    its batch still waiting (300) or counted (0)."""
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    assert realtime(analytics, site)["visitors"] == 0
    send(analytics, monkeypatch, "198.51.100.7", 0, page="https://shop.example/now")
    monkeypatch.undo()
    assert realtime(analytics, site) == {
        "visitors": 1,
        "pages": [{"value": "/now", "count": 1}],
        "sources": [{"value": "Direct / None", "count": 1}],
    }
    counted = batch_window_closes(window)
    stats = analytics.get(f"/api/v1/stats/{site['id']}", query={"name": "pageviews"}).data
    assert sum(day["count"] for day in stats) == (0 if window else 1)
    assert len(counted) == (0 if window else 1)
    assert realtime(analytics, site)["visitors"] == 1


@pytest.mark.parametrize("window", WINDOWS)
def test_a_duplicate_or_redelivered_hit_adds_no_presence(analytics, monkeypatch, window):
    """The same hit sent twice writes the same item (per site, minute and visitor digest),
    and the aggregator, even given the batch again, writes no presence at all."""
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    moment = datetime.now(UTC).replace(second=1, microsecond=0)
    if moment > datetime.now(UTC):
        moment -= timedelta(minutes=1)
    ago = int((datetime.now(UTC) - moment).total_seconds())
    with presence_writes() as watched:
        for _ in range(2):
            send(analytics, monkeypatch, "198.51.100.9", ago, page="https://shop.example/a")
    assert len(watched.writes) == 2
    stored = presence_items(site)
    assert len(stored) == 1
    # only the day's salted digest of the visitor, no address, agent or hit id
    (item,) = stored
    assert set(item) == {"series", "slot", "at", "page", "source", "expires_at"}
    minute, visitor = item["slot"]["S"].split("#")
    assert int(minute) == int(moment.timestamp()) // 60 and len(visitor) == 32
    assert "198.51.100.9" not in json.dumps(item) and "Chrome" not in json.dumps(item)
    with presence_writes() as watched:
        counted = batch_window_closes(window)
        if counted:  # SQS delivering the batch again (counted or retried: no matter here)
            run("HitsQueue", redelivered(counted))
    assert watched.writes == []  # the aggregator leaves presences to the event function
    assert presence_items(site) == stored
    monkeypatch.undo()
    assert realtime(analytics, site)["visitors"] == 1


@pytest.mark.parametrize("landing", ["first", "last"])
def test_a_visit_keeps_its_source_whichever_of_its_minute_s_hits_is_written_last(
    analytics, monkeypatch, landing
):
    """Two containers may take a visitor's landing and next page of the same minute and
    write them in either order: the visitor is on the next page, and the visit still came
    from Google."""
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    page = "https://shop.example"
    minute = (int(time.time()) // 60 - 2) * 60  # a whole minute, two minutes ago

    def ago(second: int) -> int:
        return int(time.time()) - (minute + second)

    def land() -> None:
        google = "https://www.google.com/"
        send(analytics, monkeypatch, "198.51.100.1", ago(5), page=f"{page}/", referrer=google)

    def next_page() -> None:
        send(analytics, monkeypatch, "198.51.100.1", ago(40), page=f"{page}/a", referrer=page)

    for write in (land, next_page) if landing == "first" else (next_page, land):
        write()
    monkeypatch.undo()
    assert realtime(analytics, site) == {
        "visitors": 1,
        "pages": [{"value": "/a", "count": 1}],
        "sources": [{"value": "Google", "count": 1}],
    }


def test_the_writes_a_hit_costs(analytics, monkeypatch):
    """What realtime adds to the event path, per hit: one UpdateItem for a pageview or a
    custom event; none for an engagement or an excluded hit; two only for a landing written
    after a later page of its minute (the source put beside that page)."""
    site = analytics.post("/api/v1/websites", {"domain": "shop.example", "exclude_bots": 1})
    assert site.status == 201, site.body
    page = "https://shop.example"
    minute = (int(time.time()) // 60 - 2) * 60  # every hit in one whole minute

    def at(second: int, **form: str) -> Any:
        ago = int(time.time()) - (minute + second)
        return lambda: send(analytics, monkeypatch, "198.51.100.5", ago, **form)

    kinds = {
        "pageview": at(30, page=f"{page}/a"),
        "custom event": at(31, page=f"{page}/a", **{"event[name]": "Signup"}),
        "engagement": at(32, page=f"{page}/a", engagement_ms="1500"),
        "landing written after a later page": at(10, page=f"{page}/", referrer="https://bing.com/"),
    }
    writes = {}
    for kind, hit in kinds.items():
        with presence_writes() as watched:
            hit()
        writes[kind] = len(watched.writes)
    with presence_writes() as watched:
        bot = analytics.request(
            "POST", "/api/event", form={"page": page}, key=None, headers={"User-Agent": "curl/8"}
        )
    assert bot.status == 403
    writes["excluded"] = len(watched.writes)
    assert writes == {
        "pageview": 1,
        "custom event": 1,
        "engagement": 0,
        "landing written after a later page": 2,
        "excluded": 0,
    }
    monkeypatch.undo()
    assert len(presence_items(site.data)) == 1


def test_a_presence_not_stored_loses_no_hit(analytics, monkeypatch, capsys):
    """DynamoDB refusing the presence: the hit is still accepted and queued (it will be
    counted), and the loss is the PresencesFailed metric, which has an alarm."""
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    with presence_writes(refuse=True) as watched:
        send(analytics, monkeypatch, "198.51.100.6", 0, page="https://shop.example/")
    assert len(watched.writes) == 1
    assert len(receive("HitsQueue")) == 1
    emitted = [json.loads(line) for line in capsys.readouterr().out.splitlines() if "_aws" in line]
    assert sum(sum(line.get("PresencesFailed", [])) for line in emitted) == 1
    assert sum(sum(line.get("PipelineFaults", [])) for line in emitted) == 1  # alarmed
    monkeypatch.undo()
    assert realtime(analytics, site)["visitors"] == 0


def test_another_account_s_website_is_404(analytics, other_analytics):
    theirs = other_analytics.post("/api/v1/websites", {"domain": "theirs.example"}).data
    reply = analytics.get(f"/api/v1/stats/{theirs['id']}/realtime")
    assert reply.body == {"message": "Resource not found.", "status": 404}
    assert analytics.get("/api/v1/stats/999/realtime").status == 404
    assert analytics.get(f"/api/v1/stats/{theirs['id']}/realtime", key=None).status == 401


@pytest.mark.parametrize("apart", [20, 80])  # seconds: in one minute, and in two
def test_a_direct_visit_after_a_referred_one_shows_direct(analytics, monkeypatch, apart):
    """A page without a referrer starts a new, direct visit: the visitor's source is its
    latest visit's, whether its two landings fall in one minute or in two."""
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    page = "https://shop.example"
    minute = (int(time.time()) // 60 - 3) * 60  # the first landing opens a whole minute

    def ago(second: int) -> int:
        return int(time.time()) - (minute + second)

    google = "https://www.google.com/"
    send(analytics, monkeypatch, "198.51.100.1", ago(1), page=f"{page}/", referrer=google)
    send(analytics, monkeypatch, "198.51.100.1", ago(1 + apart), page=f"{page}/b", referrer="")
    monkeypatch.undo()
    assert realtime(analytics, site)["sources"] == [{"value": "Direct / None", "count": 1}]
