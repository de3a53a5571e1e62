"""Spikes and drops of a website's hourly pageviews, judged against the same hour of the
week in the weeks before (a season of 168 hours, as serverless-website-analytics has).

The baseline is an exponentially weighted mean of that hour's pageviews over the last
WEEKS weeks (oldest first, weight ALPHA on each newer week); a week that was itself a
spike or a drop against the weeks' median counts as the median, so one anomaly does not
mask the next or look like one a week later (that project clamps outliers to two
deviations for the same reason). With a threshold T
(a website's `traffic_alerts`, 2 to 20, default 3):

- a spike is an hour of at least T x baseline pageviews, and at least MIN_PAGEVIEWS;
- a drop is an hour of at most baseline / T pageviews, when the baseline is at least
  MIN_PAGEVIEWS (a quiet hour cannot drop);
- and either is also SIGNIFICANCE times the square root of the baseline away from it
  (pageviews are counts: their noise grows as the root of their mean), so the noise of a
  small website's hours is no alert.
- neither is judged before MIN_WEEKS weeks of history (a new website has no normal yet);
- both are judged against the baseline and against the median of the weeks (the higher
  for a spike, the lower for a drop): a few weeks of small counts are noisy.

An episode starts with the first hour of a spike or drop and ends after CALM_HOURS normal
hours in a row; while it lasts, its hours need only be the square root of T off the baseline (a
hysteresis: an episode near the threshold does not flap); hours too quiet to judge either
way change nothing. One alert per episode.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from sitelens.websites.rules import DEFAULT_TRAFFIC_ALERTS, TRAFFIC_ALERTS_OFF

WEEKS = 8  # of history per judgement: 9 counters read, the hour itself included
MIN_WEEKS = 3
ALPHA = 0.3
MIN_PAGEVIEWS = 30  # below this volume no hour is a spike and no baseline can drop
CALM_HOURS = 3  # normal hours in a row that end an episode
SIGNIFICANCE = 4.0  # deviations of count noise (the root of the baseline) an alert is off
DEFAULT_THRESHOLD = DEFAULT_TRAFFIC_ALERTS  # a website's `traffic_alerts`, 2 to 20
OFF = TRAFFIC_ALERTS_OFF  # `traffic_alerts` 0: the website is not judged


@dataclass(frozen=True)
class Verdict:
    """What an hour was: spike, drop, normal, or quiet (too few pageviews to tell)."""

    kind: str
    pageviews: int
    baseline: float


def baseline(history: list[int], threshold: float) -> float:
    """The exponentially weighted mean of the weeks' counts (oldest first). A week that
    was a spike or a drop against the weeks' median (`_beyond`) counts as the median, so
    one anomaly neither masks the next nor looks like one a week later; a new level of
    traffic enters the baseline once it is the median."""
    middle = statistics.median(history)
    weeks = [middle if _beyond(count, middle, threshold) else count for count in history]
    mean = float(weeks[0])
    for count in weeks[1:]:
        mean = ALPHA * count + (1 - ALPHA) * mean
    return mean


def _beyond(count: float, mean: float, up: float, down: float | None = None) -> int:
    """1 when `count` is a spike over `mean` (`up` times it, MIN_PAGEVIEWS, and
    SIGNIFICANCE roots of it above), -1 when a drop (`down` times under it, by as many
    roots, from a mean of MIN_PAGEVIEWS or more), else 0."""
    noise = SIGNIFICANCE * math.sqrt(max(mean, 1.0))
    if count >= max(MIN_PAGEVIEWS, up * mean, mean + noise):
        return 1
    if mean >= MIN_PAGEVIEWS and count <= min(mean / (down or up), mean - noise):
        return -1
    return 0


def judge(history: list[int], pageviews: int, threshold: float, ongoing: str = "normal") -> Verdict:
    """The verdict on an hour of `pageviews`, given the same hour's counts in the weeks
    before (oldest first; only the weeks the website existed). During an episode
    (`ongoing` spike or drop) its hours need only be the square root of the threshold
    off, so an episode near the threshold does not end and start again hour by hour."""
    if len(history) < MIN_WEEKS:
        return Verdict("quiet", pageviews, 0.0)
    expected = baseline(history, threshold)
    middle = statistics.median(history)
    up = math.sqrt(threshold) if ongoing == "spike" else threshold
    down = math.sqrt(threshold) if ongoing == "drop" else threshold
    # Against the baseline and the median alike: few weeks of small counts are noisy.
    if _beyond(pageviews, max(expected, middle), up) > 0:
        return Verdict("spike", pageviews, expected)
    if _beyond(pageviews, min(expected, middle), down) < 0:
        return Verdict("drop", pageviews, expected)
    if pageviews < MIN_PAGEVIEWS and expected < MIN_PAGEVIEWS:
        return Verdict("quiet", pageviews, expected)
    return Verdict("normal", pageviews, expected)


def next_state(state: str, calm: int, verdict: Verdict) -> tuple[str, int, str | None]:
    """The episode state after an hour, the normal hours in a row since the episode's last
    anomalous one, and the alert to raise (`spike`, `drop` or None): only the first hour
    of an episode raises one, and CALM_HOURS normal hours in a row end it."""
    if verdict.kind in ("spike", "drop"):
        return verdict.kind, 0, (verdict.kind if verdict.kind != state else None)
    if verdict.kind == "normal" and state != "normal":
        calm += 1
        return ("normal", 0, None) if calm >= CALM_HOURS else (state, calm, None)
    return state, calm, None
