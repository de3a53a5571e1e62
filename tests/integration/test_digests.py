"""Email digests: one per account and period, with each website's figures (the query API's)
against the period before, text and HTML, links that stop them without a key. Planned
daily (one message per account on the digest queue, missed and failed ones again the next
day), sent once per period by the sender however often a plan runs or a message comes;
a failed send is retried, never lost; the CLI."""

from __future__ import annotations

import html
import json
import re
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import boto3
import pytest

from sitelens import accounts, cli, digests
from sitelens.analytics.hits import Hit
from sitelens.core import config, metrics
from sitelens.data import clients, mail, queues
from sitelens.digests import claims, composing, planning
from sitelens.local import gateway, openapi, sqs, template, worker
from tests.fixtures.analytics import hit_record, run
from tests.fixtures.local_warehouse import local_warehouse  # noqa: F401

MONDAY = date(2026, 11, 23)  # digests of the week of 16 to 22 November (the 9th to 15th before)
TEMPLATE = template.load()
RESOURCES = TEMPLATE["Resources"]
SENDER = RESOURCES["TasksFunction"]["Properties"]
[SENDER_EVENT] = SENDER["Events"].values()
QUEUE = SENDER_EVENT["Properties"]["Queue"]["Fn::GetAtt"][0]
# SQS moves a message received this many times to the dead-letter queue
MAX_RECEIVES = RESOURCES[QUEUE]["Properties"]["RedrivePolicy"]["maxReceiveCount"]


def handler(code_uri: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    module = gateway.load_module(gateway.ROOT / code_uri / "app.py")
    return lambda event: module.handler(event, gateway.LambdaContext(code_uri))


@dataclass
class DigestQueue:
    """The digest queue (make serve's SQS, in process), read as Lambda's event source
    mapping reads it: batches of the template's BatchSize to the sender; a message it
    reports failed comes back (at once, not after its visibility timeout: sent again,
    its receives counted) and goes to `dead` (the dead-letter queue) after the template's
    maxReceiveCount."""

    client: Any
    url: str
    dead: list[str] = field(default_factory=list)

    def depth(self) -> int:
        answer = self.client.get_queue_attributes(QueueUrl=self.url, AttributeNames=["All"])
        return int(answer["Attributes"]["ApproximateNumberOfMessages"])

    def bodies(self) -> list[dict[str, str]]:
        """The first waiting messages' bodies (they stay in the queue)."""
        messages = self._receive(10)
        for message in messages:
            self.put(json.loads(message["Body"]))
        self._delete(messages)
        return [json.loads(m["Body"]) for m in messages]

    def _receive(self, limit: int) -> list[dict[str, Any]]:
        answer = self.client.receive_message(
            QueueUrl=self.url, MaxNumberOfMessages=min(10, limit), MessageAttributeNames=["All"]
        )
        messages: list[dict[str, Any]] = answer["Messages"]
        return messages

    def put(self, body: dict[str, str], receives: int = 0) -> None:
        """A message as the planner sends it (or a duplicate, a redrive)."""
        self.client.send_message(
            QueueUrl=self.url,
            MessageBody=json.dumps(body),
            MessageAttributes={"receives": {"DataType": "Number", "StringValue": str(receives)}},
        )

    def drain(self, senders: int = 1) -> int:
        """Deliver until the queue is empty, to this many senders at once (the event
        source's MaximumConcurrency); how many deliveries there were."""
        total = 0
        with ThreadPoolExecutor(senders) as pool:
            # a message one sender gave back as the others finished comes round again
            while delivered := sum(pool.map(self._deliver_all, range(senders))):
                total += delivered
        return total

    def _deliver_all(self, _: int) -> int:
        send = handler(SENDER["CodeUri"])
        batch = int(SENDER_EVENT["Properties"]["BatchSize"])
        deliveries = 0
        while messages := self._receive(batch):
            deliveries += len(messages)
            event = {"Records": [queues.lambda_record(m, QUEUE) for m in messages]}
            failed = {f["itemIdentifier"] for f in send(event)["batchItemFailures"]}
            for message in messages:
                if message["MessageId"] not in failed:
                    continue
                before = (message.get("MessageAttributes") or {}).get("receives")
                receives = int(before["StringValue"] if before else 0) + 1
                if receives < MAX_RECEIVES:
                    self.put(json.loads(message["Body"]), receives)
                else:
                    self.dead.append(message["Body"])
            self._delete(messages)
        return deliveries

    def _delete(self, messages: list[dict[str, Any]]) -> None:
        if messages:
            self.client.delete_message_batch(
                QueueUrl=self.url,
                Entries=[
                    {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]}
                    for n, m in enumerate(messages)
                ],
            )


