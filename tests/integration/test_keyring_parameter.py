"""The signing keyring under CostProfile=lean (docs/configuration.md, "Signing keys"): the
stack's SecureString parameter, which CloudFormation cannot create, made by the first use
(a bare secret: key "0"), once even when two first uses race, and rotated by the operator's
`sitelens --stack <name> signing-keys rotate`. Rotation and overlap in every place a keyring
is kept: tests/integration/test_signing_keys.py (its `kept` fixture)."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import boto3
import pytest

from sitelens import cli
from sitelens.data import secrets as stored_secrets
from sitelens.tokens import signing_keys
from sitelens.tokens.signing_keys import Purpose
from tests.integration.test_signing_keys import (
    another_container,
    continued,
    kid_of,
    next_cursor,
    stack_parameter,  # noqa: F401  (a fixture)
)


def stored(name: str) -> dict[str, Any]:
    return dict(boto3.client("ssm").get_parameter(Name=name, WithDecryption=True)["Parameter"])


def test_the_first_use_makes_the_keyring_and_later_ones_read_it(stack_parameter, analytics):
    ssm = boto3.client("ssm")
    with pytest.raises(ssm.exceptions.ParameterNotFound):
        ssm.get_parameter(Name=stack_parameter)
    cursor = next_cursor(analytics)
    parameter = stored(stack_parameter)
    assert parameter["Type"] == "SecureString"
    keyring = signing_keys.Keyring.parse(parameter["Value"])
    # as the template's secret is generated: a bare secret, so one key "0", of 256 bits
    assert [key.kid for key in keyring.keys] == [signing_keys.FIRST_KID] == [kid_of(cursor)]
    assert len(bytes.fromhex(keyring.active.secret)) == 32
    with another_container():  # reads it, makes none
        assert continued(analytics, cursor).status == 200
    assert stored(stack_parameter)["Version"] == 1


def test_two_first_uses_at_once_end_with_one_keyring_both_sign_with(
    stack_parameter, monkeypatch
):
    both_found_none = threading.Barrier(2, timeout=10)

    def first_secret() -> str:  # each has found no parameter: both make a keyring
        both_found_none.wait()
        return signing_keys.secrets.token_hex(32)

    monkeypatch.setattr(signing_keys, "first_secret", first_secret)
    where = signing_keys.source()
    read: list[signing_keys.Keyring] = []
    threads = [threading.Thread(target=lambda: read.append(signing_keys.read(where))) for _ in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(read) == 2 and read[0] == read[1]  # the loser took the winner's
    kept = signing_keys.Keyring.parse(stored(stack_parameter)["Value"])
    assert kept == read[0] and stored(stack_parameter)["Version"] == 1
    assert read[0].active.derived(Purpose.CURSOR) == read[1].active.derived(Purpose.CURSOR)


def test_a_function_never_overwrites_a_keyring_it_finds(stack_parameter):
    boto3.client("ssm").put_parameter(
        Name=stack_parameter, Value="k" * 64, Type="SecureString", Overwrite=False
    )
    made = []
    found = stored_secrets.kept_parameter_string(stack_parameter, lambda: made.append(1) or "x")
    assert found == "k" * 64 and made == []


def test_the_stack_option_finds_a_lean_stack_s_parameter(aws_env, monkeypatch, capsys):
    # no SigningKeys secret under lean: the command goes to /<stack>/signing-keys
    monkeypatch.delenv("SITELENS_SIGNING_KEYS")
    monkeypatch.delenv("SITELENS_SIGNING_KEYS_PARAMETER", raising=False)
    asked: list[str] = []
    stack = SimpleNamespace(
        describe_stacks=lambda StackName: {
            "Stacks": [
                {
                    "StackName": "shop",
                    "Parameters": [{"ParameterKey": "CostProfile", "ParameterValue": "lean"}],
                }
            ]
        },
        describe_stack_resource=lambda **kwargs: asked.append(kwargs["LogicalResourceId"]),
    )
    real_client = boto3.client
    monkeypatch.setattr(
        boto3, "client", lambda name, *a, **k: stack if name == "cloudformation" else real_client(name, *a, **k)
    )
    assert cli.main(["--stack", "shop", "signing-keys", "rotate", "--overlap-days", "1"]) == 0
    assert asked == []
    keyring = signing_keys.Keyring.parse(stored("/shop/signing-keys")["Value"])
    assert len(keyring.keys) == 2 and keyring.keys[1].kid == signing_keys.FIRST_KID
    assert stored("/shop/signing-keys")["Version"] == 2  # made, then overwritten by the operator
    out = capsys.readouterr().out
    assert keyring.active.secret not in out and keyring.keys[1].secret not in out
    boto3.client("ssm").delete_parameter(Name="/shop/signing-keys")
