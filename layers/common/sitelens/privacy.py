"""Privacy modes of records and the password rule that goes with them."""

from __future__ import annotations

from typing import Any

from sitelens import errors
from sitelens.passwords import hash_password

PASSWORD_PROTECTED = 2
REQUIRED_SENTENCE = "The password field is required when privacy is 2."


def password_changes(
    current: dict[str, Any] | None, privacy: int | None, password: str | None
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """What to set and remove on a record for the privacy and password sent.

    A password is needed when the resulting privacy is 2 and none is stored; it is kept
    only as a hash, and removed when privacy leaves 2. A password sent with another
    privacy is ignored.
    """
    stored = bool(current and current.get("password_hash"))
    if privacy is None:
        privacy = current["privacy"] if current else 0
    if privacy == PASSWORD_PROTECTED:
        if password:
            return {"password_hash": hash_password(password)}, ()
        if not stored:
            raise errors.Invalid.field("password", REQUIRED_SENTENCE)
        return {}, ()
    return {}, ("password_hash",) if stored else ()
