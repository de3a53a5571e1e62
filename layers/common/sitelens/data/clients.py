"""AWS clients, created once per container and only when an operation first needs one."""

from __future__ import annotations

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
