"""Who may read a shared record: privacy 0 anyone, 1 no one (as if it did not exist), 2
whoever proves the password, with a token bound to that record and that password; and,
whatever its privacy, a guest of the account whose key reaches it (`Guest`; the links that
open guest sessions are `sitelens.guests`).

A proof is a `signing` token whose purpose names the record and the stored password hash
(`privacy.password_version`): a new password, even the same words again, or a record that
leaves privacy 2 and comes back, makes every earlier proof fail. Password attempts are
counted before the slow hash is compared (`data.limits`), so that a password cannot be
guessed online and the hash cannot be used to burn CPU: per record and client address, in
a window and with a hold after each wrong password past the first few that doubles with
each (a back-off of this client's own), and only then per record from all addresses.
Only a client's own allowance refuses it: the record's is a signal, counted as the metric
`PasswordGuesses` and alarmed, never a lock, so guessers elsewhere cannot keep a reader
who knows the password out.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sitelens.core import clock, errors, hosts, metrics, scopes
from sitelens.data import audits as stored_audits
from sitelens.data import limits
from sitelens.data import reports as stored_reports
from sitelens.data import websites as stored_websites
from sitelens.records import privacy
from sitelens.sharing.limits import client_key
from sitelens.sharing.links import is_share_id
from sitelens.tokens import signing

Kind = Literal["website", "report", "audit"]
# the collection whose scope rule (`core.scopes.Scope.admits`) says whether a key reaches it
COLLECTIONS: dict[str, str] = {"website": "websites", "report": "reports", "audit": "audits"}

TOKEN_SECONDS = 24 * 3600  # a proof lasts a day at most, then the password is asked again
ATTEMPT_WINDOW_SECONDS = 15 * 60
# per record and client address in a window: room for a person's typos, not for guessing
ATTEMPTS_PER_CLIENT = 10
# per record from every address together: past it, guessing from many addresses is
# counted (PasswordGuesses, reason "many_clients") and alarmed, never refused
ATTEMPTS_PER_RECORD = 100
# wrong passwords of a client for a record that cost no wait: a person's typos
FREE_FAILURES = 5
# then a hold that doubles with each wrong password, up to a window's length
FIRST_HOLD_SECONDS = 2
# a client's wrong passwords are forgotten a day after its last one (or at a right one)
FAILURES_KEPT_SECONDS = 24 * 3600


@dataclass(frozen=True)
class Shared:
    """A record that exists: what a share view shows, to whom `admit` lets through."""

    kind: Kind
    record: dict[str, Any]

    @property
    def id(self) -> int:
        return int(self.record["id"])

    @property
    def account(self) -> str:
        return str(self.record["account"])

    @property
    def locked(self) -> bool:
        return self.record["privacy"] == privacy.PASSWORD_PROTECTED

    @property
    def private(self) -> bool:
        """Shown to no one but a guest who reaches it: 404 to everyone else."""
        return self.record["privacy"] == 1

    def purpose(self) -> str:
        """What proofs for this record are signed for: the record and its password."""
        stored = self.record.get("password_hash")
        version = privacy.password_version(stored) if stored else "open"
        return f"share:{self.kind}:{self.id}:{version}"


@dataclass(frozen=True)
class Guest:
    """A guest session: the client of one of the account's read keys, who may open the
    share views of exactly the records that key reaches, whatever their privacy."""

    account: str
    scope: scopes.Scope
    expires_at: float | None = None  # epoch seconds the session ends (its link's end)

    def reaches(self, shared: Shared) -> bool:
        """Whether the guest's key reaches the record (its account's, within its scope)."""
        return shared.account == self.account and self.scope.admits(
            COLLECTIONS[shared.kind], shared.record
        )


@dataclass(frozen=True)
class Grant:
    """A proof of the password: the token and when it ends."""

    token: str
    expires_at: int  # epoch seconds

    def expires_iso(self) -> str:
        return clock.iso(datetime.fromtimestamp(self.expires_at, UTC))


class Renamed(Exception):
    """The domain is one a website was renamed from: its share views are at `domain`."""

    def __init__(self, domain: str) -> None:
        super().__init__(domain)
        self.domain = domain


def website(domain: str) -> Shared:
    """The website of a domain, as a share view may see it; 404 when there is none. A
    private one is found, and `admit` answers the same 404 to all but a guest reaching it,
    so a private website cannot be told from a missing one. Renamed when no website has
    the domain and one was renamed from it less than RENAMED_REDIRECT_SECONDS ago."""
    try:
        site = hosts.site(domain)
    except ValueError:
        raise errors.NotFound() from None
    found = stored_websites.by_domain(site)
    note = stored_websites.renamed_note(site) if found is None else None
    if note is not None and time.time() < int(note["expires_at"]):
        renamed = stored_websites.get(*stored_websites.holder(note))
        if renamed is not None:  # still there: its domain now (renamed again, say)
            raise Renamed(str(renamed["domain"]))
    return _shared("website", found)


def report(share_id: str) -> Shared:
    """The report of a share id (`sharing.links`), as a share view may see it; 404 as for
    `website`, and for anything else, a report's own id included."""
    if not is_share_id(share_id):
        raise errors.NotFound()
    return _shared("report", stored_reports.by_share_id(share_id))