def digest_queue(monkeypatch: pytest.MonkeyPatch) -> DigestQueue:
    client = sqs.InProcessClient(sqs.Broker("http://sqs.test"))
    url = client.create_queue(QueueName=QUEUE)["QueueUrl"]
    monkeypatch.setenv("SITELENS_TASK_QUEUE_URL", url)
    config.reset()
    clients.use("sqs", client)
    return DigestQueue(client, url)


@pytest.fixture
def queue(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> DigestQueue:
    """The digest queue, beside moto's tables."""
    return digest_queue(monkeypatch)


@pytest.fixture
def outbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "outbox"
    monkeypatch.setenv("SITELENS_MAIL_OUTBOX", str(folder))
    monkeypatch.setenv("SITELENS_ANALYTICS_BASE_URL", "https://api.test")
    config.reset()
    return folder


def at(monkeypatch: pytest.MonkeyPatch, moment: datetime) -> None:
    monkeypatch.setattr("sitelens.core.clock.now", lambda: moment)


def plan(monkeypatch: pytest.MonkeyPatch, day: date, hour: int = 6) -> dict[str, Any]:
    """The Scheduler's run of the planner on `day` (events/digests-plan.json)."""
    at(monkeypatch, datetime(day.year, day.month, day.day, hour, 0, 5, tzinfo=UTC))
    event = json.loads((gateway.ROOT / "events" / "digests-plan.json").read_text())
    return handler(RESOURCES["DigestFunction"]["Properties"]["CodeUri"])(event)


def run_day(monkeypatch: pytest.MonkeyPatch, queue: DigestQueue, day: date) -> dict[str, Any]:
    """A day of digests: the plan, then its messages through the sender."""
    planned = plan(monkeypatch, day)
    queue.drain()
    return planned


def counted(out: str) -> Counter[str]:
    """What the handlers flushed to stdout (losses' EMF lines, figures' log line), summed by
    name; the losses' sum (NoticesLost) left out."""
    found = metrics.read(out)
    del found[metrics.NOTICES_LOST]
    return found


def count_views(account_id: str, website_id: int, days: dict[str, int]) -> None:
    hits = []
    for day, views in days.items():
        when = datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC)
        hits += [
            Hit(website_id=website_id, at=when, page="/", visit=n % 2 == 0) for n in range(views)
        ]
    batch = [hit_record(hit, account_id, n) for n, hit in enumerate(hits)]
    assert run("HitsQueue", batch) == {"batchItemFailures": []}


def emails(folder: Path) -> list[EmailMessage]:
    found = []
    for path in sorted(folder.glob("*.eml")):
        message = message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(message, EmailMessage)
        found.append(message)
    return found


def parts(message: EmailMessage) -> tuple[str, str]:
    text = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


def claim_of(account_id: str, period: str) -> dict[str, Any]:
    item: dict[str, Any] = boto3.client("dynamodb").get_item(
        TableName=config.settings().accounts_table,
        Key={"pk": {"S": f"DIGEST#{account_id}"}, "sk": {"S": period}},
    )["Item"]
    return item


