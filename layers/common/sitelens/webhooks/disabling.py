"""A dead endpoint is its account's event, not an operator's page: when every delivery to
an endpoint failed for over a day it is disabled, and the account hears of it three ways,
an email to its address (the digests' mail path), a `webhook.disabled` event to its other
endpoints subscribed to it, and the metric `WebhookEndpointsDisabled` by account."""

from __future__ import annotations

from sitelens.accounts import notices
from sitelens.core import clock, metrics
from sitelens.core.log import logger
from sitelens.data import webhooks as stored
from sitelens.webhooks import events, registry


def disable(account_id: str, endpoint_id: str, since: str, failing_since: str) -> bool:
    """Disable an endpoint that nothing reached since `since` (checked as it is written,
    and only its state fields written), and tell the account; whether it was disabled."""
    reason = (
        f"Every delivery since {failing_since} failed for over 24 hours; "
        "enable it again with PUT enabled=1."
    )
    now = clock.now_iso()
    endpoint = stored.disable_failing(account_id, endpoint_id, since, reason, now)
    if endpoint is None:  # reached since, paused, enabled again or deleted meanwhile
        return False
    logger.info("webhook endpoint disabled", extra={"endpoint": endpoint["id"]})
    metrics.count("WebhookEndpointsDisabled", account=account_id)
    data = {
        "endpoint": int(endpoint["id"]),
        "url": endpoint["url"],
        "disabled_reason": reason,
        "failing_since": failing_since,
        "disabled_at": now,
    }
    events.emit(account_id, registry.WEBHOOK_DISABLED, data)  # not to itself: it is disabled
    _mail(account_id, data)
    return True


def _mail(account_id: str, data: dict[str, object]) -> None:
    try:
        notices.send(
            account_id,
            f"Sitelens: webhook endpoint {data['endpoint']} was disabled",
            f"Deliveries to {data['url']} kept failing, so the endpoint is disabled and\n"
            f"gets no more events. {data['disabled_reason']}\n",
        )
    except Exception:
        logger.exception("disabled-endpoint email not sent", extra={"endpoint": data["endpoint"]})
