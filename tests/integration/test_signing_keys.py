"""The signing keyring (docs/configuration.md): where it is kept (the stack's secret, whose
ARN deployed functions get; under CostProfile=lean the stack's SecureString parameter, made
at first use; make serve's file; a setting), how often a container reads it,
and rotation by `sitelens signing-keys rotate`: a new active key, the previous one verifying
for the overlap and never after, a key nobody knows refused with the contract's 4xx."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import boto3
import pytest

from sitelens import cli
from sitelens.core import config
from sitelens.data import secrets as stored_secrets
from sitelens.local import gateway, server, template
from sitelens.tokens import signing, signing_keys
from sitelens.tokens.signing_keys import Purpose
from tests.conftest import Client

DAY = 86_400


@pytest.fixture
def stack_secret(aws_env, monkeypatch) -> Iterator[str]:
    """Only the ARN of a secret in (moto's) Secrets Manager, as the template gives it."""
    manager = boto3.client("secretsmanager")
    arn = manager.create_secret(Name=f"SigningKeys-{time.time_ns()}", SecretString="s" * 64)["ARN"]
    monkeypatch.delenv("SITELENS_SIGNING_KEYS")
    monkeypatch.setenv("SITELENS_SIGNING_KEYS_ARN", arn)
    config.reset()
    yield arn
    config.reset()


@pytest.fixture
def keys_file(aws_env, monkeypatch, tmp_path) -> Iterator[str]:
    """A keyring in a file, as make serve keeps it: one bare key to begin with."""
    path = tmp_path / "keys"
    path.write_text("f" * 64)
    monkeypatch.delenv("SITELENS_SIGNING_KEYS")
    monkeypatch.setenv("SITELENS_SIGNING_KEYS_FILE", str(path))
    config.reset()
    yield str(path)
    config.reset()


@pytest.fixture
def stack_parameter(aws_env, monkeypatch) -> Iterator[str]:
    """Only the name of the stack's SecureString parameter (in moto's SSM), as the template
    gives it under CostProfile=lean: no parameter yet, the first use makes it."""
    name = f"/stack{time.time_ns()}/signing-keys"
    monkeypatch.delenv("SITELENS_SIGNING_KEYS")
    monkeypatch.setenv("SITELENS_SIGNING_KEYS_PARAMETER", name)
    config.reset()
    yield name
    config.reset()


@pytest.fixture(params=["file", "secret", "parameter"])
def kept(request) -> str:
    """Each place a keyring may be kept and rotated."""
    fixtures = {"file": "keys_file", "secret": "stack_secret", "parameter": "stack_parameter"}
    return str(request.getfixturevalue(fixtures[request.param]))


def later(monkeypatch, seconds: float) -> None:
    """The keyring's clocks, `seconds` from now (a container that has run that long)."""
    start_wall, start_monotonic = time.time(), time.monotonic()
    clock = SimpleNamespace(
        time=lambda: start_wall + seconds, monotonic=lambda: start_monotonic + seconds
    )
    monkeypatch.setattr(signing_keys, "time", clock)


@contextmanager
def another_container() -> Iterator[None]:
    """Code run as in a container that has not read the keyring yet."""
    held = dict(signing_keys._held)
    signing_keys.forget()
    try:
        yield
    finally:
        signing_keys._held.clear()
        signing_keys._held.update(held)


def rotate(*flags: str, capsys: Any = None) -> list[dict[str, Any]]:
    assert cli.main(["signing-keys", "rotate", *flags]) == 0
    if capsys is None:
        return []
    assert "is active" in capsys.readouterr().out
    assert cli.main(["signing-keys", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    return [json.loads(line) for line in lines if line.startswith("{")]


def next_cursor(analytics: Client) -> str:
    for n in range(11):  # a second call finds them made: 422s, and the same list
        analytics.post("/api/v1/websites", {"domain": f"site{n}.example"})
    page = analytics.get("/api/v1/websites", query={"per_page": 10, "sort": "asc"})
    return str(page.body["meta"]["next_cursor"])


def continued(analytics: Client, cursor: str) -> Any:
    return analytics.get(
        "/api/v1/websites", query={"per_page": 10, "sort": "asc", "cursor": cursor}
    )


def kid_of(token: str) -> str:
    return str(json.loads(signing._unb64(token.split(".")[0]))["k"])


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_the_rotation_command_makes_a_new_active_key(kept, analytics, capsys):
    cursor = next_cursor(analytics)
    assert kid_of(cursor) == signing_keys.FIRST_KID  # a bare secret is key "0"
    shown = rotate(capsys=capsys)
    active = [row for row in shown if row["active"]]
    assert len(active) == 1 and active[0]["kid"] != signing_keys.FIRST_KID
    previous = next(row for row in shown if row["kid"] == signing_keys.FIRST_KID)
    assert abs(previous["verifies_until"] - (time.time() + 90 * DAY)) < 60  # the default
    assert all("secret" not in row for row in shown) and "f" * 64 not in str(shown)
    # this container signs with the new key at once (the command ran here); others within
    # MAX_AGE_SECONDS; the cursor signed before still continues its list
    assert kid_of(next_cursor(analytics)) == active[0]["kid"]
    assert continued(analytics, cursor).status == 200


def test_the_previous_key_verifies_for_the_overlap_and_never_after(
    keys_file, analytics, monkeypatch
):
    cursor = next_cursor(analytics)
    rotate("--overlap-days", "1")
    assert continued(analytics, cursor).status == 200
    later(monkeypatch, DAY - 60)
    assert continued(analytics, cursor).status == 200
    later(monkeypatch, DAY + 1)  # the key is still listed, and refused
    assert signing_keys.FIRST_KID in Path(keys_file).read_text()
    reply = continued(analytics, cursor)
    assert reply.status == 422 and reply.body["message"] == {"cursor": ["The cursor is invalid."]}
    rotate()  # the next rotation drops it
    assert [key.kid for key in signing_keys.current().keys if key.kid == "0"] == []


def test_a_rotation_with_no_overlap_refuses_the_previous_key_at_once(keys_file, analytics):
    cursor = next_cursor(analytics)
    rotate("--overlap-days", "0")
    assert continued(analytics, cursor).status == 422
    assert json.loads(Path(keys_file).read_text())["keys"][1:] == []
    assert os.stat(keys_file).st_mode & 0o077 == 0  # readable by its owner only


def test_a_token_naming_an_unknown_key_is_the_contract_s_4xx(aws_env, analytics):
    """Signed with a key of the right purpose, even, but naming a key the keyring lacks."""
    good = next_cursor(analytics)
    payload = json.loads(signing._unb64(good.split(".")[0]))
    for kid in ("nokey", "", "0" * 200):
        body = {**payload, "k": kid}
        forged = signing._b64(json.dumps(body, separators=(",", ":")).encode())
        reply = continued(analytics, f"{forged}.{good.split('.')[1]}")
        assert reply.status == 422 and reply.body["message"] == {
            "cursor": ["The cursor is invalid."]
        }
    unsubscribe = analytics.get("/api/v1/unsubscribe", query={"token": _unknown_kid()}, key=None)
    assert unsubscribe.status == 422


def _unknown_kid() -> str:
    token = signing.sign({"account": "1", "websites": "all"}, "unsubscribe", time.time() + 60)
    payload, signature = token.split(".")
    body = json.loads(signing._unb64(payload))
    return f"{signing._b64(json.dumps({**body, 'k': 'gone'}).encode())}.{signature}"


def test_keys_of_each_purpose_stay_apart_across_a_rotation(keys_file):
    rotate()
    keyring = signing_keys.current()
    derived = [key.derived(purpose) for key in keyring.keys for purpose in Purpose]
    assert len(set(derived)) == len(keyring.keys) * len(Purpose)
    token = signing.sign({"id": 1}, "guest", time.time() + 60)
    with pytest.raises(signing.BadToken):
        signing.verify(token, "unsubscribe")


def test_a_container_reads_the_stack_s_keyring_again_every_15_minutes(
    stack_secret, analytics, monkeypatch
):
    calls = []
    real = signing_keys.stored_secrets.secret_string
    monkeypatch.setattr(
        signing_keys.stored_secrets, "secret_string", lambda arn: calls.append(arn) or real(arn)
    )
    cursor = next_cursor(analytics)
    assert continued(analytics, cursor).status == 200
    assert len(calls) == 1  # once for every request of this container so far
    # rotated elsewhere (another operator's command): this container has not read it yet
    keyring = signing_keys.Keyring.parse("s" * 64).rotated(time.time(), DAY)
    boto3.client("secretsmanager").put_secret_value(
        SecretId=stack_secret, SecretString=keyring.text()
    )
    assert kid_of(next_cursor(analytics)) == "0"
    with another_container():
        newer = next_cursor(analytics)
    assert kid_of(newer) == keyring.active.kid
    later(monkeypatch, signing_keys.REREAD_SECONDS + 1)
    # a cursor of the new key continues here: its unknown kid makes the container read again
    assert continued(analytics, newer).status == 200
    assert len(calls) == 3  # the other container's read, and this one's again
    later(monkeypatch, signing_keys.MAX_AGE_SECONDS + 1)
    assert kid_of(next_cursor(analytics)) == keyring.active.kid
    assert continued(analytics, cursor).status == 200  # the previous key, in its overlap


def test_a_keyring_given_as_a_setting_cannot_be_rotated_by_the_command(aws_env, capsys):
    assert cli.main(["signing-keys", "rotate"]) == 1
    assert "SITELENS_SIGNING_KEYS" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{}",
        '{"keys": []}',
        '{"keys": [{"kid": "a b", "secret": "x"}]}',
        '{"keys": [{"kid": "a", "secret": "x"}, {"kid": "a", "secret": "y"}]}',
        '{"keys": [{"kid": "a", "secret": ""}]}',
        '{"keys": [{"kid": "a", "secret": "x", "verifies_until": "soon"}]}',
    ],
)
def test_a_malformed_keyring_fails_by_name_and_shows_no_secret(text):
    with pytest.raises(config.ConfigError, match="keyring") as failure:
        signing_keys.Keyring.parse(text)
    assert "x" not in str(failure.value).replace("text", "")


def test_make_serve_keeps_a_keyring_of_its_own_in_a_private_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = server.local_keys_file()
    assert path == str(tmp_path / ".sitelens-secret")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    first = Path(path).read_text()
    assert server.local_keys_file() == path and Path(path).read_text() == first  # kept
    assert signing_keys.Keyring.parse(first).active.kid == signing_keys.FIRST_KID


def test_any_one_variable_is_enough_and_none_fails_the_cold_start(aws_env, monkeypatch):
    path = gateway.ROOT / "functions/websites/list/app.py"
    monkeypatch.delenv("SITELENS_SIGNING_KEYS")
    for name in (
        "SITELENS_SIGNING_KEYS_ARN",
        "SITELENS_SIGNING_KEYS_PARAMETER",
        "SITELENS_SIGNING_KEYS_FILE",
        "SITELENS_CURSOR_SECRET_ARN",
    ):
        monkeypatch.setenv(name, "x")
        config.reset()
        assert callable(gateway.load_module(path).handler)
        monkeypatch.delenv(name)
    config.reset()
    with pytest.raises(config.ConfigError) as failure:
        gateway.load_module(path)
    expected = (
        "SITELENS_SIGNING_KEYS or SITELENS_SIGNING_KEYS_FILE or SITELENS_SIGNING_KEYS_ARN"
        " or SITELENS_SIGNING_KEYS_PARAMETER"
    )
    assert expected in str(failure.value)
    config.reset()


def test_the_template_passes_the_arn_never_the_value():
    text = template.DEFAULT_PATH.read_text()
    assert "{{resolve:" not in text and "CursorSecret" not in text
    loaded = template.load()
    variables = loaded["Globals"]["Function"]["Environment"]["Variables"]
    assert "SITELENS_SIGNING_KEYS" not in variables
    assert variables["SITELENS_SIGNING_KEYS_ARN"] == {
        "Fn::If": ["LeanProfile", {"Ref": "AWS::NoValue"}, {"Ref": "SigningKeys"}]
    }
    # generated as a bare secret: a keyring of one key, "0", until the first rotation
    generated = loaded["Resources"]["SigningKeys"]["Properties"]["GenerateSecretString"]
    assert "SecretStringTemplate" not in generated and generated["PasswordLength"] >= 32


# CostProfile=lean: the stack's SecureString parameter, which CloudFormation cannot create,
# made by the first use (a bare secret: key "0"), once even when two first uses race.


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


def test_two_first_uses_at_once_end_with_one_keyring_both_sign_with(stack_parameter, monkeypatch):
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
        boto3, "client", lambda name, *a: stack if name == "cloudformation" else real_client(name)
    )
    assert cli.main(["--stack", "shop", "signing-keys", "rotate", "--overlap-days", "1"]) == 0
    assert asked == []
    keyring = signing_keys.Keyring.parse(stored("/shop/signing-keys")["Value"])
    assert len(keyring.keys) == 2 and keyring.keys[1].kid == signing_keys.FIRST_KID
    assert stored("/shop/signing-keys")["Version"] == 2  # made, then overwritten by the operator
    out = capsys.readouterr().out
    assert keyring.active.secret not in out and keyring.keys[1].secret not in out
    boto3.client("ssm").delete_parameter(Name="/shop/signing-keys")
