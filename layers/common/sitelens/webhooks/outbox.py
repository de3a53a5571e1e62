"""The outbox: a delivery made for one event and one endpoint, stored in its endpoint's
line, and its attempts queued (`deliveries` makes them). Apart from `deliveries` so that
what sends events (`events`) does not reach the attempts, which send events themselves
(`disabling`)."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from sitelens.core import clock
from sitelens.data import webhooks as stored

KEEP_SECONDS = 30 * 86_400  # a delivery stays in the log 30 days (TTL)

_last_ms = 0  # the last id's milliseconds in this process: ids made here never tie


def new_id() -> str:
    """`msg_` + milliseconds + randomness: unique, and sorting by time; each made in this
    process sorts after the one before (the same millisecond is taken as the next)."""
    global _last_ms
    _last_ms = max(int(time.time() * 1000), _last_ms + 1)
    return f"msg_{_last_ms:013d}{secrets.token_hex(6)}"


def body_of(event_type: str, data: dict[str, Any]) -> str:
    """The JSON body the Standard Webhooks scheme suggests: type, timestamp, data."""
    payload = {"type": event_type, "timestamp": clock.now_iso(), "data": data}
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


def queue(account_id: str, endpoint_id: str, event_type: str, body: str) -> dict[str, Any]:
    """Store a new delivery and queue its first attempt now."""
    now = clock.now_iso()
    delivery_id = new_id()
    delivery: dict[str, Any] = {
        "id": delivery_id,
        "event": event_type,
        "body": body,
        "state": "pending",
        "attempts": 0,
        "created_at": now,
        "updated_at": now,
        "expires_at": int(time.time()) + KEEP_SECONDS,
    }
    stored.add_delivery(account_id, endpoint_id, delivery)
    send_later(account_id, endpoint_id, delivery_id, due=0)
    return show(delivery)


def send_later(account_id: str, endpoint_id: str, delivery_id: str, due: float) -> None:
    """Queue an attempt of the delivery, due at `due` (Unix seconds; 0: now)."""
    message = {"account": account_id, "endpoint": endpoint_id, "delivery": delivery_id}
    stored.enqueue({**message, "due": round(due, 3)}, delay_seconds=int(due - time.time()))


def show(delivery: dict[str, Any]) -> dict[str, Any]:
    """A delivery as the log shows it."""
    return {
        "id": delivery["id"],
        "event": delivery["event"],
        "state": delivery["state"],
        "attempts": int(delivery.get("attempts", 0)),
        "last_status": delivery.get("last_status"),
        "last_error": delivery.get("last_error"),
        "last_answer": delivery.get("last_answer"),
        "last_attempt_at": delivery.get("last_attempt_at"),
        "next_attempt_at": delivery.get("next_attempt_at"),
        "created_at": delivery["created_at"],
        "payload": json.loads(delivery["body"]),
    }
