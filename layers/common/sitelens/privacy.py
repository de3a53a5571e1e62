"""Privacy modes of records (0 public, 1 private, 2 password) and their passwords, which
are stored only as a slow, salted scrypt hash and never returned."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any

from sitelens import errors

PASSWORD_PROTECTED = 2
REQUIRED_SENTENCE = "The password field is required when privacy is 2."

# ~16 MiB and tens of milliseconds per hash: slow for guessing, fine for a write.
_N, _R, _P = 2**14, 8, 1


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    encoded = [base64.b64encode(part).decode() for part in (salt, digest)]
    return f"scrypt${_N}${_R}${_P}${encoded[0]}${encoded[1]}"


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
