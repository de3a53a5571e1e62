"""Sending one account's digest of one period: read the account's address as it is now,
claim the digest (`claims`), compose and send it, record what became of it, and count it
(DigestsSent, DigestFailures). The sender function does this for each message of the
digest queue; `sitelens digests send` for every mailed account, in place of the queue."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sitelens.core import metrics
from sitelens.core.config import settings
from sitelens.core.log import logger
from sitelens.data import accounts as stored_accounts
from sitelens.data import digest_queue, mail
from sitelens.digests import claims
from sitelens.digests.periods import Period, of_label

ACCOUNTS_PAGE = 1000  # mailed accounts read per Query (`sitelens digests send`)


@dataclass
class Outcome:
    """How many digests were sent, found empty, failed, had been sent already, were being
    sent by another sender, were given up, or were for accounts no longer mailed."""

    sent: int = 0
    empty: int = 0
    failed: int = 0
    already: int = 0
    in_flight: int = 0
    given_up: int = 0
    unmailed: int = 0
    periods: list[str] = field(default_factory=list)

    def add(self, result: str) -> None:
        setattr(self, result, getattr(self, result) + 1)


def enabled() -> bool:
    """Whether digests go anywhere: a sender address, or make serve's outbox."""
    return bool(settings().mail_from or settings().mail_outbox)


def send(contact: dict[str, str] | None, account_id: str, period: Period) -> str:
    """Send the account's digest of the period to `contact` (its entry among the mailed
    accounts, read now; None: it has none) unless it is settled or in flight; what became
    of it, as an `Outcome` field. A failure is recorded, counted and logged, and reported
    as `failed`, to be tried again."""
    if contact is None or contact["digest"] != period.cadence:
        return "unmailed"  # its address was removed, or its cadence changed, since it was planned
    state, held = claims.claim(account_id, period.label)
    if state != "claimed":
        # `open` only for a state this code does not know: tried again, then dead-lettered
        return {"settled": "already", "open": "failed"}.get(state, state)
    # Imported here: the statistics a digest is composed of (the query API, the warehouse's
    # SQL: 45 ms) are the sending function's alone, not the planner's or the unsubscribe
    # link's, which import this package.
    from sitelens.digests import composing

    try:
        message = composing.digest(account_id, contact["email"], period)
        if message is None:
            claims.settle(held, "empty", "")
            _to_clients(account_id, period)
            return "empty"
        message_id = mail.send(message)
    except Exception as err:
        # never the address: logs are read by more people than mailboxes are
        logger.exception("digest not sent", extra={"account": account_id, "period": period.label})
        metrics.count("DigestFailures")
        claims.settle(held, "failed", type(err).__name__)
        return "failed"
    metrics.count("DigestsSent")
    if not claims.settle(held, "sent", message_id):
        logger.warning(
            "digest sent after its claim was taken over",
            extra={"account": account_id, "period": period.label},
        )
    _to_clients(account_id, period)
    return "sent"


def _to_clients(account_id: str, period: Period) -> None:
    """The period's client digests (`clients`), once the account's own is settled: a
    failure there is counted and logged, and never sends the account's digest again."""
    from sitelens.digests import clients

    try:
        clients.send(account_id, period)
    except Exception:
        logger.exception("client digests not sent", extra={"account": account_id})
        metrics.count("DigestFailures")


def send_batch(records: list[dict[str, Any]]) -> list[str]:
    """The digests a batch of digest queue messages (Lambda's SQS records) name, their
    accounts' addresses read in one request; the message ids of those that failed, to be
    delivered again (and, after the queue's tries, dead-lettered)."""
    named: list[tuple[str, str, Period | None]] = []
    for record in records:
        try:
            account_id, label = digest_queue.digest_of(record["body"])
            named.append((record["messageId"], account_id, of_label(label)))
        except ValueError:
            logger.error("not a digest message", extra={"message_id": record["messageId"]})
            metrics.count("DigestFailures")
            named.append((record["messageId"], "", None))
    contacts = stored_accounts.mailed_now([account for _, account, period in named if period])
    failed = []
    for message_id, account_id, period in named:
        try:
            result = send(contacts.get(account_id), account_id, period) if period else "failed"
        except Exception:  # the claim's record failed: tried again once its claim is stale
            logger.exception("digest not settled", extra={"account": account_id})
            metrics.count("DigestFailures")
            result = "failed"
        if period:
            extra = {"account": account_id, "period": period.label, "outcome": result}
            logger.info("digest", extra=extra)
        if result == "failed":
            failed.append(message_id)
    return failed


def send_all(period: Period, outcome: Outcome | None = None) -> Outcome:
    """Every mailed account's digest of the period (accounts of its cadence), one after
    the other in this process (`sitelens digests send`)."""
    outcome = outcome or Outcome()
    outcome.periods.append(period.label)
    if not enabled():
        logger.warning("digests are off: no sender address (SenderAddress)")
        return outcome
    after = None
    while True:
        page, after = stored_accounts.mailed_accounts(after, ACCOUNTS_PAGE)
        for account in page:
            if account["digest"] == period.cadence:
                outcome.add(send(account, account["account"], period))
        if after is None:
            return outcome
