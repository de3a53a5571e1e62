"""A local Google (sitelens.local.google) the code is pointed at, and helpers to run the
tasks it queues."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from sitelens.core import config
from sitelens.local import google
from tests.fixtures.analytics import receive, run


@pytest.fixture
def gsc(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[google.GoogleServer]:
    """A local Google with 8 days of 40 rows a day for the properties it grants, and the
    events bucket (moto) the rows go to, as deployed."""
    bucket = f"events-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("SITELENS_EVENTS_BUCKET", bucket)
    config.reset()
    boto3.client("s3", region_name="us-east-1").create_bucket(Bucket=bucket)
    server = google.start(stub=google.GoogleStub(rows_per_day=40, history_days=8))
    for name, value in server.environment().items():
        monkeypatch.setenv(name, value)
    yield server
    server.shutdown()
    server.server_close()


def run_tasks() -> list[dict[str, Any]]:
    """Run every task waiting (and those they queue at once); the tasks run."""
    done: list[dict[str, Any]] = []
    while waiting := receive("TasksQueue"):
        assert run("TasksQueue", waiting) == {"batchItemFailures": []}
        done += waiting
    return done
