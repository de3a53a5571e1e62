"""Accounts and their API keys: a key is shown once and stored only as its SHA-256 hash.
Storing, scoping, rotating and revoking keys: `accounts.keyring`."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from sitelens.core import clock
from sitelens.data import accounts as stored

KEY_PREFIX = "sl_"


DIGESTS = ("weekly", "monthly")  # how often an account's email digest comes


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    created_at: str
    email: str | None = None  # where its digests go; None: no digests
    digest: str = "weekly"

    def public(self) -> dict[str, Any]:
        """The account as `GET /api/v1/account` shows it."""
        return {
            "id": int(self.id),
            "name": self.name,
            "email": self.email,
            "digest": self.digest,
            "created_at": self.created_at,
        }


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    """32 random bytes, URL-safe, with a prefix that secret scanners can recognise."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def create_account(name: str) -> Account:
    account = Account(id=str(stored.next_id("accounts")), name=name, created_at=clock.now_iso())
    stored.put_account(account.id, account.name, account.created_at)
    return account


def get_account(account_id: str) -> Account | None:
    item = stored.get_account(account_id)
    if item is None:
        return None
    return Account(
        id=account_id,
        name=item["name"],
        created_at=item["created_at"],
        email=item.get("email"),
        digest=item.get("digest") or "weekly",
    )


def set_contact(account: Account, email: str | None, digest: str | None = None) -> Account:
    """Set the account's email address (None: no digests) and digest cadence (`weekly`,
    `monthly`; unchanged when None). ValueError for an address or cadence that is not one."""
    address = check_email(email) if email else None
    cadence = digest or account.digest
    if cadence not in DIGESTS:
        raise ValueError(f"The digest must be one of: {', '.join(DIGESTS)}.")
    if not stored.set_contact(account.id, address, cadence):
        raise ValueError(f"No account {account.id}.")
    return Account(account.id, account.name, account.created_at, address, cadence)


def check_email(text: str) -> str:
    """An email address as the digests are sent to it (normalised by email-validator, the
    library pydantic's EmailStr uses; no DNS lookup); ValueError when it is not one."""
    from email_validator import EmailNotValidError, validate_email

    try:
        return str(validate_email(text.strip(), check_deliverability=False).normalized)
    except EmailNotValidError as err:
        raise ValueError(f"{text!r} is not an email address: {err}") from None
