"""AWS clients, created once per container and only when an operation first needs one."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def client(service: str) -> Any:
    """A boto3 client; `AWS_ENDPOINT_URL_<SERVICE>` points it elsewhere (moto, DynamoDB Local)."""
    import boto3

    return boto3.client(service)  # type: ignore[call-overload]


def reset() -> None:
    """Forget the clients (tests that start another AWS stand-in)."""
    client.cache_clear()
