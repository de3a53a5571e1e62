"""A digest as an email: each website with `email` = 1, its top figures of the period (unique
visitors, visits, pageviews, bounce rate, visit duration) against the period before, as
the query API answers them (`analytics.dashboard.totals_question`: one question a
website, `FIGURES_PARALLEL` at a time), its goal conversions and saved funnels when it
has them (`conversions`: at most one goals question and `dashboard.SHOWN_FUNNELS` funnel
questions more), links to its statistics and share page, and a
signed link that stops its digests; then the account's audit runs that regressed in the
period (`regressions`); plain text and HTML."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from sitelens.analytics import dashboard, queries
from sitelens.core import scopes, words
from sitelens.core.config import settings
from sitelens.data import websites as stored_websites
from sitelens.digests import regressions
from sitelens.digests.periods import Period
from sitelens.digests.unsubscribing import unsubscribe_token

MAX_WEBSITES = 50  # listed in one digest; the rest are named by their number
FIGURES_PARALLEL = 5  # websites' questions at once (Athena queries, deployed)
TOP_GOALS = 5  # goals listed a website, by converted visitors
# what each website shows, by the query API's metric names, in this order
FIGURES = {
    "visitors": "Unique visitors",
    "visits": "Visits",
    "pageviews": "Pageviews",
    "bounce_rate": "Bounce rate",
    "visit_duration": "Visit duration",
}


@cache
def environment() -> Any:
    """The digests' templates (HTML escaped, plain text as it is)."""
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
        # HTML escaped; the plain-text part is text, where escaping would show as `&amp;`
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["counted"] = words.counted  # {{ n|counted("page") }}: "1 page"
    return environment


def figures(
    account_id: str, website_id: int, period: Period, segment: int | None = None
) -> dict[str, Any]:
    """The website's top figures of the period (under one of its saved segments, if given),
    each with the period before's and the change, as `POST /api/v1/query` answers them
    (with `previous_period`: as many days just before), and the days they are compared
    with."""
    question = dashboard.totals_question(website_id, period.first, period.last)
    if segment is not None:
        question["filters"] = [["is", "segment", [segment]]]
    answer = queries.run(account_id, question)
    found = dashboard.totals(answer)
    return {
        "figures": [
            {
                "name": name,
                "title": title,
                **found[name],
                "shown": _shown(name, found[name]["value"]),
                "previous_shown": _shown(name, found[name]["previous"]),
                "change_shown": _change(name, found[name]["change"]),
            }
            for name, title in FIGURES.items()
        ],
        "compared": answer["meta"].get("comparison_date_range"),
        "timezone": answer["query"]["timezone"],
    }


def conversions(account_id: str, website: dict[str, Any], period: Period) -> dict[str, Any]:
    """The website's top `TOP_GOALS` goals by converted visitors, each with its change
    against the period before, and its shown saved funnels' overall conversion (the
    share dashboard's: `dashboard.funnel_questions`), as the query API and
    `POST /api/v1/funnels/query` answer them; None for what the website has not defined."""
    found: dict[str, Any] = {"goals": None, "funnels": None}
    question = dashboard.goals_question(website, period.first, period.last)
    if question is not None:
        answer = queries.run(
            account_id,
            {
                **question,
                "metrics": ["visitors", "conversion_rate"],
                "include": {"comparisons": {"mode": "previous_period"}},
                "order_by": [["visitors", "desc"]],
                "pagination": {"limit": TOP_GOALS},
            },
        )
        found["goals"] = [
            {
                "goal": row["dimensions"][0],
                "visitors": row["metrics"][0],
                "conversion_rate": row["metrics"][1],
                "change_shown": _change(
                    "visitors", (row.get("comparison") or {}).get("change", [None])[0]
                ),
            }
            for row in answer["results"]
        ]
    saved = dashboard.funnel_questions(website, period.first, period.last)
    if saved:
        answers = [dashboard.funnel_answer(account_id, body) for _, body in saved]
        found["funnels"] = [
            {
                "name": funnel["name"],
                "conversion_rate": answer["meta"]["conversion_rate"],
                "entering": answer["meta"]["entering_visitors"],
                "completed": answer["steps"][-1]["visitors"],
            }
            for (funnel, _), answer in zip(saved, answers, strict=True)
            if answer is not None
        ] or None
    return found


def _shown(name: str, value: float) -> str:
    if name == "bounce_rate":
        return f"{value:g}%"
    if name == "visit_duration":
        minutes, seconds = divmod(int(value), 60)
        return f"{minutes}m {seconds:02d}s" if minutes else f"{seconds}s"
    return f"{int(value):,}"


def _change(name: str, change: float | None) -> str:
    """The query API's change in words: percent, or points for the bounce rate."""
    if change is None:
        return "new"
    if not change:
        return "no change"
    return f"{change:+g} points" if name == "bounce_rate" else f"{change:+d}%"


def digest(account_id: str, email: str, period: Period) -> EmailMessage | None:
    """The account's digest of the period; None when none of its websites asks for one
    and none of its audits regressed in it."""
    websites = [w for w in stored_websites.of_account(account_id) if int(w["email"]) == 1]
    regressed = regressions.of_period(account_id, period)
    if not websites and not regressed.listed:
        return None
    base = settings().analytics_base_url
    listed = websites[:MAX_WEBSITES]
    with scopes.ThreadPool(max_workers=FIGURES_PARALLEL) as pool:
        found = pool.map(
            lambda website: {
                **figures(account_id, int(website["id"]), period),
                **conversions(account_id, website, period),
            },
            listed,
        )
        numbers = list(found)
    rows = []
    for website, figured in zip(listed, numbers, strict=True):
        query = urlencode(
            {"name": "pageviews", "from": period.first.isoformat(), "to": period.last.isoformat()}
        )
        rows.append(
            {
                "domain": website["domain"],
                **figured,
                "stats_url": f"{base}/api/v1/stats/{website['id']}?{query}",
                "share_url": (
                    f"{base}/share/{website['domain']}" if int(website["privacy"]) != 1 else None
                ),
                "unsubscribe_url": _unsubscribe_url(base, account_id, [int(website["id"])]),
            }
        )
    everything = _unsubscribe_url(base, account_id, None)  # every website: a short link
    context = {
        "period": period,
        "title": title(period),
        "websites": rows,
        "more": len(websites) - len(rows),
        "unsubscribe_all": everything,
        "regressions": regressed.listed,
        "more_regressions": regressed.more,
    }
    message = EmailMessage()
    message["Subject"] = f"Sitelens: {context['title']}"
    message["From"] = formataddr(("Sitelens", settings().mail_from or "digests@localhost"))
    message["To"] = email
    message["Message-ID"] = make_msgid(domain="sitelens")
    # RFC 8058: mail clients offer one-click unsubscribing with a POST to this URL
    message["List-Unsubscribe"] = f"<{everything}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(environment().get_template("digest.txt").render(**context))
    message.add_alternative(
        environment().get_template("digest.html").render(**context), subtype="html"
    )
    return message


def _unsubscribe_url(base: str, account_id: str, website_ids: list[int] | None) -> str:
    token = unsubscribe_token(account_id, website_ids)
    return f"{base}/api/v1/unsubscribe?{urlencode({'token': token})}"


def title(period: Period) -> str:
    if period.cadence == "weekly":
        return f"your week, {period.first:%d %b} to {period.last:%d %b %Y}"
    return f"your month, {period.first:%B %Y}"
