"""A website's dashboard figures, as its share page and the email digests show them: each one
asked of the query API's own code (`queries.run`, what `POST /api/v1/query` answers), so
that every number on a dashboard is the query API's number for the same days.

A dashboard is a fixed set of questions (`questions`): the six top figures with their
change against the period before in one question, a series by day with the period's
annotations, eight top-10 breakdowns, custom events, the goals' conversions when the
website has goals, and Core Web Vitals (shown when some were collected); then each of its
first `SHOWN_FUNNELS` saved funnels, asked of `funnels.run` as `POST /api/v1/funnels/query`
asks it (`funnel_questions`; a funnel whose goal was deleted is left off). They run
`PARALLEL` at a time (deployed each is an Athena query). A share page is anonymous, so its
dashboard is kept `FRESH_SECONDS` per website and days (`data.dashboards`) and computed at
most `COMPUTATIONS_PER_HOUR` times per website and UTC hour; past that a kept copy stands
in, or 429 until the hour ends. One view at a time computes a website's days (a claim);
others arriving meanwhile answer the kept copy, or wait up to `WAIT_SECONDS` for the new
one. Visitors now (`realtime`: DynamoDB, not the warehouse) is
read for each view.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime
from typing import Any, Final

from sitelens.analytics import realtime, segments
from sitelens.analytics.vitals import METRICS as VITAL_METRICS
from sitelens.analytics.vitals import NAMES as VITALS
from sitelens.analytics.vitals import SHARES as VITAL_SHARES
from sitelens.analytics.warehouse.schema import PAGEVIEW
from sitelens.core import clock, errors, scopes
from sitelens.data import dashboards
from sitelens.data import funnels as stored_funnels
from sitelens.data import goals as stored_goals

FRESH_SECONDS: Final = 300  # a dashboard shown again within 5 minutes is not computed again
COMPUTATIONS_PER_HOUR: Final = 30  # per website: at most 30 x 16 questions an hour
SHOWN_FUNNELS: Final = 3  # saved funnels a dashboard shows (of 10): one funnel query each
PARALLEL: Final = 5  # questions at once, within Athena's concurrent queries
CLAIM_SECONDS: Final = 30.0  # past the share function's 28 s: a claim this old was left
WAIT_SECONDS: Final = 20.0  # a view waits this long for another's computation, then 429
_POLL_SECONDS: Final = 0.25
TOP: Final = 10  # rows of each breakdown
TOTALS: Final = (
    "visitors",
    "visits",
    "pageviews",
    "views_per_visit",
    "bounce_rate",
    "visit_duration",
)
SERIES: Final = ("visitors", "visits", "pageviews")
# breakdown -> (dimension, metrics): the query API's groups, sources as `visit:source`
BREAKDOWNS: Final = {
    "sources": ("visit:source", ("visitors", "percentage")),
    "pages": ("event:page", ("visitors", "pageviews", "percentage")),
    "entry_pages": ("visit:entry_page", ("visitors", "percentage")),
    "exit_pages": ("visit:exit_page", ("visitors", "percentage")),
    "countries": ("visit:country", ("visitors", "percentage")),
    "devices": ("visit:device", ("visitors", "percentage")),
    "browsers": ("visit:browser", ("visitors", "percentage")),
    "operating_systems": ("visit:os", ("visitors", "percentage")),
}
EVENT_METRICS: Final = ("visitors", "events")
GOAL_METRICS: Final = ("visitors", "events", "conversion_rate")
REVENUE_METRICS: Final = ("total_revenue", "average_revenue")


def _range(first: date, last: date) -> list[str]:
    return [first.isoformat(), last.isoformat()]


def totals_question(website_id: int, first: date, last: date) -> dict[str, Any]:
    """The query of the six top figures over the days, with the period before."""
    return {
        "site_id": website_id,
        "metrics": list(TOTALS),
        "date_range": _range(first, last),
        "include": {"comparisons": {"mode": "previous_period"}},
    }


def questions(
    website: dict[str, Any], first: date, last: date, filters: list[Any] | None = None
) -> dict[str, dict[str, Any]]:
    """Every query a dashboard of the days asks, by the part of the dashboard it fills;
    under `filters` (a saved segment's), each of them but Core Web Vitals (asked by page,
    device, country and time only: a segment's dashboard has none)."""
    site = int(website["id"])
    days = _range(first, last)
    asked: dict[str, dict[str, Any]] = {
        "totals": totals_question(site, first, last),
        "series": {
            "site_id": site,
            "metrics": list(SERIES),
            "date_range": days,
            "dimensions": ["time:day"],
            "include": {"time_labels": True, "annotations": True},
        },
        "events": {
            "site_id": site,
            "metrics": list(EVENT_METRICS),
            "date_range": days,
            "dimensions": ["event:name"],
            "filters": [["is_not", "event:name", [PAGEVIEW]]],
            "pagination": {"limit": TOP},
        },
        "vitals": {"site_id": site, "metrics": list(VITAL_METRICS), "date_range": days},
    }
    for name, (dimension, metrics) in BREAKDOWNS.items():
        asked[name] = {
            "site_id": site,
            "metrics": list(metrics),
            "date_range": days,
            "dimensions": [dimension],
            "pagination": {"limit": TOP},
        }
    goals = goals_question(website, first, last)
    if goals:
        asked["goals"] = goals
    if filters:
        del asked["vitals"]
        for body in asked.values():
            body["filters"] = [*filters, *body.get("filters", [])]
    return asked


def goals_question(website: dict[str, Any], first: date, last: date) -> dict[str, Any] | None:
    """The query of the website's goals' conversions over the days; None without goals."""
    goals = stored_goals.of(website)
    if not goals:
        return None
    revenue = REVENUE_METRICS if any(goal.get("currency") for goal in goals) else ()
    return {
        "site_id": int(website["id"]),
        "metrics": [*GOAL_METRICS, *revenue],
        "date_range": _range(first, last),
        "dimensions": ["event:goal"],
    }


def funnel_questions(
    website: dict[str, Any], first: date, last: date, filters: list[Any] | None = None
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each shown saved funnel and its `POST /api/v1/funnels/query` body: the first
    `SHOWN_FUNNELS` of the website's funnels whose goals all still exist (under `filters`)."""
    goal_ids = {int(goal["id"]) for goal in stored_goals.of(website)}
    whole = [
        funnel
        for funnel in stored_funnels.of(website)
        if all(goal_id in goal_ids for goal_id in funnel["steps"])
    ]
    body: dict[str, Any] = {"site_id": int(website["id"]), "date_range": _range(first, last)}
    if filters:
        body["filters"] = filters
    return [(funnel, {**body, "funnel_id": funnel["id"]}) for funnel in whole[:SHOWN_FUNNELS]]


def funnel_answer(account_id: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """`funnels.run`'s answer to a `funnel_questions` body; None when a goal of the funnel
    was deleted since the website was read (the funnel is left off, as `funnel_questions`
    leaves it off)."""
    from sitelens.analytics import funnels  # see `compute`

    try:
        return funnels.run(account_id, body)
    except errors.Invalid:
        return None


def _funnel(funnel: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    return {"id": funnel["id"], "name": funnel["name"], "steps": answer["steps"], **answer["meta"]}


def totals(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The top figures of a `totals_question`'s answer: each with its value, the period
    before's and the query API's change (percent; points for the bounce rate)."""
    results = answer["results"]
    zero: list[Any] = [0] * len(TOTALS)
    row: dict[str, Any] = results[0] if results else {"metrics": zero}
    before = row.get("comparison") or {"metrics": zero, "change": [None] * len(TOTALS)}
    return {
        name: {"value": now, "previous": then, "change": change}
        for name, now, then, change in zip(
            TOTALS, row["metrics"], before["metrics"], before["change"], strict=True
        )
    }


def _rows(answer: dict[str, Any], key: str, metrics: tuple[str, ...]) -> list[dict[str, Any]]:
    return [
        {key: row["dimensions"][0], **dict(zip(metrics, row["metrics"], strict=True))}
        for row in answer["results"]
    ]


def _series(answer: dict[str, Any]) -> dict[str, Any]:
    labels = answer["meta"].get("time_labels", [])
    by_label = {row["dimensions"][0]: row["metrics"] for row in answer["results"]}
    zero = [0] * len(SERIES)
    return {
        "days": labels,
        **{
            name: [by_label.get(label, zero)[n] for label in labels]
            for n, name in enumerate(SERIES)
        },
    }


def _vitals(answer: dict[str, Any]) -> dict[str, Any] | None:
    """Each vital's p75 and shares; None when no visit sent any."""
    results = answer["results"]
    if not results:
        return None
    values = dict(zip(VITAL_METRICS, results[0]["metrics"], strict=True))
    if not any(values[f"{name}_{share}"] for name in VITALS for share in VITAL_SHARES):
        return None
    return {
        name: {
            "p75": values[f"p75_{name}"],
            **{share: values[f"{name}_{share}"] for share in VITAL_SHARES},
        }
        for name in VITALS
    }


def compute(
    account_id: str,
    website: dict[str, Any],
    first: date,
    last: date,
    filters: list[Any] | None = None,
) -> dict[str, Any]:
    """The dashboard of the days, every figure from the query API (`PARALLEL` at a time),
    under `filters` when given (`questions`)."""
    # Imported here: the query API's SQL (SQLGlot) is a tenth of a second of a cold start,
    # and most views answer a kept copy without asking anything.
    from sitelens.analytics import queries

    asked = questions(website, first, last, filters)
    saved = funnel_questions(website, first, last, filters)
    with scopes.ThreadPool(max_workers=PARALLEL) as pool:
        running = {name: pool.submit(queries.run, account_id, body) for name, body in asked.items()}
        funneling = [pool.submit(funnel_answer, account_id, body) for _, body in saved]
        answers = {name: future.result() for name, future in running.items()}
        funnel_answers = [future.result() for future in funneling]
    series = answers["series"]
    figures: dict[str, Any] = {
        "date_range": _range(first, last),
        "timezone": series["query"]["timezone"],
        "comparison_date_range": answers["totals"]["meta"].get("comparison_date_range"),
        "totals": totals(answers["totals"]),
        "series": _series(series),
        "annotations": series["meta"].get("annotations", []),
        **{
            name: _rows(answers[name], "value", metrics)
            for name, (_, metrics) in BREAKDOWNS.items()
        },
        "events": _rows(answers["events"], "name", EVENT_METRICS),
        "goals": None,
        "funnels": [
            _funnel(funnel, answer)
            for (funnel, _), answer in zip(saved, funnel_answers, strict=True)
            if answer is not None
        ]
        or None,
        "vitals": _vitals(answers["vitals"]) if "vitals" in answers else None,
    }
    if "goals" in answers:
        metrics = tuple(asked["goals"]["metrics"])
        figures["goals"] = _rows(answers["goals"], "goal", metrics)
    return figures


def of_website(account_id: str, website: dict[str, Any], first: date, last: date) -> dict[str, Any]:
    """The website's dashboard of the days: kept for `FRESH_SECONDS`, else computed when
    the website's hourly budget allows (else its last kept copy, else 429), with visitors
    now and when the figures were computed."""
    site = int(website["id"])
    now = time.time()
    kept = dashboards.get(site, first, last)
    if kept is None or now - kept.computed_at >= FRESH_SECONDS:
        if dashboards.claim(site, first, last, now, CLAIM_SECONDS):
            try:
                kept = _computed(account_id, website, first, last, now) or kept
            finally:
                dashboards.release(site, first, last)
            if kept is None:
                raise errors.TooManyRequests(retry_after=3600 - int(now) % 3600)
        elif kept is None:  # another view is computing these days: its figures, soon
            kept = _awaited(site, first, last)
    return {
        "funnels": None,  # a copy kept before dashboards showed saved funnels has none
        **kept.figures,
        "realtime": {"visitors": realtime.now(account_id, site)["visitors"]},
        "computed_at": clock.iso(datetime.fromtimestamp(kept.computed_at, UTC)),
    }


def of_segment(
    account_id: str, website: dict[str, Any], first: date, last: date, segment_id: int
) -> dict[str, Any]:
    """The website's dashboard of the days under one of its saved segments (`segment`: its
    id and name, never its filters): computed for each view within the website's hourly
    budget (429 past it), none kept; 422 on `segment` for an id the website has none of."""
    segment = segments.named(website, segment_id)
    site = int(website["id"])
    now = time.time()
    hour = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H")
    if not dashboards.spend(site, hour, COMPUTATIONS_PER_HOUR, now):
        raise errors.TooManyRequests(retry_after=3600 - int(now) % 3600)
    figures = compute(account_id, website, first, last, [["is", "segment", [segment_id]]])
    return {
        **figures,
        "segment": {"id": segment_id, "name": segment["name"]},
        "realtime": {"visitors": realtime.now(account_id, site)["visitors"]},
        "computed_at": clock.iso(datetime.fromtimestamp(now, UTC)),
    }


def _computed(
    account_id: str, website: dict[str, Any], first: date, last: date, now: float
) -> dashboards.Kept | None:
    """The dashboard computed and kept, if the website's budget of the hour allows."""
    site = int(website["id"])
    hour = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H")
    if not dashboards.spend(site, hour, COMPUTATIONS_PER_HOUR, now):
        return None
    kept = dashboards.Kept(compute(account_id, website, first, last), now)
    dashboards.put(site, first, last, kept.figures, now)
    return kept


def _awaited(site: int, first: date, last: date) -> dashboards.Kept:
    """The dashboard another view is computing, once kept; 429 after `WAIT_SECONDS`."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        time.sleep(_POLL_SECONDS)
        kept = dashboards.get(site, first, last)
        if kept is not None:
            return kept
    raise errors.TooManyRequests(retry_after=5)