@pytest.mark.usefixtures("local_warehouse")
def test_a_weekly_digest_of_the_websites_that_ask_for_one(
    analytics, account, queue, outbox, monkeypatch
):
    shop = analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1}).data
    quiet = analytics.post("/api/v1/websites", {"domain": "quiet.example", "email": 0}).data
    analytics.post("/api/v1/websites", {"domain": "secret.example", "email": 1, "privacy": 1})
    count_views(account.id, shop["id"], {"2026-11-17": 6, "2026-11-22": 4, "2026-11-10": 5})
    count_views(account.id, quiet["id"], {"2026-11-17": 9})
    accounts.set_contact(accounts.get_account(account.id), "Owner@Example.com")
    planned = run_day(monkeypatch, queue, MONDAY)
    assert (planned["queued"], planned["periods"]) == (1, ["2026-W47", "2026-10"])
    [message] = emails(outbox)
    assert message["To"] == "Owner@example.com"
    assert "16 Nov to 22 Nov 2026" in message["Subject"]
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text, html = parts(message)
    # shop: 10 pageviews this week against 5 the week before, as the query API counts them
    assert "shop.example" in text and "quiet.example" not in text
    assert "Pageviews: 10 (+100%; 5 the period before)" in text
    [row] = analytics.post(
        "/api/v1/query",
        json_body={
            "site_id": shop["id"],
            "metrics": ["visitors", "visits"],
            "date_range": ["2026-11-16", "2026-11-22"],
            "include": {"comparisons": {"mode": "previous_period"}},
        },
    ).body["results"]
    (visitors, visits), (before, visits_before) = row["metrics"], row["comparison"]["metrics"]
    assert f"Unique visitors: {visitors} (" in text and f"; {before} the period before)" in text
    assert f"Visits: {visits} (" in text and f"; {visits_before} the period before)" in text
    assert "https://api.test/share/shop.example" in text
    assert "https://api.test/share/secret.example" not in text  # private: no share page
    assert "secret.example" in html and "<strong>shop.example</strong>" in html


def test_the_schedule_s_event_plans_and_the_queue_s_event_sends(
    analytics, account, queue, outbox, monkeypatch, capsys
):
    """`sam local invoke DigestFunction -e events/digests-plan.json` on a Monday queues the
    week's digest; `sam local invoke TasksFunction -e events/tasks-digest.json` (the
    message for account 1's week 47) sends it, once however often it is delivered."""
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    assert account.id == "1"  # what the event names
    planned = plan(monkeypatch, MONDAY)
    assert (planned["queued"], planned["settled"]) == (1, 0)
    assert queue.bodies() == [{"kind": "digest", "account": "1", "period": "2026-W47"}]
    event = json.loads((gateway.ROOT / "events" / "tasks-digest.json").read_text())
    send = handler(SENDER["CodeUri"])
    assert send(event) == {"batchItemFailures": []}
    assert send(event) == {"batchItemFailures": []}  # delivered again: nothing more
    assert queue.drain() == 1  # the planned message, the same digest: nothing more
    assert len(emails(outbox)) == 1
    assert claim_of("1", "2026-W47")["state"]["S"] == "sent"
    assert counted(capsys.readouterr().out) == {"DigestsSent": 1}


def test_a_digest_is_sent_once_per_period(analytics, account, queue, outbox, monkeypatch):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    assert run_day(monkeypatch, queue, MONDAY)["queued"] == 1
    again = run_day(monkeypatch, queue, MONDAY)
    assert (again["queued"], again["settled"]) == (0, 1)
    tuesday = run_day(monkeypatch, queue, MONDAY + timedelta(days=1))
    assert (tuesday["queued"], tuesday["settled"]) == (0, 1)
    assert len(emails(outbox)) == 1
    # the next Monday, the next week's
    assert run_day(monkeypatch, queue, MONDAY + timedelta(days=7))["queued"] == 1
    assert len(emails(outbox)) == 2


def test_a_day_without_a_plan_is_caught_up_the_next_day(
    analytics, account, queue, outbox, monkeypatch
):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    # no plan on Monday (the schedule did not run): Tuesday's sends the week's
    assert run_day(monkeypatch, queue, MONDAY + timedelta(days=1))["queued"] == 1
    [message] = emails(outbox)
    assert "16 Nov to 22 Nov 2026" in message["Subject"]


