"""What a proof of a domain's ownership does (docs/websites-domains.md):

- the domain is the prover's already: its website gets the verified badge;
- nobody holds it: a new website of the prover's, verified;
- another account holds it: the domain and its data move to the prover at once. The
  prover gets a record of the SAME website id (statistics and warehouse rows are keyed by
  the id alone), verified, with the website's settings, goals and saved funnels (`MOVES`)
  and nothing bound to the old account (share settings, annotations; its keys, guest
  links and webhook endpoints stay in the old account). The old holder's record is
  released: read-only for `GRACE`, then no read answers it (`released_at`, decided when
  read) and the table's TTL removes it (`expires_at`). The old holder is emailed, and may
  prove ownership in turn during the grace period, which cancels the move; anyone else
  waits for its end (409).
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from sitelens.accounts import notices
from sitelens.core import clock, errors, hosts, metrics, scopes
from sitelens.core.log import logger
from sitelens.data import websites as stored_websites
from sitelens.domains import proofs
from sitelens.domains.inputs import METHODS, DomainCheck
from sitelens.seo.fetch import FetchError
from sitelens.websites import records as websites
from sitelens.websites.inputs import WebsiteCreate

GRACE = timedelta(days=7)  # the old holder's time to read and export, or to prove back
TOKEN_BYTES = 16  # 32 hex characters: unguessable, and short enough for any DNS console
MOVE_ATTEMPTS = 3  # the claim or a website changed between the read and the write
ASK_FIRST = "Ask for this domain's token first: POST /api/v1/domains/verification."
NOT_FOUND = "No proof of ownership was found."
# What of the website's record moves to the prover: its settings and what lives on the
# record and gives the statistics their meaning (goals, saved funnels over them). Anything
# else is the old account's: its share settings (privacy, password), digest and favourite
# choices, its badge; its annotations (notes under its own partition) stay with it too.
MOVES = (
    "domain",
    "search",
    "exclude_bots",
    "exclude_params",
    "exclude_ips",
    "timezone",
    "traffic_alerts",
    "goals",
    "goal_last_id",
    "funnels",
    "funnel_last_id",
)
PRIVATE = 1  # the prover's record starts with its share view off


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
    old = None if claim is None else stored_websites.get(claim["owner"], int(claim["record_id"]))
    if claim is None or old is None:  # nobody's (or a claim left without its website)
        record = stored_websites.versioned(
            None, {**websites.new_record(account_id, WebsiteCreate(domain=domain)), **proven}
        )
        new_claim = {"owner": account_id, "record_id": record["id"]}
        stored_websites.move_claim(site, claim, new_claim, record, ())
        return websites.show(record), True
    moves_at = clock.iso(clock.now() + GRACE)
    # a record of ours under this id may remain, released, from an earlier move away
    stale = stored_websites.get_as_stored(account_id, int(old["id"]))
    record = stored_websites.versioned(stale, _moved(old, account_id, proven, now))
    new_claim = {
        "owner": account_id,
        "record_id": int(old["id"]),
        "previous_owner": claim["owner"],
        "previous_record_id": int(old["id"]),
        "moves_at": moves_at,
    }
    changed = ((stale, record), (old, _released(old, moves_at, now)))
    stored_websites.move_claim(site, claim, new_claim, None, changed)
    _tell_moved(old, method, moves_at)
    return websites.show(record), True


def _moved(
    old: dict[str, Any], account_id: str, proven: dict[str, Any], now: str
) -> dict[str, Any]:
    """The prover's record of the website: its id, what `MOVES`, shares off, verified."""
    return {
        **{k: old[k] for k in MOVES if k in old},
        "account": account_id,
        "id": int(old["id"]),
        "privacy": PRIVATE,
        "email": 0,
        "favorite": False,
        "favorited_at": None,
        "created_at": now,
        "updated_at": now,
        **proven,
    }


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
    record answers and may be changed again, and the prover's record is released at once
    (it no longer answers; what the prover changed on it meanwhile is lost)."""
    mine = stored_websites.get(account_id, int(claim["previous_record_id"]))
    if mine is None:  # deleted since: the move stands
        raise MovePending()
    theirs = stored_websites.get(claim["owner"], int(claim["record_id"]))
    kept = {k: v for k, v in mine.items() if k not in ("released_at", "expires_at")}
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
    """The website as it is once another account proved its domain: no badge, read-only
    until `released_at`, then answered by no read and removed by the table's TTL."""
    kept = {k: v for k, v in current.items() if k not in ("verified_at", "verified_by")}
    kept |= {
        "released_at": released_at,
        "expires_at": int(datetime.fromisoformat(released_at).timestamp()),
        "updated_at": max(now, current["updated_at"]),
    }
    return stored_websites.versioned(current, kept)


def _tell_moved(old: dict[str, Any], method: str, moves_at: str) -> None:
    how = {"dns": "a DNS record", "file": "a file on the site", "meta": "a meta tag on the site"}
    _tell(
        old,
        f"Sitelens: {old['domain']} moved to another account",
        f"Another Sitelens account proved that it controls {old['domain']}, with {how[method]}.\n"
        "The domain and its statistics are that account's now. Until\n"
        f"{_readable(moves_at)} (UTC) you can still read and export the statistics of your\n"
        f"website {old['id']}, but not change it; then it is removed, with its share view,\n"
        "guest links and the keys' and webhooks' access to it.\n\n"
        "If you control the domain, prove it before then to keep it: ask for a token with\n"
        "POST /api/v1/domains/verification and check it with\n"
        "POST /api/v1/domains/verification/check.\n",
    )


def _tell_cancelled(theirs: dict[str, Any]) -> None:
    _tell(
        theirs,
        f"Sitelens: the move of {theirs['domain']} was cancelled",
        f"The account that held {theirs['domain']} proved that it controls it too, within\n"
        f"the grace period: the domain and its statistics stay there, and your record of\n"
        f"website {theirs['id']} is removed.\n",
    )


def _tell(website: dict[str, Any], subject: str, text: str) -> None:
    """An email to the website's account, when mail goes anywhere; a failure is logged and
    counted, never raised (the move is made)."""
    try:
        notices.send(website["account"], subject, text)
    except Exception:
        logger.exception("domain move email not sent", extra={"website_id": website["id"]})
        metrics.count("DomainMoveEmailsLost", reason="mail")


def _readable(moment: str) -> str:
    return datetime.fromisoformat(moment).strftime("%Y-%m-%d %H:%M")
