"""Standard Webhooks verification, as Sitelens signs its deliveries (sitelens.webhooks.signing):
`webhook-signature` holds `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` entries,
one per live secret, keyed by the base64 bytes after the secret's `whsec_`."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

from sitelens_client.errors import SitelensError

TOLERANCE = 300  # seconds a delivery's timestamp may be off, as the Standard Webhooks libraries


class InvalidSignature(SitelensError):
    """A delivery that is not Sitelens': no valid signature, or a timestamp out of tolerance."""


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """`v1,<signature>` of a delivery, as Sitelens computes it (for tests of a receiver)."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def verify(
    secret: str, body: bytes, headers: Mapping[str, str], *, tolerance: int = TOLERANCE
) -> Any:
    """The delivery's JSON payload, once its signature and timestamp are checked; raises
    InvalidSignature otherwise. `body` is the raw request body, as received."""
    lowered = {k.lower(): v for k, v in headers.items()}
    message_id = lowered.get("webhook-id")
    stamp = lowered.get("webhook-timestamp", "")
    signatures = lowered.get("webhook-signature", "")
    if not message_id or not stamp.isdigit() or not signatures:
        raise InvalidSignature("missing webhook-id, webhook-timestamp or webhook-signature")
    if abs(time.time() - int(stamp)) > tolerance:
        raise InvalidSignature("the timestamp is outside the tolerance")
    expected = sign(secret, message_id, int(stamp), body)
    if not any(hmac.compare_digest(expected, given) for given in signatures.split(" ")):
        raise InvalidSignature("no signature matches the secret")
    return json.loads(body)
