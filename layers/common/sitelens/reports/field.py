"""Field data of a report: what real visits measured on the reported page, when the
account tracks its host with Sitelens analytics (a website of the account whose domain is
the host, `www.` or not, that the request's key may read).

Read once, when the report is generated, and stored with it (a report is a snapshot:
reading it costs no warehouse query): the last `DAYS` days of the page's Core Web Vitals
(each one's p75, good / needs improvement / poor shares and sample size) and its
pageviews, visitors and bounce rate, as `POST /api/v1/query` answers them; with the
website connected to Search Console, the page's clicks and top queries (`search`, None
otherwise). Three warehouse questions, asked side by side and waited for at most
`FIELD_SECONDS`; a warehouse that fails or is late never fails the report, whose field
data then says "unavailable".
"""

from __future__ import annotations

import dataclasses
import logging
from concurrent.futures import Future, wait
from typing import Any, Final

from sitelens.analytics import queries
from sitelens.analytics.hits import counted_page
from sitelens.analytics.searchconsole import pages as search_pages
from sitelens.analytics.vitals import CLS_SCALE, NAMES
from sitelens.analytics.warehouse import vitals
from sitelens.core import hosts, metrics, scopes
from sitelens.data import websites as stored_websites
from sitelens.seo.page import FieldVital

logger = logging.getLogger(__name__)

DAYS: Final = 28  # as CrUX and PageSpeed Insights report field data: the last 28 days
# page views that measured a vital before its p75 and shares are shown or judged: fewer
# are one bad connection away from another verdict (CrUX, too, leaves out pages without
# "sufficient" data)
MIN_SAMPLES: Final = 50
# both questions together, waited for at most this long: with the fetch's 10 s and the
# analysis' 8 s, the report still answers within its function's 25 s
FIELD_SECONDS: Final = 5.0
MAX_PAGES: Final = 1_000  # pages of a website given field vitals at once (an audit's)
JUDGED: Final = ("lcp", "inp", "cls")  # the Core Web Vitals the performance checks judge
TRAFFIC: Final = ("pageviews", "visitors", "bounce_rate")
SHARES: Final = ("good", "needs_improvement", "poor")
# per vital, in this order: samples, p75, then the shares (`warehouse.vitals`' columns)
_COLUMNS: Final = tuple(
    column
    for name in NAMES
    for column in (f"{name}_samples", f"p75_{name}", *(f"{name}_{share}" for share in SHARES))
)

UNTRACKED: Final = "No website of this account (that this key may read) tracks the host."
UNAVAILABLE: Final = "The field data could not be read in time; generate the report again."


def website_of(account_id: str, url: str) -> dict[str, Any] | None:
    """The account's website tracking the URL's host, or None (another account's, or one
    the request's key is not limited to, is none): two GetItems, the domain's claim and
    the website (`data.records.get` applies the key's scope)."""
    parts = hosts.split_url(url)
    try:
        site = hosts.site(parts.hostname or "") if parts else ""
    except hosts.InvalidHost:
        return None
    website = stored_websites.by_domain(site) if site else None
    return website if website and website.get("account") == account_id else None


def gather(account_id: str, url: str) -> dict[str, Any]:
    """The report's `field_data` for its final URL (see the module's docstring); never
    raises: what goes wrong is "unavailable"."""
    try:
        website = website_of(account_id, url)
        if website is None:
            return {"status": "untracked", "note": UNTRACKED, **_empty()}
        return _measured(account_id, url, website)
    except Exception as error:  # a report is never lost to its field data
        logger.warning("field data of a report failed: %r", error)
        return _unavailable({}, "error")


def _measured(account_id: str, url: str, website: dict[str, Any]) -> dict[str, Any]:
    parts = hosts.split_url(url)
    assert parts is not None  # website_of parsed it
    page = counted_page(parts, website.get("exclude_params"))
    body = {
        "site_id": int(website["id"]),
        "metrics": ["p75_lcp"],  # replaced by every vital's columns below
        "date_range": f"{DAYS}d",
        "filters": [["is", "event:page", [page]]],
    }
    asked = queries.parse(account_id, body)  # the website's time zone, its local days
    period = [asked.first_day.isoformat(), asked.last_day.isoformat()]
    found = {"website_id": int(website["id"]), "page": page, "days": DAYS, "period": period}
    traffic_body = {**body, "metrics": list(TRAFFIC), "date_range": period}
    pool = scopes.ThreadPool(max_workers=2, thread_name_prefix="sitelens-field")
    try:
        traffic = pool.submit(queries.run, account_id, traffic_body)
        measured = pool.submit(vitals.rows, dataclasses.replace(asked, metrics=_COLUMNS))
        # Search Console's clicks and top queries of the page, when the website is connected
        search = pool.submit(search_pages.of_page, account_id, int(website["id"]), page)
        futures: list[Future[Any]] = [traffic, measured, search]
        done, late = wait(futures, timeout=FIELD_SECONDS)
        if late:
            return _unavailable(found, "timeout")
        failed = [error for future in done if (error := future.exception())]
        if failed:
            logger.warning("field data of website %s failed: %r", website["id"], failed[0])
            return _unavailable(found, "error")
        shown = _vitals(measured.result())
        return {
            "status": "measured",
            **found,
            "min_samples": MIN_SAMPLES,
            "traffic": _traffic(traffic.result()),
            "vitals": shown,
            "search": search.result(),
            "note": _note(shown),
        }
    finally:
        pool.shutdown(wait=False, cancel_futures=True)  # a late question is not waited for


