"""What a proof of a domain's ownership does (docs/websites-domains.md):

- the domain is the prover's already: its website gets the verified badge;
- nobody holds it: a new website of the prover's, verified;
- another account holds it: a new website of the prover's, verified, takes the claim; for
  `GRACE` the old holder's website still counts the domain's hits (the claim's
  `previous_*`), then the prover's does. The old holder is told by email, keeps the
  website and all its history (statistics, goals, funnels, annotations), and it counts no
  hits after `moves_at` (`released_at`). During the grace period the old holder may prove
  ownership in turn, which cancels the move; anyone else waits for its end (409).
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

from sitelens.accounts.keys import get_account
from sitelens.core import clock, errors, hosts, metrics, scopes
from sitelens.core.config import settings
from sitelens.core.log import logger
from sitelens.data import mail
from sitelens.data import websites as stored_websites
from sitelens.domains import proofs
from sitelens.domains.inputs import METHODS, DomainCheck
from sitelens.seo.fetch import FetchError
from sitelens.websites import records as websites
from sitelens.websites.inputs import WebsiteCreate

GRACE = timedelta(days=7)  # the old holder's time to move its tracking, or to prove back
TOKEN_BYTES = 16  # 32 hex characters: unguessable, and short enough for any DNS console
MOVE_ATTEMPTS = 3  # the claim or a website changed between the read and the write
ASK_FIRST = "Ask for this domain's token first: POST /api/v1/domains/verification."
NOT_FOUND = "No proof of ownership was found."


class MovePending(errors.Conflict):
    """409: the domain is moving to an account that proved it; a proof waits for the end."""

    message = (
        "This domain is moving to an account that proved it owns it; a proof by another "
        "account can be made when the grace period ends."
    )


def instructions(account_id: str, domain: str) -> dict[str, Any]:
    """The account's token for the domain (the same each time) and the ways to prove it."""
    site = hosts.site(domain)
    if scopes.current().limited:  # its own websites' domains only: nothing else is in reach
        claim = stored_websites.get_claim(site)
        if claim is None or claim["owner"] != account_id:
            raise errors.Forbidden()
        if not scopes.current().sees_website(claim["record_id"]):
            raise errors.Forbidden()
    stored = stored_websites.proof_token(
        account_id, site, secrets.token_hex(TOKEN_BYTES), clock.now_iso()
    )
    shown = proofs.Instructions(site, str(stored["token"])).public(proofs.origin_of(site, None))
    return {**shown, "created_at": stored["created_at"]}


def check(account_id: str, fields: DomainCheck) -> tuple[dict[str, Any], bool]:
    """Look for the account's proof; when found, apply it. The account's website for the
    domain, verified, and whether it was created; 422 when no proof was found."""
    site = hosts.site(fields.domain)
    token = stored_websites.stored_proof_token(account_id, site)
    if token is None:
        raise errors.Invalid.field("domain", ASK_FIRST)
    methods = (fields.method,) if fields.method else METHODS
    try:
        outcome = proofs.find(proofs.Instructions(site, token), fields.url, methods)
    except FetchError as err:
        raise errors.Invalid.field("url", str(err)) from None
    if outcome.method is None:
        raise errors.Invalid({"domain": [NOT_FOUND, *outcome.reasons]})
    for _ in range(MOVE_ATTEMPTS):
        try:
            return _apply(account_id, fields.domain, site, outcome.method)
        except stored_websites.ClaimChanged:
            continue
    raise errors.Conflict()


def _apply(account_id: str, domain: str, site: str, method: str) -> tuple[dict[str, Any], bool]:
    now = clock.now_iso()
    proven = {"verified_at": now, "verified_by": method}
    claim = stored_websites.get_claim(site)
    if claim is not None and claim["owner"] == account_id:
        return _verify(account_id, int(claim["record_id"]), site, proven), False
    if scopes.current().limited:  # it creates a website, which a limited key may not
        raise errors.Forbidden()
    pending = claim is not None and now < claim.get("moves_at", "")
    if pending and claim is not None and claim["previous_owner"] == account_id:
        return _take_back(account_id, site, claim, proven), False
    if pending:
        raise MovePending()
    moves_at = clock.iso(clock.now() + GRACE) if claim is not None else None
    record = stored_websites.versioned(
        None,
        {
            **websites.new_record(account_id, WebsiteCreate(domain=domain)),
            **proven,
            **({"tracking_from": moves_at} if moves_at else {}),
        },
    )
    new_claim: dict[str, Any] = {"owner": account_id, "record_id": record["id"]}
    changed: tuple[tuple[dict[str, Any], dict[str, Any]], ...] = ()
    old = None
    if claim is not None:
        new_claim |= {
            "previous_owner": claim["owner"],
            "previous_record_id": int(claim["record_id"]),
            "moves_at": moves_at,
        }
        old = stored_websites.get(claim["owner"], int(claim["record_id"]))
        if old is not None:
            changed = ((old, _released(old, str(moves_at), now)),)
    stored_websites.move_claim(site, claim, new_claim, record, changed)
    if old is not None and moves_at is not None:
        _tell_moved(old, method, moves_at)
    return websites.show(record), True


