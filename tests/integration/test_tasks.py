"""The tasks queue: one queue, one function, each message run by the kind it names; a
failure of one kind, or a message of none, is reported alone (partial batch response) and
comes back, then goes to the one dead-letter queue."""

from __future__ import annotations

import json
import os
from typing import Any

import boto3
import pytest

from sitelens.data import queues, tasks
from sitelens.local import gateway, template
from tests.fixtures.analytics import failures, receive, run


def record(message_id: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "messageId": message_id,
        "receiptHandle": message_id,
        "body": json.dumps(body),
        "attributes": {"ApproximateReceiveCount": "1"},
        "messageAttributes": {},
        "eventSource": "aws:sqs",
    }


def test_each_task_runs_by_its_kind_and_a_kindless_one_is_reported(aws_env, monkeypatch):
    ran: list[tuple[str, str]] = []
    monkeypatch.setattr(
        "sitelens.analytics.cleanup.remove", lambda r: ran.append(("cleanup", r.message_id))
    )
    monkeypatch.setattr(
        "sitelens.digests.sending.send",
        lambda contact, account, period: ran.append(("digest", account)) or "sent",
    )
    batch = [
        record("c", {"kind": "cleanup", "website_id": 3}),
        record("d", {"kind": "digest", "account": "7", "period": "2026-W47"}),
        record("x", {"website_id": 3}),  # no kind: never guessed
        record("y", {"kind": "audit", "step": 1}),  # a kind this queue does not carry
    ]
    assert failures(run("TasksQueue", batch)) == {"x", "y"}
    assert sorted(ran) == [("cleanup", "c"), ("digest", "7")]


def test_a_failed_task_is_reported_alone(aws_env, monkeypatch):
    def broken(_: Any) -> None:
        raise RuntimeError("DynamoDB is down")

    monkeypatch.setattr("sitelens.analytics.cleanup.remove", broken)
    monkeypatch.setattr("sitelens.digests.sending.send", lambda *_: "sent")
    batch = [
        record("c", {"kind": "cleanup", "website_id": 3}),
        record("d", {"kind": "digest", "account": "7", "period": "2026-W47"}),
    ]
    assert failures(run("TasksQueue", batch)) == {"c"}


@pytest.mark.cleanup_delay
def test_a_cleanup_is_queued_as_a_task_with_its_own_delay(aws_env):
    queues.send_cleanup(5)
    assert receive("TasksQueue") == []  # waits its 120 s, hits in flight drop meanwhile
    queues.send_cleanup(5, delayed=False)  # the rest of a removal under way
    [message] = receive("TasksQueue")
    assert tasks.kind_of(message) == tasks.CLEANUP
    assert json.loads(message["body"]) == {"kind": "cleanup", "website_id": 5}


def test_the_queue_s_tries_and_visibility_fit_every_kind():
    resources = template.load()["Resources"]
    queue = resources["TasksQueue"]["Properties"]
    function = resources["TasksFunction"]["Properties"]
    [source] = function["Events"].values()
    assert source["Properties"]["Queue"] == {"Fn::GetAtt": ["TasksQueue", "Arn"]}
    assert queue["VisibilityTimeout"] >= 6 * function["Timeout"]
    assert queue["RedrivePolicy"]["maxReceiveCount"] == 5
    assert "DelaySeconds" not in queue  # a digest goes at once; a cleanup delays itself
    assert source["Properties"]["ScalingConfig"] == {"MaximumConcurrency": 2}  # SES's rate


class Run(gateway.LambdaContext):
    """A scheduled run's context with `left_ms` of it left."""

    def __init__(self, left_ms: int) -> None:
        super().__init__("TasksFunction")
        self.left_ms = left_ms

    def get_remaining_time_in_millis(self) -> int:
        return self.left_ms


def scheduled_run(context: Run) -> dict[str, Any]:
    """TasksFunction as the lean profile's schedule invokes it (no records: it drains)."""
    module = gateway.load_module(gateway.ROOT / "functions" / "tasks" / "run" / "app.py")
    answer: dict[str, Any] = module.handler({}, context)
    return answer


def waiting() -> dict[str, int]:
    found = boto3.client("sqs").get_queue_attributes(
        QueueUrl=os.environ["SITELENS_TASK_QUEUE_URL"], AttributeNames=["All"]
    )["Attributes"]
    return {
        "visible": int(found["ApproximateNumberOfMessages"]),
        "taken": int(found["ApproximateNumberOfMessagesNotVisible"]),
    }


def test_the_lean_profile_s_run_drains_the_queue_a_task_at_a_time(aws_env, monkeypatch):
    ran: list[int] = []
    monkeypatch.setattr(
        "sitelens.analytics.cleanup.remove", lambda r: ran.append(queues.cleanup_website(r))
    )
    for website_id in (3, 4):
        queues.send_cleanup(website_id, delayed=False)
    boto3.client("sqs").send_message(  # no kind: reported, left for its retries
        QueueUrl=os.environ["SITELENS_TASK_QUEUE_URL"], MessageBody='{"website_id": 9}'
    )
    answer = scheduled_run(Run(300_000))
    assert answer == {"received": 3, "deleted": 2, "retried": 1, "undeleted": 0}
    assert sorted(ran) == [3, 4]
    assert waiting() == {"visible": 0, "taken": 1}  # back after the visibility timeout
    assert scheduled_run(Run(300_000))["received"] == 0  # nothing else waits


def test_a_drain_begins_no_task_in_its_last_ninety_seconds(aws_env, monkeypatch):
    monkeypatch.setattr("sitelens.analytics.cleanup.remove", lambda r: None)
    queues.send_cleanup(3, delayed=False)
    module = gateway.load_module(gateway.ROOT / "functions" / "tasks" / "run" / "app.py")
    assert scheduled_run(Run(module.DRAIN_RESERVE_MS))["received"] == 0
    assert waiting() == {"visible": 1, "taken": 0}
    assert scheduled_run(Run(module.DRAIN_RESERVE_MS + 1))["deleted"] == 1
    assert waiting() == {"visible": 0, "taken": 0}


def test_under_the_lean_profile_a_schedule_drains_the_queue_instead_of_pollers():
    spec = template.load()
    resources = spec["Resources"]
    [source] = resources["TasksFunction"]["Properties"]["Events"].values()
    schedule = resources["TasksDrainSchedule"]
    lean = {"CostProfile": "lean"}
    assert template.resolved(spec, source["Properties"]["Enabled"], lean) is False
    assert template.deployed(spec, schedule, lean)
    assert schedule["Properties"]["Target"]["Arn"] == {"Fn::GetAtt": ["TasksFunction", "Arn"]}
    # make serve and the standard profile: the event source, no schedule
    assert template.resolved(spec, source["Properties"]["Enabled"]) is True
    assert not template.deployed(spec, schedule)
    assert not template.deployed(spec, resources["TasksDrainScheduleRole"])
    # a run (its timeout) ends long before the tasks it took become visible again
    function = resources["TasksFunction"]["Properties"]
    assert function["Timeout"] < resources["TasksQueue"]["Properties"]["VisibilityTimeout"]
