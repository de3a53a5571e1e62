"""Deliveries: one event to one endpoint, attempted from the webhook queue until the
endpoint answers 2xx, on a schedule of exponential backoff lasting over 24 hours; then
given up, and the endpoint disabled with an email to the account when nothing reached it
all that time. Each delivery keeps its last attempt for the log, and can be sent again.

The delivery is the unit of identity: its id is the `webhook-id` of every attempt, so a
receiver dedupes on it, and a message for a delivery that already succeeded sends
nothing (a queue's duplicate or a redrive changes nothing).

One endpoint's deliveries go out one at a time, in the order of their ids (the order they
were made in): only the oldest delivery not yet succeeded or failed (its line's head) is
attempted, under the endpoint's lease, so a delivery that is retrying holds back the later
ones until it succeeds or fails. A delivery behind the head waits: the head, when it
finishes, queues the next one at once (and a waiting message looks again every
`WAIT_SECONDS`, should that one be lost)."""

from __future__ import annotations

import json
import os
import secrets
import time
from typing import TYPE_CHECKING, Any

from sitelens.core import clock, errors, metrics
from sitelens.core.log import logger
from sitelens.data import webhooks as stored
from sitelens.records import listing
from sitelens.webhooks import endpoints, registry, signing
from sitelens.webhooks.outbox import KEEP_SECONDS, body_of, queue, send_later, show

if TYPE_CHECKING:
    from sitelens.records.inputs import PageQuery

# Seconds before each attempt after the first: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h;
# 8 attempts over 27.6 hours, so an endpoint down for a day still gets its events.
RETRY_DELAYS = (5, 300, 1_800, 7_200, 18_000, 36_000, 36_000)
ATTEMPTS = len(RETRY_DELAYS) + 1
# SITELENS_WEBHOOK_RETRY_SCALE (above 0, at most 1; default 1) multiplies the delays: a test
# and development knob for `make serve` (0.01: 0.05 s, 3 s, 18 s, ...); never set deployed.
RETRY_SCALE_VARIABLE = "SITELENS_WEBHOOK_RETRY_SCALE"
MAX_LOGGED = 100  # deliveries the log shows: the latest
# An attempt's hold on its endpoint: the function's 60 s timeout, so a worker that died
# mid-attempt blocks the line no longer than that.
LEASE_SECONDS = 60
BUSY_SECONDS = 2  # a head whose endpoint is held by another attempt looks again after this
WAIT_SECONDS = 900  # behind the head: looks again after this, if the head's hand-on is lost


def retry_delay(attempts: int) -> float:
    """Seconds to wait after the `attempts`-th failed attempt (1 to ATTEMPTS - 1)."""
    raw = os.environ.get(RETRY_SCALE_VARIABLE, "").strip()
    try:
        scale = float(raw) if raw else 1.0
    except ValueError:
        scale = 1.0
    return RETRY_DELAYS[attempts - 1] * (scale if 0 < scale <= 1 else 1.0)


def ping(account_id: str, endpoint_id: int) -> dict[str, Any]:
    """Queue a `webhook.test` delivery to the endpoint, whatever it subscribes to."""
    endpoint = endpoints.stored_endpoint(account_id, endpoint_id)
    body = body_of(registry.WEBHOOK_TEST.name, {"endpoint": int(endpoint["id"])})
    return queue(account_id, str(endpoint["id"]), registry.WEBHOOK_TEST.name, body)


def log(account_id: str, endpoint_id: int, query: PageQuery) -> listing.Page:
    """One page of the endpoint's latest MAX_LOGGED deliveries by id, which sort by time
    (newest first unless `sort=asc`); 404 for an endpoint the account does not have."""
    endpoint = endpoints.stored_endpoint(account_id, endpoint_id)
    found = [show(d) for d in stored.deliveries(account_id, str(endpoint["id"]), MAX_LOGGED)]
    return listing.id_page(found, account_id, f"deliveries/{endpoint['id']}", query)


def redeliver(account_id: str, endpoint_id: int, delivery_id: str) -> dict[str, Any]:
    """Send a delivery again, now, with a fresh schedule (the same `webhook-id`); 409 for
    one that is pending or retrying (its attempts go on) or to a disabled endpoint."""
    endpoint = endpoints.stored_endpoint(account_id, endpoint_id)
    if stored.get_delivery(account_id, str(endpoint["id"]), delivery_id[:64]) is None:
        raise errors.NotFound()
    if not endpoint.get("enabled"):
        raise errors.EndpointDisabled()
    # Conditional: a delivery still pending or retrying keeps its one chain of attempts.
    delivery = stored.restart_delivery(
        account_id,
        str(endpoint["id"]),
        delivery_id[:64],
        clock.now_iso(),
        int(time.time()) + KEEP_SECONDS,
    )
    if delivery is None:
        raise errors.DeliveryInProgress()
    send_later(account_id, str(endpoint["id"]), delivery["id"], due=0)
    return show(delivery)