def test_monthly_accounts_get_the_last_complete_month(
    analytics, account, queue, outbox, monkeypatch
):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com", "monthly")
    planned = run_day(monkeypatch, queue, date(2026, 12, 1))
    assert (planned["queued"], planned["periods"]) == (1, ["2026-W48", "2026-11"])
    [message] = emails(outbox)
    assert "November 2026" in message["Subject"]
    assert run_day(monkeypatch, queue, date(2026, 12, 7))["queued"] == 0  # a Monday: weekly only


def test_a_failed_send_is_retried_and_then_sent_once(
    analytics, account, queue, outbox, monkeypatch, capsys
):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    real, tries = mail.send, []

    def once_refused(message: EmailMessage) -> str:
        tries.append(message["To"])
        if len(tries) == 1:
            raise RuntimeError("Throttling")
        return real(message)

    monkeypatch.setattr(mail, "send", once_refused)
    run_day(monkeypatch, queue, MONDAY)
    assert len(tries) == 2 and len(emails(outbox)) == 1
    claim = claim_of(account.id, "2026-W47")
    assert (claim["state"]["S"], claim["attempts"]["N"]) == ("sent", "2")
    assert counted(capsys.readouterr().out) == {"DigestFailures": 1, "DigestsSent": 1}
    assert queue.dead == []


def test_a_digest_failing_every_delivery_is_dead_lettered_then_planned_again(
    analytics, account, queue, outbox, monkeypatch, capsys
):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")

    def refused(message: EmailMessage) -> str:
        raise RuntimeError("MessageRejected")

    real = mail.send
    monkeypatch.setattr(mail, "send", refused)
    run_day(monkeypatch, queue, MONDAY)
    task = {"kind": "digest", "account": account.id, "period": "2026-W47"}
    assert queue.dead == [json.dumps(task)]
    claim = claim_of(account.id, "2026-W47")
    assert (claim["state"]["S"], claim["detail"]["S"]) == ("failed", "RuntimeError")
    assert counted(capsys.readouterr().out) == {"DigestFailures": MAX_RECEIVES}
    monkeypatch.setattr(mail, "send", real)  # fixed; the next day's plan queues it again
    assert run_day(monkeypatch, queue, MONDAY + timedelta(days=1))["queued"] == 1
    assert len(emails(outbox)) == 1


def test_a_digest_is_given_up_after_its_last_attempt(
    analytics, account, queue, outbox, monkeypatch
):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    monkeypatch.setattr(mail, "send", lambda message: (_ for _ in ()).throw(OSError("down")))
    day = MONDAY
    while run_day(monkeypatch, queue, day)["queued"]:
        day += timedelta(days=1)
    assert claim_of(account.id, "2026-W47")["attempts"]["N"] == str(claims.MAX_ATTEMPTS)
    assert plan(monkeypatch, day)["given_up"] == 1


def test_a_claim_left_by_a_sender_that_died_is_sent_once_it_is_stale(
    analytics, account, queue, outbox, monkeypatch
):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    at(monkeypatch, datetime(2026, 11, 23, 6, 0, tzinfo=UTC))
    state, _ = claims.claim(account.id, "2026-W47")  # a sender claimed it, then was killed
    assert state == "claimed"
    # while its lease runs, nobody else sends it: not planned, and a message finds it held
    assert plan(monkeypatch, MONDAY)["in_flight"] == 1
    queue.put({"kind": "digest", "account": account.id, "period": "2026-W47"})
    queue.drain()
    assert emails(outbox) == []
    # the killed sender's message comes back after the visibility timeout: stale by then
    visibility = RESOURCES[QUEUE]["Properties"]["VisibilityTimeout"]
    at(monkeypatch, datetime(2026, 11, 23, 6, 0, tzinfo=UTC) + timedelta(seconds=visibility))
    queue.put({"kind": "digest", "account": account.id, "period": "2026-W47"})
    queue.drain()
    assert len(emails(outbox)) == 1
    assert claim_of(account.id, "2026-W47")["state"]["S"] == "sent"


