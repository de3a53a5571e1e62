"""The rule that sends each account's digest of a period once: a sender claims it as
`sending` (a conditional write), then records `sent`, `empty` or `failed`. A failed try is
claimed again by the next delivery or the next day's plan; a claim left `sending` by a
sender that died is stale after CLAIM_LEASE_SECONDS and claimed again, so a digest is
never claimed and then not sent. The one gap left: a sender that dies between the mail
service accepting the email and the record, which sends it twice rather than never."""

from __future__ import annotations

import uuid
from typing import Any

from sitelens.core import clock
from sitelens.data import accounts as stored_accounts

# Twice the sender's Timeout (300 s) in template.yaml: a claim this old was made by an
# invocation that has ended, and shorter than the queue's visibility timeout (1,800 s), so
# the redelivery of a crashed sender's message finds it stale.
CLAIM_LEASE_SECONDS = 600
# Tries of one digest (three deliveries a day, then the next days' plans) before it is
# given up and stays `failed`.
MAX_ATTEMPTS = 10
CLAIM_KEPT_SECONDS = 400 * 24 * 3600  # the record of a digest outlives any plan of its period

SETTLED = frozenset({"sent", "empty"})

Claim = dict[str, Any]  # account, period, state, token, attempts, claimed_at, expires_at


def standing(stored: dict[str, Any] | None, at: int) -> str:
    """What a claim as stored says of its digest at epoch second `at`: `open` (to be sent:
    never claimed, its last try failed, or its sender died), `settled` (sent, or nothing to
    report), `in_flight` (a sender holds it) or `given_up` (MAX_ATTEMPTS tries failed)."""
    if stored is None:
        return "open"
    state = stored.get("state")
    if state in SETTLED:
        return "settled"
    if int(stored.get("attempts") or 0) >= MAX_ATTEMPTS:
        return "given_up"
    if state == "sending" and int(stored.get("claimed_at") or 0) >= at - CLAIM_LEASE_SECONDS:
        return "in_flight"
    return "open"


def now() -> int:
    """Now, in epoch seconds (as claims are stamped)."""
    return int(clock.now().timestamp())


def claim(account_id: str, period: str) -> tuple[str, Claim]:
    """Claim a digest: ("claimed", the claim) for the one caller that may send it now, or
    (its standing, the claim there is) when it is not to be sent now. A first claim is one
    conditional put; taking over a failed or stale one, a conditional update."""
    moment = now()
    mine: Claim = {
        "account": account_id,
        "period": period,
        "state": "sending",
        "token": uuid.uuid4().hex,
        "attempts": 1,
        "claimed_at": moment,
        "expires_at": moment + CLAIM_KEPT_SECONDS,
    }
    found = stored_accounts.claim_digest(mine)
    if found is None:
        return "claimed", mine
    state = standing(found, moment)
    if state != "open":
        return state, found
    taken, found = stored_accounts.take_over_digest(
        mine, stale_before=moment - CLAIM_LEASE_SECONDS, max_attempts=MAX_ATTEMPTS
    )
    return ("claimed", found) if taken else (standing(found, moment), found)


def settle(held: Claim, state: str, detail: str) -> bool:
    """Record what became of a claimed digest (`sent`, `empty`, `failed`, with the message
    id or the reason); False when the claim was taken over meanwhile (its lease ran out:
    the sender was too slow)."""
    settled = {**held, "state": state, "detail": detail[:1000], "token": None}
    return stored_accounts.record_digest(settled, held["token"])
