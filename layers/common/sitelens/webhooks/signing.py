"""Standard Webhooks signatures (https://www.standardwebhooks.com, version 1): a delivery
carries `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`, a
space-separated list of `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per
secret the endpoint has now (two while a rotated secret's overlap lasts). A secret is
`whsec_` and the base64 of 32 random bytes; the HMAC key is those bytes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"  # noqa: S105 - the scheme's prefix, not a secret
SECRET_BYTES = 32  # the scheme asks for 24 to 64


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """`v1,<base64 HMAC-SHA256>` of `<id>.<timestamp>.<body>` with the secret's key."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(secrets_now: list[str], message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three headers of a delivery, signed with each of the endpoint's secrets."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(
            signature(secret, message_id, timestamp, body) for secret in secrets_now
        ),
    }