def audit(share_id: str) -> Shared:
    """The audit of a share id, as a share view may see it; 404 as for `report`."""
    if not is_share_id(share_id):
        raise errors.NotFound()
    return _shared("audit", stored_audits.by_share_id(share_id))


def _shared(kind: Kind, record: dict[str, Any] | None) -> Shared:
    if record is None:
        raise errors.NotFound()
    return Shared(kind, record)


def admit(shared: Shared, proof: str | None, guest: Guest | None = None) -> None:
    """Let the view through when `guest` reaches the record, or it is public, or `proof`
    is a valid token for it; 404 for a private record (as if missing), 401 otherwise."""
    if guest is not None and guest.reaches(shared):
        return
    if shared.private:
        raise errors.NotFound()
    if shared.locked and not (proof and _proves(shared, proof)):
        raise errors.Unauthenticated()


def _proves(shared: Shared, proof: str) -> bool:
    try:
        data = signing.verify(proof, shared.purpose())
    except signing.BadToken:
        return False
    return data.get("kind") == shared.kind and data.get("id") == shared.id


def unlock(shared: Shared, password: str, client_address: str) -> Grant:
    """A token for the record when `password` is its password (a public record needs none,
    and gets one whatever was sent); 401 when it is not, 429 when the record or this
    client has tried too often in this window; 404 for a private record, which has no
    password (a guest opens it without one)."""
    if shared.private:
        raise errors.NotFound()
    if shared.locked:
        # counted before the comparison, so that concurrent guesses cannot pass the limit;
        # a right password is given back: only wrong ones use the allowance up
        client = f"{_subject(shared)}:{client_key(client_address)}"
        counted = _count_attempt(shared, client)
        if not privacy.verify_password(password, shared.record["password_hash"]):
            now = int(time.time())
            limits.fail(f"{client}:held", _hold, now, now + FAILURES_KEPT_SECONDS)
            raise errors.Unauthenticated()
        for subject, window in counted:
            limits.give_back(subject, window)
        limits.succeed(f"{client}:held")
    expires_at = int(time.time()) + TOKEN_SECONDS
    token = signing.sign({"kind": shared.kind, "id": shared.id}, shared.purpose(), expires_at)
    return Grant(token, expires_at)


def _subject(shared: Shared) -> str:
    return f"unlock:{shared.kind}:{shared.id}"


def _hold(failures: int) -> int:
    """Seconds a client waits after its `failures`-th wrong password for a record."""
    if failures < FREE_FAILURES:
        return 0
    doublings = min(failures - FREE_FAILURES, 20)
    return int(min(FIRST_HOLD_SECONDS * 2**doublings, ATTEMPT_WINDOW_SECONDS))


def _count_attempt(shared: Shared, client: str) -> list[tuple[str, int]]:
    """Count an attempt for this client (429 while it is held after wrong passwords, or
    when it has used its allowance in this window), then for the record (never refused:
    past its allowance, the guesses of many clients are counted as a metric); the subjects
    and window counted."""
    now = int(time.time())
    window = now // ATTEMPT_WINDOW_SECONDS
    ends = (window + 1) * ATTEMPT_WINDOW_SECONDS
    held = limits.held_for(f"{client}:held", now, now + FAILURES_KEPT_SECONDS)
    if held:
        metrics.count("PasswordGuesses", reason="client_held")
        raise errors.TooManyRequests(retry_after=held)
    if not limits.take(client, ATTEMPTS_PER_CLIENT, window, ends):
        metrics.count("PasswordGuesses", reason="client_window")
        raise errors.TooManyRequests(retry_after=max(ends - now, 1))
    counted = [(client, window)]
    if limits.take(_subject(shared), ATTEMPTS_PER_RECORD, window, ends):
        counted.append((_subject(shared), window))
    else:
        metrics.count("PasswordGuesses", reason="many_clients")
    return counted
