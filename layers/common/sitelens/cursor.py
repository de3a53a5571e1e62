"""Opaque, signed list cursors bound to the account and the list parameters."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

from sitelens import errors
from sitelens.config import settings
from sitelens.data.secrets import secret_string

_SIGNATURE_BYTES = 16


def secret() -> bytes:
    """The secret cursors (and `signing` tokens) are signed with: the one given, else the
    stack's, read once."""
    given = settings().cursor_secret
    return (given or secret_string(settings().cursor_secret_arn)).encode()


def _signature(payload: bytes, binding: str) -> bytes:
    mac = hmac.new(secret(), payload + b"\0" + binding.encode(), hashlib.sha256)
    return mac.digest()[:_SIGNATURE_BYTES]


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encode(position: dict[str, Any], forward: bool, binding: str) -> str:
    """A token for continuing after `position`, forwards (next) or backwards (prev)."""
    payload = json.dumps({"p": position, "f": forward}, separators=(",", ":")).encode()
    return f"{_b64(payload)}.{_b64(_signature(payload, binding))}"


def decode(token: str, binding: str) -> tuple[dict[str, Any], bool]:
    """(position, forward) of a token; 422 on `cursor` when tampered, foreign or mismatched."""
    try:
        payload_text, signature_text = token.split(".")
        payload = _unb64(payload_text)
        if not hmac.compare_digest(_unb64(signature_text), _signature(payload, binding)):
            raise ValueError("bad signature")
        data = json.loads(payload)
        position, forward = data["p"], data["f"]
        if not isinstance(position, dict) or not isinstance(forward, bool):
            raise ValueError("bad payload")
    except (ValueError, KeyError, TypeError):
        raise errors.Invalid.field("cursor", "The cursor is invalid.") from None
    return position, forward
