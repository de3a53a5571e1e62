"""Client digests: each confirmed recipient (`sitelens.recipients`) of a website gets that
website's figures of the period, and of an audit its regressions of the period, under the
project's brand (its name as the sender, its logo, accent and contact line, "Made with
Sitelens" unless turned off), with a one-click unsubscribe link of its own (RFC 8058).
A website's recipient with a saved segment gets the figures under it.
Sent after the account's own digest; nothing to say (an audit that did not regress, a
website deleted since) sends nothing. A failed message is counted and logged, not retried:
the account's digest, which holds the period's claim, was settled already."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from typing import Any
from urllib.parse import urlsplit

from sitelens import brands, recipients
from sitelens.analytics import segments
from sitelens.brands.records import MADE_WITH
from sitelens.core import errors, metrics
from sitelens.core.config import settings
from sitelens.core.log import logger
from sitelens.data import mail
from sitelens.data import websites as stored_websites
from sitelens.digests import composing, regressions
from sitelens.digests.periods import Period
from sitelens.recipients.links import unsubscribe_url


def send(account_id: str, period: Period) -> int:
    """Mail the period's client digests of the account; how many went out."""
    targets = recipients.confirmed(account_id)
    if not targets:
        return 0
    regressed: regressions.Regressions | None = None
    sent = 0
    for target, entries in targets.items():
        kind, _, record_id = target.partition(":")
        contexts: dict[int | None, dict[str, Any] | None] = {}  # by a recipient's segment
        for entry in entries:
            segment = entry.get("segment") if kind == "website" else None
            if segment not in contexts:
                if kind == "audit":
                    if regressed is None:
                        regressed = regressions.of_period(account_id, period)
                    contexts[segment] = _audit(int(record_id), regressed)
                else:
                    contexts[segment] = _website(account_id, int(record_id), period, segment)
            context = contexts[segment]
            if context is None:
                continue
            try:
                mail.send(_message(account_id, target, entry, context, period))
                sent += 1
            except Exception:  # never the address in logs
                logger.exception("client digest not sent", extra={"account": account_id})
                metrics.count("DigestFailures")
    return sent


def _website(
    account_id: str, website_id: int, period: Period, segment: int | None
) -> dict[str, Any] | None:
    """A website's figures of the period, under the recipient's saved segment if it has one;
    None for a website deleted since, or a segment (its filters: what the client was to see)
    deleted since, which sends nothing and says so in the log."""
    website = stored_websites.get(account_id, website_id)
    if website is None:
        return None
    name = str(website["domain"])
    if segment is not None:
        try:
            name += f" ({segments.named(website, segment)['name']})"
        except errors.Invalid:
            logger.warning(
                "client digest of a deleted segment not sent", extra={"account": account_id}
            )
            return None
    base = settings().analytics_base_url
    public = int(website["privacy"]) != 1
    return {
        "kind": "website",
        "name": name,
        "host": str(website["domain"]),
        "base": base,
        **composing.figures(account_id, website_id, period, segment),
        "share_url": f"{base}/share/{website['domain']}" if public else None,
    }


def _audit(audit_id: int, regressed: regressions.Regressions) -> dict[str, Any] | None:
    runs = [entry for entry in regressed.listed if entry["audit"] == audit_id]
    if not runs:
        return None
    url = str(runs[0]["url"])
    return {
        "kind": "audit",
        "name": url,
        "host": urlsplit(url).hostname or url,
        "base": settings().seo_base_url,
        "regressions": runs,
    }


def _message(
    account_id: str, target: str, entry: dict[str, Any], context: dict[str, Any], period: Period
) -> EmailMessage:
    base = context["base"]
    brand = brands.shown(account_id, context["host"], base)
    leave = unsubscribe_url(base, account_id, target, str(entry["id"]))
    filled = {
        **context,
        "brand": brand,
        "made_with": MADE_WITH,
        "title": composing.title(period),
        "unsubscribe_url": leave,
    }
    message = EmailMessage()
    message["Subject"] = f"{brand.name}: {context['name']}, {filled['title']}"
    message["From"] = formataddr((brand.name, settings().mail_from or "digests@localhost"))
    message["To"] = str(entry["email"])
    message["Message-ID"] = make_msgid(domain="sitelens")
    # RFC 8058: mail clients offer one-click unsubscribing with a POST to this URL
    message["List-Unsubscribe"] = f"<{leave}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    templates = composing.environment()
    message.set_content(templates.get_template("client.txt").render(**filled))
    message.add_alternative(templates.get_template("client.html").render(**filled), subtype="html")
    return message
