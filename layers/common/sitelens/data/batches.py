"""Requests of many items at once: DynamoDB's BatchGetItem and BatchWriteItem, and SQS's
SendMessageBatch, each sent in chunks of its service's limit.

What a call leaves undone (DynamoDB's unprocessed keys or items, the entries SQS failed)
is sent again alone, after a full-jitter backoff (`transactions.attempts`). A chunk still
not done after the last attempt raises `Unprocessed`, and the chunks after it are not
tried: no caller returns normally having lost an item, and its own retry (a queue's
redelivery) takes it from there. An entry SQS refuses as the sender's fault (a malformed
message) would be refused every time: `Rejected` at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from sitelens.data import transactions
from sitelens.data.clients import client

GET_LIMIT: Final = 100  # keys per BatchGetItem
WRITE_LIMIT: Final = 25  # puts and deletes per BatchWriteItem
SEND_LIMIT: Final = 10  # entries per SendMessageBatch


class Unprocessed(Exception):
    """Items still not done after every attempt: `left` of them, counting those of the
    chunks after, never tried; the items before them were done (so this is no
    `transactions.Contended`, which means nothing was)."""

    def __init__(self, operation: str, left: int, codes: Iterable[str] = ()) -> None:
        self.operation = operation
        self.left = left
        self.codes = tuple(sorted(set(codes)))  # SQS's error codes of the failed entries
        why = f" ({', '.join(self.codes)})" if self.codes else ""
        super().__init__(f"{operation}: {left} items left unprocessed{why}")


class Rejected(Unprocessed):
    """SQS refused entries as the sender's fault (SenderFault): sending them again cannot
    help, so none of the chunk's failed entries was retried."""


def get(
    table: str,
    keys: Sequence[dict[str, Any]],
    *,
    consistent: bool = False,
    projection: str | None = None,
    names: dict[str, str] | None = None,
    cost: dict[str, int] | None = None,
) -> list[dict[str, Any]]:
    """The items of `table` with these keys (distinct), as DynamoDB answers them, in no
    particular order; a key without an item is left out. `projection` and `names` are the
    ProjectionExpression and its ExpressionAttributeNames; `cost`, when given, counts the
    `requests` made and the `items_read`. Unprocessed when keys are still unread."""
    options: dict[str, Any] = {"ConsistentRead": consistent}
    if projection is not None:
        options["ProjectionExpression"] = projection
    if names:
        options["ExpressionAttributeNames"] = names
    found: list[dict[str, Any]] = []
    for start in range(0, len(keys), GET_LIMIT):
        pending = list(keys[start : start + GET_LIMIT])
        for _ in transactions.attempts():
            answer = client("dynamodb").batch_get_item(
                RequestItems={table: {"Keys": pending, **options}}
            )
            items = answer["Responses"].get(table, [])
            found.extend(items)
            if cost is not None:
                cost["requests"] += 1
                cost["items_read"] += len(items)
            pending = (answer.get("UnprocessedKeys") or {}).get(table, {}).get("Keys", [])
            if not pending:
                break
        else:
            raise Unprocessed("BatchGetItem", len(pending) + _untried(keys, start, GET_LIMIT))
    return found


def write(table: str, requests: Sequence[dict[str, Any]]) -> None:
    """Apply these `PutRequest` and `DeleteRequest` entries to `table` (each on its own,
    unconditionally; at most one per key). Unprocessed when some are still not applied."""
    for start in range(0, len(requests), WRITE_LIMIT):
        pending = list(requests[start : start + WRITE_LIMIT])
        for _ in transactions.attempts():
            answer = client("dynamodb").batch_write_item(RequestItems={table: pending})
            pending = (answer.get("UnprocessedItems") or {}).get(table, [])
            if not pending:
                break
        else:
            raise Unprocessed(
                "BatchWriteItem", len(pending) + _untried(requests, start, WRITE_LIMIT)
            )


def send(queue_url: str, bodies: Sequence[str]) -> None:
    """Send a message of each body to the queue. Unprocessed when SQS still fails some
    after every attempt; Rejected, at once, when it refuses one as malformed."""
    for start in range(0, len(bodies), SEND_LIMIT):
        chunk = bodies[start : start + SEND_LIMIT]
        pending = [{"Id": str(n), "MessageBody": body} for n, body in enumerate(chunk)]
        for _ in transactions.attempts():
            answer = client("sqs").send_message_batch(QueueUrl=queue_url, Entries=pending)
            failed = {entry["Id"]: entry for entry in answer.get("Failed") or []}
            pending = [entry for entry in pending if entry["Id"] in failed]
            codes = [failed[entry["Id"]].get("Code", "") for entry in pending]
            left = len(pending) + _untried(bodies, start, SEND_LIMIT)
            if any(failed[entry["Id"]].get("SenderFault") for entry in pending):
                raise Rejected("SendMessageBatch", left, codes)
            if not pending:
                break
        else:
            raise Unprocessed("SendMessageBatch", left, codes)


def _untried(every: Sequence[Any], start: int, limit: int) -> int:
    """How many of `every` come after the chunk from `start`."""
    return max(0, len(every) - start - limit)
