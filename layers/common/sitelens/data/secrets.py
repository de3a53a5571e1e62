"""Where the stack's signing keyring is kept: a Secrets Manager secret when deployed, a
git-ignored file under `make serve` (`tokens.signing_keys` decides how often to read it).

A function that needs the keyring is given the secret's ARN, never its value, so the value
does not sit in plain text in the function's configuration.
"""

from __future__ import annotations

import os
from pathlib import Path

from sitelens.data.clients import client


def secret_string(arn: str) -> str:
    """The `SecretString` of the secret's current version (one request)."""
    answer = client("secretsmanager").get_secret_value(SecretId=arn)
    return str(answer["SecretString"])


def put_secret_string(arn: str, value: str) -> None:
    """Make `value` the secret's current version (the previous one stays as AWSPREVIOUS)."""
    client("secretsmanager").put_secret_value(SecretId=arn, SecretString=value)


def file_string(path: str) -> str:
    """A local secret file's text."""
    return Path(path).read_text().strip()


def put_file_string(path: str, value: str) -> None:
    """Replace a local secret file's text at once (a reader never sees half of it), readable
    by its owner only."""
    target = Path(path)
    staged = target.with_name(f".{target.name}.{os.getpid()}.new")
    staged.touch(mode=0o600)
    staged.write_text(value)
    staged.replace(target)