def test_the_lease_outlasts_the_sender_and_ends_before_its_message_returns():
    timeout = SENDER["Timeout"]
    visibility = RESOURCES[QUEUE]["Properties"]["VisibilityTimeout"]
    assert timeout < claims.CLAIM_LEASE_SECONDS < visibility
    assert SENDER_EVENT["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]


def test_an_address_removed_after_the_plan_gets_nothing(
    analytics, account, queue, outbox, monkeypatch
):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    record = accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    assert plan(monkeypatch, MONDAY)["queued"] == 1
    accounts.set_contact(record, None)
    queue.drain()
    assert emails(outbox) == []


def test_accounts_without_a_website_to_report_get_nothing(
    analytics, account, queue, outbox, monkeypatch
):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 0})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    assert run_day(monkeypatch, queue, MONDAY)["queued"] == 1
    assert emails(outbox) == []
    assert claim_of(account.id, "2026-W47")["state"]["S"] == "empty"
    assert run_day(monkeypatch, queue, MONDAY)["queued"] == 0


def test_no_sender_address_plans_nothing(analytics, account, queue, monkeypatch):
    monkeypatch.delenv("SITELENS_MAIL_OUTBOX", raising=False)
    monkeypatch.delenv("SITELENS_MAIL_FROM", raising=False)
    config.reset()
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    assert plan(monkeypatch, MONDAY)["queued"] == 0
    assert queue.depth() == 0


def test_through_ses(analytics, account, queue, monkeypatch):
    monkeypatch.setenv("SITELENS_MAIL_FROM", "digests@sitelens.example")
    monkeypatch.setenv("SITELENS_ANALYTICS_BASE_URL", "https://api.test")
    config.reset()
    boto3.client("sesv2").create_email_identity(EmailIdentity="digests@sitelens.example")
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1})
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    run_day(monkeypatch, queue, MONDAY)
    claim = claim_of(account.id, "2026-W47")
    assert claim["state"]["S"] == "sent" and claim["detail"]["S"]  # SES's message id


def test_make_serve_feeds_the_digest_queue_to_the_sender(aws_env, monkeypatch):
    """The local worker reads the sender's event source from the template, as for hits."""
    monkeypatch.setattr(worker.QueueWorker, "start", lambda self: None)
    monkeypatch.setattr(worker.ScheduleWorker, "start", lambda self: None)
    monkeypatch.setattr(worker.TallyFlusher, "start", lambda self: None)
    found = worker.start_all(TEMPLATE)
    queues = {w.function: w for w in found if isinstance(w, worker.QueueWorker)}
    assert queues["TasksFunction"].queue == QUEUE
    assert queues["TasksFunction"].batch == SENDER_EVENT["Properties"]["BatchSize"]
    assert "DigestFunction" in {w.function for w in found if isinstance(w, worker.ScheduleWorker)}


ACCOUNTS = 1_000
ACCOUNTS_PAGE = 200  # five pages, as 5,000 accounts are in pages of 1,000 deployed
REFUSED_EVERY = 100  # one send in a hundred refused once


