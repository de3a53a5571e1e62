"""Traffic alerts end to end on moto: the aggregator notes the websites with traffic, the
hourly function judges each one's last hour against its hourly counters, and a spike or a
drop goes once per episode to the endpoints subscribed to traffic.* (signed, through the
queue's function) and by email to the account; a website's `traffic_alerts` setting
changes the threshold or turns alerts off, and bad values are 422."""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from email import message_from_bytes

import pytest
from standardwebhooks import Webhook

from sitelens import accounts
from sitelens.analytics import aggregation
from sitelens.analytics.hit import Hit
from sitelens.core import config
from sitelens.data import traffic
from sitelens.data.clients import client
from sitelens.local import gateway
from sitelens.webhooks import anomalies
from sitelens.webhooks import traffic as alerts
from tests.fixtures.analytics import hit_record, run
from tests.integration.webhooks.test_webhooks import deliver_queued, make

NOW = datetime(2026, 11, 26, 14, 20, tzinfo=UTC)  # judges 13:00-14:00
HOUR = datetime(2026, 11, 26, 13, tzinfo=UTC)


@pytest.fixture
def outbox(monkeypatch, tmp_path, analytics):
    monkeypatch.setenv("SITELENS_MAIL_OUTBOX", str(tmp_path))
    config.reset()
    account = accounts.get_account(str(analytics.get("/api/v1/account").data["id"]))
    accounts.set_contact(account, "ops@agency.example")
    return tmp_path


def set_hour(website_id: int, hour: datetime, pageviews: int) -> None:
    client("dynamodb").put_item(
        TableName=config.settings().stats_table,
        Item={
            "series": {"S": f"{website_id}#pageviews_hour"},
            "slot": {"S": f"{hour.date().isoformat()}#{hour.strftime('%H')}"},
            "count": {"N": str(pageviews)},
        },
    )


def with_history(website_id: int, hour: datetime, usual: int = 100) -> None:
    """The same hour of the eight weeks before at about `usual` pageviews."""
    for week, jitter in zip(range(1, anomalies.WEEKS + 1), (3, -5, 8, 0, -2, 6, -4, 1)):
        set_hour(website_id, hour - timedelta(weeks=week), usual + jitter)


def new_website(analytics, **fields) -> dict:
    reply = analytics.post("/api/v1/websites", {"domain": "shop.example", **fields})
    assert reply.status == 201, reply.body
    return reply.data


def run_pass(now: datetime = NOW) -> dict:
    return asdict(alerts.run(now))


def mails(folder) -> list:
    return [message_from_bytes(p.read_bytes()) for p in sorted(folder.glob("*.eml"))]


def test_the_aggregator_notes_websites_with_traffic(analytics, account):
    website = new_website(analytics)
    aggregation._noted.clear()
    hit = Hit(website_id=website["id"], at=datetime.now(UTC), page="/", visit=True)
    assert run("HitsQueue", [hit_record(hit, account.id, 1)]) == {"batchItemFailures": []}
    today = datetime.now(UTC).date().isoformat()
    found, after = traffic.active(today, None, 100)
    assert found == [(account.id, website["id"])] and after is None


def test_a_spike_alerts_once_per_episode_by_webhook_and_email(analytics, account, receiver, outbox):
    website = new_website(analytics)
    assert website["traffic_alerts"] == anomalies.DEFAULT_THRESHOLD
    endpoint = make(analytics, receiver.url(), events="traffic.spike,traffic.drop")
    traffic.note_active(NOW.date().isoformat(), [(account.id, website["id"])], 2**31)
    with_history(website["id"], HOUR)
    set_hour(website["id"], HOUR, 450)

    assert run_pass()["alerts"] == {"spike": 1}
    assert run_pass()["alerts"] == {}  # the same hour again: judged already
    deliver_queued()
    [got] = receiver.received
    payload = Webhook(endpoint["secret"]).verify(got.body, got.headers)
    assert payload["type"] == "traffic.spike"
    assert payload["data"]["website_id"] == website["id"]
    assert payload["data"]["pageviews"] == 450 and 95 < payload["data"]["baseline"] < 105
    [mail] = mails(outbox)
    assert mail["To"] == "ops@agency.example" and "spike" in mail["Subject"]

    # the next hour still spikes: the same episode, no second alert
    later = HOUR + timedelta(hours=1)
    with_history(website["id"], later)
    set_hour(website["id"], later, 500)
    assert run_pass(NOW + timedelta(hours=1))["alerts"] == {}
    # three normal hours end it; the next spike is a new episode
    for n in range(2, 5):
        hour = HOUR + timedelta(hours=n)
        with_history(website["id"], hour)
        set_hour(website["id"], hour, 100)
        assert run_pass(NOW + timedelta(hours=n))["alerts"] == {}
    hour = HOUR + timedelta(hours=5)
    with_history(website["id"], hour)
    set_hour(website["id"], hour, 9)
    assert run_pass(NOW + timedelta(hours=5))["alerts"] == {"drop": 1}
    deliver_queued()
    assert [json.loads(r.body)["type"] for r in receiver.received] == [
        "traffic.spike",
        "traffic.drop",
    ]
    assert len(mails(outbox)) == 2


def test_the_websites_setting_sets_the_threshold_or_turns_alerts_off(analytics, account):
    website = new_website(analytics, traffic_alerts=5)
    assert website["traffic_alerts"] == 5
    traffic.note_active(NOW.date().isoformat(), [(account.id, website["id"])], 2**31)
    with_history(website["id"], HOUR)
    set_hour(website["id"], HOUR, 450)  # 4.5 times: under this website's threshold
    assert run_pass()["alerts"] == {}

    for bad in ("1", "21", "x", "-1", "3.5"):
        reply = analytics.put(f"/api/v1/websites/{website['id']}", {"traffic_alerts": bad})
        assert reply.status == 422, bad
        assert reply.body["message"] == {
            "traffic_alerts": [
                "The traffic alerts field must be one of: 0, "
                + ", ".join(map(str, range(2, 21)))
                + "."
            ]
        }
    assert analytics.get(f"/api/v1/websites/{website['id']}").data["traffic_alerts"] == 5
    reply = analytics.put(f"/api/v1/websites/{website['id']}", {"traffic_alerts": "0"})
    assert reply.status == 200 and reply.data["traffic_alerts"] == 0
    later = HOUR + timedelta(hours=1)
    with_history(website["id"], later)
    set_hour(website["id"], later, 5000)
    assert run_pass(NOW + timedelta(hours=1)) == {
        "judged": 0,
        "alerts": {},
        "skipped": 1,
        "left_over": 0,
    }


def test_a_new_website_without_history_and_another_accounts_are_not_judged(
    analytics, other_analytics, account, other_account
):
    website = new_website(analytics)
    other = other_analytics.post("/api/v1/websites", {"domain": "other.example"}).data
    # the other account's website noted under this account: read as this account's, 404
    traffic.note_active(
        NOW.date().isoformat(), [(account.id, website["id"]), (account.id, other["id"])], 2**31
    )
    set_hour(website["id"], HOUR, 5000)
    set_hour(other["id"], HOUR, 5000)
    with_history(other["id"], HOUR)
    assert run_pass() == {"judged": 1, "alerts": {}, "skipped": 1, "left_over": 0}


def test_the_scheduled_function_runs_a_pass(aws_env):
    module = gateway.load_module(gateway.ROOT / "functions/alerts/traffic/app.py")
    answer = module.handler({}, gateway.LambdaContext("traffic-test"))
    assert answer == {"judged": 0, "alerts": {}, "skipped": 0, "left_over": 0}
