"""The hourly traffic-alert pass: each website that had hits counted today or yesterday
(UTC, from the aggregator's activity items: Queries, never a scan, at most MAX_WEBSITES a
pass) has its last complete hour (UTC) judged (`anomalies`); the first hour of a spike or
a drop sends the webhook event of its kind (a traffic spike or drop) to the endpoints
that want it and an email to the account, through the digests' mail path (SES, or make
serve's outbox). The hour judged is stored on a condition, so a pass run again, or two
at once, alert once."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sitelens.accounts import notices
from sitelens.core import clock, metrics, scopes
from sitelens.core.log import logger
from sitelens.data import traffic
from sitelens.data import websites as stored_websites
from sitelens.webhooks import anomalies, events, registry

MAX_WEBSITES = 5_000  # judged per pass (about 4 reads and a write each); more are logged
PAGE = 500
WORKERS = 8  # botocore keeps 10 connections per client


@dataclass
class Pass:
    """What a pass did: websites judged, alerts raised by kind, websites left over."""

    judged: int = 0
    alerts: dict[str, int] = field(default_factory=dict)
    skipped: int = 0  # deleted, alerts off, or their hour judged already
    left_over: int = 0


def run(now: datetime | None = None) -> Pass:
    """Judge the last complete hour of every website with recent traffic."""
    moment = now or clock.now()
    hour = moment.replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)
    websites = _recent_websites(moment)
    outcome = Pass(left_over=max(0, len(websites) - MAX_WEBSITES))
    if outcome.left_over:
        logger.warning("traffic alerts: websites left over", extra={"left": outcome.left_over})
    with scopes.ThreadPool(max_workers=WORKERS) as pool:
        results = list(pool.map(lambda w: _judge_safely(w[0], w[1], hour), websites[:MAX_WEBSITES]))
    for result in results:
        if result is None:
            outcome.skipped += 1
        else:
            outcome.judged += 1
            if result != "none":
                outcome.alerts[result] = outcome.alerts.get(result, 0) + 1
    for kind, total in outcome.alerts.items():
        metrics.count("TrafficAlerts", total, reason=kind)
    return outcome


def _recent_websites(moment: datetime) -> list[tuple[str, int]]:
    found: dict[int, str] = {}
    for day in (moment.date(), moment.date() - timedelta(days=1)):
        after = None
        while len(found) <= MAX_WEBSITES:
            page, after = traffic.active(day.isoformat(), after, PAGE)
            found.update((website_id, account) for account, website_id in page)
            if after is None:
                break
    return [(account, website_id) for website_id, account in sorted(found.items())]


def _judge_safely(account_id: str, website_id: int, hour: datetime) -> str | None:
    try:
        return judge_website(account_id, website_id, hour)
    except Exception:
        logger.exception("traffic alert not judged", extra={"website_id": website_id})
        metrics.count("TrafficAlertsLost", reason="not_judged")
        return None


def judge_website(account_id: str, website_id: int, hour: datetime) -> str | None:
    """Judge the website's hour starting at `hour` (UTC); the alert raised (`spike`,
    `drop`), `none`, or None when it was not judged."""
    website = stored_websites.get(account_id, website_id)
    if website is None or website.get("released_at"):  # its domain's alerts are another's
        return None
    threshold = int(website.get("traffic_alerts", anomalies.DEFAULT_THRESHOLD))
    if threshold == anomalies.OFF:
        return None
    # The counters' days and hours are UTC: a week before is the same hour of the week
    # (an hour off across a change of daylight saving time, which the threshold absorbs).
    weeks = [hour - timedelta(weeks=k) for k in range(anomalies.WEEKS, -1, -1)]
    slots = [(w.date().isoformat(), w.strftime("%H")) for w in weeks]
    *history, pageviews = traffic.hourly_pageviews(website_id, slots)
    while history and history[0] == 0:  # weeks before its first pageviews at this hour
        history.pop(0)
    key = hour.strftime("%Y-%m-%dT%H")
    current = traffic.alert_state(website_id)
    if current.get("hour", "") >= key:
        return None
    verdict = anomalies.judge(history, pageviews, threshold, current.get("state", "normal"))
    before = current.get("state", "normal")
    state, calm, alert = anomalies.next_state(before, int(current.get("calm", "0")), verdict)
    since = key if state != before else current.get("since", key)
    stored = {"state": state, "since": since, "hour": key, "calm": str(calm)}
    expires = int(hour.timestamp()) + traffic.STATE_KEPT_SECONDS
    if not traffic.judge_hour(website_id, stored, expires):
        return None
    if alert is None:
        return "none"
    data = {
        "website_id": website_id,
        "domain": website.get("domain"),
        "hour": clock.iso(hour),
        "pageviews": verdict.pageviews,
        "baseline": round(verdict.baseline, 1),
        "threshold": threshold,
    }
    event = registry.TRAFFIC_SPIKE if alert == "spike" else registry.TRAFFIC_DROP
    events.emit(account_id, event, data, website=website_id)
    _mail(account_id, alert, data)
    return alert


def _mail(account_id: str, alert: str, data: dict[str, Any]) -> None:
    """The alert by email to the account's address, when mail goes anywhere; a failure is
    logged and counted, never raised (the webhook event went already)."""
    word = "spike" if alert == "spike" else "drop"
    text = (
        f"{data['domain']} had {data['pageviews']} pageviews in the hour from {data['hour']}"
        f" (UTC), against about {data['baseline']} in that hour of the weeks before:\n"
        f"a {word} beyond its alert threshold of {data['threshold']} times.\n\n"
        "You get one email per spike or drop, however long it lasts. Change the threshold,\n"
        "or set traffic_alerts=0 to stop these, with PUT /api/v1/websites/"
        f"{data['website_id']}.\n"
    )
    try:
        notices.send(account_id, f"Sitelens: traffic {word} on {data['domain']}", text)
    except Exception:
        logger.exception("traffic alert email not sent", extra={"website_id": data["website_id"]})
        metrics.count("TrafficAlertsLost", reason="mail")
