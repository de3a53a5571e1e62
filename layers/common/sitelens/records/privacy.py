"""Privacy modes of records (0 public, 1 private, 2 password) and their passwords, which
are stored only as a slow, salted scrypt hash and never returned."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from typing import Any

from sitelens.core import errors

PASSWORD_PROTECTED = 2
REQUIRED_SENTENCE = "The password field is required when privacy is 2."

# OWASP's scrypt minimum: N=2^17, r=8, p=1 (128 MiB, about half a second per hash). The
# parameters are stored in each hash, so older hashes keep verifying; a password change
# writes the new ones.
_N, _R, _P = 2**17, 8, 1
_MAXMEM = 256 * 1024 * 1024  # hashlib refuses more than 32 MiB unless told


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32, maxmem=_MAXMEM
    )
    encoded = [base64.b64encode(part).decode() for part in (salt, digest)]
    return f"scrypt${_N}${_R}${_P}${encoded[0]}${encoded[1]}"


def verify_password(password: str, stored: str) -> bool:
    """Whether `password` is the one `stored` was made from, compared in constant time with
    the parameters the hash was made with."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        candidate = hashlib.scrypt(
            password.encode(),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
            maxmem=_MAXMEM,
        )
    except (ValueError, binascii.Error):
        return False
    return hmac.compare_digest(candidate, expected)


def password_version(stored: str) -> str:
    """A short one-way name of a stored hash. Proofs of a password are bound to it, so a
    new password (a new salt, even for the same words) ends them."""
    return hashlib.sha256(stored.encode()).hexdigest()[:16]


class PasswordRule:
    """The privacy and password a request sent, applied to a record (again if a write
    is retried; the slow hash is computed once)."""

    def __init__(self, privacy: int | None, password: str | None) -> None:
        self.privacy = privacy
        self.password = password
        self._hash: str | None = None

    def changes(self, current: dict[str, Any] | None) -> tuple[dict[str, Any], tuple[str, ...]]:
        """What to set and remove on a record.

        A password is needed when the resulting privacy is 2 and none is stored; it is kept
        only as a hash, and removed when privacy leaves 2. A password sent with another
        privacy is ignored.
        """
        stored = bool(current and current.get("password_hash"))
        privacy = self.privacy
        if privacy is None:
            privacy = current["privacy"] if current else 0
        if privacy == PASSWORD_PROTECTED:
            if self.password:
                if self._hash is None:
                    self._hash = hash_password(self.password)
                return {"password_hash": self._hash}, ()
            if not stored:
                raise errors.Invalid.field("password", REQUIRED_SENTENCE)
            return {}, ()
        return {}, ("password_hash",) if stored else ()
