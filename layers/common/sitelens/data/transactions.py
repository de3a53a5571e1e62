"""Atomic writes: one conditional write, or a transaction of several, told apart by why
they fail.

A condition that does not hold is the caller's business (`ConditionFailed`, with the
indexes of the writes whose conditions failed). Cancellations DynamoDB resolves by itself,
a `TransactionConflict` with another transaction on the same item (the project row is in
every report transaction) or throttling, are retried here with full-jitter backoff, since
boto3 does not retry them. Each transaction carries a `ClientRequestToken`, so botocore's
own retry of a request whose answer was lost is not applied twice.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from sitelens.data.clients import client
from sitelens.data.items import Write, cancel_reasons, error_code

# Up to ~3 s of backoff in all, far below the API's 25 s: contention clears in milliseconds.
MAX_ATTEMPTS = 10
BACKOFF_BASE_SECONDS = 0.02
BACKOFF_CAP_SECONDS = 0.5
ITEM_BUDGET_BYTES = 350 * 1024  # DynamoDB refuses items over 400 KB; leave room for keys
_RETRYABLE_REASONS = frozenset(
    {
        "None",  # the items that did not cause the cancellation
        "TransactionConflict",
        "ThrottlingError",
        "ProvisionedThroughputExceeded",
        "RequestLimitExceeded",
    }
)
_RETRYABLE_ERRORS = frozenset({"TransactionInProgressException", "TransactionConflictException"})
_SINGLE_CALLS = {"Put": "put_item", "Update": "update_item", "Delete": "delete_item"}


class ConditionFailed(Exception):
    """The condition of one or more writes did not hold; nothing was written."""

    def __init__(self, indexes: Sequence[int]) -> None:
        super().__init__(f"condition failed at {list(indexes)}")
        self.indexes = frozenset(indexes)


class Contended(Exception):
    """Still conflicting or throttled after every retry; nothing was written."""


class ItemTooLarge(Exception):
    """An item would exceed the size budget; nothing was written."""


def write(writes: Sequence[Write]) -> None:
    """Apply `writes` all or none; ConditionFailed, Contended or ItemTooLarge when not."""
    for entry in writes:
        [(_, request)] = entry.items()
        if "Item" in request and item_size(request["Item"]) > ITEM_BUDGET_BYTES:
            raise ItemTooLarge(request["TableName"])
    for _ in attempts():
        try:
            if len(writes) == 1:
                _write_one(writes[0])
            else:
                client("dynamodb").transact_write_items(
                    TransactItems=list(writes), ClientRequestToken=uuid.uuid4().hex
                )
            return
        except Exception as err:
            code = error_code(err)
            if code == "ConditionalCheckFailedException":
                raise ConditionFailed([0]) from None
            if code == "TransactionCanceledException":
                reasons = cancel_reasons(err)
                failed = [
                    n for n, reason in enumerate(reasons) if reason == "ConditionalCheckFailed"
                ]
                if failed:
                    raise ConditionFailed(failed) from None
                if not set(reasons) <= _RETRYABLE_REASONS:
                    raise
            elif code not in _RETRYABLE_ERRORS:
                raise
    raise Contended()


def attempts(
    times: int = MAX_ATTEMPTS,
    *,
    seconds: float | None = None,
    cap: float = BACKOFF_CAP_SECONDS,
) -> Iterator[int]:
    """Attempt numbers from 0, with a `backoff` before each one but the first: `times` of
    them, or, when `seconds` is given, as many as start within it. The caller stops on
    success (`break`, `return`); a loop that runs out has failed every time."""
    give_up = None if seconds is None else time.monotonic() + seconds
    attempt = 0
    while True:
        yield attempt
        attempt += 1
        if give_up is None and attempt == times:
            return
        backoff(attempt - 1, cap)
        if give_up is not None and time.monotonic() >= give_up:
            return


def backoff(attempt: int, cap: float = BACKOFF_CAP_SECONDS) -> None:
    """Sleep before retry `attempt` (0-based): full jitter, so that racers spread out."""
    ceiling = min(cap, BACKOFF_BASE_SECONDS * 2**attempt)
    time.sleep(random.uniform(0, ceiling))


def item_size(item: dict[str, dict[str, Any]]) -> int:
    """DynamoDB's size of an item: names and values in UTF-8 bytes (numbers count a little
    more than their digits; an upper bound is enough here)."""
    size = 0
    for name, value in item.items():
        size += len(name.encode())
        [(kind, data)] = value.items()
        if kind in ("S", "N"):
            size += len(str(data).encode()) + (1 if kind == "N" else 0)
        elif kind in ("SS", "NS"):
            size += sum(len(str(v).encode()) + 1 for v in data)
        else:
            size += 1
    return size


def _write_one(entry: Write) -> None:
    [(kind, request)] = entry.items()
    getattr(client("dynamodb"), _SINGLE_CALLS[kind])(**request)
