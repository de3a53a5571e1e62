"""The cursor secret: deployed functions get the ARN of the stack's secret and read its value
from Secrets Manager once per container; make serve and the tests give the value itself."""

from __future__ import annotations

import boto3
import pytest

from sitelens.core import config
from sitelens.data import secrets
from sitelens.local import gateway, template
from sitelens.tokens import signing


@pytest.fixture
def stack_secret(aws_env, monkeypatch):
    """Only the ARN of a secret in (moto's) Secrets Manager, as the template gives it."""
    manager = boto3.client("secretsmanager")
    arn = manager.create_secret(Name="CursorSecret", SecretString="s" * 64)["ARN"]
    monkeypatch.delenv("SITELENS_CURSOR_SECRET")
    monkeypatch.setenv("SITELENS_CURSOR_SECRET_ARN", arn)
    config.reset()
    secrets.forget()
    yield arn
    config.reset()
    secrets.forget()


def test_cursors_are_signed_with_the_stack_s_secret_read_once(stack_secret, analytics):
    for n in range(3):
        assert analytics.post("/api/v1/websites", {"domain": f"site{n}.example"}).status == 201
    first = analytics.get("/api/v1/websites", query={"per_page": 10, "sort": "asc"})
    token = signing.encode_cursor({"key": 1}, True, "binding")
    boto3.client("secretsmanager").put_secret_value(SecretId=stack_secret, SecretString="new")
    # Read once per container: a rotated value is not seen until a new container starts.
    assert signing.encode_cursor({"key": 1}, True, "binding") == token
    assert analytics.get("/api/v1/websites", query={"per_page": 10, "sort": "asc"}) == first
    secrets.forget()  # a new container
    assert signing.encode_cursor({"key": 1}, True, "binding") != token


def test_a_given_secret_is_used_as_it_is_without_secrets_manager(aws_env, monkeypatch):
    monkeypatch.setenv("SITELENS_CURSOR_SECRET_ARN", "arn:aws:secretsmanager:none")
    config.reset()
    token = signing.encode_cursor(
        {"key": 1}, True, "binding"
    )  # no request: moto has no such secret
    assert signing.decode_cursor(token, "binding") == ({"key": 1}, True)


def test_either_variable_is_enough_and_neither_fails_the_cold_start(aws_env, monkeypatch):
    path = gateway.ROOT / "functions/websites/list/app.py"
    monkeypatch.delenv("SITELENS_CURSOR_SECRET")
    monkeypatch.setenv("SITELENS_CURSOR_SECRET_ARN", "arn:aws:secretsmanager:x")
    config.reset()
    assert callable(gateway.load_module(path).handler)
    monkeypatch.delenv("SITELENS_CURSOR_SECRET_ARN")
    config.reset()
    with pytest.raises(config.ConfigError) as failure:
        gateway.load_module(path)
    assert "SITELENS_CURSOR_SECRET or SITELENS_CURSOR_SECRET_ARN" in str(failure.value)
    config.reset()


def test_the_template_passes_the_arn_never_the_value():
    text = template.DEFAULT_PATH.read_text()
    assert "{{resolve:" not in text
    variables = template.load()["Globals"]["Function"]["Environment"]["Variables"]
    assert "SITELENS_CURSOR_SECRET" not in variables
    assert variables["SITELENS_CURSOR_SECRET_ARN"] == {"Ref": "CursorSecret"}
