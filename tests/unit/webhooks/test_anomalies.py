"""Spike and drop detection on synthetic hourly series with known anomalies: every injected
spike and drop is found (once per episode), and nothing is raised on the normal series,
on quiet ones, or before a website has history."""

from __future__ import annotations

import math
import random

import pytest

from sitelens.webhooks import anomalies

WEEK = 168
WEEKS = 12


def normal_series(
    seed: int, peak: float = 120.0, shift: tuple[int, float] = (0, 1.0)
) -> tuple[list[int], list[float]]:
    """Twelve weeks of hourly pageviews: a daily wave (quiet nights, busy afternoons),
    weekends at 60 %, a slow growth, and Poisson-like noise; and the mean of each hour.
    `shift`: from that hour on, the mean is that many times higher."""
    rng = random.Random(seed)
    counts, means = [], []
    for hour in range(WEEKS * WEEK):
        day, clock = divmod(hour, 24)
        wave = 0.55 + 0.45 * math.sin((clock - 9) / 24 * 2 * math.pi)
        weekend = 0.6 if day % 7 in (5, 6) else 1.0
        mean = max(1.0, peak * wave * weekend * (1 + hour / (WEEKS * WEEK) * 0.2))
        mean *= shift[1] if hour >= shift[0] else 1.0
        means.append(mean)
        counts.append(max(0, round(rng.gauss(mean, math.sqrt(mean)))))
    return counts, means


def alerts(counts: list[int], threshold: int = anomalies.DEFAULT_THRESHOLD) -> dict[int, str]:
    """Run the hourly pass over the series from its third week on: the hours that raised an
    alert, and which."""
    raised, state, calm = {}, "normal", 0
    for hour in range(2 * WEEK, len(counts)):
        history = [counts[hour - k * WEEK] for k in range(anomalies.WEEKS, 0, -1)]
        history = [
            n for k, n in zip(range(anomalies.WEEKS, 0, -1), history) if hour - k * WEEK >= 0
        ]
        verdict = anomalies.judge(history, counts[hour], threshold, state)
        state, calm, alert = anomalies.next_state(state, calm, verdict)
        if alert:
            raised[hour] = alert
    return raised


@pytest.mark.parametrize("seed", range(20))
def test_nothing_is_raised_on_normal_series(seed):
    counts, _ = normal_series(seed)
    assert alerts(counts) == {}
    assert alerts(normal_series(seed, peak=15.0)[0]) == {}  # a quiet website: below the volume


@pytest.mark.parametrize("seed", range(20))
def test_every_injected_spike_and_drop_is_found_once(seed):
    counts, means = normal_series(seed)
    rng = random.Random(1000 + seed)
    injected = {}
    for hour in sorted(rng.sample(range(3 * WEEK, WEEKS * WEEK - 3), 12)):
        # apart by more than an episode's end (CALM_HOURS normal hours after the last),
        # and never at the same hour of the week: one recurring every week is a pattern
        if any(
            abs(hour - other) < 12 or abs(hour - other) % WEEK in (0, 1, 2, 166, 167)
            for other in injected
        ):
            continue
        if means[hour] >= 40 and rng.random() < 0.5:
            counts[hour] = round(means[hour] * 0.1)  # the tracking script broke for an hour
            injected[hour] = "drop"
        else:
            length = rng.randint(1, 3)  # a spike of up to three hours: one alert
            for offset in range(length):
                counts[hour + offset] = round(means[hour + offset] * 6)
            injected[hour] = "spike"
    assert injected and "spike" in injected.values()
    assert alerts(counts) == injected


def test_a_long_outage_is_one_episode_and_recovery_ends_it():
    counts, _ = normal_series(7)
    start = 9 * WEEK + 8
    counts[start : start + 30] = [0] * 30  # a day and more without pageviews
    raised = alerts(counts)
    assert raised == {start: "drop"}


def test_no_alert_before_two_weeks_of_history_and_the_threshold_is_the_websites():
    assert anomalies.judge([100, 100], 1000, 3).kind == "quiet"  # two weeks: no normal yet
    assert anomalies.judge([100] * 3, 400, 3).kind == "spike"
    assert anomalies.judge([100] * 3, 400, 5).kind == "normal"
    assert anomalies.judge([100] * 3, 30, 3).kind == "drop"
    assert anomalies.judge([100] * 3, 30, 4).kind == "normal"
    assert anomalies.judge([2, 3, 2], 29, 3).kind == "quiet"  # below the minimum volume
    assert anomalies.judge([2, 3, 2], 30, 3).kind == "spike"


def test_an_earlier_spike_is_clamped_in_the_baseline():
    history = [100, 100, 100, 100, 5000, 100, 100]
    assert anomalies.baseline(history, 3) < 160  # not ~1,000: the next spike still shows
    assert anomalies.judge(history, 600, 3).kind == "spike"


@pytest.mark.parametrize("seed", range(10))
def test_traffic_moving_to_a_new_level_is_one_spike_then_the_baseline_follows(seed):
    shift = 6 * WEEK
    counts, _ = normal_series(seed, shift=(shift, 4.0))
    assert alerts(counts) == {shift: "spike"}
