"""Sending the digests of a period: page through the accounts with an email address (no
scan), claim each account's digest of the period (a conditional put, so a digest is sent
at most once however often this runs or is retried), compose and send it, and record what
became of it. A failure is logged and recorded, never retried into a duplicate."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import date

from sitelens.config import settings
from sitelens.data import accounts as stored_accounts
from sitelens.data import mail
from sitelens.digests import composing
from sitelens.digests.periods import Period, due, last_complete
from sitelens.log import logger

CADENCES = ("weekly", "monthly")
ACCOUNTS_PAGE = 100
CLAIM_KEPT_SECONDS = 400 * 24 * 3600  # a claim outlives any re-run of its period


@dataclass
class Outcome:
    """How many digests were sent, found empty, failed, or had been sent already."""

    sent: int = 0
    empty: int = 0
    failed: int = 0
    already: int = 0
    periods: list[str] = field(default_factory=list)


def send_due(today: date) -> Outcome:
    """The digests due today: weekly ones on Mondays, monthly ones on the 1st."""
    outcome = Outcome()
    for cadence in CADENCES:
        if due(cadence, today):
            send_all(last_complete(cadence, today), outcome)
    return outcome


def send_all(period: Period, outcome: Outcome | None = None) -> Outcome:
    """Every account's digest of the period (accounts of its cadence)."""
    outcome = outcome or Outcome()
    outcome.periods.append(period.label)
    if not settings().mail_from and not settings().mail_outbox:
        logger.warning("digests are off: no sender address (SenderAddress)")
        return outcome
    after = None
    while True:
        page, after = stored_accounts.mailed_accounts(after, ACCOUNTS_PAGE)
        for account in page:
            if account["digest"] == period.cadence:
                _send_one(account, period, outcome)
        if after is None:
            return outcome


def _send_one(account: dict[str, str], period: Period, outcome: Outcome) -> None:
    account_id = account["account"]
    expires = int(time.time()) + CLAIM_KEPT_SECONDS
    if not stored_accounts.claim_digest(account_id, period.label, expires):
        outcome.already += 1
        return
    try:
        message = composing.digest(account_id, account["email"], period)
        if message is None:
            stored_accounts.record_digest(account_id, period.label, "empty", "")
            outcome.empty += 1
            return
        message_id = mail.send(message)
    except Exception as err:
        # never the address: logs are read by more people than mailboxes are
        logger.exception("digest not sent", extra={"account": account_id, "period": period.label})
        stored_accounts.record_digest(account_id, period.label, "failed", type(err).__name__)
        outcome.failed += 1
        return
    stored_accounts.record_digest(account_id, period.label, "sent", message_id)
    outcome.sent += 1