def _verify(account_id: str, website_id: int, site: str, proven: dict[str, Any]) -> dict[str, Any]:
    """The badge on the account's own website for the domain; 404 when its key may not
    see that website."""

    def change(current: dict[str, Any]) -> dict[str, Any]:
        return {**current, **proven, "updated_at": clock.after(current["updated_at"])}

    record = stored_websites.update(account_id, website_id, change, site)
    if record is None:
        raise errors.NotFound()
    return websites.show(record)


def _take_back(
    account_id: str, site: str, claim: dict[str, Any], proven: dict[str, Any]
) -> dict[str, Any]:
    """The old holder proves ownership during the grace period: the move is cancelled, its
    website keeps the domain and the prover's website is released at once."""
    mine = stored_websites.get(account_id, int(claim["previous_record_id"]))
    if mine is None:  # deleted since: the move stands
        raise MovePending()
    theirs = stored_websites.get(claim["owner"], int(claim["record_id"]))
    kept = {k: v for k, v in mine.items() if k not in ("released_at",)}
    kept |= {**proven, "updated_at": clock.after(mine["updated_at"])}
    changed = [(mine, stored_websites.versioned(mine, kept))]
    if theirs is not None:
        changed.append((theirs, _released(theirs, proven["verified_at"], proven["verified_at"])))
    new_claim = {"owner": account_id, "record_id": int(mine["id"])}
    stored_websites.move_claim(site, claim, new_claim, None, tuple(changed))
    if theirs is not None:
        _tell_cancelled(theirs)
    return websites.show(changed[0][1])


def _released(current: dict[str, Any], released_at: str, now: str) -> dict[str, Any]:
    """The website as it is once another account proved its domain: no badge, no hits
    counted from `released_at`, its history kept."""
    kept = {k: v for k, v in current.items() if k not in ("verified_at", "verified_by")}
    kept |= {"released_at": released_at, "updated_at": max(now, current["updated_at"])}
    return stored_websites.versioned(current, kept)


def _tell_moved(old: dict[str, Any], method: str, moves_at: str) -> None:
    how = {"dns": "a DNS record", "file": "a file on the site", "meta": "a meta tag on the site"}
    _tell(
        old,
        f"Sitelens: {old['domain']} is moving to another account",
        f"Another Sitelens account proved that it controls {old['domain']}, with {how[method]}.\n"
        f"From {_readable(moves_at)} (UTC), the domain's hits count in that account's website,\n"
        f"not in your website {old['id']}. Your website keeps its statistics, goals, funnels\n"
        "and annotations, and you can still read and export them; it counts no hits after\n"
        "that time.\n\n"
        "If you control the domain, prove it before then to keep it: ask for a token with\n"
        "POST /api/v1/domains/verification and check it with\n"
        "POST /api/v1/domains/verification/check.\n",
    )


def _tell_cancelled(theirs: dict[str, Any]) -> None:
    _tell(
        theirs,
        f"Sitelens: the move of {theirs['domain']} was cancelled",
        f"The account that held {theirs['domain']} proved that it controls it too, within\n"
        f"the grace period: the domain stays there. Your website {theirs['id']} counts no\n"
        "hits for it.\n",
    )


def _tell(website: dict[str, Any], subject: str, text: str) -> None:
    """An email to the website's account, when mail goes anywhere; a failure is logged and
    counted, never raised (the move is made)."""
    if not (settings().mail_from or settings().mail_outbox):
        return
    account = get_account(website["account"])
    if account is None or not account.email:
        return
    message = EmailMessage()
    message["From"] = settings().mail_from or "sitelens@localhost"
    message["To"] = account.email
    message["Subject"] = subject
    message.set_content(text)
    try:
        mail.send(message)
    except Exception:
        logger.exception("domain move email not sent", extra={"website_id": website["id"]})
        metrics.count("DomainMoveEmailsLost", reason="mail")


def _readable(moment: str) -> str:
    return datetime.fromisoformat(moment).strftime("%Y-%m-%d %H:%M")
