"""Every token signed with the stack's keyring (`signing_keys`), each with its purpose's key.

Two token shapes, both `<base64url payload>.<base64url HMAC-SHA256 signature>`, whose JSON
payload names the key that signed it (`"k"`, its kid):

- list cursors (`encode_cursor`): a 16-byte signature, with the cursors' key, over the
  payload and a binding (the account, the list and its parameters), so a cursor never
  continues another list;
- expiring tokens for links and proofs handed out without an API key (`sign`): a 20-byte
  signature, with the key of the purpose's first part ("share", "unsubscribe" or "guest"),
  over the whole `purpose` (for example "share:website:12:<password version>") and the
  payload, so a token made for one purpose, record or password never verifies for another.

A token naming a key that is unknown, or past its overlap, is refused like a forged one.
The payload is readable by whoever holds the token: put in it only what may be shown.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable
from typing import Any

from sitelens.core import errors
from sitelens.tokens.signing_keys import Purpose, signing_key, verifying_key

_CURSOR_SIGNATURE_BYTES = 16
# A cursor as `encode_cursor` writes it: its payload and 16 bytes of signature, each in
# unpadded base64url (the documents' `Cursor` pattern).
_CURSOR_SHAPE = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}")
_TOKEN_SIGNATURE_BYTES = 20
# The purposes `sign` takes, by their first part: each has its own key.
_TOKEN_PURPOSES = {
    p.value: p for p in (Purpose.SHARE, Purpose.UNSUBSCRIBE, Purpose.GUEST, Purpose.OAUTH)
}


class BadToken(Exception):
    """A token that is malformed, tampered with, made for another purpose or expired."""


def digest(text: str) -> str:
    """`text` keyed with the active key's digest key, cut to 16 hex digits: an identifier
    that does not lead back to `text` (for example a client address); a rotation changes
    it."""
    _, key = signing_key(Purpose.DIGEST)
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()[:16]


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(key: bytes, message: bytes, size: int) -> bytes:
    return hmac.new(key, message, hashlib.sha256).digest()[:size]


def _sealed(
    body: dict[str, Any], purpose: Purpose, message: Callable[[bytes], bytes], size: int
) -> str:
    kid, key = signing_key(purpose)
    payload = json.dumps({"k": kid, **body}, separators=(",", ":")).encode()
    return f"{_b64(payload)}.{_b64(_signature(key, message(payload), size))}"


def _opened(token: str, purpose: Purpose, message: Callable[[bytes], bytes], size: int) -> Any:
    """The JSON payload of a token whose signature over `message(payload)`, with its key
    for `purpose`, is right; ValueError (or KeyError, TypeError) otherwise."""
    payload_text, signature_text = token.split(".")
    payload = _unb64(payload_text)
    body = json.loads(payload)
    kid = body["k"]
    key = verifying_key(kid, purpose) if isinstance(kid, str) else None
    if key is None:
        raise ValueError("unknown or retired key")
    if not hmac.compare_digest(_unb64(signature_text), _signature(key, message(payload), size)):
        raise ValueError("bad signature")
    return body


def _key_purpose(purpose: str) -> Purpose:
    """The key a token for `purpose` is signed with: its first part's."""
    first = purpose.split(":", 1)[0]
    if first not in _TOKEN_PURPOSES:
        raise ValueError(f"no key for tokens of purpose {first!r}")
    return _TOKEN_PURPOSES[first]


def _cursor_message(binding: str) -> Callable[[bytes], bytes]:
    return lambda payload: payload + b"\0" + binding.encode()


def _token_message(purpose: str) -> Callable[[bytes], bytes]:
    return lambda payload: purpose.encode() + b"\0" + payload


def encode_cursor(position: dict[str, Any], forward: bool, binding: str) -> str:
    """A cursor for continuing after `position`, forwards (next) or backwards (prev)."""
    body = {"p": position, "f": forward}
    return _sealed(body, Purpose.CURSOR, _cursor_message(binding), _CURSOR_SIGNATURE_BYTES)


def cursor_shaped(text: str) -> bool:
    """Whether `text` could be a cursor we signed (whether we did, `decode_cursor` says)."""
    return _CURSOR_SHAPE.fullmatch(text) is not None


def decode_cursor(token: str, binding: str) -> tuple[dict[str, Any], bool]:
    """(position, forward) of a cursor; 422 on `cursor` when tampered, foreign or
    mismatched."""
    try:
        data = _opened(token, Purpose.CURSOR, _cursor_message(binding), _CURSOR_SIGNATURE_BYTES)
        position, forward = data["p"], data["f"]
        if not isinstance(position, dict) or not isinstance(forward, bool):
            raise ValueError("bad payload")
    except (ValueError, KeyError, TypeError):
        raise errors.Invalid.field("cursor", "The cursor is invalid.") from None
    return position, forward


def sign(data: dict[str, Any], purpose: str, expires_at: float) -> str:
    """A token carrying `data` for `purpose`, valid until `expires_at` (epoch seconds);
    `purpose` starts with one of `_TOKEN_PURPOSES` (ValueError otherwise)."""
    body = {"d": data, "e": int(expires_at)}
    return _sealed(body, _key_purpose(purpose), _token_message(purpose), _TOKEN_SIGNATURE_BYTES)


def verify(token: str, purpose: str, now: float | None = None) -> dict[str, Any]:
    """The data of a token made for `purpose` and not expired; `BadToken` otherwise."""
    try:
        body = _opened(
            token, _key_purpose(purpose), _token_message(purpose), _TOKEN_SIGNATURE_BYTES
        )
        data, expires = body["d"], body["e"]
        if not isinstance(data, dict) or not isinstance(expires, int):
            raise BadToken("bad payload")
    except (ValueError, KeyError, TypeError) as exc:
        raise BadToken(str(exc)) from None
    if (time.time() if now is None else now) >= expires:
        raise BadToken("expired")
    return data
