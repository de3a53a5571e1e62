"""The daily plan: one message on the digest queue for each digest to send. Every day, not
only on Mondays and the 1st, each cadence's last complete period is planned, so that a
digest missed on its day (the plan did not run) or whose sending failed to the end of its
tries is queued again the next day; digests already sent, or being sent, are not.

The mailed accounts are read a page at a time (a Query of their listing, never a scan)
with their claims of the period (one BatchGetItem per page); reads and messages grow with
the number of accounts, the time spent composing and sending does not: that is the
sender's, one message at a time."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from sitelens.core import metrics
from sitelens.core.log import logger
from sitelens.data import accounts as stored_accounts
from sitelens.data import digest_queue
from sitelens.digests import claims, periods
from sitelens.digests.sending import enabled

# Mailed accounts read per Query: about 80 KB of a 1 MB page; their claims are read 100
# at a time, BatchGetItem's limit.
ACCOUNTS_PAGE = 1000
CLAIMS_READ = 100


@dataclass
class Plan:
    """What a plan found: digests queued, already settled (sent or empty), being sent,
    given up, and not queued (SQS refused them: the next day's plan queues them)."""

    periods: list[str] = field(default_factory=list)
    queued: int = 0
    settled: int = 0
    in_flight: int = 0
    given_up: int = 0
    not_queued: int = 0


def plan(today: date) -> Plan:
    """Queue today's digests: of each cadence's last complete period, every mailed
    account's that is not settled, in flight or given up."""
    chosen = periods.current(today)
    found = Plan(periods=[period.label for period in chosen.values()])
    if not enabled():
        logger.warning("digests are off: no sender address (SenderAddress)")
        return found
    after = None
    while True:
        page, after = stored_accounts.mailed_accounts(after, ACCOUNTS_PAGE)
        wanted = [(a["account"], chosen[a["digest"]].label) for a in page if a["digest"] in chosen]
        for start in range(0, len(wanted), CLAIMS_READ):
            _queue(wanted[start : start + CLAIMS_READ], found)
        if after is None:
            return found


def _queue(wanted: list[tuple[str, str]], found: Plan) -> None:
    """Queue those of these (account, period) digests that are open, by their claims."""
    stored = stored_accounts.digest_claims(wanted)
    moment = claims.now()
    due = []
    for digest in wanted:
        state = claims.standing(stored.get(digest), moment)
        if state == "open":
            due.append(digest)
        else:
            setattr(found, state, getattr(found, state) + 1)
    lost = digest_queue.send(due) if due else 0
    found.queued += len(due) - lost
    found.not_queued += lost
    metrics.count("DigestFailures", lost)
