"""The scheduled functions (every minute for goal.converted, hourly or daily for the rest;
every 10 s and hourly under `make serve`) write an info line for a pass that did something
and none for a pass with nothing to do, so an idle server is quiet."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest

from sitelens import digests
from sitelens.analytics import months
from sitelens.analytics.warehouse import compaction
from sitelens.core.log import logger
from sitelens.local import gateway
from sitelens.webhooks import goals, traffic

# function folder -> (the info line's message, where its pass is run, a pass that did work)
FUNCTIONS: dict[str, tuple[str, Any, str, Any]] = {
    "webhooks/goals": ("goal.converted", goals, "run", goals.Pass(sent=1)),
    "alerts/traffic": ("traffic alerts", traffic, "run", traffic.Pass(judged=2)),
    "digests/plan": ("digests planned", digests, "plan", digests.Plan(["2026-W47"], queued=1)),
    "analytics/rollup": ("months rolled up", months, "run", months.Pass(rolled=1)),
    "analytics/compact": (
        "compacted",
        compaction,
        "run",
        {"landing_files": 3, "partitions": 1, "rows": 40},
    ),
}


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """The lines the service's logger writes, at INFO whatever the tests run with."""
    stream = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", stream)
    level = logger.log_level
    logger.setLevel("INFO")
    yield stream
    logger.setLevel(level)


def messages(written: io.StringIO) -> list[str]:
    return [json.loads(line)["message"] for line in written.getvalue().splitlines()]


@pytest.mark.parametrize("folder", FUNCTIONS)
def test_a_pass_with_nothing_to_do_writes_no_line(aws_env, written, monkeypatch, folder):
    # the deployed compaction over an empty landing folder, not the tests' stand-in engine
    monkeypatch.setattr(compaction.warehouse, "local_engine", lambda: None)
    monkeypatch.setattr(compaction.warehouse, "object_keys", lambda *_: [])
    module = gateway.load_module(gateway.ROOT / "functions" / folder / "app.py")
    module.handler({}, gateway.LambdaContext(folder))
    assert FUNCTIONS[folder][0] not in messages(written)


@pytest.mark.parametrize("folder", FUNCTIONS)
def test_a_pass_that_did_something_says_what(aws_env, written, monkeypatch, folder):
    message, owner, name, outcome = FUNCTIONS[folder]
    monkeypatch.setattr(owner, name, lambda *_, **__: outcome)
    module = gateway.load_module(gateway.ROOT / "functions" / folder / "app.py")
    module.handler({}, gateway.LambdaContext(folder))
    assert messages(written).count(message) == 1
