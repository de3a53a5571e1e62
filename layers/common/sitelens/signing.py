"""Signed, expiring tokens for links and proofs handed out without an API key.

One secret signs them all (the cursor secret, `cursor.secret`); a `purpose` (for example
"share:website:12:<password version>") is bound into the signature, so a token made for one
purpose, record or password never verifies for another. The payload is readable by whoever
holds the token: put in it only what may be shown.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

from sitelens.cursor import secret

_SIGNATURE_BYTES = 20


class BadToken(Exception):
    """A token that is malformed, tampered with, made for another purpose or expired."""


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(payload: bytes, purpose: str) -> bytes:
    message = purpose.encode() + b"\0" + payload
    return hmac.new(secret(), message, hashlib.sha256).digest()[:_SIGNATURE_BYTES]


def sign(data: dict[str, Any], purpose: str, expires_at: float) -> str:
    """A token carrying `data` for `purpose`, valid until `expires_at` (epoch seconds)."""
    payload = json.dumps({"d": data, "e": int(expires_at)}, separators=(",", ":")).encode()
    return f"{_b64(payload)}.{_b64(_signature(payload, purpose))}"


def verify(token: str, purpose: str, now: float | None = None) -> dict[str, Any]:
    """The data of a token made for `purpose` and not expired; `BadToken` otherwise."""
    try:
        payload_text, signature_text = token.split(".")
        payload = _unb64(payload_text)
        if not hmac.compare_digest(_unb64(signature_text), _signature(payload, purpose)):
            raise BadToken("bad signature")
        body = json.loads(payload)
        data, expires = body["d"], body["e"]
        if not isinstance(data, dict) or not isinstance(expires, int):
            raise BadToken("bad payload")
    except (ValueError, KeyError, TypeError) as exc:
        raise BadToken(str(exc)) from None
    if (time.time() if now is None else now) >= expires:
        raise BadToken("expired")
    return data