def attempt(message: dict[str, Any]) -> None:
    """Carry out one queued message: wait on (in hops of SQS's longest delay) when it is
    not due; else, when its delivery heads its endpoint's line and the endpoint is free,
    make the delivery's next attempt and schedule the one after."""
    account_id, endpoint_id = str(message["account"]), str(message["endpoint"])
    delivery_id = str(message["delivery"])
    now = time.time()
    if float(message.get("due", 0)) > now + 1:
        stored.enqueue(message, delay_seconds=int(float(message["due"]) - now))
        return
    if not _is_due(stored.get_delivery(account_id, endpoint_id, delivery_id), now):
        return  # sent, given up, or retrying later: a duplicate message changes nothing
    if _head(account_id, endpoint_id) != delivery_id:
        send_later(account_id, endpoint_id, delivery_id, due=now + WAIT_SECONDS)
        return  # behind an older one: that one hands on to the next when it finishes
    holder = secrets.token_hex(8)
    if not stored.take_lane(account_id, endpoint_id, holder, now + LEASE_SECONDS, now):
        send_later(account_id, endpoint_id, delivery_id, due=now + BUSY_SECONDS)
        return
    try:
        # Read again under the lease: another attempt may have made this one meanwhile.
        delivery = stored.get_delivery(account_id, endpoint_id, delivery_id)
        finished = _is_due(delivery, now) and _attempt(account_id, endpoint_id, delivery, now)
    finally:
        stored.free_lane(account_id, endpoint_id, holder)
    if finished:  # the next in line goes now, not when its own message looks again
        following = _head(account_id, endpoint_id)
        if following is not None:
            send_later(account_id, endpoint_id, following, due=0)


def _is_due(delivery: dict[str, Any] | None, now: float) -> bool:
    if delivery is None or delivery["state"] in ("succeeded", "failed"):
        return False
    return float(delivery.get("due_at") or 0) <= now + 1


def _head(account_id: str, endpoint_id: str) -> str | None:
    """The endpoint's oldest delivery not yet finished; places left by a delivery that
    expired or finished without taking its place out are taken out on the way."""
    while True:
        head = stored.first_open(account_id, endpoint_id)
        if head is None:
            return None
        delivery = stored.get_delivery(account_id, endpoint_id, head)
        if delivery is not None and delivery["state"] not in ("succeeded", "failed"):
            return head
        stored.close_stale(account_id, endpoint_id, head)


def _attempt(account_id: str, endpoint_id: str, delivery: Any, now: float) -> bool:
    """Make the delivery's next attempt (its endpoint held); whether it is finished
    (succeeded or failed) after it."""
    endpoint = stored.get_endpoint(account_id, endpoint_id)
    if endpoint is None or not endpoint.get("enabled"):
        delivery.update(state="failed", last_error="The endpoint is deleted or disabled.")
        stored.finish_delivery(account_id, endpoint_id, delivery)
        return True
    # Imported here: the HTTP fetch and its guards (16 ms) are the delivery worker's alone,
    # not of every function that emits events.
    from sitelens.webhooks import sending

    body = delivery["body"].encode()
    headers = signing.headers(endpoints.secrets_now(endpoint, now), delivery["id"], int(now), body)
    result = sending.post(endpoint["url"], body, headers)
    attempts = int(delivery.get("attempts", 0)) + 1
    delivery.update(
        attempts=attempts,
        last_status=result.status,
        last_error=result.error,
        last_answer=result.answer[:1000],
        last_attempt_at=clock.now_iso(),
        updated_at=clock.now_iso(),
        next_attempt_at=None,
        due_at=None,
    )
    if result.succeeded:
        delivery["state"] = "succeeded"
        stored.finish_delivery(account_id, endpoint_id, delivery)
        if endpoint.get("failing_since"):
            stored.clear_failing(account_id, endpoint_id)
        return True
    if attempts < ATTEMPTS:
        due = now + retry_delay(attempts)
        delivery.update(state="retrying", next_attempt_at=endpoints.iso_of(due), due_at=due)
        stored.put_delivery(account_id, endpoint_id, delivery)
        if not endpoint.get("failing_since"):
            stored.mark_failing(account_id, endpoint_id, delivery["created_at"])
        send_later(account_id, endpoint_id, delivery["id"], due)
        return False
    delivery["state"] = "failed"
    stored.finish_delivery(account_id, endpoint_id, delivery)
    # The customer's loss, not a fault of ours: a metric by account, and no alarm.
    metrics.count("WebhookDeliveriesFailed", account=account_id)
    # Imported here: disabling sends an event, and the sender imports this module.
    from sitelens.webhooks import disabling

    failing_since = endpoint.get("failing_since") or delivery["created_at"]
    disabling.disable(account_id, endpoint_id, delivery["created_at"], failing_since)
    return True


def attempt_batch(records: list[dict[str, Any]]) -> list[str]:
    """Carry out a batch of queue messages; the ids of those that failed (to be retried
    by SQS, then dead-lettered), never because an endpoint failed."""
    failed = []
    for record in records:
        try:
            attempt(json.loads(record["body"]))
        except Exception:
            logger.exception("webhook message failed", extra={"message": record.get("messageId")})
            failed.append(str(record.get("messageId")))
    return failed
