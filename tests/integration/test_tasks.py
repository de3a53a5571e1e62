"""The tasks queue: one queue, one function, each message run by the kind it names; a
failure of one kind, or a message of none, is reported alone (partial batch response) and
comes back, then goes to the one dead-letter queue."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sitelens.data import queues, tasks
from sitelens.local import template
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
