"""The test and development knobs of `make serve`'s webhook timings
(docs/keys-and-webhooks.md): each has a bound, and a value outside it is the default (or
stops the server, for the timer)."""

from __future__ import annotations

import pytest

from sitelens.analytics import converted
from sitelens.local import template, worker
from sitelens.webhooks import deliveries, goals


@pytest.mark.parametrize(
    ("raw", "expected"), [("", 5.0), ("0.01", 0.05), ("1", 5.0), ("0", 5.0), ("2", 5.0), ("x", 5.0)]
)
def test_the_retry_scale_shortens_the_delays_only(monkeypatch, raw, expected):
    monkeypatch.setenv("SITELENS_WEBHOOK_RETRY_SCALE", raw)
    assert deliveries.retry_delay(1) == pytest.approx(expected)
    assert deliveries.retry_delay(7) == pytest.approx(36_000 * expected / 5)


@pytest.mark.parametrize(
    ("raw", "expected"), [("", 60), ("1", 1), ("0", 0), ("61", 60), ("-1", 60)]
)
def test_the_goal_grace_is_at_most_the_deployed_one(monkeypatch, raw, expected):
    monkeypatch.setenv("SITELENS_GOAL_GRACE_SECONDS", raw)
    assert goals.grace_seconds() == expected


def test_the_minutely_timer_is_10_s_here_and_bounded(monkeypatch):
    spec = template.load()
    # the goal pass as make serve deploys it (the standard profile's rate(1 minute))
    goal_pass = spec["Resources"]["GoalWebhooksFunction"]["Properties"]["Events"]
    every = goal_pass["EveryMinute"]["Properties"]
    monkeypatch.delenv("SITELENS_LOCAL_MINUTE_SECONDS", raising=False)
    assert worker._every(spec, every) == 10.0
    hourly = {"ScheduleExpression": "rate(1 hour)"}
    assert worker._every(spec, hourly) == worker.SCHEDULE_SECONDS
    monkeypatch.setenv("SITELENS_LOCAL_MINUTE_SECONDS", "1")
    assert worker._every(spec, every) == 1.0
    for wrong in ("0", "61", "soon"):
        monkeypatch.setenv("SITELENS_LOCAL_MINUTE_SECONDS", wrong)
        with pytest.raises(SystemExit):
            worker._every(spec, every)
    lean = template.resolved(spec, every["ScheduleExpression"], {"CostProfile": "lean"})
    assert lean == "rate(5 minutes)"  # within goals.LOOKBACK_MINUTES: nothing missed
    assert goals.LOOKBACK_MINUTES > 5


@pytest.mark.parametrize(("raw", "expected"), [("", 60.0), ("1", 1.0), ("0", 0.0), ("90", 60.0)])
def test_the_goal_cache_is_at_most_a_minute(monkeypatch, raw, expected):
    monkeypatch.setenv("SITELENS_GOAL_CACHE_SECONDS", raw)
    assert converted.cache_seconds() == expected