@pytest.mark.slow  # over 2 s: make test-slow
def test_a_thousand_accounts_in_five_pages_get_one_digest_each(queue, outbox, monkeypatch, capsys):
    """1,000 mailed accounts (800 weekly, 200 monthly) on a Wednesday, read in five pages (as
    5,000 are deployed, at a fifth of the moto calls): the plan queues one message each, the
    sender sends each account one digest of its period, and neither a second plan nor
    messages delivered again send any more; sends refused once (every 100th account) are
    retried and sent once. Composing is stubbed: this is about the fan-out and the claims
    (the tests above compose real digests)."""
    assert planning.ACCOUNTS_PAGE == 1_000
    monkeypatch.setattr(planning, "ACCOUNTS_PAGE", ACCOUNTS_PAGE)
    table = config.settings().accounts_table
    ids = [str(n) for n in range(1, ACCOUNTS + 1)]
    cadence = {i: "monthly" if int(i) % 5 == 0 else "weekly" for i in ids}
    dynamodb = boto3.client("dynamodb")
    for start in range(0, ACCOUNTS, 25):
        writes: Any = {
            table: [
                {
                    "PutRequest": {
                        "Item": {
                            "pk": {"S": "MAILED"},
                            "sk": {"S": i},
                            "email": {"S": f"owner{i}@example.com"},
                            "digest": {"S": cadence[i]},
                        }
                    }
                }
                for i in ids[start : start + 25]
            ]
        }
        while writes:
            writes = dynamodb.batch_write_item(RequestItems=writes)["UnprocessedItems"]

    def digest(account_id: str, email: str, period: digests.Period) -> EmailMessage:
        message = EmailMessage()
        message["To"], message["Subject"] = email, f"{account_id} {period.label}"
        return message

    sent: Counter[tuple[str, str]] = Counter()
    tries: Counter[str] = Counter()

    lock = threading.Lock()  # in case the senders run at once

    def ses(message: EmailMessage) -> str:
        account_id, label = str(message["Subject"]).split()
        assert message["To"] == f"owner{account_id}@example.com"
        with lock:
            tries[account_id] += 1
            if int(account_id) % REFUSED_EVERY == 7 and tries[account_id] == 1:
                raise RuntimeError("Throttling")
            sent[(account_id, label)] += 1
        return f"ses-{account_id}-{label}"

    monkeypatch.setattr(composing, "digest", digest)
    monkeypatch.setattr(mail, "send", ses)
    wednesday = MONDAY + timedelta(days=2)
    planned = plan(monkeypatch, wednesday)
    assert (planned["queued"], planned["periods"]) == (ACCOUNTS, ["2026-W47", "2026-10"])
    assert queue.drain() == ACCOUNTS + len(range(7, ACCOUNTS, REFUSED_EVERY))
    period = {"weekly": "2026-W47", "monthly": "2026-10"}
    assert sent == Counter({(i, period[cadence[i]]): 1 for i in ids})
    assert {i for i, n in tries.items() if n > 1} == {
        str(n) for n in range(7, ACCOUNTS, REFUSED_EVERY)
    }
    assert queue.dead == []

    again = plan(monkeypatch, wednesday + timedelta(days=1))
    assert (again["queued"], again["settled"]) == (0, ACCOUNTS)
    for i in ids[::10]:  # delivered again, or redriven: the same digests
        queue.put({"kind": "digest", "account": i, "period": period[cadence[i]]})
    assert queue.drain() == ACCOUNTS // 10
    assert sum(sent.values()) == ACCOUNTS
    assert counted(capsys.readouterr().out) == {
        "DigestsSent": ACCOUNTS,
        "DigestFailures": len(range(7, ACCOUNTS, REFUSED_EVERY)),
    }


def unsubscribe_link(message: EmailMessage, domain: str) -> str:
    text, _ = parts(message)
    lines = [line for line in text.splitlines() if f"Stop these emails for {domain}" in line]
    return lines[0].rsplit(" ", 1)[1]


def test_the_unsubscribe_link_stops_that_website_without_a_key(analytics, account, outbox):
    one = analytics.post("/api/v1/websites", {"domain": "one.example", "email": 1}).data
    two = analytics.post("/api/v1/websites", {"domain": "two.example", "email": 1}).data
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com")
    digests.send_all(digests.last_complete("weekly", MONDAY))  # as `sitelens digests send`
    [message] = emails(outbox)
    link = unsubscribe_link(message, "one.example")
    token = parse_qs(urlsplit(link).query)["token"][0]
    # a mail scanner fetching the link changes nothing: the page asks, with a form
    for _ in range(2):
        page = analytics.get("/api/v1/unsubscribe", query={"token": token}, key=None)
        assert page.status == 200 and "one.example" in page.body
    assert analytics.get(f"/api/v1/websites/{one['id']}").data["email"] == 1
    [form] = re.findall(r'<form method="post" action="([^"]+)">', page.body)
    assert html.unescape(form).endswith(f"/api/v1/unsubscribe?token={token}")
    # the reader's click POSTs the form: stopped, and a page says so
    done = analytics.request(
        "POST",
        "/api/v1/unsubscribe",
        query={"token": token},
        key=None,
        headers={"Accept": "text/html,application/xhtml+xml"},
        form={"List-Unsubscribe": "One-Click"},
    )
    assert done.status == 200 and "no more digests for one.example" in done.body
    assert analytics.get(f"/api/v1/websites/{one['id']}").data["email"] == 0
    assert analytics.get(f"/api/v1/websites/{two['id']}").data["email"] == 1
    # one click from the mail client: the header's link stops all of them
    header = str(message["List-Unsubscribe"]).strip("<>")
    everything = parse_qs(urlsplit(header).query)["token"][0]
    reply = analytics.request("POST", "/api/v1/unsubscribe", query={"token": everything}, key=None)
    assert reply.status == 200
    assert sorted(reply.data["unsubscribed"]) == ["one.example", "two.example"]
    assert analytics.get(f"/api/v1/websites/{two['id']}").data["email"] == 0


