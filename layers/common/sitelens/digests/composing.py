"""A digest as an email: each website with `email` = 1, its visitors and pageviews in the
period against the one before, links to its statistics and share page, and a signed link
that stops its digests; then the account's audit runs that regressed in the period
(`regressions`); plain text and HTML."""

from __future__ import annotations

from datetime import date
from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from sitelens.core.config import settings
from sitelens.data import stats
from sitelens.data import websites as stored_websites
from sitelens.digests import regressions
from sitelens.digests.periods import Period
from sitelens.digests.unsubscribing import unsubscribe_token

MAX_WEBSITES = 50  # listed in one digest; the rest are named by their number


@cache
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
        # HTML escaped; the plain-text part is text, where escaping would show as `&amp;`
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _total(website_id: int, name: str, first: date, last: date) -> int:
    found, _ = stats.counts(website_id, name, first.isoformat(), last.isoformat())
    return sum(count for _, count in found)


def _change(now: int, before: int) -> str:
    if before == 0:
        return "new" if now else "no change"
    percent = round(100 * (now - before) / before)
    return f"{percent:+d}%" if percent else "no change"


def digest(account_id: str, email: str, period: Period) -> EmailMessage | None:
    """The account's digest of the period; None when none of its websites asks for one
    and none of its audits regressed in it."""
    websites = [w for w in stored_websites.of_account(account_id) if int(w["email"]) == 1]
    regressed = regressions.of_period(account_id, period)
    if not websites and not regressed.listed:
        return None
    base = settings().analytics_base_url
    rows = []
    for website in websites[:MAX_WEBSITES]:
        numbers = {}
        for name in ("visitors", "pageviews"):
            now = _total(website["id"], name, period.first, period.last)
            before = _total(website["id"], name, period.before_first, period.before_last)
            numbers[name] = {"now": now, "before": before, "change": _change(now, before)}
        query = urlencode(
            {"name": "pageviews", "from": period.first.isoformat(), "to": period.last.isoformat()}
        )
        rows.append(
            {
                "domain": website["domain"],
                **numbers,
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
        "title": _title(period),
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
    message.set_content(_environment().get_template("digest.txt").render(**context))
    message.add_alternative(
        _environment().get_template("digest.html").render(**context), subtype="html"
    )
    return message


def _unsubscribe_url(base: str, account_id: str, website_ids: list[int] | None) -> str:
    token = unsubscribe_token(account_id, website_ids)
    return f"{base}/api/v1/unsubscribe?{urlencode({'token': token})}"


def _title(period: Period) -> str:
    if period.cadence == "weekly":
        return f"your week, {period.first:%d %b} to {period.last:%d %b %Y}"
    return f"your month, {period.first:%B %Y}"
