"""Secrets Manager: a secret's value, read once per container.

A function that needs a secret is given its ARN, never its value, so the value does not sit
in plain text in the function's configuration; the read costs one request per container.
"""

from __future__ import annotations

from functools import cache

from sitelens.data.clients import client


@cache
def secret_string(arn: str) -> str:
    """The `SecretString` of the secret's current version."""
    answer = client("secretsmanager").get_secret_value(SecretId=arn)
    return str(answer["SecretString"])


def forget() -> None:
    """Read secrets again on next use (tests)."""
    secret_string.cache_clear()