def test_unsubscribe_tokens_have_the_documented_shape(account):
    """Every token a link carries matches the pattern openapi/analytics.yaml states for
    `token`, for one website or many: the document allows every link we send."""
    document = openapi.document("analytics")
    [token] = document["paths"]["/api/v1/unsubscribe"]["parameters"]
    for website_ids in ([1], list(range(1, 60)), None):  # None: every website
        issued = digests.unsubscribe_token(account.id, website_ids)
        assert re.search(token["schema"]["pattern"], issued), issued
    # the one-click link names the account alone: short whatever the number of websites
    assert len(digests.unsubscribe_token(account.id, None)) < 200


@pytest.mark.parametrize(
    "token",
    ["", "nonsense", "eyJkIjp7fX0.AAAA", "eyJkIjp7fX0." + "A" * 27],  # the last: documented shape
)
def test_a_bad_unsubscribe_link_changes_nothing(analytics, token):
    site = analytics.post("/api/v1/websites", {"domain": "one.example", "email": 1}).data
    page = analytics.get("/api/v1/unsubscribe", query={"token": token}, key=None)
    assert page.status == 422 and "invalid or has expired" in page.body
    reply = analytics.request("POST", "/api/v1/unsubscribe", query={"token": token}, key=None)
    assert reply.body == {"message": {"token": [digests.unsubscribing.INVALID]}, "status": 422}
    assert analytics.get(f"/api/v1/websites/{site['id']}").data["email"] == 1


def test_a_link_for_another_purpose_does_not_unsubscribe(analytics, account):
    from sitelens.tokens import signing

    site = analytics.post("/api/v1/websites", {"domain": "one.example", "email": 1}).data
    forged = signing.sign({"account": account.id, "websites": [site["id"]]}, "share", 2e9)
    reply = analytics.request("POST", "/api/v1/unsubscribe", query={"token": forged}, key=None)
    assert reply.status == 422


def test_the_account_shows_its_email_and_digest(analytics, account):
    assert analytics.get("/api/v1/account").data["email"] is None
    accounts.set_contact(accounts.get_account(account.id), "owner@example.com", "monthly")
    from sitelens.edge import auth

    auth.forget()
    data = analytics.get("/api/v1/account").data
    assert (data["email"], data["digest"]) == ("owner@example.com", "monthly")


def test_the_cli_sets_emails_and_sends_digests(aws_env, outbox, capsys):
    assert cli.main(["keys", "create", "--name", "Agency", "--email", "a@example.com"]) == 0
    created = capsys.readouterr().out.splitlines()
    account_id = created[0].split("account ")[1].split(" ")[0]
    assert accounts.get_account(account_id).email == "a@example.com"
    assert cli.main(["accounts", "update", account_id, "--digest", "monthly"]) == 0
    assert json.loads(capsys.readouterr().out)["digest"] == "monthly"
    assert cli.main(["accounts", "update", account_id, "--email", "not an address"]) == 1
    assert "not an email address" in capsys.readouterr().err
    assert cli.main(["accounts", "update", "999", "--email", "b@example.com"]) == 1
    assert cli.main(["digests", "send"]) == 0
    assert json.loads(capsys.readouterr().out)["empty"] == 1  # no website asks for one
    assert cli.main(["digests", "outbox"]) == 0
    assert "No emails" in capsys.readouterr().out
