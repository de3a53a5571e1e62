"""How a crawl's run fails, saying why: a start URL that cannot be audited (unreachable,
an error, robots.txt), a step that failed its last delivery, in a sentence the user can
act on (the run's `failure`)."""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from sitelens.audits import visiting
from sitelens.audits.fetching import AGENT, Fetched
from sitelens.core.log import logger
from sitelens.data import audits as stored

# A step's deliveries before it moves to the dead-letter queue: AuditQueue's
# maxReceiveCount (template.yaml; a test holds the two together).
DELIVERIES = 3
ROBOTS_FAILURE = (
    f"robots.txt disallows the start URL for {AGENT}; set respect_robots to 0 to audit it anyway."
)


def unstartable(
    state: dict[str, Any], start_url: str, unreachable: str | None, listed: list[str]
) -> str | None:
    """Why the run cannot start (its `failure`), or None: robots.txt disallows its start
    URL; in list mode, the site does not answer (its robots.txt could not be fetched), or
    no listed URL is in scope. (An unreachable start URL is told by its fetch.)"""
    if state.get("list_urls"):
        if unreachable is not None:
            return f"The site could not be reached. {unreachable}"
        if not listed:
            return "None of the listed URLs is on the start URL's host and in the audit's scope."
        return None
    rules = visiting.robots(state)
    return ROBOTS_FAILURE if rules is not None and not rules.can_fetch(start_url, AGENT) else None


def deliveries(record: dict[str, Any]) -> int:
    return int(record.get("attributes", {}).get("ApproximateReceiveCount", 1))


def error_name(err: Exception) -> str:
    """What failed, for the run's `failure`: an AWS error's code, else the exception's class
    (never its message, which may quote what was sent)."""
    response = getattr(err, "response", None)
    code = response.get("Error", {}).get("Code") if isinstance(response, dict) else None
    return str(code) if code else type(err).__name__


def fail_exhausted(
    records: list[dict[str, Any]], failed: list[str], errors: dict[str, str]
) -> None:
    """Fail the runs of the steps that failed their last delivery: each goes to the
    dead-letter queue, and its run would otherwise wait to be called stalled."""
    for record in records:
        if record["messageId"] not in failed or deliveries(record) < DELIVERIES:
            continue
        error = errors.get(record["messageId"], "an error")
        try:
            crawl = json.loads(record["body"])["crawl"]
            fail(crawl, f"A crawl step failed {DELIVERIES} times: {error}. Run the audit again.")
        except Exception:
            logger.exception("audit run could not be failed", extra={"crawl": record["body"]})


def fail(crawl: str, failure: str) -> None:
    """End the run `failed`, with why (a sentence for the user), unless it has ended: its
    queued steps are dropped and its analysis never runs."""
    from sitelens.audits.runs import ACTIVE as UNFINISHED

    if stored.set_state(crawl, UNFINISHED, status="failed", failure=failure):
        logger.warning("audit run failed", extra={"crawl": crawl, "failure": failure})


def start_failure(result: Fetched) -> str | None:
    """Why the fetch of the run's start URL ends the run (its `failure`), or None: it could
    not be fetched, or it answered an error (a redirect is followed as a page of its own)."""
    response = result.response
    if response is None:
        return f"The start URL could not be reached. {result.error}"
    if response.status < 400:
        return None
    try:
        answered = f"{response.status} {HTTPStatus(response.status).phrase}"
    except ValueError:
        answered = str(response.status)
    if response.status in (401, 403):
        advice = (
            "the site refused the crawler. For a staging site, give its basic auth, cookie or"
            " headers in the audit's crawl settings."
        )
    elif response.status == 429:
        advice = "the site asks for fewer requests. Lower the audit's max_rate, or run it later."
    elif response.status >= 500:
        advice = "the site's server failed. Run the audit again later."
    else:
        advice = "audit a URL of the site that answers 200."
    return f"The start URL answered {answered}: {advice}"
