"""`data.batches`: BatchGetItem, BatchWriteItem and SendMessageBatch in chunks, only what a
call left undone sent again, with backoffs between attempts, and `Unprocessed` (never a
normal return) when something is still undone; and every former hand-written loop (the
accounts' and digests' reads, list pages, statistics, traffic, audits) now raising."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest

from sitelens.core.config import settings
from sitelens.data import (
    accounts,
    audits,
    batches,
    clients,
    digest_queue,
    pages,
    reports,
    stats,
    traffic,
    transactions,
)
from tests.fixtures.clocks import SteppedClock
from tests.fixtures.lists import stored_reports
from tests.fixtures.refusals import ALWAYS, Refusing, body_name, key_name, refusing

SERIES = "7#batches"


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SteppedClock:
    fake = SteppedClock()
    monkeypatch.setattr(transactions, "time", fake)
    return fake


def dynamodb(refusals: dict[str, int]) -> Refusing:
    return Refusing(clients.client("dynamodb"), key_name, refusals)


def sqs(refusals: dict[str, int], **how: Any) -> Refusing:
    return Refusing(clients.client("sqs"), body_name, refusals, **how)


def slot_key(n: int) -> dict[str, Any]:
    return {"series": {"S": SERIES}, "slot": {"S": f"{n:03d}"}}


def put(n: int) -> dict[str, Any]:
    return {"PutRequest": {"Item": {**slot_key(n), "count": {"N": str(n)}}}}


def stored_slots() -> list[str]:
    answer = clients.client("dynamodb").query(
        TableName=settings().stats_table,
        KeyConditionExpression="series = :s",
        ExpressionAttributeValues={":s": {"S": SERIES}},
    )
    return [item["slot"]["S"] for item in answer["Items"]]


def names(numbers: Iterable[int]) -> list[str]:
    return [f"{n:03d}" for n in numbers]


def backed_off(clock: SteppedClock, retries: list[int]) -> None:
    """One backoff before each retry, within its full-jitter ceiling (retry k of a chunk,
    0-based: BACKOFF_BASE_SECONDS * 2**k)."""
    assert len(clock.slept) == len(retries)
    for slept, k in zip(clock.slept, retries, strict=True):
        assert 0 <= slept <= transactions.BACKOFF_BASE_SECONDS * 2**k


def received(url: str) -> list[str]:
    found = []
    while (
        messages := clients.client("sqs")
        .receive_message(QueueUrl=url, MaxNumberOfMessages=10)
        .get("Messages")
    ):
        found += [m["Body"] for m in messages]
        clients.client("sqs").delete_message_batch(
            QueueUrl=url,
            Entries=[
                {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(messages)
            ],
        )
    return found


# -- get --------------------------------------------------------------------------------


def test_get_sends_again_only_the_unprocessed_keys_and_reads_every_item(aws_env, clock):
    batches.write(settings().stats_table, [put(n) for n in range(250)])
    refused = dynamodb({"005": 2, "120": 2, "240": 1})
    with refusing("dynamodb", refused):
        cost = {"requests": 0, "items_read": 0}
        found = batches.get(
            settings().stats_table,
            [slot_key(n) for n in range(250)],
            consistent=True,
            projection="#slot",
            names={"#slot": "slot"},
            cost=cost,
        )
    assert sorted(item["slot"]["S"] for item in found) == names(range(250))
    assert all(set(item) == {"slot"} for item in found)  # the projection, on retries too
    assert refused.sent == [
        names(range(0, 100)),
        ["005"],
        ["005"],
        names(range(100, 200)),
        ["120"],
        ["120"],
        names(range(200, 250)),
        ["240"],
    ]
    for request in refused.requests:
        [options] = request.values()
        assert options["ConsistentRead"] is True
        assert options["ProjectionExpression"] == "#slot"
    assert cost == {"requests": 8, "items_read": 250}
    backed_off(clock, [0, 1, 0, 1, 0])


def test_get_raises_when_keys_stay_unprocessed_and_tries_no_later_chunk(aws_env, clock):
    batches.write(settings().stats_table, [put(n) for n in range(150)])
    refused = dynamodb({"042": ALWAYS})
    with refusing("dynamodb", refused), pytest.raises(batches.Unprocessed) as raised:
        batches.get(settings().stats_table, [slot_key(n) for n in range(150)])
    assert raised.value.left == 1 + 50  # the key, and the second chunk's, never asked for
    assert raised.value.operation == "BatchGetItem"
    assert refused.sent == [names(range(100))] + [["042"]] * (transactions.MAX_ATTEMPTS - 1)
    backed_off(clock, list(range(transactions.MAX_ATTEMPTS - 1)))


# -- write ------------------------------------------------------------------------------


def test_write_sends_again_only_the_unprocessed_requests_and_writes_every_item(aws_env, clock):
    refused = dynamodb({"003": 1, "030": 3, "055": 1, "056": 1})
    with refusing("dynamodb", refused):
        batches.write(settings().stats_table, [put(n) for n in range(60)])
    assert stored_slots() == names(range(60))
    assert refused.sent == [
        names(range(25)),
        ["003"],
        names(range(25, 50)),
        ["030"],
        ["030"],
        ["030"],
        names(range(50, 60)),
        ["055", "056"],
    ]
    backed_off(clock, [0, 0, 1, 2, 0])


def test_write_raises_when_requests_stay_unprocessed(aws_env, clock):
    refused = dynamodb({"030": ALWAYS, "031": transactions.MAX_ATTEMPTS - 1})
    with refusing("dynamodb", refused), pytest.raises(batches.Unprocessed) as raised:
        batches.write(settings().stats_table, [put(n) for n in range(60)])
    assert raised.value.left == 1 + 10  # "030", and the third chunk's
    # "031" went through on the last attempt; the first chunks are written, the third not
    assert stored_slots() == names(n for n in range(50) if n != 30)
    retries = [["030", "031"]] * (transactions.MAX_ATTEMPTS - 1)
    assert refused.sent == [names(range(25)), names(range(25, 50)), *retries]
    assert len(clock.slept) == transactions.MAX_ATTEMPTS - 1


# -- send -------------------------------------------------------------------------------


def test_send_sends_again_only_the_failed_entries_and_queues_every_message(aws_env, clock):
    url = settings().audit_queue_url
    received(url)
    bodies = [f"m{n:02d}" for n in range(25)]
    refused = sqs({"m01": 2, "m07": 1, "m21": 1})
    with refusing("sqs", refused):
        batches.send(url, bodies)
    assert sorted(received(url)) == bodies
    assert refused.sent == [
        bodies[0:10],
        ["m01", "m07"],
        ["m01"],
        bodies[10:20],
        bodies[20:25],
        ["m21"],
    ]
    assert [e["Id"] for e in refused.requests[1]["Entries"]] == ["1", "7"]  # their own ids
    backed_off(clock, [0, 1, 0])


def test_send_raises_when_entries_keep_failing(aws_env, clock):
    url = settings().audit_queue_url
    received(url)
    bodies = [f"m{n:02d}" for n in range(25)]
    refused = sqs({"m12": ALWAYS}, code="ServiceUnavailable")
    with refusing("sqs", refused), pytest.raises(batches.Unprocessed) as raised:
        batches.send(url, bodies)
    assert type(raised.value) is batches.Unprocessed
    assert (raised.value.left, raised.value.codes) == (1 + 5, ("ServiceUnavailable",))
    assert sorted(received(url)) == [b for b in bodies[:20] if b != "m12"]
    assert len(refused.sent) == 1 + transactions.MAX_ATTEMPTS
    assert len(clock.slept) == transactions.MAX_ATTEMPTS - 1


def test_an_entry_refused_as_the_senders_fault_raises_at_once(aws_env, clock):
    url = settings().audit_queue_url
    received(url)
    bodies = [f"m{n:02d}" for n in range(25)]
    refused = sqs({"m03": ALWAYS}, code="InvalidMessageContents", sender_fault=True)
    with refusing("sqs", refused), pytest.raises(batches.Rejected) as raised:
        batches.send(url, bodies)
    assert (raised.value.left, raised.value.codes) == (1 + 15, ("InvalidMessageContents",))
    assert refused.sent == [bodies[:10]]  # neither sent again nor followed by the rest
    assert clock.slept == []
    assert sorted(received(url)) == [b for b in bodies[:10] if b != "m03"]


# -- the callers ------------------------------------------------------------------------


def test_mailed_accounts_are_read_through_refusals_and_raise_past_them(account, clock):
    accounts.set_contact(account.id, "ops@example.com", "weekly")
    with refusing("dynamodb", dynamodb({account.id: 2})):
        assert accounts.mailed_now([account.id])[account.id]["email"] == "ops@example.com"
    with refusing("dynamodb", dynamodb({account.id: ALWAYS})), pytest.raises(batches.Unprocessed):
        accounts.mailed_now([account.id])  # it asked again forever, without a pause


def test_digest_claims_raise_when_their_keys_stay_unprocessed(aws_env, clock):
    wanted = [("1", "2026-W47"), ("2", "2026-W47")]
    with refusing("dynamodb", dynamodb({"2026-W47": ALWAYS})), pytest.raises(batches.Unprocessed):
        accounts.digest_claims(wanted)


def test_a_list_page_reads_its_records_through_refusals_and_raises_past_them(account, clock):
    made = stored_reports(account.id, "example.com", 5)
    listing = pages.Listing(order="generated_at", ascending=False, filters={})
    with refusing("dynamodb", dynamodb({str(made[2]): 2})):
        found = pages.page(reports.COLLECTION, account.id, listing, None, 5)
    assert sorted(record["id"] for record in found.records) == sorted(made)
    assert found.cost["requests"] == 1 + 3 and found.cost["items_read"] == 5
    with refusing("dynamodb", dynamodb({str(made[2]): ALWAYS})), pytest.raises(batches.Unprocessed):
        pages.page(reports.COLLECTION, account.id, listing, None, 5)


def test_stats_registries_and_writes_raise_when_left_unprocessed(aws_env, clock):
    group = (7, "pages", "2026-11-21")
    with refusing("dynamodb", dynamodb({"values#2026-11-21": ALWAYS})):
        with pytest.raises(batches.Unprocessed):
            stats.registries([group])
        with pytest.raises(batches.Unprocessed):
            stats.write_batch([{"DeleteRequest": {"Key": stats._registry_key(group)}}])


def test_traffic_reads_and_writes_go_through_refusals_and_raise_past_them(aws_env, clock):
    websites = [("acme", n) for n in range(30)]
    with refusing("dynamodb", dynamodb({"3": 2, "27": 1})) as refused:
        traffic.note_active("2026-11-21", websites, expires_at=2_000_000_000)
    assert refused.sent[1:3] == [["3"], ["3"]] and refused.sent[4] == ["27"]
    found, _ = traffic.active("2026-11-21", None, 100)
    assert sorted(found) == sorted(websites)
    slots = [("2026-11-21", "09")]
    never = dynamodb({stats.slot(*slots[0]): ALWAYS})
    with refusing("dynamodb", never), pytest.raises(batches.Unprocessed):
        traffic.hourly_pageviews(7, slots)  # it asked again forever, without a pause


def test_digests_sqs_keeps_failing_are_counted_as_not_queued(aws_env, clock):
    url = settings().task_queue_url
    received(url)
    digests = [(str(n), "2026-W47") for n in range(12)]
    refused = Refusing(
        clients.client("sqs"), lambda e: json.loads(e["MessageBody"])["account"], {"4": ALWAYS}
    )
    with refusing("sqs", refused):
        assert digest_queue.send(digests) == 1 + 2  # "4", and the second chunk's
    assert len(received(url)) == 9
    with refusing("sqs", Refusing(clients.client("sqs"), lambda e: "any", {"any": 3})):
        assert digest_queue.send(digests) == 0  # three failures are now retried past
    assert len(received(url)) == 12


def test_an_audit_s_issues_left_unprocessed_raise(aws_env, clock):
    crawl = "acme#1#1"
    issues = [{"code": f"check{n:02d}", "severity": "low", "pages": ["/a"]} for n in range(30)]
    with refusing("dynamodb", dynamodb({"issue#check07": 2})):
        audits.save_issues(crawl, issues, expires_at=2_000_000_000)
    assert sorted(i["code"] for i in audits.issues(crawl)) == [i["code"] for i in issues]
    never = dynamodb({"issue#check27": ALWAYS})
    with refusing("dynamodb", never), pytest.raises(batches.Unprocessed):
        audits.save_issues("acme#1#2", issues, expires_at=2_000_000_000)  # it returned


def test_crawl_steps_sqs_keeps_failing_raise(aws_env, clock):
    url = settings().audit_queue_url
    received(url)
    steps = [
        {"kind": "fetch", "crawl": "acme#1#1", "url": f"https://a.test/{n}"} for n in range(12)
    ]
    with refusing("sqs", sqs({"https://a.test/3": 4})):
        audits.send(steps)
    assert sorted(json.loads(body)["url"] for body in received(url)) == sorted(
        s["url"] for s in steps
    )
    with refusing("sqs", sqs({"https://a.test/3": ALWAYS})), pytest.raises(batches.Unprocessed):
        audits.send(steps)  # it returned as if all were queued
