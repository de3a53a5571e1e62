"""AWS clients, created once per container and only when an operation first needs one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_clients: dict[str, Any] = {}


def client(service: str) -> Any:
    """A boto3 client; `AWS_ENDPOINT_URL_<SERVICE>` points it elsewhere (moto, DynamoDB Local),
    and `use` replaces it (the local server's in-process SQS)."""
    found = _clients.get(service)
    if found is None:
        import boto3

        found = _clients.setdefault(service, boto3.client(service))  # type: ignore[call-overload]
    return found


def use(service: str, stand_in: Any) -> None:
    """Answer `client(service)` with `stand_in`, which has the boto3 client's methods."""
    _clients[service] = stand_in


def reset() -> None:
    """Forget the clients and stand-ins (tests that start another AWS stand-in)."""
    _clients.clear()


def every_item(query: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Each item a DynamoDB Query answers, page after page: for partitions their own rules
    keep small (an account's keys or endpoints, a website's annotations)."""
    query = dict(query)
    while True:
        answer = client("dynamodb").query(**query)
        yield from answer["Items"]
        if "LastEvaluatedKey" not in answer:
            return
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
