"""Sealed crawl secrets under CostProfile=lean: AES-256-GCM under a random 256-bit key kept
in the stack's SecureString parameter (`ssm1.` tokens), made at the first seal; a token of
one kind (KMS's, the parameter's, make serve's) never unseals as another."""

from __future__ import annotations

import threading
import time

import boto3
import pytest

from sitelens.core import config
from sitelens.data.clients import client
from sitelens.tokens import sealing

SECRET = '{"headers":{"X-Staging":"let-me-in"},"basic_auth":"ann:hunter22","cookie":null}'


@pytest.fixture
def parameter(aws_env, monkeypatch) -> str:
    name = f"/stack{time.time_ns()}/seal-key"
    monkeypatch.delenv("SITELENS_SEAL_KEY_ID", raising=False)
    monkeypatch.setenv("SITELENS_SEAL_KEY_PARAMETER", name)
    config.reset()
    sealing.forget()
    return name


def stored(name: str) -> str:
    answer = boto3.client("ssm").get_parameter(Name=name, WithDecryption=True)
    return str(answer["Parameter"]["Value"])


def another_container() -> None:
    sealing.forget()


def test_a_round_trip_under_the_parameter_s_key(parameter):
    token = sealing.seal(SECRET)
    assert token.startswith("ssm1.") and "hunter22" not in token
    key = stored(parameter)  # made by the first seal: 256 random bits
    assert len(bytes.fromhex(key)) == 32
    another_container()
    assert sealing.unseal(token) == SECRET
    assert sealing.unseal(sealing.seal(SECRET)) == SECRET
    assert stored(parameter) == key  # kept, never replaced


def test_the_key_is_read_once_a_container(parameter, monkeypatch):
    sealing.seal(SECRET)
    another_container()
    reads = []
    real = sealing.stored_secrets.parameter_string
    monkeypatch.setattr(
        sealing.stored_secrets, "parameter_string", lambda name: reads.append(name) or real(name)
    )
    for _ in range(3):
        sealing.unseal(sealing.seal(SECRET))
    assert reads == [parameter]


def test_two_first_seals_at_once_keep_one_key(parameter, monkeypatch):
    both_found_none = threading.Barrier(2, timeout=10)

    def new_key_text() -> str:
        both_found_none.wait()
        return sealing.os.urandom(32).hex()

    monkeypatch.setattr(sealing, "_new_key_text", new_key_text)
    tokens: list[str] = []
    threads = [threading.Thread(target=lambda: tokens.append(sealing.seal(SECRET))) for _ in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    another_container()
    assert len(tokens) == 2 and [sealing.unseal(token) for token in tokens] == [SECRET] * 2


def test_unsealing_where_there_is_no_key_refuses_and_makes_none(parameter):
    token = sealing.seal(SECRET)
    boto3.client("ssm").delete_parameter(Name=parameter)
    another_container()
    with pytest.raises(sealing.BadSeal):
        sealing.unseal(token)
    with pytest.raises(boto3.client("ssm").exceptions.ParameterNotFound):
        boto3.client("ssm").get_parameter(Name=parameter)


def test_another_stack_s_key_does_not_unseal(parameter, monkeypatch):
    token = sealing.seal(SECRET)
    monkeypatch.setenv("SITELENS_SEAL_KEY_PARAMETER", parameter + "-other")
    config.reset()
    sealing.seal(SECRET)  # makes the other's key
    with pytest.raises(sealing.BadSeal):
        sealing.unseal(token)


@pytest.mark.parametrize("where", [7, 12, 30, -2])  # the nonce, the ciphertext, the tag
def test_a_changed_token_does_not_unseal(parameter, where):
    token = sealing.seal(SECRET)
    at = where % len(token)
    changed = token[:at] + ("A" if token[at] != "A" else "B") + token[at + 1 :]
    with pytest.raises(sealing.BadSeal):
        sealing.unseal(changed)


def test_a_token_of_one_kind_is_refused_as_another(parameter, monkeypatch):
    ssm_token = sealing.seal(SECRET)
    # make serve's kind, under a keyring: the same AES-GCM, another key and another name
    monkeypatch.setenv("SITELENS_SIGNING_KEYS", "a local secret")
    monkeypatch.delenv("SITELENS_SEAL_KEY_PARAMETER")
    config.reset()
    local_token = sealing.seal(SECRET)
    assert local_token.startswith("local1.")
    for token in (ssm_token, "local1." + ssm_token.split(".", 1)[1]):
        with pytest.raises(sealing.BadSeal):
            sealing.unseal(token)
    # KMS's (standard): neither of the others unseals, and its own not under the parameter
    key_id = client("kms").create_key(Description="seal")["KeyMetadata"]["KeyId"]
    monkeypatch.setenv("SITELENS_SEAL_KEY_ID", key_id)
    config.reset()
    kms_token = sealing.seal(SECRET)
    assert kms_token.startswith("kms1.") and sealing.unseal(kms_token) == SECRET
    with pytest.raises(sealing.BadSeal):
        sealing.unseal(ssm_token)  # no parameter named: no key to try
    monkeypatch.delenv("SITELENS_SEAL_KEY_ID")
    monkeypatch.setenv("SITELENS_SEAL_KEY_PARAMETER", parameter)
    config.reset()
    assert sealing.unseal(ssm_token) == SECRET
    for token in (kms_token, "ssm1." + kms_token.split(".", 1)[1], "ssm1." + local_token[7:]):
        with pytest.raises(sealing.BadSeal):
            sealing.unseal(token)


def test_a_malformed_key_fails_by_name_and_shows_no_key(parameter):
    boto3.client("ssm").put_parameter(Name=parameter, Value="not-hex-" * 8, Type="SecureString")
    with pytest.raises(config.ConfigError, match="seal-key") as failure:
        sealing.seal(SECRET)
    assert "not-hex" not in str(failure.value)