def by_page(account_id: str, website: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """Each page's field vitals of the last `DAYS` days (a report's `vitals` shape), for the
    pages where some vital reached `MIN_SAMPLES`, of the `MAX_PAGES` most measured: one
    grouped warehouse question, `event:page` its dimension (an audit run's). Raises what
    the warehouse raises."""
    body = {
        "site_id": int(website["id"]),
        "metrics": ["p75_lcp"],  # replaced by every vital's columns below
        "date_range": f"{DAYS}d",
        "dimensions": ["event:page"],
    }
    asked = queries.parse(account_id, body)
    # the default order is the first column's, descending: the most measured pages first
    grouped = dataclasses.replace(asked, metrics=_COLUMNS, limit=MAX_PAGES)
    found = {}
    for row in vitals.rows(grouped):
        shown = _vitals([row[1 : 1 + len(_COLUMNS)]])
        if any(vital["p75"] is not None for vital in shown.values()):
            found[str(row[0])] = shown
    return found


def _empty() -> dict[str, Any]:
    return {
        "website_id": None,
        "page": None,
        "days": DAYS,
        "period": None,
        "min_samples": MIN_SAMPLES,
        "traffic": None,
        "vitals": None,
    }


def _unavailable(found: dict[str, Any], reason: str) -> dict[str, Any]:
    metrics.count("FieldDataUnavailable", reason=reason)
    return {"status": "unavailable", "note": UNAVAILABLE, **_empty(), **found}


def _traffic(answer: dict[str, Any]) -> dict[str, Any]:
    [row] = answer["results"] or [{"metrics": [0] * len(TRAFFIC)}]
    return dict(zip(TRAFFIC, row["metrics"], strict=True))


def _vitals(rows: Any) -> dict[str, dict[str, Any]]:
    row = list(rows[0]) if rows else [0] * len(_COLUMNS)
    shown: dict[str, dict[str, Any]] = {}
    for n, name in enumerate(NAMES):
        samples, p75, *shares = row[n * 5 : n * 5 + 5]
        samples = int(samples or 0)
        if samples < MIN_SAMPLES:
            shown[name] = {"samples": samples, "p75": None, "rating": None}
            shown[name] |= dict.fromkeys(SHARES)
            continue
        value = float(p75) if name == "cls" else int(p75)
        shown[name] = {"samples": samples, "p75": value, "rating": rating(name, value)}
        shown[name] |= {share: float(part) for share, part in zip(SHARES, shares, strict=True)}
    return shown


def _note(shown: dict[str, dict[str, Any]]) -> str:
    few = [name.upper() for name, vital in shown.items() if vital["p75"] is None]
    if not few:
        return "Every vital was measured on enough page views."
    return (
        f"Too few page views measured {', '.join(few)} (fewer than {MIN_SAMPLES} in "
        f"{DAYS} days): not shown, and not judged."
    )


def _stored_unit(name: str, value: float) -> float:
    return value * CLS_SCALE if name == "cls" else value


def rating(name: str, p75: float) -> str:
    """`good`, `needs_improvement` or `poor`: the p75 against Google's thresholds."""
    good, poor = vitals.THRESHOLDS[name]
    value = _stored_unit(name, p75)
    return "good" if value <= good else "needs_improvement" if value <= poor else "poor"


def judged(field_data: dict[str, Any]) -> dict[str, FieldVital]:
    """The vitals the performance checks judge the page by: those measured often enough."""
    found = {}
    for name in JUDGED:
        shown = (field_data.get("vitals") or {}).get(name) or {}
        if shown.get("p75") is None:
            continue
        good = vitals.THRESHOLDS[name][0]
        found[name] = FieldVital(
            p75=shown["p75"],
            rating=shown["rating"],
            good_up_to=good / CLS_SCALE if name == "cls" else good,
            samples=shown["samples"],
            days=DAYS,
        )
    return found
