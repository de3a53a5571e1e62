"""A fair share of the crawl workers per account, so that a busy account cannot starve
others on the shared crawl queue.

Each account may run `SITELENS_AUDIT_ACCOUNT_RATE` fetch steps a second over all its runs
(default 50) and save up a burst of `SITELENS_AUDIT_ACCOUNT_BURST` (default 100): a token
bucket kept as a watermark in DynamoDB (`data.slots`, one item an account), so the share
holds across every worker, not per container. A batch's fetch steps past their account's
share are put off (`politeness.put_off`): sent again to the queue, delayed until about
when the bucket has room for them, and their messages acknowledged, so that they are
never lost and never count as a failed delivery towards the dead-letter queue. Putting a
step off costs a few milliseconds of a worker (one SendMessage), where fetching it costs
its host's slot, the fetch and the page's analysis: the workers' time goes to the steps
of the accounts within their share, while the busy account's wait in the queue.

What that gives with the defaults: one run fetches at most 20 pages a second (its host's
politeness), so an account runs two audits at full speed and more at a shared 50 pages a
second; the workers (AuditFunction, at most 20 at once) fetch a few hundred pages a second
together, so no single account takes more than a small part of them. 0 turns it off.
"""

from __future__ import annotations

from typing import Any

from sitelens.audits.politeness import Later
from sitelens.core.config import settings
from sitelens.data import slots


def admit(
    steps: list[tuple[str, dict[str, Any]]], states: dict[str, dict[str, Any] | None], now: float
) -> tuple[list[tuple[str, dict[str, Any]]], list[Later]]:
    """The steps within their accounts' shares, in order, and those put off."""
    rate, burst = settings().audit_account_rate, settings().audit_account_burst
    if not rate:
        return steps, []
    interval = 1.0 / rate
    by_account: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for message_id, step in steps:
        by_account.setdefault(_account(step, states), []).append((message_id, step))
    admitted: set[str] = set()
    later: list[Later] = []
    horizon = burst * interval
    for account, own in by_account.items():
        booked = slots.reserve_account(account, now, len(own), interval, horizon)
        admitted.update(message_id for message_id, _ in own[: len(booked.times)])
        for n, (message_id, step) in enumerate(own[len(booked.times) :]):
            # back when the bucket has room for it, counting those put off before it
            due = booked.after + n * interval - horizon
            later.append(Later(message_id, step, due - now, "account_share"))
    return [(m, step) for m, step in steps if m in admitted], later


def _account(step: dict[str, Any], states: dict[str, dict[str, Any] | None]) -> str:
    """The account a step works for: its run's, named first in the run's key
    (`<account>#<audit>#<run>`, `data.audits.crawl_key`)."""
    state = states.get(step["crawl"]) or {}
    return str(state.get("account") or step["crawl"].split("#", 1)[0])
