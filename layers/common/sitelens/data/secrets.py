"""Where the stack's secrets are kept: the signing keyring in a Secrets Manager secret
(CostProfile=standard) or an SSM SecureString parameter (lean), a git-ignored file under
`make serve` (`tokens.signing_keys` decides how often to read it); audits' seal key in a
SecureString parameter under lean (`tokens.sealing`).

A function that needs a secret is given its ARN or its parameter's name, never its value,
so the value does not sit in plain text in the function's configuration.

CloudFormation cannot create a SecureString parameter, so the first function to need one
creates it (`kept_parameter_string`): only where none is (Overwrite=False, which the
functions' IAM also demands: a Deny of ssm:PutParameter when ssm:Overwrite is "true"), so
that two first uses at once keep one value, the loser reading the winner's. Only the
operator's credentials overwrite one (`put_parameter_string`: a rotation).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from sitelens.data.clients import client
from sitelens.data.items import error_code


def secret_string(arn: str) -> str:
    """The `SecretString` of the secret's current version (one request)."""
    answer = client("secretsmanager").get_secret_value(SecretId=arn)
    return str(answer["SecretString"])


def put_secret_string(arn: str, value: str) -> None:
    """Make `value` the secret's current version (the previous one stays as AWSPREVIOUS)."""
    client("secretsmanager").put_secret_value(SecretId=arn, SecretString=value)


def parameter_string(name: str) -> str | None:
    """A SecureString parameter's value, decrypted (one request, and one decrypt under the
    AWS-managed aws/ssm key); None when there is no such parameter."""
    try:
        answer = client("ssm").get_parameter(Name=name, WithDecryption=True)
    except Exception as err:  # botocore's ClientError; throttling and the like propagate
        if error_code(err) == "ParameterNotFound":
            return None
        raise
    return str(answer["Parameter"]["Value"])


def kept_parameter_string(name: str, generate: Callable[[], str]) -> str:
    """The parameter's value; a new one from `generate` when there is none yet, created
    only if still absent, else the value another first use created meanwhile."""
    found = parameter_string(name)
    if found is not None:
        return found
    value = generate()
    try:
        client("ssm").put_parameter(Name=name, Value=value, Type="SecureString", Overwrite=False)
    except Exception as err:
        if error_code(err) != "ParameterAlreadyExists":
            raise
        found = parameter_string(name)  # the winner's
        if found is None:  # created and deleted since: nothing sane to sign with
            raise
        return found
    return value


def put_parameter_string(name: str, value: str) -> None:
    """Make `value` the parameter's (an operator's rotation: overwrites). Intelligent-Tiering
    keeps it in the free standard tier while it fits its 4 KB, rather than failing beyond."""
    client("ssm").put_parameter(
        Name=name, Value=value, Type="SecureString", Overwrite=True, Tier="Intelligent-Tiering"
    )


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
